//! Partials shared by the pages.

use maud::{html, Markup};

/// Partial: a labelled input with a slot for its error. The action script
/// fills the slot when the server names this field.
pub struct Field<'a> {
    pub label: &'a str,
    pub name: &'a str,
    pub kind: &'a str,
    pub value: &'a str,
    pub autocomplete: Option<&'a str>,
    pub required: bool,
    pub hint: Option<&'a str>,
}

impl<'a> Field<'a> {
    pub fn new(label: &'a str, name: &'a str, kind: &'a str) -> Self {
        Field {
            label,
            name,
            kind,
            value: "",
            autocomplete: None,
            required: false,
            hint: None,
        }
    }
    pub fn value(mut self, v: &'a str) -> Self {
        self.value = v;
        self
    }
    pub fn autocomplete(mut self, v: &'a str) -> Self {
        self.autocomplete = Some(v);
        self
    }
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }
    pub fn hint(mut self, h: &'a str) -> Self {
        self.hint = Some(h);
        self
    }

    pub fn render(&self) -> Markup {
        let id = format!("f-{}", self.name);
        let err_id = format!("{id}-error");
        let hint_id = format!("{id}-hint");
        let described = match self.hint {
            Some(_) => format!("{hint_id} {err_id}"),
            None => err_id.clone(),
        };
        html! {
            div.field {
                label for=(id) { (self.label) }
                input id=(id) name=(self.name) type=(self.kind) value=(self.value)
                    autocomplete=[self.autocomplete] required[self.required]
                    aria-describedby=(described);
                @if let Some(h) = self.hint { small.hint id=(hint_id) { (h) } }
                span.field-error id=(err_id) data-error-for=(self.name) aria-live="polite" {}
            }
        }
    }
}

/// Partial: where a form shows an error that is not about one field.
pub fn form_error() -> Markup {
    html! { p.form-error role="alert" hidden {} }
}

/// Partial: where a form shows its success message.
pub fn form_success(text: &str) -> Markup {
    html! { p.form-success role="status" hidden data-text=(text) {} }
}

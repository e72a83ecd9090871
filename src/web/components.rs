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
    /// Sent as `null` when left empty (optional fields of updates).
    pub nullable: bool,
    pub inputmode: Option<&'a str>,
    /// The element id, when `f-{name}` is taken by another form of the page.
    pub id: Option<&'a str>,
    /// An amount typed in the user's style (`data-type="amount"`, read by
    /// `i18n::amount` before the action sees it).
    pub amount: bool,
    /// The field the page starts in (the first of a sign-in form).
    pub autofocus: bool,
    /// A whole number, sent as a JSON number (`data-type="number"`).
    pub number: bool,
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
            nullable: false,
            inputmode: None,
            id: None,
            amount: false,
            autofocus: false,
            number: false,
        }
    }
    pub fn id(mut self, id: &'a str) -> Self {
        self.id = Some(id);
        self
    }
    pub fn nullable(mut self) -> Self {
        self.nullable = true;
        self
    }
    /// A positive amount in the user's style: text with the numeric
    /// keyboard on phones.
    pub fn decimal(mut self) -> Self {
        self.inputmode = Some("decimal");
        self.amount = true;
        self
    }
    /// An amount that may be negative (a balance): the user's style, and
    /// the full keyboard, since phones' decimal pads have no minus.
    pub fn signed_amount(mut self) -> Self {
        self.amount = true;
        self
    }
    /// A whole number from 0, sent as a JSON number, with the numeric
    /// keyboard on phones.
    pub fn whole_number(mut self) -> Self {
        self.kind = "number";
        self.inputmode = Some("numeric");
        self.number = true;
        self
    }
    /// The keyboard phones show (`numeric` for codes).
    pub fn inputmode(mut self, m: &'a str) -> Self {
        self.inputmode = Some(m);
        self
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
    pub fn autofocus(mut self) -> Self {
        self.autofocus = true;
        self
    }
    pub fn hint(mut self, h: &'a str) -> Self {
        self.hint = Some(h);
        self
    }

    pub fn render(&self) -> Markup {
        let id = match self.id {
            Some(id) => id.to_string(),
            None => format!("f-{}", self.name),
        };
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
                    autocomplete=[self.autocomplete] required[self.required] autofocus[self.autofocus]
                    data-nullable[self.nullable] inputmode=[self.inputmode]
                    data-type=[self.amount.then_some("amount").or(self.number.then_some("number"))]
                    min=[self.number.then_some("0")]
                    aria-describedby=(described);
                @if let Some(h) = self.hint { small.hint id=(hint_id) { (h) } }
                span.field-error id=(err_id) data-error-for=(self.name) aria-live="polite" {}
            }
        }
    }
}

/// Partial: a stored RFC 3339 timestamp as a `<time>`: the day and time in
/// UTC as the server writes them, which `app.js` turns into the browser's
/// local time.
pub fn local_time(ts: &str, locale: crate::domain::locale::Locale) -> Markup {
    html! { time datetime=(ts) data-local { (crate::i18n::format::date_time(ts, locale)) } }
}

/// Partial: where a form shows an error that is not about one field.
pub fn form_error() -> Markup {
    html! { p.form-error role="alert" hidden {} }
}

/// Partial: where a form shows its success message.
pub fn form_success(text: &str) -> Markup {
    html! { p.form-success role="status" hidden data-text=(text) {} }
}

/// Partial: a labelled `<select>`. `empty` adds a first option with an
/// empty value (sent as `null`) for optional references.
pub fn select(
    label: &str,
    name: &str,
    options: &[(String, String)],
    selected: Option<&str>,
    empty: Option<&str>,
) -> Markup {
    let id = format!("f-{name}");
    let err_id = format!("{id}-error");
    html! {
        div.field {
            label for=(id) { (label) }
            select id=(id) name=(name) aria-describedby=(err_id) data-nullable[empty.is_some()]
                data-type=[(name == "expiresInDays").then_some("number")] {
                @if let Some(e) = empty {
                    option value="" selected[selected.is_none()] { (e) }
                }
                @for (value, text) in options {
                    option value=(value) selected[selected == Some(value.as_str())] { (text) }
                }
            }
            span.field-error id=(err_id) data-error-for=(name) aria-live="polite" {}
        }
    }
}

/// Partial: a labelled multi-line text field.
pub fn textarea(label: &str, name: &str, value: &str) -> Markup {
    let id = format!("f-{name}");
    let err_id = format!("{id}-error");
    html! {
        div.field {
            label for=(id) { (label) }
            textarea id=(id) name=(name) rows="2" aria-describedby=(err_id) { (value) }
            span.field-error id=(err_id) data-error-for=(name) aria-live="polite" {}
        }
    }
}

/// Partial: a checkbox sent as a JSON boolean.
pub fn checkbox(label: &str, name: &str, checked: bool) -> Markup {
    let id = format!("f-{name}");
    html! {
        div.field.check {
            input id=(id) type="checkbox" name=(name) data-type="bool" checked[checked];
            label for=(id) { (label) }
            span.field-error data-error-for=(name) aria-live="polite" {}
        }
    }
}

/// Partial: a delete button that asks first and reloads the page after.
pub fn delete_button(action: &str, id: &str, confirm: &str, label: &str) -> Markup {
    html! {
        form.inline data-action=(action) data-confirm=(confirm) data-reload="" {
            input type="hidden" name="id" value=(id);
            button.link.danger type="submit" { (label) }
            (form_error())
        }
    }
}

/// One page of a long list: what `shown` says it shows ("Rows 51–100 of
/// 358"), and the links to the page before and after it, each an address
/// and its words, for a [`pager`]; `jumps` goes below them (e.g. the
/// [`page_links`] to every page).
#[derive(Clone)]
pub struct Pages<'a> {
    /// Names the navigation for screen readers ("Pages").
    pub label: &'a str,
    pub shown: String,
    pub prev: Option<(String, &'a str)>,
    pub next: Option<(String, &'a str)>,
    pub jumps: Option<Markup>,
}

/// Partial: a line of numbered links, one a page, after `word` ("Page"):
/// `hrefs[0]` is page 1's address; `current` (from 1) is marked as the page
/// shown. From there a phone reaches any page at once.
pub fn page_links(word: &str, current: u32, hrefs: &[String]) -> Markup {
    html! {
        p.jump {
            span.muted { (word) }
            @for (n, href) in (1u32..).zip(hrefs) {
                @if n == current {
                    a href=(href) aria-current="page" { (n) }
                } @else {
                    a href=(href) { (n) }
                }
            }
        }
    }
}

/// `text` as the value of a link's query parameter: every byte but the
/// unreserved ASCII letters, digits and `-._~` percent-encoded.
pub fn query_value(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Partial: `nav.pager`: the link to the page before (`rel="prev"`), what
/// this one shows, the link to the page after (`rel="next"`), and the
/// jumps below them.
pub fn pager(p: &Pages<'_>) -> Markup {
    html! {
        nav.pager aria-label=(p.label) {
            @if let Some((href, words)) = &p.prev {
                a.button href=(href) rel="prev" { "← " (words) }
            }
            span.muted { (p.shown) }
            @if let Some((href, words)) = &p.next {
                a.button href=(href) rel="next" { (words) " →" }
            }
            @if let Some(jumps) = &p.jumps { div.jumps { (jumps) } }
        }
    }
}

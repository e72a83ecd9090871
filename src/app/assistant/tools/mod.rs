//! The assistant's tools (`docs/actions.md`, Assistant).
//!
//! Split into [`catalogue`] (what the model is told), [`arguments`] (how
//! its arguments are read), [`write`] (the write tools, made from the
//! kinds of record they propose: previews and the booking of a confirmed
//! one) and [`reads`] (one row per read tool).
//!
//! Contract used by `chat`:
//! - [`catalogue`]: every tool, with a flat JSON-schema `parameters` object
//!   (no `$ref`, no `$defs`, no empty `enum`: local models refuse or
//!   misread them). The property names of a write tool are the camelCase
//!   input names of its action, so Confirm can send the arguments to the
//!   action ([`write_call`]) as they are.
//! - [`run`]`(state, user, name, arguments_json_text)` → [`Outcome`].
//! - [`preview`]: what a write tool would do (`previewTool`).
//!
//! Read tools run the very report functions the pages, the actions and the
//! REST API use (`reports::…`, `store::search`, `store::insights`), so the
//! assistant never has a number of its own; they answer compact JSON with
//! amounts as decimal strings with two decimals and the base currency named.
//!
//! Write tools never write. Their arguments are decoded into the action's
//! own input type and checked by its own `validate` (with the stored record
//! for an update, the per-user limit for a create), inside a transaction
//! that is rolled back, so a preview refuses exactly what the action would.
//!
//! Models are sloppy with arguments: they send `""` or a JSON string that
//! holds the object, numbers as strings, `snake_case` keys, `Monthly`,
//! `23.11.2026`. What can be read without guessing is read
//! ([`parse_arguments`], `normalise`); anything else fails naming the field.

use crate::error::{Error, Reason};
use crate::state::AppState;
use crate::store::users::User;
use serde::Serialize;
use serde_json::Value;

/// What a write tool would do, without doing it (`previewTool`'s reply).
#[derive(Clone, Debug, Serialize)]
pub struct Preview {
    pub tool: String,
    pub valid: bool,
    /// The action's refusals ("amount: must be greater than 0"); empty when valid.
    pub errors: Vec<String>,
    /// One line for the person, in their language.
    pub summary: String,
    /// What would be written: the validated fields, camelCase, amounts as
    /// decimal strings with two decimals, with `id` for an update; `null`
    /// when not valid.
    pub record: Value,
}

/// What running one tool call came to.
pub enum Outcome {
    /// A read tool ran: its result for the model, and what it looked at,
    /// a line for the person ("looked at your forecast for Tagesgeld").
    Read {
        result: Value,
        looked: crate::i18n::assistant::Looked,
    },
    /// A write tool with a valid preview: not run, proposed. `arguments`
    /// are the ones to send to the action ([`write_call`]) on Confirm.
    Proposed { arguments: Value, preview: Preview },
    /// Unknown tool, bad arguments, no such record, a write the action
    /// would refuse: told to the model as `{"error": …}` so it can correct
    /// the call or ask.
    Failed(String),
}

mod arguments;
mod catalogue;
mod reads;
mod values;
mod write;

pub use arguments::{as_object, parse_arguments};
pub use catalogue::catalogue;
pub use reads::PAYMENTS_MAX;
pub use write::{book, is_write, preview, spends, write_call};

use arguments::Args;
#[cfg(test)]
use arguments::*;
use reads::{read, READ_TOOLS};
#[cfg(test)]
use values::*;
use write::WRITE_TOOLS;
#[cfg(test)]
use write::*;

/// Runs one tool call of the model for `user`. A read tool answers its
/// result; a write tool is only previewed: valid → [`Outcome::Proposed`],
/// refused → [`Outcome::Failed`] with the action's error, so that the model
/// corrects the call or asks the user.
pub async fn run(state: &AppState, user: &User, name: &str, arguments: &str) -> Outcome {
    let args = match parse_arguments(arguments) {
        Ok(a) => a,
        Err(e) => return Outcome::Failed(e),
    };
    let outcome = if is_write(name) {
        preview(state, user, name, args)
            .await
            .map(|(arguments, preview)| {
                if preview.valid {
                    Outcome::Proposed { arguments, preview }
                } else {
                    Outcome::Failed(preview.errors.join("; "))
                }
            })
    } else if let Some(run) = reads::find(name) {
        read(state, user, run, Args(args))
            .await
            .map(|(result, looked)| Outcome::Read { result, looked })
    } else {
        let names: Vec<&str> = READ_TOOLS
            .iter()
            .map(|t| t.0)
            .chain(WRITE_TOOLS.iter().map(|t| t.name.as_str()))
            .collect();
        Err(Error::refused(Reason::UnknownTool {
            name: name.to_string(),
            tools: names.into_iter().map(String::from).collect(),
        }))
    };
    // The model reads the error in English words, so that it can correct
    // the call or tell the person (a busy database: to try again soon).
    outcome.unwrap_or_else(|e| {
        e.log();
        Outcome::Failed(e.text(crate::domain::locale::Locale::En))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::records::{self, DailyInput, ExpenseInput, IncomeInput, Record, TransferInput};
    use crate::domain::locale::Locale;
    use crate::domain::recurrence::{Frequency, Schedule};
    use crate::store::daily_expenses::DailyEntry;
    use crate::store::recurring::{NewRecurring, Planned};
    use crate::store::users::UserId;
    use chrono::NaiveDate;
    use rusqlite::Connection;
    use rust_decimal::Decimal;
    use serde_json::json;

    fn user(locale: Locale) -> User {
        User {
            id: UserId::test("u"),
            email: "u@example.org".into(),
            name: String::new(),
            locale,
            base_currency: "EUR".into(),
            created_at: String::new(),
        }
    }

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn dec(s: &str) -> Decimal {
        Decimal::from_str_exact(s).unwrap()
    }

    fn args(v: Value) -> Args {
        Args(v.as_object().unwrap().clone())
    }

    /// Every `$ref`, `$defs` and empty `enum` anywhere in `v`.
    fn unwanted(v: &Value, path: &str, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if k == "$ref" || k == "$defs" || k == "definitions" {
                        out.push(format!("{path}.{k}"));
                    }
                    if k == "enum" && x.as_array().is_none_or(|a| a.is_empty()) {
                        out.push(format!("{path}.enum"));
                    }
                    unwanted(x, &format!("{path}.{k}"), out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| unwanted(x, path, out)),
            _ => {}
        }
    }

    #[test]
    fn the_catalogue_is_flat_and_named_verb_object() {
        let tools = catalogue();
        assert_eq!(tools.len(), READ_TOOLS.len() + WRITE_TOOLS.len());
        let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), tools.len(), "names are unique");
        for t in &tools {
            assert!(
                t.name.chars().all(|c| c.is_ascii_lowercase() || c == '_') && t.name.contains('_')
                    || t.name == "search",
                "{} is snake_case verb_object",
                t.name
            );
            assert!(!t.description.is_empty());
            let p = &t.parameters;
            assert_eq!(p["type"], "object", "{}", t.name);
            let props = p["properties"].as_object().unwrap();
            for r in p["required"].as_array().unwrap() {
                assert!(props.contains_key(r.as_str().unwrap()), "{} {r}", t.name);
            }
            for (k, v) in props {
                assert!(v["type"].is_string(), "{}.{k} has one type", t.name);
                assert!(!k.contains('_'), "{}.{k} is camelCase", t.name);
            }
            let mut bad = Vec::new();
            unwanted(p, &t.name, &mut bad);
            assert!(bad.is_empty(), "{bad:?}");
        }
    }

    /// The write tools create and update the kinds they propose, each a
    /// kind of record `each_kind` registers; the door names their actions
    /// (`http::names::tool`).
    #[test]
    fn the_write_tools_are_record_kinds_create_and_update_actions() {
        struct Nouns(Vec<[&'static str; 2]>);
        impl records::EachKind for Nouns {
            fn kind<R: Record>(&mut self) {
                self.0.push(R::NOUN);
            }
        }
        let mut kinds = Nouns(Vec::new());
        records::each_kind(&mut kinds);
        for t in WRITE_TOOLS.iter() {
            let mut called = Nouns(Vec::new());
            let verb = write_call(&t.name, &mut called).expect("a write tool");
            assert_eq!(called.0.len(), 1, "{}: one kind", t.name);
            let noun = called.0[0];
            assert!(kinds.0.contains(&noun), "{} writes no record kind", t.name);
            let word = if t.update { "update" } else { "create" };
            assert_eq!(
                verb,
                if t.update {
                    records::Verb::Update
                } else {
                    records::Verb::Create
                }
            );
            assert_eq!(t.name, format!("{word}{}", snake(noun[0])));
        }
        assert!(write_call("get_summary", &mut Nouns(Vec::new())).is_none());
        let names: Vec<&str> = WRITE_TOOLS.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "create_daily_expense",
                "update_daily_expense",
                "create_expense",
                "update_expense",
                "create_income",
                "update_income",
                "create_transfer",
                "update_transfer",
            ]
        );
        let spending: Vec<&str> = names.iter().copied().filter(|n| spends(n)).collect();
        assert_eq!(
            spending,
            [
                "create_daily_expense",
                "update_daily_expense",
                "create_expense",
                "update_expense"
            ]
        );
    }

    /// The names a `#[derive(Deserialize)]` struct reads, as it tells a
    /// deserializer asked for it.
    fn input_fields<T: serde::de::DeserializeOwned>() -> &'static [&'static str] {
        use serde::de::{self, Visitor};
        struct Names<'a>(&'a mut &'static [&'static str]);
        impl<'de> de::Deserializer<'de> for Names<'_> {
            type Error = de::value::Error;
            fn deserialize_any<V: Visitor<'de>>(
                self,
                _: V,
            ) -> std::result::Result<V::Value, Self::Error> {
                Err(de::Error::custom("not a struct"))
            }
            fn deserialize_struct<V: Visitor<'de>>(
                self,
                _: &'static str,
                fields: &'static [&'static str],
                _: V,
            ) -> std::result::Result<V::Value, Self::Error> {
                *self.0 = fields;
                Err(de::Error::custom("only its names"))
            }
            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
                bytes byte_buf option unit unit_struct newtype_struct seq tuple
                tuple_struct map enum identifier ignored_any
            }
        }
        let mut names: &'static [&'static str] = &[];
        let _ = T::deserialize(Names(&mut names));
        names
    }

    /// A write tool's fields are its input's own: a field renamed in the
    /// input fails here, not in a model's call.
    #[test]
    fn write_tools_take_their_inputs_fields() {
        fn check<R: Proposal>() {
            let names = input_fields::<R>();
            assert!(names.contains(&"name") || names.contains(&"amount"));
            for Field(field, ..) in R::FIELDS {
                assert!(
                    names.contains(field),
                    "{}: {field} is no field of its input {names:?}",
                    R::NOUN[0]
                );
            }
        }
        check::<DailyInput>();
        check::<ExpenseInput>();
        check::<IncomeInput>();
        check::<TransferInput>();
        assert_eq!(WRITE_TOOLS.len(), 2 * 4, "a kind proposed is checked above");
    }

    #[test]
    fn only_updates_take_an_id() {
        for WriteTool {
            name: tool, update, ..
        } in WRITE_TOOLS.iter()
        {
            assert!(is_write(tool));
            let schema = catalogue()
                .into_iter()
                .find(|t| t.name == *tool)
                .unwrap()
                .parameters;
            assert_eq!(
                schema["properties"].get("id").is_some(),
                *update,
                "{tool}: only updates take an id"
            );
        }
        assert!(!is_write("get_summary"));
    }

    #[test]
    fn frequencies_offer_once_only_where_the_action_takes_it() {
        let tools = catalogue();
        let codes = |name: &str| -> Vec<String> {
            let t = tools.iter().find(|t| t.name == name).unwrap();
            t.parameters["properties"]["frequency"]["enum"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        assert!(!codes("create_expense").contains(&"once".to_string()));
        assert!(codes("create_income").contains(&"once".to_string()));
        assert!(codes("update_transfer").contains(&"half_yearly".to_string()));
    }

    #[test]
    fn arguments_are_an_object_however_the_model_sends_it() {
        assert!(parse_arguments("").unwrap().is_empty());
        assert!(parse_arguments("  null ").unwrap().is_empty());
        assert!(parse_arguments("{}").unwrap().is_empty());
        assert_eq!(parse_arguments(r#"{"a":1}"#).unwrap()["a"], 1);
        // The object's JSON inside a JSON string.
        assert_eq!(parse_arguments(r#""{\"a\":1}""#).unwrap()["a"], 1);
        assert_eq!(
            parse_arguments("[1]").unwrap_err(),
            "arguments: must be a JSON object"
        );
        assert!(parse_arguments("{nope")
            .unwrap_err()
            .starts_with("arguments: not valid JSON"));
    }

    #[test]
    fn write_arguments_are_tidied_to_the_actions_names_and_forms() {
        let got = normalise(
            ExpenseInput::FIELDS,
            false,
            json!({
                "id": "ignored on a create",
                "name": 42,
                "amount": "12,40 €",
                "frequency": "Half-Yearly",
                "start_date": "01.12.2026",
                "endDate": "2027-06-01T00:00:00Z",
                "account_id": "a1",
                "isSubscription": "yes",
                "colour": "red",
            })
            .as_object()
            .unwrap()
            .clone(),
        );
        assert_eq!(
            Value::Object(got),
            json!({
                "name": "42",
                "amount": "12,40",
                "frequency": "half_yearly",
                "startDate": "2026-12-01",
                "endDate": "2027-06-01",
                "accountId": "a1",
                "isSubscription": true,
            })
        );
        // An update keeps its id, and null (which clears a field).
        let got = normalise(
            IncomeInput::FIELDS,
            true,
            json!({"id": "x", "endDate": null, "frequency": "annually", "amount": 5})
                .as_object()
                .unwrap()
                .clone(),
        );
        assert_eq!(
            Value::Object(got),
            json!({"id": "x", "endDate": null, "frequency": "yearly", "amount": 5})
        );
        // What cannot be read stays, for the action to refuse by name.
        let got = normalise(
            ExpenseInput::FIELDS,
            false,
            json!({"isSubscription": "maybe", "startDate": "next week"})
                .as_object()
                .unwrap()
                .clone(),
        );
        assert_eq!(got["isSubscription"], "maybe");
        assert_eq!(got["startDate"], "next week");
        assert_eq!(normalise_frequency("einmalig"), "once");
        assert_eq!(normalise_frequency("Monthly"), "monthly");
        assert_eq!(normalise_date("5.3.2026"), "2026-03-05");
        assert_eq!(normalise_date("2026-03-05"), "2026-03-05");
        assert_eq!(normalise_date("5.3.26"), "5.3.26");
        assert_eq!(normalise_date("2026-03-05 10:00"), "2026-03-05");
        assert_eq!(normalise_date("2026-03-05ä"), "2026-03-05ä", "no panic");
        assert_eq!(normalise_date("ääääää"), "ääääää");
    }

    #[test]
    fn the_month_is_read_like_get_dashboard_and_from_yyyy_mm() {
        let today = day("2026-11-23");
        assert_eq!(args(json!({})).month(today).unwrap(), day("2026-11-01"));
        assert_eq!(
            args(json!({"year": 2025})).month(today).unwrap(),
            day("2025-01-01")
        );
        assert_eq!(
            args(json!({"year": "2025", "month": "7"}))
                .month(today)
                .unwrap(),
            day("2025-07-01")
        );
        assert_eq!(
            args(json!({"month": "2026-08"})).month(today).unwrap(),
            day("2026-08-01")
        );
        assert_eq!(
            args(json!({"month": 3.0})).month(today).unwrap(),
            day("2026-03-01")
        );
        assert_eq!(
            args(json!({"year": null, "month": ""}))
                .month(today)
                .unwrap(),
            day("2026-11-01"),
            "null and empty count as left out"
        );
        let err = |v: Value| args(v).month(today).unwrap_err().to_string();
        assert_eq!(
            err(json!({"month": 13})),
            "month: must be a whole number from 1 to 12"
        );
        assert_eq!(
            err(json!({"year": "soon"})),
            "year: must be a whole number from 1900 to 2200"
        );
        assert_eq!(
            err(json!({"month": "2026-13"})),
            "month: must be a month YYYY-MM"
        );
        assert_eq!(
            args(json!({"account_name": "Giro"}))
                .text("accountName")
                .unwrap()
                .as_deref(),
            Some("Giro"),
            "snake_case names are read too"
        );
    }

    #[test]
    fn lines_speak_the_users_language() {
        let c = Connection::open_in_memory().unwrap();
        let mut expense = DailyEntry {
            name: "Bäckerei".into(),
            amount: dec("12.4").into(),
            currency: "EUR".into(),
            date: day("2026-11-23"),
            account_id: "a".into(),
            category_id: None,
            merchant: String::new(),
            notes: String::new(),
        };
        let line = |e: &DailyEntry, l| DailyInput::line(&c, &user(l), e).unwrap();
        assert_eq!(
            line(&expense, Locale::De),
            "Einzelausgabe 12,40\u{a0}€ bei Bäckerei am 23.11.2026"
        );
        assert_eq!(
            line(&expense, Locale::En),
            "One-time expense €12.40 at Bäckerei on 23\u{a0}Nov\u{a0}2026"
        );
        expense.name = "Brötchen".into();
        expense.merchant = "Bäckerei Müller".into();
        assert_eq!(
            line(&expense, Locale::De),
            "Einzelausgabe „Brötchen“ 12,40\u{a0}€ bei Bäckerei Müller am 23.11.2026"
        );

        let rent = NewRecurring {
            name: "Miete".into(),
            plan: Planned::new(
                dec("900"),
                "EUR".into(),
                Schedule::new(
                    Frequency::Monthly,
                    day("2026-12-01"),
                    Some(day("2027-11-30")),
                )
                .unwrap(),
            ),
            account_id: "a".into(),
            category_id: None,
            is_subscription: false,
            notes: String::new(),
            amount_from: None,
            terms: Default::default(),
        };
        assert_eq!(
            ExpenseInput::line(&c, &user(Locale::De), &rent).unwrap(),
            "Wiederkehrende Ausgabe „Miete“ 900,00\u{a0}€ monatlich ab 01.12.2026 bis 30.11.2027"
        );
        let bonus = NewRecurring {
            name: "Bonus".into(),
            plan: Planned::new(dec("500"), "USD".into(), Schedule::once(day("2026-12-01"))),
            account_id: "a".into(),
            category_id: None,
            is_subscription: false,
            notes: String::new(),
            amount_from: None,
            terms: Default::default(),
        };
        assert_eq!(
            IncomeInput::line(&c, &user(Locale::En), &bonus).unwrap(),
            "Income “Bonus” $500.00 on 1\u{a0}Dec\u{a0}2026"
        );
    }

    #[test]
    fn records_carry_amounts_with_two_decimals_and_camel_case_names() {
        let r = IncomeInput::record(&NewRecurring {
            name: "Gehalt".into(),
            plan: Planned::new(
                dec("2500"),
                "EUR".into(),
                Schedule::new(Frequency::Monthly, day("2026-01-01"), None).unwrap(),
            ),
            account_id: "a".into(),
            category_id: None,
            is_subscription: false,
            notes: String::new(),
            amount_from: None,
            terms: Default::default(),
        });
        assert_eq!(
            Value::Object(r),
            json!({
                "name": "Gehalt", "amount": "2500.00", "currency": "EUR",
                "frequency": "monthly", "startDate": "2026-01-01", "endDate": null,
                "accountId": "a", "notes": "",
            })
        );
        assert_eq!(amt(dec("0.1")), json!("0.10"));
        assert_eq!(pct(Some(dec("12.34"))), json!("12.3"));
        assert_eq!(pct(None), Value::Null);
    }
}

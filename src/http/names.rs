//! The names of actions a door derives from the application layer's types:
//! a kind of record's four actions, named from its noun ([`record`]:
//! `["Transfer", "Transfers"]` gives `listTransfers` … `deleteTransfer`,
//! a public contract in `docs/actions.md`), and the action an assistant's
//! write tool's Confirm calls ([`tool`]).

use crate::app::assistant::tools;
use crate::app::records::{EachKind, Record, Verb};

/// The name of the action `verb` of the kind of record `R`:
/// `listCategories`, `createCategory`, `updateCategory`, `deleteCategory`.
pub fn record<R: Record>(verb: Verb) -> String {
    named(R::NOUN, verb)
}

fn named([one, many]: [&str; 2], verb: Verb) -> String {
    match verb {
        Verb::List => format!("list{many}"),
        Verb::Create => format!("create{one}"),
        Verb::Update => format!("update{one}"),
        Verb::Delete => format!("delete{one}"),
    }
}

/// The action a write tool's Confirm calls with its arguments
/// (`create_daily_expense` → `createDailyExpense`); `None` for a read tool
/// or an unknown name.
pub fn tool(name: &str) -> Option<String> {
    struct Noun([&'static str; 2]);
    impl EachKind for Noun {
        fn kind<R: Record>(&mut self) {
            self.0 = R::NOUN;
        }
    }
    let mut noun = Noun(["", ""]);
    let verb = tools::write_call(name, &mut noun)?;
    Some(named(noun.0, verb))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_write_tool_names_its_action_in_camel_case() {
        let mut writes = 0;
        for t in tools::catalogue() {
            if !tools::is_write(&t.name) {
                assert_eq!(tool(&t.name), None, "{}", t.name);
                continue;
            }
            // The action is the tool's name in camelCase.
            let camel: String = t
                .name
                .split('_')
                .enumerate()
                .map(|(i, w)| {
                    if i == 0 {
                        w.to_string()
                    } else {
                        w[..1].to_uppercase() + &w[1..]
                    }
                })
                .collect();
            assert_eq!(tool(&t.name), Some(camel));
            writes += 1;
        }
        assert_eq!(writes, 8, "a create and an update per kind of record");
        assert_eq!(tool("get_summary"), None);
    }

    #[test]
    fn a_kind_is_named_by_its_noun() {
        use crate::app::records::CategoryInput;
        let names: Vec<String> = Verb::ALL.into_iter().map(record::<CategoryInput>).collect();
        assert_eq!(
            names,
            [
                "listCategories",
                "createCategory",
                "updateCategory",
                "deleteCategory"
            ]
        );
    }
}

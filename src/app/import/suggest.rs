//! `reconcileImport {ai: true}`: the AI provider suggests categories for
//! uncategorised new rows and points out rows that may be records already
//! there. Suggestions only: they are shown in the row's `reason` and never
//! change a status, a category or a decision. See `docs/import.md`.

use super::existing::Existing;
use crate::domain::import::reconcile::{Reason, Status, WINDOW_DAYS};
use crate::error::{AiTask, Reason as Refusal, Result};
use crate::services::ai::{ChatRequest, JsonSchema, Message};
use crate::state::AppState;
use crate::store::categories::Category;
use crate::store::imports;
use crate::store::table;
use crate::store::users::{User, UserId};
use chrono::NaiveDate;
use rusqlite::Connection;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::HashMap;

/// At most this many distinct payees and possible duplicates go to the model.
const PAYEES_MAX: usize = 80;
const PAIRS_MAX: usize = 40;

/// What the AI did, in `reconcileImport`'s answer.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub categories: usize,
    pub duplicates: usize,
    /// Why there are no suggestions (no provider, or it failed), as the
    /// person reads it, in their language.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A new row that has a record of the same amount a few days apart.
struct Pair {
    row_id: String,
    row: String,
    name: String,
    date: NaiveDate,
    record: String,
}

/// What to ask, collected inside the reconciling transaction.
pub struct Work {
    /// Payee text shown to the model → the ids of its rows.
    payees: Vec<(String, Vec<String>)>,
    categories: Vec<(String, String)>,
    pairs: Vec<Pair>,
}

impl Work {
    pub fn collect(
        c: &Connection,
        user: &UserId,
        batch_id: &str,
        existing: &Existing,
    ) -> Result<Work> {
        // The batch's new rows: what the model is asked about.
        let rows = imports::rows(c, batch_id, Some(Status::New), 0, 0, i64::MAX)?;
        let categories = table::all::<Category>(c, user)?
            .into_iter()
            .map(|c| (c.id, c.name))
            .collect();
        let mut by_payee: HashMap<String, Vec<String>> = HashMap::new();
        let mut order: Vec<String> = Vec::new();
        let mut pairs = Vec::new();
        for r in &rows {
            let text = if r.payee.trim().is_empty() {
                r.memo.trim()
            } else {
                r.payee.trim()
            };
            if r.category_id.is_none() && !text.is_empty() {
                let text: String = text.chars().take(120).collect();
                let ids = by_payee.entry(text.clone()).or_insert_with(|| {
                    order.push(text);
                    Vec::new()
                });
                ids.push(r.id.clone());
            }
            if pairs.len() < PAIRS_MAX {
                let (Some(date), Some(cents)) = (r.date, r.cents) else {
                    continue;
                };
                let near = existing
                    .entries
                    .iter()
                    .find(|e| e.cents == cents && (e.date - date).num_days().abs() <= WINDOW_DAYS);
                if let Some(e) = near {
                    pairs.push(Pair {
                        row_id: r.id.clone(),
                        row: format!("{date} {} {text}", money(cents)),
                        name: e.name.clone(),
                        date: e.date,
                        record: format!("{} {} {}", e.date, money(e.cents), e.name),
                    });
                }
            }
        }
        // The payees with the most rows first.
        order.sort_by_key(|p| std::cmp::Reverse(by_payee[p].len()));
        order.truncate(PAYEES_MAX);
        let payees = order
            .into_iter()
            .map(|p| {
                let ids = by_payee.remove(&p).unwrap_or_default();
                (p, ids)
            })
            .collect();
        Ok(Work {
            payees,
            categories,
            pairs,
        })
    }
}

fn money(cents: i64) -> String {
    format!("{:.2}", crate::domain::money::from_cents(cents))
}

const ASK: &str = "You help import a bank statement into a personal finance app. \
1. For each payee in \"payees\", choose the best matching category name from \"categories\", \
or null when none fits; never invent a category. \
2. Each item of \"pairs\" is a new bank row and an existing record with the same amount a few days apart. \
List the numbers of the pairs that are most likely the same payment. \
Answer only with JSON: {\"categories\": [{\"payee\": \"…\", \"category\": \"…\" or null}], \"duplicates\": [numbers]}.";

/// Asks the model and stores its suggestions in the rows' reasons.
pub async fn suggest(state: &AppState, user: &User, batch_id: &str, work: Work) -> Result<Summary> {
    // A plain sentence in the user's language; the cause goes to the log.
    let failed = |why: Refusal| Summary {
        categories: 0,
        duplicates: 0,
        error: Some(crate::Error::refused(why).text(user.locale)),
    };
    let Some(ai) = state.ai.as_ref() else {
        return Ok(failed(Refusal::AiOff(AiTask::ImportSuggestions)));
    };
    if work.payees.is_empty() && work.pairs.is_empty() {
        return Ok(Summary {
            categories: 0,
            duplicates: 0,
            error: None,
        });
    }
    let question = json!({
        "categories": work.categories.iter().map(|(_, n)| n).collect::<Vec<_>>(),
        "payees": work.payees.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        "pairs": work.pairs.iter().enumerate()
            .map(|(i, p)| json!({"number": i, "bankRow": p.row, "record": p.record}))
            .collect::<Vec<_>>(),
    });
    let mut request = ChatRequest::new(
        ai.model(),
        vec![Message::system(ASK), Message::user(question.to_string())],
    );
    request.json_schema = Some(JsonSchema {
        name: "import_suggestions".into(),
        schema: json!({
            "type": "object",
            "properties": {
                "categories": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "payee": {"type": "string"},
                        "category": {"type": ["string", "null"]}
                    },
                    "required": ["payee", "category"]
                }},
                "duplicates": {"type": "array", "items": {"type": "integer"}}
            },
            "required": ["categories", "duplicates"]
        }),
    });
    let answer = match ai.complete_json(&request).await {
        Ok(a) => a,
        Err(e) => {
            tracing::warn!(error = %e, "import suggestions: the AI provider failed");
            return Ok(failed(if e.is_unusable_answer() {
                Refusal::AiUnusable(AiTask::ImportSuggestions)
            } else {
                Refusal::AiUnavailable(AiTask::ImportSuggestions)
            }));
        }
    };

    // Only names of the user's categories and payees that were asked count.
    let known: HashMap<String, (&str, &str)> = work
        .categories
        .iter()
        .map(|(id, n)| (n.to_lowercase(), (id.as_str(), n.as_str())))
        .collect();
    // Per row: the reason shown, and the category suggested with it.
    let mut reasons: Vec<(String, Reason, Option<String>)> = Vec::new();
    let payees: HashMap<&str, &Vec<String>> = work
        .payees
        .iter()
        .map(|(p, ids)| (p.as_str(), ids))
        .collect();
    let mut categories = 0;
    for item in answer
        .get("categories")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let payee = item
            .get("payee")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let category = item
            .get("category")
            .and_then(Value::as_str)
            .and_then(|c| known.get(&c.trim().to_lowercase()));
        if let (Some(ids), Some((category_id, category))) = (payees.get(payee), category) {
            categories += ids.len();
            for id in ids.iter() {
                reasons.push((
                    id.clone(),
                    Reason::AiCategory {
                        category: category.to_string(),
                    },
                    Some(category_id.to_string()),
                ));
            }
        }
    }
    let mut duplicates = 0;
    for n in answer
        .get("duplicates")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_u64)
    {
        if let Some(p) = work.pairs.get(n as usize) {
            duplicates += 1;
            // A possible duplicate says more than a category.
            reasons.retain(|(id, _, _)| id != &p.row_id);
            reasons.push((
                p.row_id.clone(),
                Reason::AiDuplicate {
                    name: p.name.clone(),
                    date: p.date,
                },
                None,
            ));
        }
    }
    let (user_id, batch) = (user.id.clone(), batch_id.to_string());
    state
        .db
        .transaction(move |tx| {
            // The batch may have been confirmed or cancelled meanwhile.
            match imports::find(tx, &user_id, &batch)? {
                Some(b) if b.status.is_open() => {}
                _ => return Ok(()),
            }
            for (row_id, reason, category) in &reasons {
                match category {
                    Some(category_id) => imports::set_suggestion(tx, row_id, category_id, reason)?,
                    None => imports::set_reason(tx, row_id, reason)?,
                }
            }
            Ok(())
        })
        .await?;
    Ok(Summary {
        categories,
        duplicates,
        error: None,
    })
}

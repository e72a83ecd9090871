//! The assistant's tools. (Interface; built in its own change.)
//!
//! Contract used by `chat`:
//! - `catalogue() -> Vec<crate::services::ai::Tool>`: every tool, with a
//!   JSON-schema `parameters` object whose property names are the camelCase
//!   input names of the matching action (write tools) so that Confirm can
//!   send the arguments to the action as they are.
//! - `run(state, user, name, arguments_json_text) -> Outcome`.
//! - `register(r)`: registers `previewTool {tool, arguments}` →
//!   `{tool, valid, errors, summary, record}`.

use crate::services::ai::Tool;
use crate::state::AppState;
use crate::store::users::User;
use serde::Serialize;
use serde_json::Value;

/// What a write tool would do, without doing it (`previewTool`'s reply).
#[derive(Clone, Debug, Serialize)]
pub struct Preview {
    pub tool: String,
    pub valid: bool,
    pub errors: Vec<String>,
    pub summary: String,
    pub record: Value,
}

/// What running one tool call came to.
pub enum Outcome {
    /// A read tool ran: its result for the model, and a line for the
    /// person ("looked at your forecast for Tagesgeld").
    Read { result: Value, summary: String },
    /// A write tool: not run, proposed.
    Proposed { arguments: Value, preview: Preview },
    /// Unknown tool, bad arguments, no such record: told to the model as
    /// `{"error": …}`.
    Failed(String),
}

pub fn catalogue() -> Vec<Tool> {
    Vec::new()
}

pub async fn run(_state: &AppState, _user: &User, name: &str, _arguments: &str) -> Outcome {
    Outcome::Failed(format!("unknown tool {name}"))
}

pub fn register(_r: &mut super::super::Registry) {}

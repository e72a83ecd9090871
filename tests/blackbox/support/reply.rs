//! An action's reply: status, headers and the parsed envelope
//! `{"success", "data" | "error"}`.

use reqwest::header::HeaderMap;
use reqwest::StatusCode;
use serde_json::{json, Value};

/// A reply of an action: status, headers and the parsed envelope.
pub struct ActionReply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl ActionReply {
    pub fn ok(&self) -> bool {
        self.body["success"] == json!(true)
    }
    pub fn data(&self) -> &Value {
        assert!(
            self.ok(),
            "expected success, got {} {}",
            self.status,
            self.body
        );
        &self.body["data"]
    }
    pub fn error(&self) -> Option<&str> {
        self.body["error"].as_str()
    }
    /// The value of the session cookie this reply sets.
    pub fn session_cookie(&self) -> Option<String> {
        self.set_cookie()
            .and_then(|c| c.split(';').next().map(str::to_string))
            .and_then(|kv| kv.strip_prefix("cashkeeper_session=").map(str::to_string))
    }
    pub fn set_cookie(&self) -> Option<String> {
        self.headers
            .get("set-cookie")
            .map(|v| v.to_str().unwrap().to_string())
    }
}

//! `multipart/form-data` bodies as a browser's form sends them, and the
//! uploads the tests make with them.

use super::TestApp;
use serde_json::Value;

const BOUNDARY: &str = "cashkeeper-test-boundary-7MA4YWxkTrZu0gW";

/// One part of a multipart body: a field, or a file with its name.
pub struct Part<'a> {
    pub name: &'a str,
    pub file_name: Option<&'a str>,
    pub content_type: Option<&'a str>,
    pub bytes: &'a [u8],
}

/// The body of `parts` and its `content-type` header.
pub fn multipart(parts: &[Part<'_>]) -> (String, Vec<u8>) {
    let mut body = Vec::new();
    for p in parts {
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        let mut disposition = format!("Content-Disposition: form-data; name=\"{}\"", p.name);
        if let Some(f) = p.file_name {
            disposition.push_str(&format!("; filename=\"{f}\""));
        }
        body.extend_from_slice(disposition.as_bytes());
        body.extend_from_slice(b"\r\n");
        if let Some(t) = p.content_type {
            body.extend_from_slice(format!("Content-Type: {t}\r\n").as_bytes());
        }
        body.extend_from_slice(b"\r\n");
        body.extend_from_slice(p.bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={BOUNDARY}"), body)
}

/// Fields and files as `(name, file name, bytes)`, each file of type
/// `content_type`: the body and its `content-type` header.
pub fn form(parts: &[(&str, Option<&str>, &[u8])], content_type: &str) -> (String, Vec<u8>) {
    let parts: Vec<Part<'_>> = parts
        .iter()
        .map(|&(name, file_name, bytes)| Part {
            name,
            file_name,
            content_type: file_name.map(|_| content_type),
            bytes,
        })
        .collect();
    multipart(&parts)
}

/// `POST {base}/api/import-data` of the archive `bytes` ("Load my data" in
/// the settings) as `cookie`'s user: the status and the JSON body (null
/// when there is none). `base` is an app's address, also one the tests
/// start as a process of its own.
pub async fn load_archive(
    client: &reqwest::Client,
    base: &str,
    cookie: Option<&str>,
    bytes: &[u8],
) -> (u16, Value) {
    let (content_type, body) = multipart(&[Part {
        name: "file",
        file_name: Some("export.zip"),
        content_type: Some("application/zip"),
        bytes,
    }]);
    let mut req = client
        .post(format!("{base}/api/import-data"))
        .header("origin", base)
        .header("content-type", content_type)
        .body(body);
    if let Some(c) = cookie {
        req = req.header("cookie", format!("cashkeeper_session={c}"));
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

impl TestApp {
    /// Loads the archive `bytes` as `cookie`'s user (see [`load_archive`]).
    pub async fn load_archive(&self, cookie: Option<&str>, bytes: &[u8]) -> (u16, Value) {
        load_archive(&self.client, &self.base, cookie, bytes).await
    }
}

//! One helper per route: an action as the pages' script calls it, a page
//! as a browser gets it, the REST API with a token.

use super::{ActionReply, TestApp, TestUser};
use serde_json::{json, Value};

impl TestApp {
    /// Calls an action the way the pages' script does.
    pub async fn action(&self, name: &str, body: Value, cookie: Option<&str>) -> ActionReply {
        let mut req = self
            .client
            .post(self.url(&format!("/actions/{name}")))
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(c) = cookie {
            req = req.header("cookie", format!("cashkeeper_session={c}"));
        }
        self.reply(req).await
    }

    /// Sends a prepared request and parses the envelope.
    pub async fn reply(&self, req: reqwest::RequestBuilder) -> ActionReply {
        let res = req.send().await.unwrap();
        let status = res.status();
        let headers = res.headers().clone();
        let text = res.text().await.unwrap();
        let body =
            serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON ({status}): {text}"));
        ActionReply {
            status,
            headers,
            body,
        }
    }

    /// Calls an action as `user` and returns its data, failing the test on refusal.
    pub async fn ok(&self, user: &TestUser, name: &str, body: Value) -> Value {
        let r = self.action(name, body.clone(), Some(&user.cookie)).await;
        assert!(r.ok(), "{name} {body} → {} {}", r.status, r.body);
        r.body["data"].clone()
    }

    /// Calls an action as `user` and returns its reply's bytes as text: what
    /// a client reads on the wire.
    pub async fn raw(&self, user: &TestUser, name: &str, body: Value) -> String {
        self.client
            .post(self.url(&format!("/actions/{name}")))
            .header("content-type", "application/json")
            .header("cookie", format!("cashkeeper_session={}", user.cookie))
            .body(body.to_string())
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    /// Calls an action as `user` and returns its error (status 200 required).
    pub async fn refused(&self, user: &TestUser, name: &str, body: Value) -> String {
        let r = self.action(name, body.clone(), Some(&user.cookie)).await;
        assert_eq!(r.status, 200, "{name} {body}: {}", r.body);
        assert_eq!(
            r.body["success"], false,
            "{name} {body} should be refused: {}",
            r.body
        );
        r.error().unwrap().to_string()
    }

    /// A checking account of `user` with a balance of 1000; its id.
    pub async fn account(&self, user: &TestUser, name: &str, currency: &str) -> String {
        let a = self
            .ok(
                user,
                "createAccount",
                json!({"name": name, "type": "checking", "currency": currency, "balance": "1000"}),
            )
            .await;
        a["id"].as_str().unwrap().to_string()
    }

    pub async fn get(&self, path: &str, cookie: Option<&str>) -> reqwest::Response {
        let mut req = self.client.get(self.url(path));
        if let Some(c) = cookie {
            req = req.header("cookie", format!("cashkeeper_session={c}"));
        }
        req.send().await.unwrap()
    }

    /// The page at `path` as `user` sees it.
    pub async fn page(&self, user: &TestUser, path: &str) -> String {
        let res = self.get(path, Some(&user.cookie)).await;
        assert_eq!(res.status(), 200, "{path}");
        res.text().await.unwrap()
    }

    /// Creates an API token for `user` through the action.
    pub async fn token(&self, user: &TestUser, expires: Value) -> String {
        let r = self
            .action(
                "createApiToken",
                json!({"name": "Home Assistant", "expiresInDays": expires, "password": user.password}),
                Some(&user.cookie),
            )
            .await;
        r.data()["token"].as_str().unwrap().to_string()
    }

    /// `GET /api/v1{path}` with `token`.
    pub async fn api(&self, path: &str, token: &str) -> reqwest::Response {
        self.client
            .get(self.url(&format!("/api/v1{path}")))
            .header("authorization", format!("Bearer {token}"))
            .send()
            .await
            .unwrap()
    }

    /// `GET /api/v1{path}` with `token`: its JSON, after checking it is a
    /// 200 that no cache keeps.
    pub async fn api_json(&self, path: &str, token: &str) -> Value {
        let res = self.api(path, token).await;
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(res.headers()["cache-control"], "no-store");
        res.json().await.unwrap()
    }

    /// Sets `user`'s language (`"de"`, `"en"`).
    pub async fn set_locale_to(&self, user: &TestUser, locale: &str) {
        self.ok(user, "updateSettings", json!({ "locale": locale }))
            .await;
    }
}

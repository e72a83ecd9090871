//! Headless Chromium driven through chromedriver, for the browser tests.
//!
//! When Chromium or chromedriver is missing a browser test says so loudly
//! and passes as skipped, unless CASHKEEPER_E2E=required (set by .ci/run
//! after it installs them), which turns a missing browser into a failure.
//!
//! Most browser tests begin alike: a browser of some size, a user signed
//! in through the sign-in page. [`signed_in`] is that preamble:
//!
//! ```ignore
//! let app = spawn_app().await;
//! let user = app.new_user().await;
//! let Some(browser) = signed_in(&app, &user, 1280, 1000).await else {
//!     return;
//! };
//! let c = &browser.client;
//! ```

use super::{TestApp, TestUser};
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A chromedriver and the Chromium it drives, both ended when this is
/// dropped: at the end of a test, and when a test panics.
pub struct Browser {
    pub client: Client,
    driver: Driver,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Ending the WebDriver session makes chromedriver quit Chromium and
        // its helper processes. A session the test closed itself is
        // answered with "invalid session id", at once.
        if let Some(id) = self.client.session_creation_response() {
            end_session(self.driver.port, id.session_id());
        }
    }
}

/// The chromedriver process, in a process group of its own which the
/// Chromium it starts joins: dropped, the whole group is killed and
/// chromedriver reaped, also when no session was made.
struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        // SAFETY: kill(2) with plain integers; the group is the one
        // chromedriver leads (not yet reaped, so its id is still ours).
        unsafe { libc::kill(-(self.child.id() as libc::pid_t), libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// `DELETE /session/{id}` to chromedriver, waiting for its answer: it
/// answers once Chromium has quit. Blocking, since it runs in `drop`.
fn end_session(port: u16, id: &str) {
    use std::io::{BufRead, BufReader, Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(20)));
    let request = format!(
        "DELETE /session/{id} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\n\r\n"
    );
    if stream.write_all(request.as_bytes()).is_err() {
        return;
    }
    // chromedriver keeps the connection open: the answer ends after its
    // head and `Content-Length` bytes.
    let mut reader = BufReader::new(stream);
    let mut length = 0;
    let mut line = String::new();
    while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        line.clear();
    }
    let _ = reader.read_exact(&mut vec![0; length]);
}

fn find(candidates: &[&str]) -> Option<String> {
    candidates
        .iter()
        .find(|p| std::path::Path::new(p).exists())
        .map(|p| p.to_string())
}

/// Starts chromedriver and a headless Chromium of the given window width,
/// or returns `None` (after saying why) when they are not installed.
pub async fn start(width: u32, height: u32) -> Option<Browser> {
    start_with(width, height, false).await
}

/// Like [`start`], optionally in the dark colour scheme.
pub async fn start_with(width: u32, height: u32, dark: bool) -> Option<Browser> {
    let required = std::env::var("CASHKEEPER_E2E").as_deref() == Ok("required");
    let chromium = find(&[
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ]);
    let driver = find(&["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]);
    let (Some(chromium), Some(driver)) = (chromium, driver) else {
        let msg = "BROWSER TESTS SKIPPED: chromium and chromedriver are not installed \
                   (apt-get install chromium chromium-driver)";
        if required {
            panic!("{msg}, but CASHKEEPER_E2E=required");
        }
        eprintln!("\n*** {msg} ***\n");
        return None;
    };
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut driver = Command::new(driver)
        .arg(format!("--port={port}"))
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let said = driver.stdout.take().unwrap();
    let driver = Driver {
        child: driver,
        port,
    };
    // chromedriver says when it listens; what it says after is read on
    // and dropped, so that it never waits on a full pipe.
    let (listening, ready) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        let mut listening = Some(listening);
        for line in std::io::BufReader::new(said).lines().map_while(Result::ok) {
            if line.contains("started successfully") {
                if let Some(tx) = listening.take() {
                    let _ = tx.send(());
                }
            }
        }
    });
    tokio::time::timeout(Duration::from_secs(20), ready)
        .await
        .expect("chromedriver starts listening")
        .expect("chromedriver starts listening");
    let profile = tempfile::tempdir().unwrap();
    let caps = serde_json::json!({
        "goog:chromeOptions": {
            "binary": chromium,
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-quic",
                format!("--window-size={width},{height}"),
                format!("--user-data-dir={}", profile.path().display()),
                "--lang=en-US",
                if dark { "--blink-settings=preferredColorScheme=0" } else { "--blink-settings=preferredColorScheme=1" },
            ]
        }
    });
    let caps = caps.as_object().unwrap().clone();
    // A Chromium that fails to start on a busy machine is started again,
    // twice at the most.
    let mut tries = 0;
    let client = loop {
        let session = ClientBuilder::new(HttpConnector::new())
            .capabilities(caps.clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await;
        match session {
            Ok(client) => break client,
            Err(e) if tries < 2 => {
                tries += 1;
                eprintln!("chromedriver could not start Chromium, again: {e:?}");
            }
            Err(e) => panic!("cannot connect to chromedriver: {e:?}"),
        }
    };
    // Headless Chromium's window is at least 500 pixels wide: a phone's
    // width is emulated.
    if width < 500 {
        resize(&client, width, height).await;
    }
    Some(Browser {
        client,
        driver,
        _profile: profile,
    })
}

/// Sets the viewport: through the DevTools protocol, since headless
/// Chromium's window is at least 500 pixels wide.
pub async fn resize(c: &fantoccini::Client, width: u32, height: u32) {
    c.issue_cmd(Cdp(
        "Emulation.setDeviceMetricsOverride",
        serde_json::json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 500}),
    ))
    .await
    .unwrap();
}

/// A DevTools command through chromedriver.
#[derive(Debug)]
pub struct Cdp(pub &'static str, pub serde_json::Value);

impl fantoccini::wd::WebDriverCompatibleCommand for Cdp {
    fn endpoint(
        &self,
        base: &reqwest::Url,
        session: Option<&str>,
    ) -> Result<reqwest::Url, <reqwest::Url as std::str::FromStr>::Err> {
        base.join(&format!(
            "session/{}/goog/cdp/execute",
            session.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _: &reqwest::Url) -> (reqwest::Method, Option<String>) {
        let body = serde_json::json!({"cmd": self.0, "params": self.1});
        (reqwest::Method::POST, Some(body.to_string()))
    }
}

/// The four ways a page is looked at: (name, width, height, dark), a
/// desktop and a phone, each in the light and the dark scheme.
pub const MODES: [(&str, u32, u32, bool); 4] = [
    ("desktop", 1280, 1100, false),
    ("dark", 1280, 1100, true),
    ("phone", 390, 1600, false),
    ("phone-dark", 390, 1600, true),
];

/// How long [`wait_until`] waits.
const WAIT: Duration = Duration::from_secs(10);

/// Waits until `check`, the body of a JavaScript function called with
/// `args`, returns something truthy in the page, and returns that; `None`
/// when it has not after ten seconds. The page checks it itself: at once,
/// then before each frame it draws, or after 50 ms should it draw none. A
/// page left meanwhile (a form's redirect, a reload) is checked again once
/// the next one has loaded.
pub async fn wait_until(
    c: &Client,
    check: &str,
    args: Vec<serde_json::Value>,
) -> Option<serde_json::Value> {
    let deadline = tokio::time::Instant::now() + WAIT;
    let mut unloaded = 0;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let script = format!(
            "const done = arguments[arguments.length - 1];
             const args = Array.prototype.slice.call(arguments, 0, -1);
             const check = function () {{ {check} }};
             let frame = null, pending = null;
             const giveUp = setTimeout(function () {{
               cancelAnimationFrame(frame); clearTimeout(pending); done(null);
             }}, {});
             const step = function () {{
               cancelAnimationFrame(frame); clearTimeout(pending);
               let found = null;
               try {{ found = check.apply(null, args); }} catch (_) {{ found = null; }}
               if (found) {{ clearTimeout(giveUp); done(found); }}
               else {{ frame = requestAnimationFrame(step); pending = setTimeout(step, 50); }}
             }};
             step();",
            left.as_millis()
        );
        match c.execute_async(&script, args.clone()).await {
            Ok(serde_json::Value::Null) => return None,
            Ok(found) => return Some(found),
            // The page went away while it was checked.
            Err(e) => {
                unloaded += 1;
                assert!(
                    unloaded < 20 && !left.is_zero(),
                    "waiting for `{check}`: {e}"
                );
            }
        }
    }
}

/// Waits until the page's path is `path`.
pub async fn wait_for_path(c: &Client, path: &str) {
    let reached = wait_until(
        c,
        "return location.pathname === arguments[0]",
        vec![path.into()],
    )
    .await;
    if reached.is_none() {
        panic!(
            "never reached {path}, at {}",
            c.current_url().await.unwrap()
        );
    }
}

/// Waits until an element matching `css` is in the page and returns it.
/// Unlike [`wait_for_text`], this cannot be satisfied by the page's
/// translation table, which holds every message the script may show.
pub async fn wait_for_css(c: &Client, css: &str) -> fantoccini::elements::Element {
    wait_until(
        c,
        "return document.querySelector(arguments[0]) !== null",
        vec![css.into()],
    )
    .await
    .unwrap_or_else(|| panic!("{css:?} never appeared"));
    c.find(Locator::Css(css)).await.unwrap()
}

/// Waits until `css` matches a shown element whose text contains `text`.
pub async fn wait_for_shown(c: &Client, css: &str, text: &str) {
    wait_until(
        c,
        "const el = document.querySelector(arguments[0]);
         return el && el.getClientRects().length > 0 && el.innerText.includes(arguments[1]);",
        vec![css.into(), text.into()],
    )
    .await;
    let mut seen = String::new();
    if let Ok(el) = c.find(Locator::Css(css)).await {
        if el.is_displayed().await.unwrap_or(false) {
            seen = el.text().await.unwrap_or_default();
            if seen.contains(text) {
                return;
            }
        }
    }
    panic!("{css} never showed {text:?} (last: {seen:?})");
}

/// Waits until the page's source contains `text`.
pub async fn wait_for_text(c: &Client, text: &str) {
    // The page's source as WebDriver gives it.
    wait_until(
        c,
        "return new XMLSerializer().serializeToString(document).includes(arguments[0])",
        vec![text.into()],
    )
    .await
    .unwrap_or_else(|| panic!("{text:?} never appeared"));
}

/// Saves a screenshot under target/screenshots when CASHKEEPER_SCREENSHOTS is set.
pub async fn screenshot(c: &Client, name: &str) {
    if let Ok(dir) = std::env::var("CASHKEEPER_SCREENSHOTS") {
        std::fs::create_dir_all(&dir).unwrap();
        let png = c.screenshot().await.unwrap();
        std::fs::write(format!("{dir}/{name}.png"), png).unwrap();
    }
}

/// Signs `user` in through the sign-in page.
pub async fn sign_in(c: &Client, app: &TestApp, user: &TestUser) {
    c.goto(&app.url("/login")).await.unwrap();
    type_into(c, "#f-email", &user.email).await;
    type_into(c, "#f-password", &user.password).await;
    click(c, "button[type=submit]").await;
    wait_for_path(c, "/").await;
}

/// Types `text` into the field `css`, emptied first.
pub async fn type_into(c: &Client, css: &str, text: &str) {
    let field = c.find(Locator::Css(css)).await.unwrap();
    field.clear().await.unwrap();
    field.send_keys(text).await.unwrap();
}

/// Clicks the element `css`.
pub async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|_| panic!("no {css}"))
        .click()
        .await
        .unwrap();
}

/// A browser of the given size (a phone's width is emulated) with `user`
/// signed in through the sign-in page, on the dashboard; `None` (after
/// saying why) when no browser is installed.
pub async fn signed_in(app: &TestApp, user: &TestUser, width: u32, height: u32) -> Option<Browser> {
    signed_in_with(app, user, width, height, false).await
}

/// Like [`signed_in`], optionally in the dark colour scheme.
pub async fn signed_in_with(
    app: &TestApp,
    user: &TestUser,
    width: u32,
    height: u32,
    dark: bool,
) -> Option<Browser> {
    let browser = start_with(width, height, dark).await?;
    sign_in(&browser.client, app, user).await;
    Some(browser)
}

/// Opens the form of a new record when it waits behind its "+ New"
/// button (a page that lists records), as a person clicks it.
pub async fn open_form(c: &Client) {
    if let Ok(button) = c
        .find(Locator::Css("details.new-record:not([open]) > summary"))
        .await
    {
        button.click().await.unwrap();
    }
}

/// Fills the field `name` of the page's form (opened first if need be).
pub async fn fill(c: &Client, name: &str, value: &str) {
    open_form(c).await;
    let field = c
        .find(Locator::Css(&format!("form.stack [name={name}]")))
        .await
        .unwrap();
    field.clear().await.unwrap();
    field.send_keys(value).await.unwrap();
}

/// Starts the two-factor setup on the open Settings page (it asks for the
/// password first) and answers the secret: the key shown beside the QR
/// code, which is what an authenticator app reads.
pub async fn begin_two_factor(c: &Client, password: &str) -> Vec<u8> {
    c.find(Locator::Css("form[data-totp-begin] input[name=password]"))
        .await
        .unwrap()
        .send_keys(password)
        .await
        .unwrap();
    c.find(Locator::Css("form[data-totp-begin] button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let key = wait_for_css(c, ".totp-steps:not([hidden]) .totp-key").await;
    let shown = key.text().await.unwrap();
    data_encoding::BASE32_NOPAD
        .decode(shown.replace(' ', "").as_bytes())
        .unwrap_or_else(|e| panic!("{shown:?} is the Base32 key: {e}"))
}

/// Submits the page's add form.
pub async fn submit(c: &Client) {
    open_form(c).await;
    click(c, "form.stack button[type=submit]").await;
}

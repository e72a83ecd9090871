//! Exchange rates: `GET /api/exchange-rates`, and the refresh from a feed
//! served by a real HTTP server the test starts on loopback.

use crate::support::*;
use axum::http::StatusCode as AxumStatus;
use axum::routing::get;
use axum::Router;
use cashkeeper::domain::currency::KNOWN;
use cashkeeper::domain::rates::Rates;
use cashkeeper::store::exchange_rates;
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

/// An ECB-shaped daily feed with USD 1.2345.
const FEED: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
	<gesmes:subject>Reference rates</gesmes:subject>
	<gesmes:Sender>
		<gesmes:name>European Central Bank</gesmes:name>
	</gesmes:Sender>
	<Cube>
		<Cube time='2026-11-20'>
			<Cube currency='USD' rate='1.2345'/>
			<Cube currency='JPY' rate='163.12'/>
			<Cube currency='CHF' rate='0.9312'/>
		</Cube>
	</Cube>
</gesmes:Envelope>"#;

/// A feed server on 127.0.0.1:0: `/daily.xml` is [`FEED`], `/down` answers
/// 500, `/garbage` an HTML page, `/bad-rate` a feed with a negative rate.
async fn feed_server() -> String {
    let app = Router::new()
        .route("/daily.xml", get(|| async { FEED }))
        .route(
            "/down",
            get(|| async { (AxumStatus::INTERNAL_SERVER_ERROR, "maintenance") }),
        )
        .route(
            "/garbage",
            get(|| async { "<html><body>We'll be back soon</body></html>" }),
        )
        .route(
            "/bad-rate",
            get(|| async { FEED.replace("rate='0.9312'", "rate='-0.9312'") }),
        );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

async fn rates_json(app: &TestApp, user: &TestUser) -> serde_json::Map<String, Value> {
    let res = app.get("/api/exchange-rates", Some(&user.cookie)).await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    body.as_object().expect("a flat object").clone()
}

async fn usd(app: &TestApp, user: &TestUser) -> f64 {
    rates_json(app, user).await["USD"].as_f64().unwrap()
}

/// Asks until the served USD rate is `want`, for at most ten seconds,
/// letting the refresh task run between answers.
async fn wait_for_usd(app: &TestApp, user: &TestUser, want: f64) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if usd(app, user).await == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the served USD rate never became {want}"
        );
        tokio::task::yield_now().await;
    }
}

fn builtin_usd() -> f64 {
    use rust_decimal::prelude::ToPrimitive;
    Rates::builtin().rate("USD").unwrap().to_f64().unwrap()
}

#[tokio::test]
async fn without_a_session_the_rates_are_401() {
    let app = spawn_app().await;
    let res = app.get("/api/exchange-rates", None).await;
    assert_eq!(res.status(), 401);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body, serde_json::json!({ "error": "unauthorized" }));
}

#[tokio::test]
async fn every_known_currency_is_a_number_and_eur_is_one() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let res = app.get("/api/exchange-rates", Some(&user.cookie)).await;
    assert_eq!(res.status(), 200);
    assert_eq!(
        res.headers()["cache-control"].to_str().unwrap(),
        "private, max-age=3600"
    );
    assert!(res.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("application/json"));
    let body: Value = res.json().await.unwrap();
    let rates = body.as_object().unwrap();
    assert_eq!(rates.len(), KNOWN.len(), "{body}");
    for code in KNOWN {
        let rate = rates[*code].as_f64();
        assert!(rate.is_some_and(|r| r > 0.0), "{code}: {:?}", rates[*code]);
    }
    assert_eq!(rates["EUR"].as_f64(), Some(1.0));
    assert_eq!(rates["USD"].as_f64(), Some(builtin_usd()));
}

#[tokio::test]
async fn the_refresh_loop_serves_and_stores_the_feed_and_a_restart_keeps_it() {
    let feed = feed_server().await;
    let app = spawn_app_with(|c| {
        c.rates_refresh = true;
        c.rates_url = format!("{feed}/daily.xml");
    })
    .await;
    let user = app.new_user().await;
    wait_for_usd(&app, &user, 1.2345).await;
    let rates = rates_json(&app, &user).await;
    assert_eq!(rates["JPY"].as_f64(), Some(163.12));
    assert_eq!(rates["EUR"].as_f64(), Some(1.0));
    assert_eq!(
        rates.len(),
        KNOWN.len(),
        "the feed's gaps keep built-in rates"
    );

    let stored = app.state.db.run(|c| exchange_rates::all(c)).await.unwrap();
    let usd_row = stored.iter().find(|r| r.currency == "USD").unwrap();
    assert_eq!(usd_row.rate, "1.2345");
    assert_eq!(usd_row.rate_date, "2026-11-20");

    // A second start on the same data, with no refresh at all.
    let dir = app.stop().await;
    let again = spawn_app_in(dir, |c| assert!(!c.rates_refresh)).await;
    let user = again.new_user().await;
    assert_eq!(usd(&again, &user).await, 1.2345);
    assert_eq!(again.state.rates.current().date().to_string(), "2026-11-20");
}

#[tokio::test]
async fn a_feed_that_fails_keeps_the_previous_table() {
    let feed = feed_server().await;
    let app = spawn_app().await;
    let user = app.new_user().await;
    let client = cashkeeper::outbound::http_client().build().unwrap();
    let refresh = |path: &'static str| {
        let (state, client, url) = (app.state.clone(), client.clone(), format!("{feed}{path}"));
        async move { state.rates.refresh(&state.db, &client, &url).await }
    };

    // Before any success: the built-in table stays.
    assert!(refresh("/down").await.is_err());
    assert_eq!(usd(&app, &user).await, builtin_usd());

    refresh("/daily.xml").await.unwrap();
    assert_eq!(usd(&app, &user).await, 1.2345);

    for path in ["/down", "/garbage", "/bad-rate", "/no-such-path"] {
        assert!(refresh(path).await.is_err(), "{path}");
        assert_eq!(usd(&app, &user).await, 1.2345, "{path}");
        let rates = rates_json(&app, &user).await;
        assert_eq!(rates["CHF"].as_f64(), Some(0.9312), "{path}");
    }
    let stored = app.state.db.run(|c| exchange_rates::all(c)).await.unwrap();
    assert_eq!(stored.len(), KNOWN.len());
    let usd_row = stored.iter().find(|r| r.currency == "USD").unwrap();
    assert_eq!(usd_row.rate, "1.2345");
}

/// Sets its flag when dropped: the feed handler holding it was cancelled,
/// which hyper does when the client gives up on the request.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn serving_does_not_wait_for_a_feed_that_never_answers() {
    let asked = Arc::new(tokio::sync::Notify::new());
    let gave_up = Arc::new(AtomicBool::new(false));
    let (a, g) = (asked.clone(), gave_up.clone());
    let hang = Router::new().route(
        "/daily.xml",
        get(move || {
            let (a, g) = (a.clone(), g.clone());
            async move {
                let _guard = SetOnDrop(g);
                a.notify_one();
                std::future::pending::<&str>().await
            }
        }),
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let feed = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, hang).await });

    let app = spawn_app_with(|c| {
        c.rates_refresh = true;
        c.rates_url = format!("http://{feed}/daily.xml");
    })
    .await;
    tokio::time::timeout(Duration::from_secs(10), asked.notified())
        .await
        .expect("the refresh never asked the feed");
    // The feed request is in flight; the service answers meanwhile, from
    // the built-in table.
    let user = app.new_user().await;
    assert_eq!(usd(&app, &user).await, builtin_usd());
    assert!(
        !gave_up.load(Ordering::SeqCst),
        "the answer came only after the refresh had given up"
    );
}

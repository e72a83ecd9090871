//! `findBanks` over the bundled bank table (`docs/bank-sync.md`, "The bank
//! table"): by bank code, BIC and name, the refusals naming `query`.

use crate::support::*;
use serde_json::{json, Value};

/// The bank codes of a `findBanks` answer, in its order.
fn codes(found: &Value) -> Vec<&str> {
    found
        .as_array()
        .expect("findBanks answers a list")
        .iter()
        .map(|b| b["bankCode"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn find_banks_by_code_bic_and_name() {
    let app = spawn_app().await;
    let user = app.new_user().await;

    // An exact bank code: the bank with its whole row.
    let found = app
        .ok(&user, "findBanks", json!({"query": "37050299"}))
        .await;
    assert_eq!(codes(&found), ["37050299"]);
    let ksk = &found[0];
    assert_eq!(ksk["bic"], "COKSDE33XXX");
    assert_eq!(ksk["name"], "Kreissparkasse Köln");
    assert_eq!(ksk["city"], "Köln");
    let url = ksk["url"].as_str().expect("the bank has an address");
    assert!(url.starts_with("https://"), "{url}");
    assert_eq!(ksk.as_object().unwrap().len(), 5, "{ksk}");

    // A BIC, in any case: the same bank first.
    let found = app
        .ok(&user, "findBanks", json!({"query": "colsde33xxx"}))
        .await;
    assert_eq!(codes(&found), ["37050198"]);
    assert_eq!(found[0]["name"], "Sparkasse KölnBonn");

    // Words of the name and city, umlauts written either way, any order.
    for query in ["Sparkasse Köln", "koeln sparkasse", "KSK Köln"] {
        let found = app.ok(&user, "findBanks", json!({"query": query})).await;
        let codes = codes(&found);
        assert!(codes.contains(&"37050299"), "{query}: {codes:?}");
        assert!(codes.len() <= 20, "{query}: {codes:?}");
        for bank in found.as_array().unwrap() {
            let text = format!("{} {}", bank["name"], bank["city"]).to_lowercase();
            assert!(
                text.contains("köln") || text.contains("koeln"),
                "{query}: {bank}"
            );
        }
    }

    // A bank with no address in the table answers `url: null`, never an
    // address that is not https.
    let many = app.ok(&user, "findBanks", json!({"query": "bank"})).await;
    assert_eq!(many.as_array().unwrap().len(), 20, "at most 20");
    for bank in many.as_array().unwrap() {
        assert!(
            bank["url"].is_null() || bank["url"].as_str().unwrap().starts_with("https://"),
            "{bank}"
        );
    }

    // Nothing known: an empty list.
    assert_eq!(
        app.ok(&user, "findBanks", json!({"query": "Zzyzx Bank Nirgendwo"}))
            .await,
        json!([])
    );
    assert_eq!(
        app.ok(&user, "findBanks", json!({"query": "99999999"}))
            .await,
        json!([])
    );
}

#[tokio::test]
async fn find_banks_refuses_the_signed_out_and_names_a_bad_query() {
    let app = spawn_app().await;

    let anonymous = app
        .action("findBanks", json!({"query": "37050299"}), None)
        .await;
    assert_eq!(anonymous.status, 401);
    assert_eq!(anonymous.error(), Some("unauthorized"));

    let user = app.new_user().await;
    assert_eq!(
        app.refused(&user, "findBanks", json!({"query": "x".repeat(101)}))
            .await,
        "query: must be at most 100 characters"
    );
    assert_eq!(
        app.refused(&user, "findBanks", json!({"query": "  "}))
            .await,
        "query: is required"
    );
    let missing = app.refused(&user, "findBanks", json!({})).await;
    assert!(missing.starts_with("query: "), "{missing}");

    // In German for a German user.
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    assert_eq!(
        app.refused(&user, "findBanks", json!({"query": "x".repeat(101)}))
            .await,
        "query: höchstens 100 Zeichen"
    );
    // 100 characters are allowed.
    assert_eq!(
        app.ok(&user, "findBanks", json!({"query": "x".repeat(100)}))
            .await,
        json!([])
    );
}

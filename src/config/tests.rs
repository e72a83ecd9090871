use super::*;
use std::collections::HashMap;

fn with(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
    let map: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Config::from_lookup(|k| map.get(k).cloned())
}

#[test]
fn single_sign_on_is_all_or_nothing_and_keeps_the_issuer_as_written() {
    assert!(with(&[]).unwrap().oidc.is_none());
    let c = with(&[
        (
            "CASHKEEPER_OIDC_ISSUER",
            " https://auth.example.org/application/o/cashkeeper/ ",
        ),
        ("CASHKEEPER_OIDC_CLIENT_ID", "cashkeeper"),
        ("CASHKEEPER_OIDC_CLIENT_SECRET", "s3cret"),
        ("CASHKEEPER_OIDC_BUTTON_LABEL", "Sign in with Authentik"),
    ])
    .unwrap();
    let o = c.oidc.unwrap();
    assert_eq!(
        o.issuer,
        "https://auth.example.org/application/o/cashkeeper/"
    );
    assert_eq!(o.client_id, "cashkeeper");
    assert_eq!(o.client_secret.unwrap().expose(), "s3cret");
    assert_eq!(o.button_label.as_deref(), Some("Sign in with Authentik"));
    assert!(!o.only);
    // A public client has no secret.
    let o = with(&[
        ("CASHKEEPER_OIDC_ISSUER", "https://id.example.org"),
        ("CASHKEEPER_OIDC_CLIENT_ID", "cashkeeper"),
        ("CASHKEEPER_OIDC_ONLY", "true"),
    ])
    .unwrap()
    .oidc
    .unwrap();
    assert!(o.client_secret.is_none() && o.only);

    let err = |vars: &[(&str, &str)]| with(vars).unwrap_err().0;
    assert!(err(&[("CASHKEEPER_OIDC_ISSUER", "https://id.example.org")])
        .starts_with("CASHKEEPER_OIDC_CLIENT_ID"));
    assert!(
        err(&[("CASHKEEPER_OIDC_CLIENT_ID", "x")]).starts_with("CASHKEEPER_OIDC_CLIENT_ID is set")
    );
    assert!(err(&[("CASHKEEPER_OIDC_ONLY", "true")]).starts_with("CASHKEEPER_OIDC_ONLY=true needs"));
    assert!(err(&[("CASHKEEPER_OIDC_ONLY", "maybe")]).starts_with("CASHKEEPER_OIDC_ONLY"));
    for bad in ["auth.example.org", "ftp://x", "https://", "https://x/?a=b"] {
        let e = err(&[
            ("CASHKEEPER_OIDC_ISSUER", bad),
            ("CASHKEEPER_OIDC_CLIENT_ID", "x"),
        ]);
        assert!(
            e.starts_with("CASHKEEPER_OIDC_ISSUER: expected"),
            "{bad}: {e}"
        );
    }
    // Plain http only to this machine goes without a warning.
    let plain = |issuer: &str| {
        with(&[
            ("CASHKEEPER_OIDC_ISSUER", issuer),
            ("CASHKEEPER_OIDC_CLIENT_ID", "x"),
        ])
        .unwrap()
        .oidc
        .unwrap()
        .crosses_network_unencrypted()
    };
    assert!(plain("http://auth.lan:9091"));
    assert!(plain("http://192.168.1.5:9000/realms/home"));
    for local in [
        "http://127.0.0.1:9000",
        "http://[::1]:9000",
        "http://localhost/x",
        "https://auth.example.org",
    ] {
        assert!(!plain(local), "{local}");
    }
    // The secret never reaches a log.
    let c = with(&[
        ("CASHKEEPER_OIDC_ISSUER", "https://id.example.org"),
        ("CASHKEEPER_OIDC_CLIENT_ID", "cashkeeper"),
        ("CASHKEEPER_OIDC_CLIENT_SECRET", "s3cret"),
    ])
    .unwrap();
    assert!(!format!("{c:?}").contains("s3cret"));
}

#[test]
fn defaults_serve_on_loopback_port_3000_with_data_in_dot_data() {
    let c = with(&[]).unwrap();
    assert_eq!(c.bind.to_string(), "127.0.0.1:3000");
    assert_eq!(c.data_dir, PathBuf::from("./data"));
    assert_eq!(c.base_url, "http://127.0.0.1:3000");
    assert_eq!(c.registration, Registration::Open);
    assert_eq!(c.api_rate_limit, 120);
    assert_eq!(c.signin_limit, 50);
    assert_eq!(c.registration_limit, 5);
    assert_eq!(c.document_quota, 500 * 1024 * 1024);
    assert!(c.trusted_proxies.is_empty());
    assert!(!c.base_url_set);
    assert_eq!(c.header_read_timeout, std::time::Duration::from_secs(30));
    assert_eq!(c.idle_timeout, std::time::Duration::from_secs(75));
    assert_eq!(c.body_read_timeout, std::time::Duration::from_secs(30));
    assert_eq!(c.max_connections_per_client, 128);
    assert_eq!(c.notification_schedule, Schedule::Cron("0 8 * * *".into()));
    assert_eq!(c.insights_schedule, Schedule::Cron("0 6 * * *".into()));
    assert!(!c.secure_cookies());
    assert!(c.rates_refresh);
    assert_eq!(
        c.rates_url,
        "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"
    );
}

#[test]
fn generated_vapid_keys_have_the_documented_formats() {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    use p256::elliptic_curve::sec1::ToEncodedPoint;
    let (public, private) = Vapid::generate();
    let p = URL_SAFE_NO_PAD.decode(public).unwrap();
    let s = URL_SAFE_NO_PAD.decode(private).unwrap();
    assert_eq!(p.len(), 65);
    assert_eq!(p[0], 0x04, "uncompressed point");
    assert_eq!(s.len(), 32);
    let secret = p256::SecretKey::from_slice(&s).unwrap();
    assert_eq!(
        secret.public_key().to_encoded_point(false).as_bytes(),
        &p[..]
    );
}

#[test]
fn the_sign_in_limit_and_trusted_proxies_are_read() {
    let c = with(&[
        ("CASHKEEPER_SIGNIN_LIMIT", "0"),
        ("CASHKEEPER_REGISTRATION_LIMIT", "0"),
        ("CASHKEEPER_DOCUMENT_QUOTA_MB", "2"),
        ("CASHKEEPER_TRUSTED_PROXY", "172.18.0.2, ::1"),
        ("CASHKEEPER_BASE_URL", "https://money.example.org"),
        ("CASHKEEPER_MAX_CONNECTIONS_PER_CLIENT", "16"),
    ])
    .unwrap();
    assert_eq!(c.signin_limit, 0);
    assert_eq!(c.registration_limit, 0);
    assert_eq!(c.max_connections_per_client, 16);
    assert_eq!(c.document_quota, 2 * 1024 * 1024);
    assert_eq!(
        c.trusted_proxies,
        vec![
            "172.18.0.2".parse::<std::net::IpAddr>().unwrap(),
            "::1".parse().unwrap()
        ]
    );
    assert!(c.base_url_set);
}

#[test]
fn each_bad_value_names_its_variable() {
    for (var, value) in [
        ("CASHKEEPER_BIND", "localhost"),
        ("CASHKEEPER_REGISTRATION", "yes"),
        ("NOTIFICATION_SCHEDULE", "every day"),
        ("INSIGHTS_SCHEDULE", "0 6 * * * *"),
        ("CASHKEEPER_API_RATE_LIMIT", "0"),
        ("CASHKEEPER_SIGNIN_LIMIT", "many"),
        ("CASHKEEPER_DOCUMENT_QUOTA_MB", "0"),
        ("CASHKEEPER_DOCUMENT_QUOTA_MB", "lots"),
        ("CASHKEEPER_SIGNIN_LIMIT", "-1"),
        ("CASHKEEPER_MAX_CONNECTIONS_PER_CLIENT", "lots"),
        ("CASHKEEPER_TRUSTED_PROXY", "proxy.local"),
        ("CASHKEEPER_TRUSTED_PROXY", "10.0.0.2, 10.0.0.x"),
        ("CASHKEEPER_BASE_URL", "money.example.org"),
        ("CASHKEEPER_PUSH_ALLOW_LOOPBACK_HTTP", "maybe"),
        ("SMTP_URL", "mail.example.org"),
        ("CASHKEEPER_RATES_URL", "ftp://example.org/rates.xml"),
        ("CASHKEEPER_BANK_SYNC_SCHEDULE", "daily"),
        ("CASHKEEPER_BANK_SYNC_SCHEDULE", "0 20 5 * * *"),
        ("CASHKEEPER_FINTS_ALLOW_LOCAL", "maybe"),
        ("CASHKEEPER_FINTS_PRODUCT_ID", "my product"),
        ("CASHKEEPER_FINTS_PRODUCT_ID", "ABCDEF0123456789ABCDEF0123"),
        ("CASHKEEPER_FINTS_PRODUCT_ID", "ABC+DEF"),
    ] {
        let err = with(&[(var, value)]).unwrap_err().0;
        assert!(err.starts_with(&format!("{var}: expected ")), "{err}");
        assert!(!err.contains('\n'), "one line: {err}");
    }
}

#[test]
fn registration_message_lists_the_accepted_forms() {
    let err = with(&[("CASHKEEPER_REGISTRATION", "yes")]).unwrap_err();
    assert_eq!(
        err.0,
        "CASHKEEPER_REGISTRATION: expected open, closed or first-user, got \"yes\""
    );
}

#[test]
fn https_base_url_makes_cookies_secure_and_schedules_can_be_off() {
    let c = with(&[
        ("CASHKEEPER_BASE_URL", "https://money.example.org/"),
        ("NOTIFICATION_SCHEDULE", "off"),
    ])
    .unwrap();
    assert_eq!(c.base_url, "https://money.example.org");
    assert!(c.secure_cookies());
    assert_eq!(c.notification_schedule, Schedule::Off);
}

#[test]
fn backups_are_off_by_default_and_keep_seven() {
    let c = with(&[]).unwrap();
    assert_eq!(c.backup_schedule, Schedule::Off);
    assert_eq!(c.backup_keep, 7);
    let c = with(&[
        ("CASHKEEPER_BACKUP_SCHEDULE", "30 3 * * *"),
        ("CASHKEEPER_BACKUP_KEEP", "14"),
    ])
    .unwrap();
    assert_eq!(c.backup_schedule, Schedule::Cron("30 3 * * *".into()));
    assert_eq!(c.backup_keep, 14);
    for (var, bad) in [
        ("CASHKEEPER_BACKUP_SCHEDULE", "nightly"),
        ("CASHKEEPER_BACKUP_KEEP", "0"),
        ("CASHKEEPER_BACKUP_KEEP", "many"),
    ] {
        let err = with(&[(var, bad)]).unwrap_err();
        assert!(err.0.contains(var), "{}", err.0);
    }
}

#[test]
fn bank_sync_runs_at_twenty_past_five_without_a_product_id_or_local_banks() {
    let c = with(&[]).unwrap();
    assert_eq!(c.bank_sync_schedule, Schedule::Cron("20 5 * * *".into()));
    assert_eq!(c.fints_product_id, None);
    assert!(!c.fints_allow_local);
    assert_eq!(
        Config::for_data_dir("/tmp/x").bank_sync_schedule,
        Schedule::Off,
        "tools and tests run no scheduled jobs"
    );
    let c = with(&[
        ("CASHKEEPER_FINTS_PRODUCT_ID", " 9FA6681DEC0CF3046BFC2F8A6 "),
        ("CASHKEEPER_BANK_SYNC_SCHEDULE", "0 6,18 * * 1-5"),
        ("CASHKEEPER_FINTS_ALLOW_LOCAL", "true"),
    ])
    .unwrap();
    assert_eq!(
        c.fints_product_id.as_deref(),
        Some("9FA6681DEC0CF3046BFC2F8A6")
    );
    assert_eq!(
        c.bank_sync_schedule,
        Schedule::Cron("0 6,18 * * 1-5".into())
    );
    assert!(c.fints_allow_local);
    let c = with(&[("CASHKEEPER_BANK_SYNC_SCHEDULE", "OFF")]).unwrap();
    assert_eq!(c.bank_sync_schedule, Schedule::Off);
}

#[test]
fn smtp_password_is_not_echoed_in_the_error() {
    let err = with(&[("SMTP_URL", "imap://user:hunter2@host")]).unwrap_err();
    assert!(!err.0.contains("hunter2"), "{}", err.0);
}

#[test]
fn vapid_values_are_checked_together_and_the_private_key_never_echoed() {
    let (public, private) = Vapid::generate();
    let (other_public, _) = Vapid::generate();
    let subject = "mailto:ops@example.org";
    let ok = with(&[
        ("VAPID_PUBLIC_KEY", &public),
        ("VAPID_PRIVATE_KEY", &private),
        ("VAPID_SUBJECT", subject),
    ])
    .unwrap();
    let v = ok.vapid.unwrap();
    assert_eq!(
        (v.public_key.as_str(), v.subject.as_str()),
        (public.as_str(), subject)
    );
    assert_eq!(v.private_key.expose(), private);
    // Two of three: push is simply off (the key route answers 503).
    assert!(
        with(&[("VAPID_PUBLIC_KEY", &public), ("VAPID_SUBJECT", subject)])
            .unwrap()
            .vapid
            .is_none()
    );
    for (public, private, subject, var) in [
        ("BAAA", private.as_str(), subject, "VAPID_PUBLIC_KEY"),
        (
            public.as_str(),
            "c2VjcmV0LXZhbHVl",
            subject,
            "VAPID_PRIVATE_KEY",
        ),
        (
            other_public.as_str(),
            private.as_str(),
            subject,
            "VAPID_PUBLIC_KEY",
        ),
        (
            public.as_str(),
            private.as_str(),
            "ops@example.org",
            "VAPID_SUBJECT",
        ),
    ] {
        let err = with(&[
            ("VAPID_PUBLIC_KEY", public),
            ("VAPID_PRIVATE_KEY", private),
            ("VAPID_SUBJECT", subject),
        ])
        .unwrap_err()
        .0;
        assert!(err.starts_with(&format!("{var}: expected ")), "{err}");
        assert!(!err.contains(private) && !err.contains("c2VjcmV0"), "{err}");
    }
}

#[test]
fn ai_is_off_without_a_key_and_defaults_to_openai() {
    let c = with(&[]).unwrap();
    assert!(c.ai.api_key.is_none());
    assert_eq!(c.ai.base_url, "https://api.openai.com/v1");
    assert_eq!(c.ai.model, "gpt-4o-mini");
    assert_eq!(
        c.ai.vision_model, "gpt-4o-mini",
        "the vision model defaults to AI_MODEL"
    );
    assert_eq!(c.ai.timeout, std::time::Duration::from_secs(120));
}

#[test]
fn a_local_ollama_with_a_vision_model_is_read() {
    let c = with(&[
        ("AI_API_KEY", " ollama "),
        ("AI_BASE_URL", "http://localhost:11434/v1/"),
        ("AI_MODEL", "qwen3:8b"),
        ("AI_VISION_MODEL", "qwen2.5vl"),
        ("AI_TIMEOUT_SECONDS", "600"),
    ])
    .unwrap();
    assert_eq!(c.ai.api_key.unwrap().expose(), "ollama");
    assert_eq!(c.ai.base_url, "http://localhost:11434/v1");
    assert_eq!(c.ai.model, "qwen3:8b");
    assert_eq!(c.ai.vision_model, "qwen2.5vl");
    assert_eq!(c.ai.timeout, std::time::Duration::from_secs(600));
    let c = with(&[("AI_MODEL", "llava")]).unwrap();
    assert_eq!(c.ai.vision_model, "llava");
}

#[test]
fn bad_ai_values_name_their_variable_and_the_right_form() {
    for (var, value, hint) in [
        ("AI_BASE_URL", "api.openai.com/v1", "http:// or https://"),
        (
            "AI_BASE_URL",
            "https://api.openai.com/v1/chat/completions",
            "without /chat/completions",
        ),
        ("AI_BASE_URL", "http://localhost:11434", "/v1"),
        ("AI_BASE_URL", "http://ollama:11434/api", "/v1"),
        ("AI_MODEL", "gpt 4o", "without spaces"),
        ("AI_VISION_MODEL", "llava\tlatest", "without spaces"),
        ("AI_TIMEOUT_SECONDS", "0", "1 to 3600"),
        ("AI_TIMEOUT_SECONDS", "2m", "1 to 3600"),
        ("AI_TIMEOUT_SECONDS", "3601", "1 to 3600"),
    ] {
        let err = with(&[(var, value)]).unwrap_err().0;
        assert!(err.starts_with(&format!("{var}: expected ")), "{err}");
        assert!(err.contains(hint), "{err}");
        assert!(!err.contains('\n'), "one line: {err}");
    }
}

#[test]
fn an_ai_key_that_cannot_be_a_header_is_refused_without_echoing_it() {
    let err = with(&[("AI_API_KEY", "sk-abc def")]).unwrap_err().0;
    assert!(err.starts_with("AI_API_KEY: expected "), "{err}");
    assert!(!err.contains("sk-abc"), "{err}");
}

#[test]
fn secrets_do_not_debug_print() {
    let c = with(&[("CRON_SECRET", "s3cr3t"), ("AI_API_KEY", "sk-123")]).unwrap();
    let dbg = format!("{c:?}");
    assert!(!dbg.contains("s3cr3t") && !dbg.contains("sk-123"), "{dbg}");
}

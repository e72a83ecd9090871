//! Reading single variables: booleans, URLs, the AI provider, single
//! sign-on, web push keys and the FinTS product id, each refused naming its
//! variable.

use super::{Ai, ConfigError, Oidc, Secret, Vapid};

pub(super) fn parse_bool(
    var: &str,
    raw: Option<String>,
    default: bool,
) -> Result<bool, ConfigError> {
    match raw.as_deref().map(|s| s.trim().to_ascii_lowercase()) {
        None => Ok(default),
        Some(v) if matches!(v.as_str(), "1" | "true" | "yes" | "on") => Ok(true),
        Some(v) if matches!(v.as_str(), "0" | "false" | "no" | "off") => Ok(false),
        Some(v) => Err(ConfigError::new(var, "true or false", &v, None)),
    }
}

/// The `CASHKEEPER_OIDC_*` variables: all or nothing, so a half-configured
/// single sign-on stops start-up instead of showing a button that fails.
pub(super) fn parse_oidc(
    get: &impl Fn(&str) -> Option<String>,
) -> Result<Option<Oidc>, ConfigError> {
    let only = parse_bool("CASHKEEPER_OIDC_ONLY", get("CASHKEEPER_OIDC_ONLY"), false)?;
    let Some(raw) = get("CASHKEEPER_OIDC_ISSUER") else {
        for var in ["CASHKEEPER_OIDC_CLIENT_ID", "CASHKEEPER_OIDC_CLIENT_SECRET"] {
            if get(var).is_some() {
                return Err(ConfigError(format!(
                    "{var} is set but CASHKEEPER_OIDC_ISSUER is not: set the provider's \
                     issuer URL too, or unset {var}"
                )));
            }
        }
        if only {
            return Err(ConfigError(
                "CASHKEEPER_OIDC_ONLY=true needs CASHKEEPER_OIDC_ISSUER and \
                 CASHKEEPER_OIDC_CLIENT_ID: without a provider nobody could sign in"
                    .into(),
            ));
        }
        return Ok(None);
    };
    // Kept exactly as written (a trailing slash included): the provider's
    // discovery document must name the same issuer.
    let issuer = raw.trim().to_string();
    let host = issuer
        .strip_prefix("https://")
        .or_else(|| issuer.strip_prefix("http://"))
        .unwrap_or("");
    if host.is_empty() || host.starts_with('/') || issuer.contains(['?', '#', ' ']) {
        return Err(ConfigError::new(
            "CASHKEEPER_OIDC_ISSUER",
            "the provider's issuer URL such as https://auth.example.org",
            &raw,
            None,
        ));
    }
    let client_id = get("CASHKEEPER_OIDC_CLIENT_ID")
        .map(|v| v.trim().to_string())
        .ok_or_else(|| {
            ConfigError(
                "CASHKEEPER_OIDC_CLIENT_ID: expected the client id registered for cashkeeper \
                 at the provider, got nothing"
                    .into(),
            )
        })?;
    Ok(Some(Oidc {
        issuer,
        client_id,
        client_secret: get("CASHKEEPER_OIDC_CLIENT_SECRET").map(|v| Secret::new(v.trim())),
        button_label: get("CASHKEEPER_OIDC_BUTTON_LABEL").map(|v| v.trim().to_string()),
        only,
    }))
}

/// The FinTS product registration number as the German banking industry
/// issues it: letters and digits, at most 25 (the length the dialog's start
/// segment, HKVVB, takes), so it needs no escaping in a message.
pub(super) fn parse_fints_product_id(raw: &str) -> Result<String, ConfigError> {
    let id = raw.trim();
    if id.is_empty() || id.len() > 25 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(ConfigError::new(
            "CASHKEEPER_FINTS_PRODUCT_ID",
            "the FinTS product registration number, up to 25 letters and digits",
            raw,
            None,
        ));
    }
    Ok(id.to_string())
}

pub(super) fn parse_http_url(var: &str, raw: &str) -> Result<String, ConfigError> {
    let t = raw.trim().trim_end_matches('/');
    let rest = t
        .strip_prefix("http://")
        .or_else(|| t.strip_prefix("https://"));
    match rest {
        Some(host) if !host.is_empty() && !host.starts_with('/') => Ok(t.to_string()),
        _ => Err(ConfigError::new(
            var,
            "an http:// or https:// URL such as https://example.org",
            raw,
            None,
        )),
    }
}

/// The `AI_*` variables. The base URL is checked for the two mistakes
/// people make most: pasting the whole endpoint (`…/chat/completions`) and
/// giving Ollama's native address instead of its OpenAI-compatible `/v1`.
pub(super) fn parse_ai(get: &impl Fn(&str) -> Option<String>) -> Result<Ai, ConfigError> {
    let api_key = match get("AI_API_KEY") {
        None => None,
        Some(raw) => {
            let key = raw.trim();
            // It goes into an HTTP header: printable ASCII without spaces.
            if !key.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(ConfigError(
                    "AI_API_KEY: expected printable characters without spaces \
                     (any value such as \"ollama\" for a local server); the value is not shown"
                        .into(),
                ));
            }
            Some(Secret::new(key))
        }
    };
    let base_url = match get("AI_BASE_URL") {
        None => "https://api.openai.com/v1".to_string(),
        Some(raw) => {
            let url = parse_http_url("AI_BASE_URL", &raw)?;
            let lower = url.to_ascii_lowercase();
            if lower.ends_with("/chat/completions") {
                return Err(ConfigError::new(
                    "AI_BASE_URL",
                    "the API's base URL without /chat/completions, such as https://api.openai.com/v1",
                    &raw,
                    None,
                ));
            }
            let authority = lower.split_once("://").map(|(_, r)| r).unwrap_or("");
            let (host, path) = authority.split_once('/').unwrap_or((authority, ""));
            if host.ends_with(":11434") && path != "v1" {
                return Err(ConfigError::new(
                    "AI_BASE_URL",
                    "Ollama's OpenAI-compatible address, which ends in /v1, such as http://localhost:11434/v1",
                    &raw,
                    None,
                ));
            }
            url
        }
    };
    let model = parse_model("AI_MODEL", get("AI_MODEL"))?.unwrap_or_else(|| "gpt-4o-mini".into());
    let vision_model =
        parse_model("AI_VISION_MODEL", get("AI_VISION_MODEL"))?.unwrap_or_else(|| model.clone());
    let timeout = match get("AI_TIMEOUT_SECONDS") {
        None => 120,
        Some(raw) => match raw.trim().parse::<u64>() {
            Ok(n) if (1..=3600).contains(&n) => n,
            _ => {
                return Err(ConfigError::new(
                    "AI_TIMEOUT_SECONDS",
                    "a whole number of seconds from 1 to 3600",
                    &raw,
                    None,
                ))
            }
        },
    };
    Ok(Ai {
        api_key,
        base_url,
        model,
        vision_model,
        timeout: std::time::Duration::from_secs(timeout),
    })
}

/// A model name as the provider spells it (`gpt-4o-mini`, `qwen2.5vl:7b`,
/// `org/model`): no spaces or control characters.
pub(super) fn parse_model(var: &str, raw: Option<String>) -> Result<Option<String>, ConfigError> {
    let Some(raw) = raw else { return Ok(None) };
    let name = raw.trim();
    if name.chars().any(|c| c.is_whitespace() || c.is_control()) || name.len() > 200 {
        return Err(ConfigError::new(
            var,
            "a model name without spaces, such as gpt-4o-mini or qwen2.5vl:7b",
            &raw,
            None,
        ));
    }
    Ok(Some(name.to_string()))
}

/// The public origin: scheme, host and optional port, without a path.
/// Checks the three VAPID values together, so a typo stops start-up instead
/// of every push service refusing the reminders later: the public key must
/// be the point of the private key (browsers subscribe with the public key,
/// push services check the signature made with the private one). The
/// private key is never echoed.
pub(super) fn parse_vapid(
    public_key: &str,
    private_key: &str,
    subject: &str,
) -> Result<Vapid, ConfigError> {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    use p256::elliptic_curve::sec1::ToEncodedPoint;
    let public = URL_SAFE_NO_PAD
        .decode(public_key.trim_end_matches('='))
        .ok()
        .filter(|b| b.len() == 65 && b[0] == 0x04)
        .and_then(|b| p256::PublicKey::from_sec1_bytes(&b).ok())
        .ok_or_else(|| {
            ConfigError::new(
                "VAPID_PUBLIC_KEY",
                "base64url of a 65-byte uncompressed P-256 point (cashkeeper vapid-keys)",
                public_key,
                None,
            )
        })?;
    let secret = URL_SAFE_NO_PAD
        .decode(private_key.trim_end_matches('='))
        .ok()
        .filter(|b| b.len() == 32)
        .and_then(|b| p256::SecretKey::from_slice(&b).ok())
        .ok_or_else(|| {
            ConfigError(
                "VAPID_PRIVATE_KEY: expected base64url of a 32-byte P-256 private key \
                 (cashkeeper vapid-keys); the value is not shown"
                    .into(),
            )
        })?;
    if secret.public_key().to_encoded_point(false) != public.to_encoded_point(false) {
        return Err(ConfigError(
            "VAPID_PUBLIC_KEY: expected the public key of VAPID_PRIVATE_KEY; \
             the two come from different key pairs"
                .into(),
        ));
    }
    if !(subject.starts_with("mailto:") || subject.starts_with("https://")) {
        return Err(ConfigError::new(
            "VAPID_SUBJECT",
            "a contact for the push services, mailto:you@example.org or an https:// URL",
            subject,
            None,
        ));
    }
    Ok(Vapid {
        public_key: URL_SAFE_NO_PAD.encode(public.to_encoded_point(false).as_bytes()),
        private_key: Secret::new(URL_SAFE_NO_PAD.encode(secret.to_bytes())),
        subject: subject.to_string(),
    })
}

pub(super) fn parse_base_url(raw: &str) -> Result<String, ConfigError> {
    let url = parse_http_url("CASHKEEPER_BASE_URL", raw)?;
    let after_scheme = url.split_once("://").map(|(_, r)| r).unwrap_or("");
    if after_scheme.contains('/') || after_scheme.contains('?') || after_scheme.contains('#') {
        return Err(ConfigError::new(
            "CASHKEEPER_BASE_URL",
            "an origin without a path, such as https://money.example.org",
            raw,
            None,
        ));
    }
    Ok(url)
}

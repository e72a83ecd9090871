//! Single sign-on through an OpenID provider (`docs/sign-in.md`): the
//! authorization code flow with PKCE, `state` and `nonce`, on the
//! `openidconnect` crate (discovery, JWKS and the ID token's signature,
//! issuer, audience, expiry and nonce are its work, not ours).
//!
//! Between the redirect to the provider and the way back, the browser keeps
//! the flow's secrets in a cookie sealed with the data directory's key
//! ([`Pending`]): the service holds no memory of half-finished sign-ins, and
//! a callback is accepted only in the browser that started it, so nobody
//! can sign a victim into the attacker's account with a forwarded link.
//!
//! The provider's discovery document and keys are fetched on first use and
//! kept for an hour; an ID token signed with a key not in the cached set
//! refetches them once (the provider rotated its keys).

use crate::config::Oidc as OidcConfig;
use openidconnect::core::{
    CoreAuthenticationFlow, CoreClient, CoreClientAuthMethod, CoreProviderMetadata,
};
use openidconnect::{
    AuthType, AuthorizationCode, ClaimsVerificationError, ClientId, ClientSecret, CsrfToken,
    HttpRequest, HttpResponse, IssuerUrl, Nonce, OAuth2TokenResponse, PkceCodeChallenge,
    PkceCodeVerifier, RedirectUrl, Scope, SignatureVerificationError, TokenResponse,
};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

/// The cookie that carries a started sign-in back to the callback.
pub const COOKIE: &str = "cashkeeper_oidc";
/// Where the provider sends the browser back to (under the base URL).
pub const CALLBACK_PATH: &str = "/api/auth/oidc/callback";
/// How long a started sign-in may take at the provider.
pub const PENDING_LIFETIME: Duration = Duration::from_secs(600);
/// How long discovery and keys are trusted before they are fetched again.
const METADATA_LIFETIME: Duration = Duration::from_secs(3600);
/// A key rotation refetches at most this often, so forged tokens naming
/// unknown keys cannot turn the service into a load on the provider.
const REFETCH_AT_MOST_EVERY: Duration = Duration::from_secs(30);
/// The largest reply read from the provider.
const MAX_REPLY_BYTES: usize = 1024 * 1024;
const TIMEOUT: Duration = Duration::from_secs(15);

/// Why a sign-in through the provider did not end in a session. The code
/// travels to the login page (`/login?sso=…`), which explains it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No started sign-in in this browser, another one's `state`, or too old.
    State,
    /// The provider answered with an error (the user cancelled, say).
    Provider,
    /// The provider could not be reached or gave an unusable answer.
    Unavailable,
    /// The code was refused or the ID token failed verification.
    Token,
    /// The provider does not vouch for the email address.
    EmailUnverified,
    /// No cashkeeper account has this email and registration is closed.
    NoAccount,
    /// The matching account is disabled.
    Disabled,
    /// The account with this email is linked to another account at the
    /// provider already.
    Linked,
}

impl Refusal {
    pub const ALL: [Refusal; 8] = [
        Refusal::State,
        Refusal::Provider,
        Refusal::Unavailable,
        Refusal::Token,
        Refusal::EmailUnverified,
        Refusal::NoAccount,
        Refusal::Disabled,
        Refusal::Linked,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Refusal::State => "state",
            Refusal::Provider => "provider",
            Refusal::Unavailable => "unavailable",
            Refusal::Token => "token",
            Refusal::EmailUnverified => "email_unverified",
            Refusal::NoAccount => "no_account",
            Refusal::Disabled => "disabled",
            Refusal::Linked => "linked",
        }
    }

    pub fn from_code(code: &str) -> Option<Refusal> {
        Refusal::ALL.into_iter().find(|r| r.code() == code)
    }
}

/// A started sign-in: what the callback needs to finish it. Sealed into
/// [`COOKIE`]; never readable or forgeable by the browser.
#[derive(Debug, Serialize, Deserialize)]
pub struct Pending {
    state: String,
    nonce: String,
    verifier: String,
    /// Unix seconds when the sign-in started.
    started: i64,
    /// The page to open once signed in (a path on this site).
    #[serde(default)]
    return_to: Option<String>,
}

impl Pending {
    pub fn seal(&self, sealer: &super::sealed::Sealer) -> String {
        sealer.seal(&serde_json::to_vec(self).expect("plain struct serialises"))
    }

    /// The started sign-in of a cookie value, if it is ours and not too old.
    pub fn open(sealer: &super::sealed::Sealer, cookie: &str, now: i64) -> Option<Pending> {
        let p: Pending = serde_json::from_slice(&sealer.open(cookie)?).ok()?;
        let age = now - p.started;
        (0..=PENDING_LIFETIME.as_secs() as i64)
            .contains(&age)
            .then_some(p)
    }

    /// Where to go once signed in: the page that asked, or the start page.
    pub fn return_to(&self) -> &str {
        self.return_to.as_deref().unwrap_or("/")
    }

    /// Whether the provider's `state` is this sign-in's (constant time).
    pub fn state_matches(&self, state: &str) -> bool {
        use subtle::ConstantTimeEq;
        self.state.as_bytes().ct_eq(state.as_bytes()).into()
    }
}

/// Who the provider says signed in, after every check passed.
#[derive(Debug, Clone)]
pub struct Identity {
    pub issuer: String,
    pub subject: String,
    pub email: Option<String>,
    pub email_verified: bool,
    pub name: Option<String>,
}

type ProviderClient = openidconnect::core::CoreClient<
    openidconnect::EndpointSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointMaybeSet,
    openidconnect::EndpointMaybeSet,
>;

type HttpFuture =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<HttpResponse, HttpError>> + Send>>;

/// The configured provider, its cached metadata and the HTTP client.
pub struct Provider {
    config: OidcConfig,
    redirect: RedirectUrl,
    http: reqwest::Client,
    cache: Mutex<Cache>,
}

#[derive(Default)]
struct Cache {
    metadata: Option<(Instant, CoreProviderMetadata)>,
    /// When an unknown key last made us refetch.
    last_refresh: Option<Instant>,
}

#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error(transparent)]
    Request(#[from] reqwest::Error),
    #[error("the reply is larger than {MAX_REPLY_BYTES} bytes")]
    TooLarge,
    #[error(transparent)]
    Http(#[from] openidconnect::http::Error),
}

/// One request of the flow on our `reqwest`: no redirects (the crate's
/// advice against SSRF), a bounded reply.
async fn send(http: reqwest::Client, req: HttpRequest) -> Result<HttpResponse, HttpError> {
    let (parts, body) = req.into_parts();
    let mut res = http
        .request(parts.method, parts.uri.to_string())
        .headers(parts.headers)
        .body(body)
        .send()
        .await?;
    let mut reply = openidconnect::http::Response::builder().status(res.status());
    if let Some(h) = reply.headers_mut() {
        *h = res.headers().clone();
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = res.chunk().await? {
        if bytes.len() + chunk.len() > MAX_REPLY_BYTES {
            return Err(HttpError::TooLarge);
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(reply.body(bytes)?)
}

impl Provider {
    /// `None` when single sign-on is not configured.
    pub fn from_config(
        config: Option<&OidcConfig>,
        base_url: &str,
    ) -> crate::Result<Option<Provider>> {
        let Some(config) = config else {
            return Ok(None);
        };
        let redirect = RedirectUrl::new(format!("{base_url}{CALLBACK_PATH}"))
            .map_err(|e| anyhow::anyhow!("OpenID redirect URL: {e}"))?;
        let http = crate::outbound::http_client()
            .user_agent(concat!("cashkeeper/", env!("CARGO_PKG_VERSION")))
            .redirect(reqwest::redirect::Policy::none())
            .timeout(TIMEOUT)
            .build()
            .map_err(|e| anyhow::anyhow!("OpenID client: {e}"))?;
        Ok(Some(Provider {
            config: config.clone(),
            redirect,
            http,
            cache: Mutex::new(Cache::default()),
        }))
    }

    fn client_fn(&self) -> impl Fn(HttpRequest) -> HttpFuture + Send + Sync + 'static {
        let http = self.http.clone();
        move |req| -> HttpFuture { Box::pin(send(http.clone(), req)) }
    }

    /// The provider's metadata (discovery and keys), from the cache unless
    /// it is older than an hour or `refresh` asks for new keys.
    async fn metadata(&self, refresh: bool) -> Result<CoreProviderMetadata, Refusal> {
        let mut cache = self.cache.lock().await;
        if let Some((at, m)) = cache.metadata.as_ref() {
            let throttled = cache
                .last_refresh
                .is_some_and(|r| r.elapsed() < REFETCH_AT_MOST_EVERY);
            if (!refresh || throttled) && at.elapsed() < METADATA_LIFETIME {
                return Ok(m.clone());
            }
        }
        if refresh {
            cache.last_refresh = Some(Instant::now());
        }
        let issuer = IssuerUrl::new(self.config.issuer.clone()).map_err(|e| {
            tracing::warn!("CASHKEEPER_OIDC_ISSUER is not a URL: {e}");
            Refusal::Unavailable
        })?;
        let client = self.client_fn();
        let m = CoreProviderMetadata::discover_async(issuer, &client)
            .await
            .map_err(|e| {
                tracing::warn!(
                    issuer = %self.config.issuer,
                    "OpenID discovery failed: {}",
                    crate::error::chain(&e)
                );
                Refusal::Unavailable
            })?;
        cache.metadata = Some((Instant::now(), m.clone()));
        Ok(m)
    }

    fn client(&self, m: CoreProviderMetadata) -> ProviderClient {
        // Basic authentication unless the provider takes only the form field.
        let post_only = m
            .token_endpoint_auth_methods_supported()
            .is_some_and(|methods| {
                methods.contains(&CoreClientAuthMethod::ClientSecretPost)
                    && !methods.contains(&CoreClientAuthMethod::ClientSecretBasic)
            });
        CoreClient::from_provider_metadata(
            m,
            ClientId::new(self.config.client_id.clone()),
            self.config
                .client_secret
                .as_ref()
                .map(|s| ClientSecret::new(s.expose().to_string())),
        )
        .set_redirect_uri(self.redirect.clone())
        .set_auth_type(if post_only {
            AuthType::RequestBody
        } else {
            AuthType::BasicAuth
        })
    }

    /// Starts a sign-in: the provider's authorization URL and what the
    /// callback needs, to be sealed into the browser's cookie.
    pub async fn begin(
        &self,
        now: i64,
        return_to: Option<&str>,
    ) -> Result<(String, Pending), Refusal> {
        let client = self.client(self.metadata(false).await?);
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let (url, state, nonce) = client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                CsrfToken::new_random,
                Nonce::new_random,
            )
            .add_scope(Scope::new("email".into()))
            .add_scope(Scope::new("profile".into()))
            .set_pkce_challenge(challenge)
            .url();
        Ok((
            url.to_string(),
            Pending {
                state: state.secret().clone(),
                nonce: nonce.secret().clone(),
                verifier: verifier.secret().clone(),
                started: now,
                return_to: return_to.and_then(local_path),
            },
        ))
    }

    /// Finishes a sign-in: exchanges the code (with the PKCE verifier) and
    /// verifies the ID token (signature, issuer, audience, expiry, nonce).
    pub async fn finish(&self, pending: Pending, code: &str) -> Result<Identity, Refusal> {
        let metadata = self.metadata(false).await?;
        let client = self.client(metadata);
        let http = self.client_fn();
        let token = client
            .exchange_code(AuthorizationCode::new(code.to_string()))
            .map_err(|e| {
                tracing::warn!("the provider names no token endpoint: {e}");
                Refusal::Unavailable
            })?
            .set_pkce_verifier(PkceCodeVerifier::new(pending.verifier))
            .request_async(&http)
            .await
            .map_err(|e| {
                tracing::warn!("the provider refused the code: {}", crate::error::chain(&e));
                Refusal::Token
            })?;
        let Some(id_token) = token.id_token() else {
            tracing::warn!("the provider's token reply has no ID token");
            return Err(Refusal::Token);
        };
        let nonce = Nonce::new(pending.nonce);
        let claims = match id_token.claims(&client.id_token_verifier(), &nonce) {
            Ok(c) => c.clone(),
            Err(ClaimsVerificationError::SignatureVerification(
                SignatureVerificationError::NoMatchingKey,
            )) => {
                // The provider may have rotated its keys since we fetched them.
                let client = self.client(self.metadata(true).await?);
                let verifier = client.id_token_verifier();
                let claims = id_token.claims(&verifier, &nonce).map_err(|e| {
                    tracing::warn!("the ID token failed verification: {e}");
                    Refusal::Token
                })?;
                claims.clone()
            }
            Err(e) => {
                tracing::warn!("the ID token failed verification: {e}");
                return Err(Refusal::Token);
            }
        };
        let mut identity = Identity {
            issuer: claims.issuer().to_string(),
            subject: claims.subject().to_string(),
            email: claims.email().map(|e| e.to_string()),
            email_verified: claims.email_verified() == Some(true),
            name: claims
                .name()
                .and_then(|n| n.get(None))
                .map(|n| n.to_string())
                .or_else(|| claims.preferred_username().map(|u| u.to_string())),
        };
        // Many providers keep the ID token small: the address, or whether
        // it is verified, may come only from the userinfo endpoint (for the
        // same subject). An explicit `email_verified: false` in the signed
        // token stands.
        if identity.email.is_none() || claims.email_verified().is_none() {
            match self
                .user_info(&client, &token, claims.subject(), &http)
                .await
            {
                Some(info) => {
                    let info_email = info.email().map(|e| e.to_string());
                    let verified = info.email_verified() == Some(true);
                    match &identity.email {
                        None => {
                            identity.email = info_email;
                            identity.email_verified = verified;
                        }
                        // Only a verdict on the same address counts.
                        Some(e) if info_email.is_some_and(|i| i.eq_ignore_ascii_case(e)) => {
                            identity.email_verified = verified;
                        }
                        Some(_) => {}
                    }
                    if identity.name.is_none() {
                        identity.name = info
                            .name()
                            .and_then(|n| n.get(None))
                            .map(|n| n.to_string())
                            .or_else(|| info.preferred_username().map(|u| u.to_string()));
                    }
                }
                // Without it the address counts as unverified: a linked
                // account still signs in, a new match is refused.
                None => identity.email_verified = false,
            }
        }
        Ok(identity)
    }

    /// The userinfo claims for the token's subject; `None` (logged) when
    /// the provider has no such endpoint or it fails.
    async fn user_info(
        &self,
        client: &ProviderClient,
        token: &openidconnect::core::CoreTokenResponse,
        subject: &openidconnect::SubjectIdentifier,
        http: &(impl Fn(HttpRequest) -> HttpFuture + Sync),
    ) -> Option<openidconnect::core::CoreUserInfoClaims> {
        let request = client
            .user_info(token.access_token().clone(), Some(subject.clone()))
            .map_err(|_| tracing::warn!("the provider names no userinfo endpoint"))
            .ok()?;
        request
            .request_async(http)
            .await
            .map_err(|e| {
                tracing::warn!(
                    "the provider's userinfo failed: {}",
                    crate::error::chain(&e)
                )
            })
            .ok()
    }
}

/// `raw` when it is a path on this site (never another origin: no
/// `//host`, no backslashes, no scheme), short and plain.
pub fn local_path(raw: &str) -> Option<String> {
    let plain = raw.len() <= 200
        && raw.starts_with('/')
        && !raw.starts_with("//")
        && raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/-_.#?=&".contains(&b));
    plain.then(|| raw.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_on_this_site_are_returned_to() {
        assert_eq!(
            local_path("/settings#api-tokens").as_deref(),
            Some("/settings#api-tokens")
        );
        assert_eq!(local_path("/").as_deref(), Some("/"));
        for bad in [
            "//evil.example",
            "https://evil.example",
            "/\\evil.example",
            "evil",
            "",
            "/a b",
            "/%2F%2Fevil",
            "/\u{e9}",
        ] {
            assert_eq!(local_path(bad), None, "{bad}");
        }
    }

    #[test]
    fn refusal_codes_read_back() {
        for r in Refusal::ALL {
            assert_eq!(Refusal::from_code(r.code()), Some(r));
        }
        assert_eq!(Refusal::from_code("other"), None);
    }

    #[test]
    fn a_pending_sign_in_opens_only_sealed_by_us_and_only_for_ten_minutes() {
        let sealer = crate::auth::sealed::Sealer::from_key(&[7u8; 32]).unwrap();
        let other = crate::auth::sealed::Sealer::from_key(&[8u8; 32]).unwrap();
        let p = Pending {
            state: "s1".into(),
            nonce: "n1".into(),
            verifier: "v1".into(),
            started: 1_000,
            return_to: None,
        };
        let cookie = p.seal(&sealer);
        let back = Pending::open(&sealer, &cookie, 1_000 + 599).unwrap();
        assert!(back.state_matches("s1"));
        assert!(!back.state_matches("s2"));
        assert!(!back.state_matches(""));
        assert!(Pending::open(&sealer, &cookie, 1_000 + 601).is_none());
        assert!(Pending::open(&sealer, &cookie, 999).is_none());
        assert!(Pending::open(&other, &cookie, 1_000).is_none());
        let mut tampered = cookie.clone().into_bytes();
        let last = tampered.len() - 2;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        assert!(Pending::open(&sealer, &String::from_utf8(tampered).unwrap(), 1_000).is_none());
    }
}

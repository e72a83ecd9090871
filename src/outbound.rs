//! The builder of every outbound HTTP client (the exchange-rate feed, the AI
//! provider, web push, single sign-on, the health check): one home for the
//! TLS set-up, below every layer that sends a request.

/// The builder of every outbound HTTP client. TLS is rustls with the `ring`
/// provider; reqwest is built without a provider of its own, so the first
/// call installs ring's as the process's default (docs/performance.md,
/// "The binary").
pub fn http_client() -> reqwest::ClientBuilder {
    static PROVIDER: std::sync::Once = std::sync::Once::new();
    PROVIDER.call_once(|| {
        // Err only when a provider is installed already, which is as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    reqwest::Client::builder()
}

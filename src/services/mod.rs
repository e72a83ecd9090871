//! Outbound I/O: the AI provider, mail, web push and the exchange-rate
//! refresh.

pub mod ai;
pub mod mail;
pub mod push;
pub mod rates;

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

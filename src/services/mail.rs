//! Password-reset mail through SMTP (lettre, rustls), or the log when no
//! `SMTP_URL` is configured.

use crate::config::Config;
use crate::error::Result;
use crate::store::users::User;
use anyhow::Context;
use lettre::message::{header::ContentType, Mailbox};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

pub enum Mailer {
    Smtp {
        transport: Box<AsyncSmtpTransport<Tokio1Executor>>,
        from: Mailbox,
    },
    /// No SMTP: reset links go to the log, for the operator to pass on.
    Log,
}

impl Mailer {
    pub fn from_config(config: &Config) -> Result<Mailer> {
        let Some(url) = &config.smtp_url else {
            return Ok(Mailer::Log);
        };
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url.expose())
            .context("SMTP_URL")?
            .build();
        let transport = Box::new(transport);
        let from = config.mail_from.parse().context("MAIL_FROM")?;
        Ok(Mailer::Smtp { transport, from })
    }

    /// Sends the reset link to `user` in their language.
    pub async fn send_reset(&self, user: &User, link: &str) -> Result<()> {
        let (subject, body) = crate::i18n::mail::reset(user.locale, link);
        match self {
            Mailer::Log => {
                tracing::info!(
                    user_id = %user.id,
                    "no SMTP_URL configured; password-reset link for {}: {link}",
                    user.email
                );
                Ok(())
            }
            Mailer::Smtp { transport, from } => {
                let to: Mailbox = user.email.parse().context("recipient address")?;
                let message = Message::builder()
                    .from(from.clone())
                    .to(to)
                    .subject(subject)
                    .header(ContentType::TEXT_PLAIN)
                    .body(body)
                    .context("building mail")?;
                transport.send(message).await.context("SMTP")?;
                tracing::info!(user_id = %user.id, "password-reset mail sent");
                Ok(())
            }
        }
    }
}

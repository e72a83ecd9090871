//! One dialog with the bank: init, signing, sending, and its end (HKEND),
//! sent in the background when a dialog still open is dropped.

use super::message::{self, Response, Signer, ANONYMOUS_CUSTOMER, COUNTRY, ONE_STEP};
use super::syntax::{self, Element, Segment};
use super::{error_of, mask, BankState, Client, Error};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use chrono::Utc;

/// One dialog with the bank.
pub(super) struct Dialog {
    pub(super) client: Client,
    pub(super) state: BankState,
    pub(super) anonymous: bool,
    pub(super) id: String,
    pub(super) message_number: u32,
    pub(super) open: bool,
}

impl Dialog {
    pub(super) fn new(client: Client, state: BankState, anonymous: bool) -> Dialog {
        Dialog {
            client,
            state,
            anonymous,
            id: "0".into(),
            message_number: 1,
            open: false,
        }
    }

    pub(super) fn take_state(&mut self) -> BankState {
        std::mem::take(&mut self.state)
    }

    pub(super) fn hkvvb(&self) -> Segment {
        let c = &self.client.inner.config;
        Segment::new(
            "HKVVB",
            3,
            vec![
                Element::text(&self.state.bpd_version.to_string()),
                Element::text(&self.state.upd_version.to_string()),
                Element::text("0"),
                Element::text(&c.product_id),
                Element::text(&c.product_version),
            ],
        )
    }

    pub(super) fn hkidn(&self, customer: &str, system_id: &str, needed: &str) -> Segment {
        Segment::new(
            "HKIDN",
            2,
            vec![
                Element::group(&[COUNTRY, &self.client.inner.bank.bank_code]),
                Element::text(customer),
                Element::text(system_id),
                Element::text(needed),
            ],
        )
    }

    pub(super) async fn open_anonymous(&mut self) -> Result<(), Error> {
        let segs = vec![self.hkidn(ANONYMOUS_CUSTOMER, "0", "0"), self.hkvvb()];
        let r = self.send(segs, None).await?;
        self.open = true;
        if let Some(e) = error_of(&r) {
            return Err(e);
        }
        self.state.absorb(&r);
        if !self.state.has_bpd() {
            return Err(Error::Protocol(
                "no bank parameters (HIBPA) in the answer".into(),
            ));
        }
        Ok(())
    }

    pub(super) async fn synchronise(&mut self) -> Result<(), Error> {
        let customer = self.client.customer().to_owned();
        let segs = vec![
            self.hkidn(&customer, "0", "1"),
            self.hkvvb(),
            Segment::new("HKSYN", 3, vec![Element::text("0")]),
        ];
        let r = self.send_signed(segs, ONE_STEP, None).await?;
        self.open = true;
        if let Some(e) = error_of(&r) {
            return Err(e);
        }
        self.state.absorb(&r);
        if !self.state.has_bpd() {
            return Err(Error::Protocol(
                "no bank parameters (HIBPA) in the answer".into(),
            ));
        }
        if self.state.system_id.is_none() {
            return Err(Error::Protocol("no customer system id (HISYN)".into()));
        }
        Ok(())
    }

    pub(super) fn security_function(&self) -> String {
        self.state
            .tan_method
            .clone()
            .unwrap_or_else(|| ONE_STEP.to_owned())
    }

    pub(super) async fn send_signed(
        &mut self,
        segments: Vec<Segment>,
        security_function: &str,
        tan: Option<&str>,
    ) -> Result<Response, Error> {
        let inner = self.client.inner.clone();
        let system_id = self.state.system_id.clone().unwrap_or_else(|| "0".into());
        let customer = self.client.customer().to_owned();
        let signer = Signer {
            bank_code: &inner.bank.bank_code,
            login: &customer,
            system_id: &system_id,
            security_function,
            pin: inner.credentials.pin.expose(),
            tan,
        };
        self.send(segments, Some(&signer)).await
    }

    pub(super) async fn send(
        &mut self,
        segments: Vec<Segment>,
        signer: Option<&Signer<'_>>,
    ) -> Result<Response, Error> {
        let kinds: Vec<String> = segments.iter().map(Segment::kind).collect();
        let now = Utc::now();
        let control = format!(
            "{}",
            1_000_000 + (now.timestamp_subsec_micros() % 8_999_999)
        );
        let bytes = message::build(
            &self.id,
            self.message_number,
            segments,
            signer,
            &control,
            (
                &now.format("%Y%m%d").to_string(),
                &now.format("%H%M%S").to_string(),
            ),
        );
        self.message_number += 1;
        let inner = &self.client.inner;
        tracing::debug!(
            bank = %inner.bank.bank_code,
            login = %mask(&inner.credentials.login),
            segments = ?kinds,
            "FinTS request"
        );
        let body = STANDARD.encode(&bytes);
        let reply = inner
            .http
            .post(&inner.bank.url)
            .header("Content-Type", "text/plain")
            .body(body)
            .send()
            .await
            .map_err(http_error)?;
        if !reply.status().is_success() {
            return Err(Error::Unreachable(format!("HTTP {}", reply.status())));
        }
        let text = reply.bytes().await.map_err(http_error)?;
        if text.len() > syntax::MAX_MESSAGE * 4 / 3 + 4 {
            return Err(Error::Protocol("answer too large".into()));
        }
        let clean: Vec<u8> = text
            .iter()
            .copied()
            .filter(|b| !b.is_ascii_whitespace())
            .collect();
        let raw = STANDARD
            .decode(&clean)
            .map_err(|e| Error::Protocol(format!("not base64: {e}")))?;
        let response = Response::parse(&raw).map_err(|e| Error::Protocol(e.to_string()))?;
        if !response.dialog_id.is_empty() && response.dialog_id != "0" {
            self.id = response.dialog_id.clone();
        }
        tracing::debug!(
            bank = %inner.bank.bank_code,
            codes = ?response.codes.iter().map(|c| c.code.as_str()).collect::<Vec<_>>(),
            "FinTS answer"
        );
        Ok(response)
    }

    /// Ends the dialog (HKEND); failures are only logged.
    pub(super) async fn end(&mut self) {
        if !self.open {
            return;
        }
        self.open = false;
        let end = Segment::new("HKEND", 1, vec![Element::text(&self.id)]);
        let result = if self.anonymous {
            self.send(vec![end], None).await
        } else {
            let sf = self.security_function();
            self.send_signed(vec![end], &sf, None).await
        };
        if let Err(e) = result {
            tracing::info!(bank = %self.client.inner.bank.bank_code, "FinTS dialog end failed: {e}");
        }
    }
}

impl Drop for Dialog {
    fn drop(&mut self) {
        if !self.open {
            return;
        }
        // Ends the dialog in the background: a held dialog that is dropped
        // must not stay open at the bank.
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            // Closed until the task runs: a task dropped unrun (the
            // runtime shutting down) must not spawn another.
            let mut rest = Dialog {
                client: self.client.clone(),
                state: std::mem::take(&mut self.state),
                anonymous: self.anonymous,
                id: std::mem::take(&mut self.id),
                message_number: self.message_number,
                open: false,
            };
            self.open = false;
            handle.spawn(async move {
                rest.open = true;
                rest.end().await
            });
        }
    }
}

pub(super) fn http_error(e: reqwest::Error) -> Error {
    if e.is_timeout() {
        Error::Timeout
    } else {
        // Without the URL: it may carry more than the host.
        Error::Unreachable(e.without_url().to_string())
    }
}

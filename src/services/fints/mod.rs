//! A read-only FinTS 3.0 PIN/TAN client (docs/bank-sync.md): reads the
//! bank's and the user's parameters, the accounts, the bookings (camt.052
//! through HKCAZ where the bank offers it, else MT940 through HKKAZ, every
//! continuation page) and the booked balance. It never sends an order.
//!
//! An operation answers an [`Outcome`]: done, a TAN method to choose, or a
//! TAN to give. A [`Pending`] dialog waits in memory for the TAN
//! ([`Pending::send_tan`]) or for the approval in the bank's app
//! ([`Pending::poll`]); dropping it ends the dialog. Bookings are returned
//! as the bank sent them, for the import's MT940 and CAMT readers.
//!
//! Logged lines name segments and return codes, never a message's bytes:
//! the PIN, the TAN and the login name appear in no log line.

pub mod address;
pub mod message;
pub mod params;
pub mod syntax;

use crate::config::Secret;
use crate::error::{BankFailure, Reason};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use chrono::{NaiveDate, Utc};
use message::{Response, Signer, ANONYMOUS_CUSTOMER, COUNTRY, ONE_STEP};
pub use params::{Account, BankState, TanMethod};
use rust_decimal::Decimal;
use std::marker::PhantomData;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;
use syntax::{Element, Item, Segment};

/// How long one request to a bank may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long an approval in the bank's app is waited for at most.
pub const MAX_APPROVAL_WAIT: Duration = Duration::from_secs(5 * 60);

/// The continuation pages followed at most for one statement.
pub const MAX_PAGES: usize = 1_000;

/// The order versions this client speaks.
const KAZ_VERSIONS: &[u32] = &[5, 6, 7];
const CAZ_VERSIONS: &[u32] = &[1];
const SAL_VERSIONS: &[u32] = &[5, 6, 7];
const SPA_VERSIONS: &[u32] = &[1, 2, 3];
const TAN_VERSIONS: &[u32] = &[5, 6, 7];
const TAB_VERSIONS: &[u32] = &[4];

/// The camt.052 format asked for when the bank names none.
const CAMT_052: &str = "urn:iso:std:iso:20022:tech:xsd:camt.052.001.02";

/// The registered product and the time limit of each request.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// The product registration number banks require in HKVVB.
    pub product_id: String,
    pub product_version: String,
    pub timeout: Duration,
}

/// The bank's FinTS address and its German bank code (BLZ).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BankTarget {
    pub url: String,
    pub bank_code: String,
}

/// Who logs in.
#[derive(Clone)]
pub struct Credentials {
    pub login: String,
    /// When the bank gives a customer id apart from the login name.
    pub customer_id: Option<String>,
    pub pin: Secret,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("login", &mask(&self.login))
            .field("pin", &self.pin)
            .finish_non_exhaustive()
    }
}

/// A login name as logs may show it: its first character only.
pub fn mask(login: &str) -> String {
    let first: String = login.chars().take(1).collect();
    format!("{first}***")
}

/// Why an operation failed, in terms a user can act on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("the bank refused the PIN ({code}: {text})")]
    WrongPin { code: String, text: String },
    #[error("the bank has locked the access ({code}: {text})")]
    Locked { code: String, text: String },
    #[error("the bank refused the TAN or it expired ({code}: {text})")]
    TanRejected { code: String, text: String },
    #[error("the bank did not accept the product id ({code}: {text})")]
    ProductRefused { code: String, text: String },
    #[error("the bank is not reachable: {0}")]
    Unreachable(String),
    #[error("the bank did not answer in time")]
    Timeout,
    #[error("the approval in the banking app was not given in time")]
    ApprovalTimedOut,
    #[error("the bank refused ({code}: {text})")]
    Refused { code: String, text: String },
    #[error("the bank's answer cannot be read: {0}")]
    Protocol(String),
    #[error("the bank does not offer {0}")]
    NotOffered(&'static str),
    #[error("the chosen TAN method is not offered by the bank")]
    UnknownTanMethod,
}

/// The bank's own words shown to a person at most, in characters.
const MAX_BANK_TEXT: usize = 200;

impl Error {
    /// What a person reads of this error (worded in `i18n`); the return
    /// code and the technical cause stay in the error's `Display`, for the
    /// log. Only a refusal the client does not know by its code carries the
    /// bank's own words, on one line and shortened.
    pub fn failure(&self) -> BankFailure {
        match self {
            Error::WrongPin { .. } => BankFailure::WrongPin,
            Error::Locked { .. } => BankFailure::Locked,
            Error::TanRejected { .. } => BankFailure::TanRejected,
            Error::ProductRefused { .. } => BankFailure::ProductRefused,
            Error::Unreachable(_) => BankFailure::Unreachable,
            Error::Timeout => BankFailure::Timeout,
            Error::ApprovalTimedOut => BankFailure::ApprovalTimedOut,
            Error::Refused { text, .. } => BankFailure::Refused {
                text: plain_bank_text(text),
            },
            Error::Protocol(_) => BankFailure::Unreadable,
            Error::NotOffered(_) => BankFailure::NotOffered,
            Error::UnknownTanMethod => BankFailure::UnknownTanMethod,
        }
    }

    /// The refusal a person reads: [`Error::failure`] as a [`Reason`].
    pub fn reason(&self) -> Reason {
        Reason::Bank(self.failure())
    }
}

/// The bank's text on one line, without control characters, cut to
/// [`MAX_BANK_TEXT`] characters.
fn plain_bank_text(text: &str) -> String {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect();
    let line = words.join(" ");
    match line.char_indices().nth(MAX_BANK_TEXT) {
        Some((cut, _)) => format!("{}…", line[..cut].trim_end()),
        None => line,
    }
}

/// Return codes of a refused PIN.
pub const WRONG_PIN: &[&str] = &["9910", "9931", "9942", "9930"];
/// Return codes of a locked access (some banks send them as warnings).
pub const LOCKED: &[&str] = &["3938", "3931", "9938", "9936"];
/// Return codes of a wrong or expired TAN.
pub const TAN_REJECTED: &[&str] = &["9941", "9951", "9955", "9340"];
/// Return codes of a refused product registration.
pub const PRODUCT_REFUSED: &[&str] = &["9078", "9952"];

/// The typed error an answer's return codes mean, if any.
pub fn error_of(response: &Response) -> Option<Error> {
    let find = |set: &[&str]| {
        response
            .codes
            .iter()
            .find(|c| set.contains(&c.code.as_str()))
    };
    let pair = |c: &message::Code| (c.code.clone(), c.text.clone());
    if let Some(c) = find(LOCKED) {
        let (code, text) = pair(c);
        return Some(Error::Locked { code, text });
    }
    if let Some(c) = find(PRODUCT_REFUSED) {
        let (code, text) = pair(c);
        return Some(Error::ProductRefused { code, text });
    }
    if let Some(c) = find(WRONG_PIN) {
        let (code, text) = pair(c);
        return Some(Error::WrongPin { code, text });
    }
    if let Some(c) = find(TAN_REJECTED) {
        let (code, text) = pair(c);
        return Some(Error::TanRejected { code, text });
    }
    // The most telling error: not the generic "message has errors" or
    // "dialog ended" when a more specific one is there.
    let errors: Vec<_> = response.codes.iter().filter(|c| c.is_error()).collect();
    let c = errors
        .iter()
        .find(|c| !matches!(c.code.as_str(), "9050" | "9800"))
        .or(errors.first())?;
    let (code, text) = pair(c);
    Some(Error::Refused { code, text })
}

/// A TAN challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Challenge {
    /// The text the bank shows.
    pub text: String,
    /// Approval in the bank's app: continue with [`Pending::poll`].
    pub decoupled: bool,
    /// The HHD_UC data for a flicker code or a photoTAN, as sent.
    pub hhd_uc: Option<Vec<u8>>,
    /// How long to wait before the next [`Pending::poll`] (decoupled).
    pub poll_after: Duration,
}

/// The bookings as the bank sent them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Statement {
    /// MT940, all continuation pages joined.
    Mt940(Vec<u8>),
    /// camt.052 documents, one or more per page.
    Camt052(Vec<Vec<u8>>),
}

/// A booked balance (HKSAL).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Balance {
    pub amount: Decimal,
    pub currency: String,
    pub date: NaiveDate,
}

/// What [`Client::connect`] gives: the state to keep and the accounts.
#[derive(Clone, Debug)]
pub struct Connected {
    pub state: BankState,
    pub accounts: Vec<Account>,
}

/// What [`Client::fetch`] gives.
#[derive(Clone, Debug)]
pub struct Fetched {
    pub state: BankState,
    pub statement: Statement,
    pub balance: Option<Balance>,
    /// The continuation pages read (1 without continuation).
    pub pages: usize,
}

/// Where an operation stands.
#[derive(Debug)]
pub enum Outcome<T> {
    Done(T),
    /// The user may use several TAN methods: choose one with
    /// [`BankState::choose_tan_method`] on `state`, then call again.
    ChooseTanMethod {
        methods: Vec<TanMethod>,
        state: Box<BankState>,
    },
    /// A TAN or an approval is needed to go on.
    NeedTan(Box<Pending<T>>),
}

/// Converts the finished work of a dialog to an operation's output.
pub trait Output: Sized {
    #[doc(hidden)]
    fn from_finished(job: Job, state: BankState) -> Result<Self, Error>;
}

impl Output for Connected {
    fn from_finished(_job: Job, state: BankState) -> Result<Self, Error> {
        Ok(Connected {
            accounts: state.accounts.clone(),
            state,
        })
    }
}

impl Output for Fetched {
    fn from_finished(job: Job, state: BankState) -> Result<Self, Error> {
        match job {
            Job::Fetch {
                pages,
                camt,
                balance,
                ..
            } => {
                let n = pages.len().max(1);
                let statement = if camt {
                    Statement::Camt052(pages.into_iter().flatten().collect())
                } else {
                    Statement::Mt940(pages.into_iter().flatten().flatten().collect())
                };
                Ok(Fetched {
                    state,
                    statement,
                    balance,
                    pages: n,
                })
            }
            Job::Connect { .. } => Err(Error::Protocol("unexpected job".into())),
        }
    }
}

/// The work of one dialog and how far it got.
#[doc(hidden)]
#[derive(Debug)]
pub enum Job {
    Connect {
        step: Step,
    },
    Fetch {
        step: Step,
        account: Box<Account>,
        from: Option<NaiveDate>,
        to: Option<NaiveDate>,
        camt: bool,
        touchdown: Option<String>,
        /// Per page: the documents (camt) or one MT940 chunk.
        pages: Vec<Vec<Vec<u8>>>,
        balance: Option<Balance>,
    },
}

#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Init,
    Accounts,
    /// The TAN media (HKTAB), when the method needs one named.
    Media,
    Bookings,
    Balance,
    Finished,
}

impl Job {
    fn step(&self) -> Step {
        match self {
            Job::Connect { step } | Job::Fetch { step, .. } => *step,
        }
    }
    fn set_step(&mut self, s: Step) {
        match self {
            Job::Connect { step } | Job::Fetch { step, .. } => *step = s,
        }
    }
}

struct Inner {
    http: reqwest::Client,
    config: ClientConfig,
    bank: BankTarget,
    credentials: Credentials,
}

/// A client for one bank and one login.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl Client {
    pub fn new(
        config: ClientConfig,
        bank: BankTarget,
        credentials: Credentials,
    ) -> Result<Client, Error> {
        Client::build(config, bank, credentials, None)
    }

    /// A client that connects to `addr` for the bank's host `host`: the
    /// address checked (`address::check_bank_addresses`), so the name
    /// cannot be pointed elsewhere between the check and the connection.
    pub fn pinned(
        config: ClientConfig,
        bank: BankTarget,
        credentials: Credentials,
        host: &str,
        addr: std::net::SocketAddr,
    ) -> Result<Client, Error> {
        Client::build(config, bank, credentials, Some((host, addr)))
    }

    fn build(
        config: ClientConfig,
        bank: BankTarget,
        credentials: Credentials,
        pin_to: Option<(&str, std::net::SocketAddr)>,
    ) -> Result<Client, Error> {
        // No proxy and no redirects: the bank's address is the one checked.
        let mut http = crate::outbound::http_client()
            .user_agent(concat!("cashkeeper/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(config.timeout.min(Duration::from_secs(10)))
            .timeout(config.timeout)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy();
        if let Some((host, addr)) = pin_to {
            http = http.resolve(host, addr);
        }
        let http = http
            .build()
            .map_err(|e| Error::Unreachable(e.to_string()))?;
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                config,
                bank,
                credentials,
            }),
        })
    }

    fn customer(&self) -> &str {
        let c = &self.inner.credentials;
        c.customer_id.as_deref().unwrap_or(&c.login)
    }

    /// Reads the bank's parameters anonymously when `state` has none,
    /// synchronises a customer system id when it has none, opens the
    /// dialog with the chosen TAN method and reads the accounts (UPD and
    /// HKSPA).
    pub async fn connect(&self, state: BankState) -> Result<Outcome<Connected>, Error> {
        let state = match self.prepare(state).await? {
            Ok(state) => state,
            Err(choose) => return Ok(choose),
        };
        Run {
            dialog: Dialog::new(self.clone(), state, false),
            job: Job::Connect { step: Step::Init },
            pending_reference: String::new(),
        }
        .drive()
        .await
    }

    /// Fetches the bookings of `account` from `from` to `to` (camt.052
    /// where the bank offers HKCAZ, else MT940), every continuation page,
    /// and its booked balance. Without dates the bank sends all it keeps.
    pub async fn fetch(
        &self,
        state: BankState,
        account: &Account,
        from: Option<NaiveDate>,
        to: Option<NaiveDate>,
    ) -> Result<Outcome<Fetched>, Error> {
        let state = match self.prepare(state).await? {
            Ok(state) => state,
            Err(choose) => return Ok(choose),
        };
        let camt = state.version("HKCAZ", CAZ_VERSIONS).is_some();
        if !camt && state.version("HKKAZ", KAZ_VERSIONS).is_none() {
            return Err(Error::NotOffered("HKKAZ"));
        }
        Run {
            dialog: Dialog::new(self.clone(), state, false),
            job: Job::Fetch {
                step: Step::Init,
                account: Box::new(account.clone()),
                from,
                to,
                camt,
                touchdown: None,
                pages: Vec::new(),
                balance: None,
            },
            pending_reference: String::new(),
        }
        .drive()
        .await
    }

    /// BPD, system id and TAN method: `Err(outcome)` when the user must
    /// choose a TAN method first.
    async fn prepare<T>(
        &self,
        mut state: BankState,
    ) -> Result<Result<BankState, Outcome<T>>, Error> {
        if !state.has_bpd() {
            let mut d = Dialog::new(self.clone(), state, true);
            let r = d.open_anonymous().await;
            d.end().await;
            state = d.take_state();
            match r {
                // Not reached, or the product refused: the signed dialog
                // would fail the same way.
                Err(
                    e @ (Error::Timeout | Error::Unreachable(_) | Error::ProductRefused { .. }),
                ) => return Err(e),
                // Some banks serve no anonymous dialog; the signed one
                // below then brings the parameters (HKVVB with version 0).
                Err(e) => {
                    tracing::info!(bank = %self.inner.bank.bank_code, "FinTS anonymous dialog refused: {e}")
                }
                Ok(()) => {}
            }
        }
        if state.system_id.is_none() {
            let mut d = Dialog::new(self.clone(), state, false);
            let r = d.synchronise().await;
            d.end().await;
            r?;
            state = d.take_state();
        }
        if state.one_step_only() {
            state.tan_method = Some(ONE_STEP.into());
            return Ok(Ok(state));
        }
        if let Some(code) = &state.tan_method {
            if code == ONE_STEP || state.chosen_tan_method().is_some() {
                return Ok(Ok(state));
            }
            state.tan_method = None;
        }
        let methods = state.usable_tan_methods();
        match methods.len() {
            0 => Err(Error::UnknownTanMethod),
            1 => {
                state.tan_method = Some(methods[0].code.clone());
                Ok(Ok(state))
            }
            _ => Ok(Err(Outcome::ChooseTanMethod {
                methods,
                state: Box::new(state),
            })),
        }
    }
}

/// One dialog with the bank.
struct Dialog {
    client: Client,
    state: BankState,
    anonymous: bool,
    id: String,
    message_number: u32,
    open: bool,
}

impl Dialog {
    fn new(client: Client, state: BankState, anonymous: bool) -> Dialog {
        Dialog {
            client,
            state,
            anonymous,
            id: "0".into(),
            message_number: 1,
            open: false,
        }
    }

    fn take_state(&mut self) -> BankState {
        std::mem::take(&mut self.state)
    }

    fn hkvvb(&self) -> Segment {
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

    fn hkidn(&self, customer: &str, system_id: &str, needed: &str) -> Segment {
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

    async fn open_anonymous(&mut self) -> Result<(), Error> {
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

    async fn synchronise(&mut self) -> Result<(), Error> {
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

    fn security_function(&self) -> String {
        self.state
            .tan_method
            .clone()
            .unwrap_or_else(|| ONE_STEP.to_owned())
    }

    async fn send_signed(
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

    async fn send(
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
    async fn end(&mut self) {
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

fn http_error(e: reqwest::Error) -> Error {
    if e.is_timeout() {
        Error::Timeout
    } else {
        // Without the URL: it may carry more than the host.
        Error::Unreachable(e.without_url().to_string())
    }
}

/// A dialog with its work.
struct Run {
    dialog: Dialog,
    job: Job,
    /// The task reference of the order waiting for a TAN.
    pending_reference: String,
}

/// A dialog waiting for a TAN or an approval: hold it across requests,
/// then [`send_tan`](Pending::send_tan) or [`poll`](Pending::poll).
/// Dropping it ends the dialog.
pub struct Pending<T> {
    run: Run,
    challenge: Challenge,
    _output: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for Pending<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("challenge", &self.challenge)
            .finish_non_exhaustive()
    }
}

impl<T: Output> Pending<T> {
    pub fn challenge(&self) -> &Challenge {
        &self.challenge
    }

    /// Sends the typed TAN (HKTAN process 2) and goes on.
    pub async fn send_tan(mut self, tan: &Secret) -> Result<Outcome<T>, Error> {
        let hktan = self.run.hktan_answer("2")?;
        let sf = self.run.dialog.security_function();
        let r = self
            .run
            .dialog
            .send_signed(vec![hktan], &sf, Some(tan.expose()))
            .await;
        let r = self.run.finish_on_error(r).await?;
        self.run.take(&r)?;
        self.run.drive().await
    }

    /// Asks whether the approval was given (HKTAN process `S`): the same
    /// pending dialog again while the bank still waits (3956).
    pub async fn poll(mut self) -> Result<Outcome<T>, Error> {
        let hktan = self.run.hktan_answer("S")?;
        let sf = self.run.dialog.security_function();
        let r = self.run.dialog.send_signed(vec![hktan], &sf, None).await;
        let r = self.run.finish_on_error(r).await?;
        if r.has("3956") {
            return Ok(Outcome::NeedTan(Box::new(self)));
        }
        self.run.take(&r)?;
        self.run.drive().await
    }

    /// Polls at the bank's interval until the approval is given, at most
    /// [`MAX_APPROVAL_WAIT`].
    pub async fn wait_for_approval(self) -> Result<Outcome<T>, Error> {
        let deadline = tokio::time::Instant::now() + MAX_APPROVAL_WAIT;
        let mut pending = self;
        loop {
            let wait = pending.challenge.poll_after.max(Duration::from_secs(1));
            if tokio::time::Instant::now() + wait > deadline {
                pending.cancel().await;
                return Err(Error::ApprovalTimedOut);
            }
            tokio::time::sleep(wait).await;
            match pending.poll().await? {
                Outcome::NeedTan(p) if p.challenge.decoupled => pending = *p,
                other => return Ok(other),
            }
        }
    }

    /// Ends the dialog now.
    pub async fn cancel(mut self) {
        self.run.dialog.end().await;
    }
}

impl Run {
    fn tan_version(&self) -> u32 {
        self.dialog
            .state
            .chosen_tan_method()
            .map(|m| m.hktan_version)
            .filter(|v| TAN_VERSIONS.contains(v))
            .or_else(|| self.dialog.state.version("HKTAN", TAN_VERSIONS))
            .unwrap_or(6)
    }

    /// HKTAN process 4 announcing `order`, or `None` with one-step PIN/TAN.
    fn hktan_for(&self, order: &str) -> Option<Segment> {
        if self.dialog.security_function() == ONE_STEP {
            return None;
        }
        let state = &self.dialog.state;
        // A method that needs a TAN medium the bank has not named yet:
        // the dialog is opened for reading the media (HKTAB), as banks
        // accept it without one.
        let order = if order == "HKIDN" && self.media_wanted() {
            "HKTAB"
        } else {
            order
        };
        let version = self.tan_version();
        let mut elements = vec![Element::text("4"), Element::text(order)];
        let method = state.chosen_tan_method();
        if let (Some(m), Some(medium)) = (method, &state.tan_medium) {
            if m.needs_medium {
                // The medium's name is element 11 (12 in version 5, which
                // has the TAN list number too).
                elements.resize(if version == 5 { 11 } else { 10 }, Element::empty());
                elements.push(Element::text(medium));
            }
        }
        Some(Segment::new("HKTAN", version, elements))
    }

    /// Whether the TAN media are to be read: the chosen method needs one,
    /// none is chosen, and the bank serves HKTAB.
    fn media_wanted(&self) -> bool {
        let state = &self.dialog.state;
        state.tan_medium.is_none()
            && state.chosen_tan_method().is_some_and(|m| m.needs_medium)
            && state.version("HKTAB", TAB_VERSIONS).is_some()
    }

    fn hktan_answer(&self, process: &str) -> Result<Segment, Error> {
        let reference = self.pending_reference.clone();
        let version = self.tan_version();
        let mut elements = vec![
            Element::text(process),
            Element::empty(),
            Element::empty(),
            Element::empty(),
            Element::text(&reference),
        ];
        if version == 5 {
            // Version 5 has the TAN list number before "another TAN follows".
            elements.push(Element::empty());
        }
        elements.push(Element::text("N"));
        Ok(Segment::new("HKTAN", version, elements))
    }
}

impl Run {
    /// Sends the job's requests until it is finished or a TAN is needed.
    async fn drive<T: Output>(mut self) -> Result<Outcome<T>, Error> {
        loop {
            let step = self.job.step();
            if step == Step::Finished {
                self.dialog.end().await;
                let state = self.dialog.take_state();
                let job = std::mem::replace(
                    &mut self.job,
                    Job::Connect {
                        step: Step::Finished,
                    },
                );
                return T::from_finished(job, state).map(Outcome::Done);
            }
            let Some(segments) = self.request(step) else {
                self.job.set_step(next_after(&self.job, step));
                continue;
            };
            if step == Step::Init {
                // From here on the dialog is ended whatever happens.
                self.dialog.open = true;
            }
            let sf = self.dialog.security_function();
            let r = self.dialog.send_signed(segments, &sf, None).await;
            let r = self.finish_on_error(r).await?;
            if let Some(challenge) = self.challenge_of(&r) {
                return Ok(Outcome::NeedTan(Box::new(Pending {
                    run: self,
                    challenge,
                    _output: PhantomData,
                })));
            }
            self.take(&r)?;
        }
    }

    /// Ends the dialog when the answer is an error or none came.
    async fn finish_on_error(&mut self, r: Result<Response, Error>) -> Result<Response, Error> {
        let e = match r {
            Ok(r) => match error_of(&r) {
                None => return Ok(r),
                Some(e) => e,
            },
            Err(e) => e,
        };
        if e != Error::Timeout {
            self.dialog.end().await;
        } else {
            // A bank that does not answer is not waited for twice.
            self.dialog.open = false;
        }
        Err(e)
    }

    /// The challenge when the answer asks for a TAN (0030) or an approval
    /// (3955); remembers the task's reference.
    fn challenge_of(&mut self, r: &Response) -> Option<Challenge> {
        let decoupled = r.has("3955");
        if !decoupled && !r.has("0030") {
            return None;
        }
        let hitan = r.first("HITAN")?;
        let reference = hitan.text(3, 0);
        if reference.is_empty() || reference == "noref" {
            return None;
        }
        self.pending_reference = reference;
        let method = self.dialog.state.chosen_tan_method();
        let poll = method.map_or(0, |m| m.poll_secs.max(m.first_poll_secs));
        let hhd_uc = hitan
            .element(5)
            .and_then(|e| e.0.first())
            .filter(|i| !i.bytes.is_empty())
            .map(|i| i.bytes.clone());
        Some(Challenge {
            text: hitan.text(4, 0),
            decoupled: decoupled || method.is_some_and(|m| m.decoupled),
            hhd_uc,
            poll_after: Duration::from_secs(u64::from(poll.max(1))),
        })
    }

    fn account(&self) -> Option<&Account> {
        match &self.job {
            Job::Fetch { account, .. } => Some(account),
            Job::Connect { .. } => None,
        }
    }

    /// The account as `acct:sub:280:blz` (national) or with IBAN and BIC
    /// before it (international).
    fn ktv(&self, international: bool) -> Element {
        let a = self.account().cloned().unwrap_or_default();
        let bank_code = if a.bank_code.is_empty() {
            self.dialog.client.inner.bank.bank_code.clone()
        } else {
            a.bank_code.clone()
        };
        let sub = a.subaccount.clone().unwrap_or_default();
        let mut items = Vec::new();
        if international {
            items.push(a.iban.clone().unwrap_or_default());
            items.push(a.bic.clone().unwrap_or_default());
        }
        items.extend([a.account_number.clone(), sub, COUNTRY.to_owned(), bank_code]);
        Element(items.iter().map(|s| Item::text(s)).collect())
    }

    /// The segments of a step, `None` when the bank does not offer it.
    fn request(&self, step: Step) -> Option<Vec<Segment>> {
        let state = &self.dialog.state;
        let with_tan = |order: Segment| {
            let kind = order.kind();
            let mut v = vec![order];
            if state.needs_tan(&kind) {
                v.extend(self.hktan_for(&kind));
            }
            v
        };
        match step {
            Step::Init => {
                let customer = self.dialog.client.customer().to_owned();
                let system_id = state.system_id.clone().unwrap_or_else(|| "0".into());
                let mut v = vec![
                    self.dialog.hkidn(&customer, &system_id, "1"),
                    self.dialog.hkvvb(),
                ];
                v.extend(self.hktan_for("HKIDN"));
                Some(v)
            }
            Step::Accounts => {
                let version = state.version("HKSPA", SPA_VERSIONS)?;
                Some(with_tan(Segment::new("HKSPA", version, vec![])))
            }
            Step::Media => {
                if !self.media_wanted() {
                    return None;
                }
                // Active media of every class.
                let e = vec![Element::text("0"), Element::text("A")];
                Some(with_tan(Segment::new("HKTAB", 4, e)))
            }
            Step::Bookings => {
                let Job::Fetch {
                    from,
                    to,
                    camt,
                    touchdown,
                    ..
                } = &self.job
                else {
                    return None;
                };
                let dates = [
                    Element::text("N"),
                    Element::text(&ymd(*from)),
                    Element::text(&ymd(*to)),
                    Element::empty(),
                    Element::text(touchdown.as_deref().unwrap_or("")),
                ];
                let segment = if *camt {
                    let version = state.version("HKCAZ", CAZ_VERSIONS)?;
                    let format = state
                        .camt_formats
                        .iter()
                        .find(|f| f.ends_with("camt.052.001.02"))
                        .or(state.camt_formats.first())
                        .cloned()
                        .unwrap_or_else(|| CAMT_052.to_owned());
                    let mut e = vec![self.ktv(true), Element::text(&format)];
                    e.extend(dates);
                    Segment::new("HKCAZ", version, trim(e))
                } else {
                    let version = state.version("HKKAZ", KAZ_VERSIONS)?;
                    // Every field up to the continuation point, empty ones
                    // too, as python-fints sends it: a bank server that
                    // reads HKKAZ by position (python-fints' own mock bank
                    // does) finds no booking range in a trimmed segment.
                    let mut e = vec![self.ktv(version >= 7)];
                    e.extend(dates);
                    Segment::new("HKKAZ", version, e)
                };
                Some(with_tan(segment))
            }
            Step::Balance => {
                let version = state.version("HKSAL", SAL_VERSIONS)?;
                let e = vec![self.ktv(version >= 7), Element::text("N")];
                Some(with_tan(Segment::new("HKSAL", version, e)))
            }
            Step::Finished => None,
        }
    }

    /// Takes what the answer to the current step holds and moves on.
    fn take(&mut self, r: &Response) -> Result<(), Error> {
        let step = self.job.step();
        self.dialog.state.absorb(r);
        let next_touchdown = r
            .codes
            .iter()
            .find(|c| c.code == "3040")
            .and_then(|c| c.params.first().cloned())
            .filter(|t| !t.is_empty());
        if let (
            Step::Bookings,
            Job::Fetch {
                camt,
                touchdown,
                pages,
                ..
            },
        ) = (step, &mut self.job)
        {
            let mut page = Vec::new();
            if *camt {
                for s in r.all("HICAZ") {
                    if let Some(e) = s.element(3) {
                        page.extend(
                            e.0.iter()
                                .filter(|i| !i.bytes.is_empty())
                                .map(|i| i.bytes.clone()),
                        );
                    }
                }
            } else {
                for s in r.all("HIKAZ") {
                    if let Some(i) = s.element(1).and_then(|e| e.0.first()) {
                        page.push(i.bytes.clone());
                    }
                }
            }
            pages.push(page);
            if pages.len() >= MAX_PAGES {
                return Err(Error::Protocol(format!("more than {MAX_PAGES} pages")));
            }
            if next_touchdown.is_some() {
                *touchdown = next_touchdown;
                return Ok(());
            }
        }
        if step == Step::Media {
            let media = params::tan_media_of(r);
            if media.len() == 1 {
                self.dialog.state.tan_medium = media.first().cloned();
            }
            self.dialog.state.tan_media = media;
        }
        if let (Step::Balance, Job::Fetch { balance, .. }) = (step, &mut self.job) {
            *balance = r.first("HISAL").and_then(balance_of);
        }
        let next = next_after(&self.job, step);
        self.job.set_step(next);
        Ok(())
    }
}

fn next_after(job: &Job, step: Step) -> Step {
    match (job, step) {
        (Job::Connect { .. }, Step::Init) => Step::Accounts,
        (Job::Connect { .. }, Step::Accounts) => Step::Media,
        (Job::Fetch { .. }, Step::Init) => Step::Bookings,
        (_, Step::Bookings) => Step::Balance,
        _ => Step::Finished,
    }
}

fn ymd(date: Option<NaiveDate>) -> String {
    date.map(|d| d.format("%Y%m%d").to_string())
        .unwrap_or_default()
}

/// Drops empty elements at the end.
fn trim(mut elements: Vec<Element>) -> Vec<Element> {
    while elements
        .last()
        .is_some_and(|e| e.0.iter().all(|i| i.bytes.is_empty() && !i.binary))
    {
        elements.pop();
    }
    elements
}

/// The booked balance of HISAL: `C:1234,56:EUR:20190102`.
pub fn balance_of(hisal: &Segment) -> Option<Balance> {
    let e = hisal.element(4)?;
    let sign = e.at(0);
    // FinTS writes `1234,5` and `100,` (no trailing zeros).
    let value = e.at(1).replace(',', ".");
    let amount = Decimal::from_str(value.trim_end_matches('.')).ok()?;
    let amount = if sign == "D" { -amount } else { amount };
    let currency = Some(e.at(2))
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| hisal.text(3, 0));
    let date = NaiveDate::parse_from_str(&e.at(3), "%Y%m%d").ok()?;
    Some(Balance {
        amount,
        currency,
        date,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_person_reads_the_failure_and_the_log_keeps_the_code() {
        let pair = |code: &str| (code.to_string(), "PIN falsch".to_string());
        let (code, text) = pair("9942");
        let e = Error::WrongPin { code, text };
        assert_eq!(e.failure(), BankFailure::WrongPin);
        assert!(
            e.to_string().contains("9942"),
            "the log keeps the code: {e}"
        );
        let (code, text) = pair("3938");
        assert_eq!(Error::Locked { code, text }.failure(), BankFailure::Locked);
        let (code, text) = pair("9941");
        assert_eq!(
            Error::TanRejected { code, text }.failure(),
            BankFailure::TanRejected
        );
        let (code, text) = pair("9078");
        assert_eq!(
            Error::ProductRefused { code, text }.reason(),
            Reason::Bank(BankFailure::ProductRefused)
        );
        for (e, want) in [
            (
                Error::Unreachable("connection refused".into()),
                BankFailure::Unreachable,
            ),
            (Error::Timeout, BankFailure::Timeout),
            (Error::ApprovalTimedOut, BankFailure::ApprovalTimedOut),
            (
                Error::Protocol("not base64".into()),
                BankFailure::Unreadable,
            ),
            (Error::NotOffered("HKKAZ"), BankFailure::NotOffered),
            (Error::UnknownTanMethod, BankFailure::UnknownTanMethod),
        ] {
            assert_eq!(e.failure(), want, "{e}");
        }
    }

    #[test]
    fn a_refusal_keeps_the_banks_words_on_one_shortened_line() {
        let refused = |text: &str| {
            Error::Refused {
                code: "9050".into(),
                text: text.into(),
            }
            .failure()
        };
        assert_eq!(
            refused("  Auftrag\r\nabgelehnt\u{7}  "),
            BankFailure::Refused {
                text: "Auftrag abgelehnt".into()
            }
        );
        let BankFailure::Refused { text } = refused(&"Ä".repeat(500)) else {
            panic!("a refusal stays one")
        };
        assert_eq!(text.chars().count(), MAX_BANK_TEXT + 1);
        assert!(text.ends_with('…'));
    }

    fn hisal(balance: &str) -> Segment {
        let text = format!("HISAL:5:7:3+DE1:BIC:1::280:1+Giro+EUR+{balance}'");
        syntax::parse(text.as_bytes()).unwrap().remove(0)
    }

    #[test]
    fn balances_in_fints_decimals() {
        let date = NaiveDate::from_ymd_opt(2024, 2, 29).unwrap();
        for (text, cents) in [
            ("C:1003,5:EUR:20240229", 100_350),
            ("C:100,:EUR:20240229", 10_000),
            ("D:12,34:EUR:20240229", -1_234),
        ] {
            let b = balance_of(&hisal(text)).unwrap();
            assert_eq!(b.amount, Decimal::new(cents, 2), "{text}");
            assert_eq!((b.currency.as_str(), b.date), ("EUR", date));
        }
        assert_eq!(balance_of(&hisal("C:abc:EUR:20240229")), None);
        assert_eq!(balance_of(&hisal("C:1,:EUR:2024")), None);
    }

    #[test]
    fn masked_login_shows_one_letter() {
        assert_eq!(mask("test@user"), "t***");
        assert_eq!(mask(""), "***");
        let c = Credentials {
            login: "erika".into(),
            customer_id: None,
            pin: Secret::new("4711"),
        };
        let shown = format!("{c:?}");
        assert!(
            !shown.contains("erika") && !shown.contains("4711"),
            "{shown}"
        );
    }
}

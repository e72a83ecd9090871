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
mod dialog;
mod errors;
mod jobs;
pub mod message;
pub mod params;
mod pending;
pub mod syntax;

use dialog::Dialog;
pub use errors::{error_of, Error, LOCKED, PRODUCT_REFUSED, TAN_REJECTED, WRONG_PIN};
use jobs::Run;
pub use jobs::{balance_of, Job, Output, Step};
pub use pending::Pending;

use crate::config::Secret;
use chrono::NaiveDate;
use message::ONE_STEP;
pub use params::{Account, BankState, TanMethod};
use rust_decimal::Decimal;
use std::sync::Arc;
use std::time::Duration;

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

#[cfg(test)]
mod tests {
    use super::*;

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

//! Bank sync over FinTS (docs/bank-sync.md): connect a bank, choose the
//! TAN method, approve, link the bank's accounts to the user's, and sync
//! their bookings into staged imports (`source: fints`) reconciled at once.
//!
//! The bank is talked to with no database connection or transaction held:
//! each step reads what it needs, does the bank's I/O, then writes in one
//! short transaction. What a connection is doing right now (a dialog
//! running, a TAN awaited) lives in memory ([`Live`]); the database holds
//! only settled facts, so a restart leaves every connection `ready`.
//!
//! The doors: the bank actions (`actions::bank`), the pages, and the
//! scheduled sync, which calls [`sync_connection`] with
//! [`Trigger::Scheduled`] for each of [`auto_sync_connections`].

mod live;

pub use live::{Live, Now, WAIT_MAX};

use crate::app::import::{self, BankStatement, Counts};
use crate::config::Secret;
use crate::domain::import::read::ClosingBalance;
use crate::error::{BankAddressProblem, BankFailure, BankSyncProblem, Error, Reason, Result};
use crate::services::fints::{
    self, address, Account, BankState, BankTarget, Challenge, Client, ClientConfig, Connected,
    Credentials, Fetched, Outcome, Statement,
};
use crate::state::AppState;
use crate::store::bank::{self as store, BankAccount, BankConnection, NewConnection};
use crate::store::users::{User, UserId};
use crate::store::{self as db, Owned};
use base64::Engine;
use chrono::{Days, NaiveDate};
use live::{Phase, Waiting};
use serde::Serialize;
use std::collections::VecDeque;

/// How far back the first sync of an account reaches (banks serve 90
/// days without a TAN).
pub const FIRST_SYNC_DAYS: u64 = 90;

/// The version sent with the product registration.
const PRODUCT_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Who started a sync.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// The user, with `syncBank` or a page.
    Manual,
    /// The scheduled morning sync: it uses the saved PIN only.
    Scheduled,
}

// ---------------------------------------------------------------- replies

/// Where a connection stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionState {
    Ready,
    ChooseTanMethod,
    Tan,
    Syncing,
}

/// A TAN the bank asks for: the text it shows, and whether it waits for
/// an approval in the bank's app rather than a typed TAN.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TanView {
    pub challenge: String,
    pub decoupled: bool,
    /// The HHD_UC data of a flicker code (Base64), as the bank sent it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hhd_uc: Option<String>,
    /// A photoTAN or QR image, as a `data:` URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
}

impl TanView {
    fn of(c: &Challenge) -> TanView {
        let (hhd_uc, image) = match c.hhd_uc.as_deref() {
            None | Some([]) => (None, None),
            Some(data) => match image_of(data) {
                Some(url) => (None, Some(url)),
                None => (
                    Some(base64::engine::general_purpose::STANDARD.encode(data)),
                    None,
                ),
            },
        };
        TanView {
            challenge: c.text.clone(),
            decoupled: c.decoupled,
            hhd_uc,
            image,
        }
    }
}

/// A photoTAN's matrix: two bytes of length, the MIME type, two bytes of
/// length, the image; as a `data:` URL.
fn image_of(data: &[u8]) -> Option<String> {
    let len = |at: usize| -> Option<usize> {
        Some(u16::from_be_bytes([*data.get(at)?, *data.get(at + 1)?]) as usize)
    };
    let mime_len = len(0)?;
    let mime = std::str::from_utf8(data.get(2..2 + mime_len)?).ok()?;
    if !mime.starts_with("image/") || mime.contains(|c: char| c.is_whitespace() || c == ';') {
        return None;
    }
    let image_len = len(2 + mime_len)?;
    let image = data.get(4 + mime_len..4 + mime_len + image_len)?;
    Some(format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(image)
    ))
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TanMethodView {
    pub code: String,
    pub name: String,
    pub decoupled: bool,
}

/// A bank account as a connection answers it: the store's, whose last
/// booking day is not answered.
pub type AccountView = BankAccount;

/// A connection as the doors answer it. Never the PIN.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionView {
    pub id: String,
    pub bank_code: String,
    pub bank_name: String,
    pub login_name: String,
    pub state: ConnectionState,
    pub tan: Option<TanView>,
    /// Only while `state` is `choose_tan_method`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tan_methods: Option<Vec<TanMethodView>>,
    /// The bank's accounts, each with the user's account it is linked to.
    pub accounts: Vec<BankAccount>,
    pub pin_saved: bool,
    pub auto_sync: bool,
    pub auto_confirm: bool,
    pub last_sync_at: Option<String>,
    /// The last failure in the reader's language; null after a success.
    pub last_error: Option<String>,
    /// The batches of the sync a `sendTan` or `chooseTanMethod` finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batches: Option<Vec<SyncedBatch>>,
}

/// A batch a sync staged for one linked account.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncedBatch {
    pub account_id: String,
    pub batch_id: String,
    pub counts: Counts,
}

/// Where a sync stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncState {
    /// Finished: every linked account's batch is staged.
    Done,
    /// A TAN or an approval is awaited (`sendTan`, or the approval in the
    /// app); the same sync then goes on by itself.
    Tan,
    /// A TAN method is to be chosen (`chooseTanMethod`) first.
    ChooseTanMethod,
}

/// What `syncBank` and [`sync_connection`] answer.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncOutcome {
    pub state: SyncState,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tan: Option<TanView>,
    pub batches: Vec<SyncedBatch>,
    /// The bank's name, for a message about the sync ("12 new bookings at
    /// <bank>").
    #[serde(skip)]
    pub bank_name: String,
}

impl SyncOutcome {
    /// Bookings staged as new, over all batches.
    pub fn new_bookings(&self) -> i64 {
        self.batches.iter().map(|b| b.counts.new).sum()
    }
}

// ---------------------------------------------------------------- inputs

/// `connectBank`'s input, checked by the door.
pub struct ConnectInput {
    pub bank_code: String,
    pub url: Option<String>,
    pub login_name: String,
    pub customer_id: Option<String>,
    pub pin: Secret,
    pub save_pin: bool,
}

/// `setBankSync`'s input.
#[derive(Default)]
pub struct SyncSettings {
    pub auto_sync: Option<bool>,
    pub auto_confirm: Option<bool>,
    pub save_pin: Option<bool>,
    pub pin: Option<Secret>,
}

/// A connection with automatic sync on, for the scheduled sync.
#[derive(Clone, Debug)]
pub struct AutoSync {
    pub user: User,
    pub connection_id: String,
    pub bank_name: String,
    pub auto_confirm: bool,
}

// ---------------------------------------------------------------- jobs

/// The work of one dialog with the bank, carried across a TAN.
pub(crate) struct Job {
    user: User,
    id: String,
    client: Client,
    bank: BankState,
    bank_name: String,
    /// Seal and keep the PIN once the login succeeded.
    save_pin: Option<Secret>,
    kind: Kind,
}

enum Kind {
    /// Log in and read the accounts; then sync when `then` is set.
    Connect {
        then: Option<Plan>,
    },
    Sync(Plan),
}

/// What a sync still has to do and has done.
#[derive(Default)]
struct Plan {
    /// A `from` given by the user, for every account.
    from: Option<NaiveDate>,
    todo: VecDeque<Target>,
    current: Option<Target>,
    done: Vec<SyncedBatch>,
    /// The targets are read from the stored links once the accounts are
    /// known.
    planned: bool,
}

struct Target {
    account: Account,
    key: String,
    account_id: String,
    from: NaiveDate,
    to: NaiveDate,
}

enum Step {
    Connect(std::result::Result<Outcome<Connected>, fints::Error>),
    Fetch(std::result::Result<Outcome<Fetched>, fints::Error>),
}

/// Where a job stopped.
enum Progress {
    /// Finished; the batches of a sync.
    Done(Vec<SyncedBatch>),
    Choose,
    Tan(TanView),
    Failed(BankFailure),
}

// ---------------------------------------------------------------- use cases

/// Connects a bank: checks the address, logs in, chooses the TAN method
/// and reads the accounts. Answers the connection, `ready`, or waiting for
/// a TAN method or a TAN. A login that fails at once leaves no connection.
pub async fn connect(state: &AppState, user: &User, input: ConnectInput) -> Result<ConnectionView> {
    let product_id = product_id(state)?;
    let url = input
        .url
        .clone()
        .filter(|u| !u.trim().is_empty())
        .ok_or_else(|| Error::invalid("url", Reason::BankSync(BankSyncProblem::UrlNeeded)))?;
    let checked = address::check_bank_url(&url, state.config.fints_allow_local)
        .map_err(|p| Error::invalid("url", Reason::BankAddress(p)))?;
    let url = checked.url.to_string();
    let id = db::new_id();
    let bank_name = input.bank_code.clone();
    let credentials = Credentials {
        login: input.login_name.clone(),
        customer_id: input.customer_id.clone(),
        pin: input.pin.clone(),
    };
    let client = client_for(state, &product_id, &url, &input.bank_code, credentials).await?;

    let (u, now) = (user.id.clone(), now(state));
    let new_id = id.clone();
    let (code, login, customer) = (
        input.bank_code.clone(),
        input.login_name.clone(),
        input.customer_id.clone(),
    );
    let (name, address) = (bank_name.clone(), url.clone());
    state
        .db
        .transaction(move |tx| {
            store::insert(
                tx,
                &u,
                &NewConnection {
                    id: &new_id,
                    bank_code: &code,
                    bank_name: &name,
                    url: &address,
                    login_name: &login,
                    customer_id: customer.as_deref(),
                    pin_sealed: None,
                    state_sealed: None,
                    tan_method: None,
                },
                &now,
            )
        })
        .await?;
    tracing::info!(
        connection = %id,
        bank = %input.bank_code,
        login = %fints::mask(&input.login_name),
        "connecting a bank"
    );
    if !state.bank_live.begin(&id, &user.id) {
        return Err(Error::refused(Reason::BankSync(BankSyncProblem::Busy)));
    }
    let job = Job {
        user: user.clone(),
        id: id.clone(),
        client,
        bank: BankState::default(),
        bank_name,
        save_pin: input.save_pin.then(|| input.pin.clone()),
        kind: Kind::Connect { then: None },
    };
    let st = state.clone();
    let progress = spawn_job(async move {
        let step = Step::Connect(job.client.connect(job.bank.clone()).await);
        run(&st, job, step).await
    })
    .await?;
    if let Progress::Failed(f) = progress {
        let (u, gone) = (user.id.clone(), id.clone());
        state
            .db
            .transaction(move |tx| store::delete(tx, &u, &gone))
            .await?;
        return Err(Error::refused(Reason::Bank(f)));
    }
    get(state, user, id).await
}

/// Chooses the TAN method the connection waits for; the dialog goes on.
pub async fn choose_tan_method(
    state: &AppState,
    user: &User,
    id: String,
    code: String,
) -> Result<ConnectionView> {
    require_connection(state, &user.id, &id).await?;
    let Some((methods, mut bank, mut job)) = state.bank_live.take_choice(&id, &user.id) else {
        return Err(Error::refused(Reason::BankSync(
            BankSyncProblem::NotWaiting,
        )));
    };
    if !methods.iter().any(|m| m.code == code) || !bank.choose_tan_method(&code) {
        // Still waiting for a method the bank offers.
        let generation = state
            .bank_live
            .set(&id, &user.id, Phase::Choose { methods, bank, job });
        expire_later(state, &id, generation);
        return Err(Error::invalid(
            "code",
            Reason::Bank(BankFailure::UnknownTanMethod),
        ));
    }
    job.bank = *bank;
    let st = state.clone();
    let progress = spawn_job(async move { resume(&st, *job).await }).await?;
    reply_view(state, user, id, progress).await
}

/// Sends the typed TAN the connection waits for; the dialog goes on.
pub async fn send_tan(
    state: &AppState,
    user: &User,
    id: String,
    tan: Secret,
) -> Result<ConnectionView> {
    require_connection(state, &user.id, &id).await?;
    let Some((waiting, job)) = state.bank_live.take_typed(&id, &user.id) else {
        return Err(Error::refused(Reason::BankSync(
            BankSyncProblem::NotWaiting,
        )));
    };
    let st = state.clone();
    let progress = spawn_job(async move {
        let step = match waiting {
            Waiting::Connect(p) => Step::Connect(p.send_tan(&tan).await),
            Waiting::Fetch(p) => Step::Fetch(p.send_tan(&tan).await),
        };
        run(&st, *job, step).await
    })
    .await?;
    reply_view(state, user, id, progress).await
}

/// The user's connection with its live state.
pub async fn get(state: &AppState, user: &User, id: String) -> Result<ConnectionView> {
    let u = user.id.clone();
    let (conn, accounts) = state
        .db
        .run(move |c| {
            let conn = store::find(c, &u, &id)?.ok_or(Error::NotFound)?;
            let accounts = store::accounts(c, &u, &conn.id)?;
            Ok((conn, accounts))
        })
        .await?;
    Ok(view(state, user, conn, accounts))
}

/// The user's connections, oldest first.
pub async fn list(state: &AppState, user: &User) -> Result<Vec<ConnectionView>> {
    let u = user.id.clone();
    let all = state
        .db
        .run(move |c| {
            store::list(c, &u)?
                .into_iter()
                .map(|conn| {
                    let accounts = store::accounts(c, &u, &conn.id)?;
                    Ok((conn, accounts))
                })
                .collect::<Result<Vec<_>>>()
        })
        .await?;
    Ok(all
        .into_iter()
        .map(|(conn, accounts)| view(state, user, conn, accounts))
        .collect())
}

/// Links the bank account `iban` of the connection to the user's account
/// `account_id` (of the same currency), or unlinks it (`None`).
pub async fn link_account(
    state: &AppState,
    user: &User,
    id: String,
    iban: String,
    account_id: Option<String>,
) -> Result<ConnectionView> {
    let u = user.id.clone();
    let conn_id = id.clone();
    state
        .db
        .transaction(move |tx| {
            store::find(tx, &u, &conn_id)?.ok_or(Error::NotFound)?;
            let accounts = store::accounts(tx, &u, &conn_id)?;
            let iban = iban.trim().replace(' ', "").to_uppercase();
            let bank_account = accounts
                .iter()
                .find(|a| a.iban.eq_ignore_ascii_case(&iban))
                .ok_or_else(|| Error::unknown("iban"))?;
            if let Some(account) = &account_id {
                db::require_owned_field(tx, Owned::Account, &u, "accountId", account)?;
                let currency: String = tx.query_row(
                    "SELECT currency FROM accounts WHERE id = ?1",
                    [account],
                    |r| r.get(0),
                )?;
                if let Some(theirs) = &bank_account.currency {
                    if !theirs.eq_ignore_ascii_case(&currency) {
                        return Err(Error::invalid(
                            "accountId",
                            Reason::BankSync(BankSyncProblem::Currency(theirs.clone())),
                        ));
                    }
                }
            }
            store::link(tx, &u, &conn_id, &bank_account.iban, account_id.as_deref())?;
            Ok(())
        })
        .await?;
    get(state, user, id).await
}

/// Sets automatic sync, auto-confirm and the saved PIN. Automatic sync
/// needs a saved PIN (`autoSync` is refused without one).
pub async fn set_sync(
    state: &AppState,
    user: &User,
    id: String,
    settings: SyncSettings,
) -> Result<ConnectionView> {
    let sealed = match (settings.save_pin, &settings.pin) {
        (Some(true), Some(pin)) => Some(Some(state.sealer.seal(pin.expose().as_bytes()))),
        (Some(true), None) => None,
        (Some(false), _) => Some(None),
        (None, Some(pin)) => Some(Some(state.sealer.seal(pin.expose().as_bytes()))),
        (None, None) => None,
    };
    let (u, conn_id, now) = (user.id.clone(), id.clone(), now(state));
    state
        .db
        .transaction(move |tx| {
            let conn = store::find(tx, &u, &conn_id)?.ok_or(Error::NotFound)?;
            let mut has_pin = conn.pin_sealed.is_some();
            if settings.save_pin == Some(true) && settings.pin.is_none() && !has_pin {
                return Err(Error::invalid("pin", Reason::Required));
            }
            if let Some(pin) = &sealed {
                store::set_pin(tx, &u, &conn_id, pin.as_deref(), &now)?;
                has_pin = pin.is_some();
            }
            if settings.auto_sync == Some(true) && !has_pin {
                return Err(Error::invalid(
                    "autoSync",
                    Reason::BankSync(BankSyncProblem::AutoSyncNeedsPin),
                ));
            }
            store::set_switches(
                tx,
                &u,
                &conn_id,
                settings.auto_sync,
                settings.auto_confirm,
                &now,
            )?;
            Ok(())
        })
        .await?;
    get(state, user, id).await
}

/// Forgets the saved PIN; automatic sync goes off with it.
pub async fn forget_pin(state: &AppState, user: &User, id: String) -> Result<ConnectionView> {
    let (u, conn_id, now) = (user.id.clone(), id.clone(), now(state));
    let found = state
        .db
        .transaction(move |tx| store::set_pin(tx, &u, &conn_id, None, &now))
        .await?;
    if !found {
        return Err(Error::NotFound);
    }
    get(state, user, id).await
}

/// Deletes the connection, its saved PIN and its bank state; records and
/// import batches stay. A dialog of it still live is ended.
pub async fn delete(state: &AppState, user: &User, id: String) -> Result<()> {
    let (u, conn_id) = (user.id.clone(), id.clone());
    let found = state
        .db
        .transaction(move |tx| store::delete(tx, &u, &conn_id))
        .await?;
    if !found {
        return Err(Error::NotFound);
    }
    state.bank_live.end(&id);
    Ok(())
}

/// `syncBank`: fetches the bookings of every linked account into one
/// staged, reconciled batch each. `pin` is needed when none is saved.
pub async fn sync(
    state: &AppState,
    user: &User,
    id: String,
    pin: Option<Secret>,
    from: Option<NaiveDate>,
) -> Result<SyncOutcome> {
    start_sync(state, user, id, pin, from, Trigger::Manual).await
}

/// The sync for the scheduler: with the saved PIN only, never prompting.
/// A TAN or an approval needed is answered as `SyncState::Tan` (the dialog
/// waits in memory as for a sync by hand: the user may approve it, once);
/// a failure is `Err` with the worded reason and is on `lastError`.
pub async fn sync_connection(
    state: &AppState,
    user: &User,
    id: String,
    trigger: Trigger,
) -> Result<SyncOutcome> {
    start_sync(state, user, id, None, None, trigger).await
}

/// Every connection with automatic sync on (and so a saved PIN), of every
/// user, oldest first.
pub async fn auto_sync_connections(state: &AppState) -> Result<Vec<AutoSync>> {
    state
        .db
        .run(move |c| {
            let mut out = Vec::new();
            for (user_id, id) in store::auto_sync(c)? {
                let Some(user) = crate::store::user::find(c, &user_id)? else {
                    continue;
                };
                let Some(conn) = store::find(c, &user_id, &id)? else {
                    continue;
                };
                out.push(AutoSync {
                    user,
                    connection_id: id,
                    bank_name: conn.bank_name,
                    auto_confirm: conn.auto_confirm,
                });
            }
            Ok(out)
        })
        .await
}

async fn start_sync(
    state: &AppState,
    user: &User,
    id: String,
    pin: Option<Secret>,
    from: Option<NaiveDate>,
    trigger: Trigger,
) -> Result<SyncOutcome> {
    let product_id = product_id(state)?;
    let u = user.id.clone();
    let conn_id = id.clone();
    let (conn, accounts) = state
        .db
        .run(move |c| {
            let conn = store::find(c, &u, &conn_id)?.ok_or(Error::NotFound)?;
            let accounts = store::accounts(c, &u, &conn_id)?;
            Ok((conn, accounts))
        })
        .await?;
    let pin = match (trigger, pin) {
        (Trigger::Manual, Some(pin)) => pin,
        _ => conn
            .pin_sealed
            .as_deref()
            .and_then(|s| state.sealer.open(s))
            .and_then(|b| String::from_utf8(b).ok())
            .map(Secret::new)
            .ok_or_else(|| Error::invalid("pin", Reason::BankSync(BankSyncProblem::PinNeeded)))?,
    };
    if !state.bank_live.begin(&id, &user.id) {
        return Err(Error::refused(Reason::BankSync(BankSyncProblem::Busy)));
    }
    let bank = open_state(state, conn.state_sealed.as_deref());
    let credentials = Credentials {
        login: conn.login_name.clone(),
        customer_id: conn.customer_id.clone(),
        pin,
    };
    let client = match client_for(state, &product_id, &conn.url, &conn.bank_code, credentials).await
    {
        Ok(c) => c,
        Err(e) => {
            state.bank_live.end(&id);
            return Err(e);
        }
    };
    let plan = Plan {
        from,
        ..Plan::default()
    };
    let needs_connect = !bank.has_bpd() || accounts.is_empty();
    let job = Job {
        user: user.clone(),
        id: id.clone(),
        client,
        bank,
        bank_name: conn.bank_name.clone(),
        save_pin: None,
        kind: if needs_connect {
            Kind::Connect { then: Some(plan) }
        } else {
            Kind::Sync(plan)
        },
    };
    tracing::info!(connection = %id, trigger = ?trigger, "bank sync begins");
    let st = state.clone();
    let progress = spawn_job(async move { resume(&st, job).await }).await?;
    let bank_name = conn.bank_name;
    match progress {
        Progress::Done(batches) => Ok(SyncOutcome {
            state: SyncState::Done,
            tan: None,
            batches,
            bank_name,
        }),
        Progress::Tan(tan) => Ok(SyncOutcome {
            state: SyncState::Tan,
            tan: Some(tan),
            batches: Vec::new(),
            bank_name,
        }),
        Progress::Choose => Ok(SyncOutcome {
            state: SyncState::ChooseTanMethod,
            tan: None,
            batches: Vec::new(),
            bank_name,
        }),
        Progress::Failed(f) => Err(Error::refused(Reason::Bank(f))),
    }
}

// ---------------------------------------------------------------- driving

/// Runs a job's work on its own task, so a request that goes away does
/// not cut a dialog (or a staging) short.
async fn spawn_job<F>(work: F) -> Result<Progress>
where
    F: std::future::Future<Output = Result<Progress>> + Send + 'static,
{
    tokio::spawn(work)
        .await
        .map_err(|e| Error::Internal(anyhow::anyhow!("bank job: {e}")))?
}

/// Starts (or goes on with) the job from its current state: the login of a
/// connect, or the next account's fetch.
async fn resume(state: &AppState, mut job: Job) -> Result<Progress> {
    match &job.kind {
        Kind::Connect { .. } => {
            let step = Step::Connect(job.client.connect(job.bank.clone()).await);
            run(state, job, step).await
        }
        Kind::Sync(_) => match next_fetch(state, &mut job).await {
            Ok(Some(step)) => run(state, job, step).await,
            Ok(None) => finish_sync(state, job).await,
            Err(e) => {
                state.bank_live.end(&job.id);
                Err(e)
            }
        },
    }
}

/// [`advance`], and the connection settled when it fails with an error of
/// ours (not the bank's).
async fn run(state: &AppState, job: Job, step: Step) -> Result<Progress> {
    let id = job.id.clone();
    let r = advance(state, job, step).await;
    if r.is_err() {
        state.bank_live.end(&id);
    }
    r
}

/// Takes the bank's answer and goes on until the job is done, fails, or
/// waits for the user.
async fn advance(state: &AppState, mut job: Job, mut step: Step) -> Result<Progress> {
    loop {
        match step {
            Step::Connect(Ok(Outcome::Done(connected))) => {
                job.bank = connected.state.clone();
                settle_connect(state, &mut job, &connected).await?;
                match std::mem::replace(&mut job.kind, Kind::Connect { then: None }) {
                    Kind::Connect { then: None } => {
                        settle(state, &job, None, false).await?;
                        state.bank_live.end(&job.id);
                        return Ok(Progress::Done(Vec::new()));
                    }
                    Kind::Connect { then: Some(plan) } | Kind::Sync(plan) => {
                        job.kind = Kind::Sync(plan);
                    }
                }
                match next_fetch(state, &mut job).await? {
                    Some(next) => step = next,
                    None => return finish_sync(state, job).await,
                }
            }
            Step::Fetch(Ok(Outcome::Done(fetched))) => {
                job.bank = fetched.state.clone();
                stage(state, &mut job, fetched).await?;
                match next_fetch(state, &mut job).await? {
                    Some(next) => step = next,
                    None => return finish_sync(state, job).await,
                }
            }
            Step::Connect(Ok(Outcome::ChooseTanMethod {
                methods,
                state: bank,
            }))
            | Step::Fetch(Ok(Outcome::ChooseTanMethod {
                methods,
                state: bank,
            })) => {
                keep_bank_state(state, &job, &bank).await?;
                let (id, user) = (job.id.clone(), job.user.id.clone());
                let generation = state.bank_live.set(
                    &id,
                    &user,
                    Phase::Choose {
                        methods,
                        bank,
                        job: Box::new(job),
                    },
                );
                expire_later(state, &id, generation);
                return Ok(Progress::Choose);
            }
            Step::Connect(Ok(Outcome::NeedTan(pending))) => {
                return Ok(wait_for_tan(state, job, Waiting::Connect(pending)));
            }
            Step::Fetch(Ok(Outcome::NeedTan(pending))) => {
                return Ok(wait_for_tan(state, job, Waiting::Fetch(pending)));
            }
            Step::Connect(Err(e)) | Step::Fetch(Err(e)) => {
                return fail(state, job, e).await;
            }
        }
    }
}

/// Waits for a typed TAN in memory, or polls for the approval in the
/// bank's app on a task of its own that goes on by itself.
fn wait_for_tan(state: &AppState, job: Job, waiting: Waiting) -> Progress {
    let challenge = match &waiting {
        Waiting::Connect(p) => p.challenge().clone(),
        Waiting::Fetch(p) => p.challenge().clone(),
    };
    let view = TanView::of(&challenge);
    let (id, user) = (job.id.clone(), job.user.id.clone());
    tracing::info!(connection = %id, decoupled = challenge.decoupled, "bank asks for a TAN");
    if challenge.decoupled {
        state.bank_live.set(
            &id,
            &user,
            Phase::Tan {
                view: view.clone(),
                typed: None,
            },
        );
        let st = state.clone();
        tokio::spawn(async move {
            let step = match waiting {
                Waiting::Connect(p) => Step::Connect(p.wait_for_approval().await),
                Waiting::Fetch(p) => Step::Fetch(p.wait_for_approval().await),
            };
            if let Err(e) = run(&st, job, step).await {
                e.log();
            }
        });
    } else {
        let generation = state.bank_live.set(
            &id,
            &user,
            Phase::Tan {
                view: view.clone(),
                typed: Some((waiting, Box::new(job))),
            },
        );
        expire_later(state, &id, generation);
    }
    Progress::Tan(view)
}

/// Ends a wait for the user after [`WAIT_MAX`], if it is still that wait.
fn expire_later(state: &AppState, id: &str, generation: u64) {
    let (st, id) = (state.clone(), id.to_string());
    tokio::spawn(async move {
        tokio::time::sleep(WAIT_MAX).await;
        st.bank_live.expire(&id, generation);
    });
}

/// The next linked account's fetch, if any is left.
async fn next_fetch(state: &AppState, job: &mut Job) -> Result<Option<Step>> {
    let Kind::Sync(plan) = &mut job.kind else {
        return Ok(None);
    };
    if !plan.planned {
        plan.planned = true;
        let (u, id) = (job.user.id.clone(), job.id.clone());
        let stored = state.db.run(move |c| store::accounts(c, &u, &id)).await?;
        let today = state.clock.today();
        for a in stored {
            let Some(account_id) = a.account_id.clone() else {
                continue;
            };
            let Some(bank_account) = job.bank.accounts.iter().find(|b| key_of(b) == a.iban) else {
                continue;
            };
            let from = plan.from.unwrap_or_else(|| match a.last_booking {
                Some(day) => day + Days::new(1),
                None => today - Days::new(FIRST_SYNC_DAYS),
            });
            plan.todo.push_back(Target {
                account: bank_account.clone(),
                key: a.iban.clone(),
                account_id,
                from: from.min(today),
                to: today,
            });
        }
    }
    let Some(target) = plan.todo.pop_front() else {
        return Ok(None);
    };
    let outcome = job
        .client
        .fetch(
            job.bank.clone(),
            &target.account,
            Some(target.from),
            Some(target.to),
        )
        .await;
    plan.current = Some(target);
    Ok(Some(Step::Fetch(outcome)))
}

/// Stages what the bank sent for the current account as one batch.
async fn stage(state: &AppState, job: &mut Job, fetched: Fetched) -> Result<()> {
    keep_bank_state(state, job, &fetched.state).await?;
    let Kind::Sync(plan) = &mut job.kind else {
        return Ok(());
    };
    let Some(target) = plan.current.take() else {
        return Ok(());
    };
    let (documents, ext) = match fetched.statement {
        Statement::Mt940(bytes) => (vec![bytes], "sta"),
        Statement::Camt052(docs) => (docs, "xml"),
    };
    let file_name = format!(
        "{} {} {} – {}.{ext}",
        job.bank_name, target.key, target.from, target.to
    );
    let (u, id, key) = (job.user.id.clone(), job.id.clone(), target.key.clone());
    let staged = import::stage_from_bank(
        state,
        &job.user,
        BankStatement {
            account_id: target.account_id.clone(),
            file_name,
            documents,
            closing_balance: fetched.balance.map(|b| ClosingBalance {
                date: b.date,
                amount: b.amount,
                currency: Some(b.currency),
            }),
        },
        // A connection deleted meanwhile takes its sync's batch with it.
        move |tx, day| {
            store::find(tx, &u, &id)?.ok_or(Error::NotFound)?;
            store::saw_booking(tx, &u, &id, &key, day)
        },
    )
    .await?;
    if let Some(batch) = staged {
        tracing::info!(
            connection = %job.id,
            batch = %batch.id,
            rows = batch.row_count,
            pages = fetched.pages,
            "bank sync staged a batch"
        );
        plan.done.push(SyncedBatch {
            account_id: target.account_id,
            batch_id: batch.id,
            counts: batch.counts,
        });
    }
    Ok(())
}

async fn finish_sync(state: &AppState, mut job: Job) -> Result<Progress> {
    let done = match &mut job.kind {
        Kind::Sync(plan) => std::mem::take(&mut plan.done),
        Kind::Connect { .. } => Vec::new(),
    };
    settle(state, &job, None, true).await?;
    state.bank_live.end(&job.id);
    tracing::info!(connection = %job.id, batches = done.len(), "bank sync done");
    Ok(Progress::Done(done))
}

/// A failed dialog: the reason on `lastError`; a wrong or locked PIN drops
/// the saved PIN and stops automatic sync at once.
async fn fail(state: &AppState, job: Job, e: fints::Error) -> Result<Progress> {
    tracing::warn!(connection = %job.id, error = %e, "bank dialog failed");
    let failure = e.failure();
    settle(state, &job, Some(&failure), false).await?;
    state.bank_live.end(&job.id);
    Ok(Progress::Failed(failure))
}

/// Writes how the dialog ended: the failure or none, and the sync's time.
async fn settle(
    state: &AppState,
    job: &Job,
    failure: Option<&BankFailure>,
    synced: bool,
) -> Result<()> {
    let (u, id, now) = (job.user.id.clone(), job.id.clone(), now(state));
    let error = failure.map(|f| (f.code(), f.bank_text().map(str::to_string)));
    let pin_problem = failure.is_some_and(BankFailure::is_pin_problem);
    state
        .db
        .transaction(move |tx| {
            if pin_problem {
                store::set_pin(tx, &u, &id, None, &now)?;
            }
            let error = error.as_ref().map(|(c, t)| (*c, t.as_deref()));
            store::set_outcome(tx, &u, &id, error, synced.then_some(now.as_str()), &now)?;
            Ok(())
        })
        .await
}

/// The bank's state as a connection keeps it: sealed, with the chosen TAN
/// method and the bank's name in the clear.
struct Kept {
    sealed: String,
    method: Option<String>,
    name: Option<String>,
}

impl Kept {
    fn of(state: &AppState, bank: &BankState) -> Result<Kept> {
        Ok(Kept {
            sealed: seal_state(state, bank)?,
            method: bank.tan_method.clone(),
            name: bank.bank_name.clone(),
        })
    }

    fn write(&self, tx: &rusqlite::Connection, user: &UserId, id: &str, now: &str) -> Result<()> {
        let (method, name) = (self.method.as_deref(), self.name.as_deref());
        store::set_state(tx, user, id, &self.sealed, method, name, now).map(drop)
    }
}

/// Keeps the bank's state (sealed) with the connection.
async fn keep_bank_state(state: &AppState, job: &Job, bank: &BankState) -> Result<()> {
    let kept = Kept::of(state, bank)?;
    let (u, id, now) = (job.user.id.clone(), job.id.clone(), now(state));
    state
        .db
        .transaction(move |tx| kept.write(tx, &u, &id, &now))
        .await
}

/// A login succeeded: the state, the accounts and (when asked) the PIN.
async fn settle_connect(state: &AppState, job: &mut Job, connected: &Connected) -> Result<()> {
    let kept = Kept::of(state, &connected.state)?;
    let pin = job
        .save_pin
        .take()
        .map(|p| state.sealer.seal(p.expose().as_bytes()));
    if let Some(name) = connected.state.bank_name.clone() {
        job.bank_name = name;
    }
    let shown: Vec<BankAccount> = connected.accounts.iter().map(bank_account).collect();
    let (u, id, now) = (job.user.id.clone(), job.id.clone(), now(state));
    state
        .db
        .transaction(move |tx| {
            if store::find(tx, &u, &id)?.is_none() {
                // Deleted while the bank was asked.
                return Ok(());
            }
            kept.write(tx, &u, &id, &now)?;
            store::replace_accounts(tx, &u, &id, &shown)?;
            if let Some(pin) = &pin {
                store::set_pin(tx, &u, &id, Some(pin), &now)?;
            }
            Ok(())
        })
        .await
}

/// The key of a bank account: its IBAN, else its account number.
fn key_of(a: &Account) -> String {
    a.iban.clone().unwrap_or_else(|| a.account_number.clone())
}

fn bank_account(a: &Account) -> BankAccount {
    BankAccount {
        iban: key_of(a),
        bic: a.bic.clone(),
        account_number: a.account_number.clone(),
        name: a.name.clone(),
        owner_name: a.owner_name.clone(),
        currency: a.currency.clone(),
        account_id: None,
        last_booking: None,
    }
}

// ---------------------------------------------------------------- helpers

fn now(state: &AppState) -> String {
    crate::clock::timestamp(state.clock.now())
}

/// The product registration, or the refusal that says how to get one.
fn product_id(state: &AppState) -> Result<String> {
    state
        .config
        .fints_product_id
        .clone()
        .ok_or_else(|| Error::refused(Reason::Bank(BankFailure::ProductIdMissing)))
}

fn seal_state(state: &AppState, bank: &BankState) -> Result<String> {
    let json = serde_json::to_vec(bank).map_err(anyhow::Error::from)?;
    Ok(state.sealer.seal(&json))
}

/// The kept bank state; an unreadable one (another key) starts afresh.
fn open_state(state: &AppState, sealed: Option<&str>) -> BankState {
    sealed
        .and_then(|s| state.sealer.open(s))
        .and_then(|json| serde_json::from_slice(&json).ok())
        .unwrap_or_default()
}

/// A client for the bank at `url`, connecting to an address its name
/// resolves to now and that the address policy allows.
async fn client_for(
    state: &AppState,
    product_id: &str,
    url: &str,
    bank_code: &str,
    credentials: Credentials,
) -> Result<Client> {
    let allow_local = state.config.fints_allow_local;
    let checked = address::check_bank_url(url, allow_local)
        .map_err(|p| Error::invalid("url", Reason::BankAddress(p)))?;
    let addrs: Vec<std::net::SocketAddr> =
        match tokio::net::lookup_host((checked.host.as_str(), checked.port)).await {
            Ok(a) => a.collect(),
            Err(e) => {
                tracing::warn!(host = %checked.host, error = %e, "bank address does not resolve");
                return Err(Error::refused(Reason::Bank(BankFailure::Unreachable)));
            }
        };
    let addr = address::check_bank_addresses(&checked, &addrs).map_err(|why| {
        tracing::warn!(host = %checked.host, why, "bank address refused");
        Error::invalid("url", Reason::BankAddress(BankAddressProblem::Local))
    })?;
    Client::pinned(
        ClientConfig {
            product_id: product_id.to_string(),
            product_version: PRODUCT_VERSION.to_string(),
            timeout: state.config.fints_timeout,
        },
        BankTarget {
            url: checked.url.to_string(),
            bank_code: bank_code.to_string(),
        },
        credentials,
        &checked.host,
        addr,
    )
    .map_err(|e| Error::refused(e.reason()))
}

async fn require_connection(state: &AppState, user: &UserId, id: &str) -> Result<()> {
    let (u, id) = (user.clone(), id.to_string());
    state
        .db
        .run(move |c| store::find(c, &u, &id)?.map(drop).ok_or(Error::NotFound))
        .await
}

/// The connection after a step a user took: its view, with the batches of
/// a sync the step finished; a failure is the reply's error.
async fn reply_view(
    state: &AppState,
    user: &User,
    id: String,
    progress: Progress,
) -> Result<ConnectionView> {
    let batches = match progress {
        Progress::Failed(f) => return Err(Error::refused(Reason::Bank(f))),
        Progress::Done(batches) if !batches.is_empty() => Some(batches),
        _ => None,
    };
    let mut v = get(state, user, id).await?;
    v.batches = batches;
    Ok(v)
}

fn view(
    state: &AppState,
    user: &User,
    conn: BankConnection,
    accounts: Vec<BankAccount>,
) -> ConnectionView {
    let (state_now, tan, tan_methods) = match state.bank_live.now(&conn.id, &user.id) {
        None => (ConnectionState::Ready, None, None),
        Some(Now::Syncing) => (ConnectionState::Syncing, None, None),
        Some(Now::Tan(t)) => (ConnectionState::Tan, Some(t), None),
        Some(Now::Choose(methods)) => (
            ConnectionState::ChooseTanMethod,
            None,
            Some(
                methods
                    .into_iter()
                    .map(|m| TanMethodView {
                        code: m.code,
                        name: m.name,
                        decoupled: m.decoupled,
                    })
                    .collect(),
            ),
        ),
    };
    let last_error = conn.last_error.as_deref().map(|code| {
        Reason::Bank(BankFailure::from_code(
            code,
            conn.last_error_text.as_deref(),
        ))
        .text(user.locale)
    });
    ConnectionView {
        id: conn.id,
        bank_code: conn.bank_code,
        bank_name: conn.bank_name,
        login_name: conn.login_name,
        state: state_now,
        tan,
        tan_methods,
        accounts,
        pin_saved: conn.pin_sealed.is_some(),
        auto_sync: conn.auto_sync,
        auto_confirm: conn.auto_confirm,
        last_sync_at: conn.last_sync_at,
        last_error,
        batches: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phototan_matrix_is_an_image_and_a_flicker_code_is_not() {
        let mut data = vec![0, 9];
        data.extend_from_slice(b"image/png");
        data.extend_from_slice(&[0, 3, 1, 2, 3]);
        assert_eq!(
            image_of(&data).as_deref(),
            Some("data:image/png;base64,AQID")
        );
        assert_eq!(image_of(b"\x0f\x04\x01\x02"), None);
        assert_eq!(image_of(&[]), None);
        let tan = TanView::of(&Challenge {
            text: "Bitte TAN".into(),
            decoupled: false,
            hhd_uc: Some(vec![1, 2, 3]),
            poll_after: std::time::Duration::ZERO,
        });
        assert_eq!(tan.hhd_uc.as_deref(), Some("AQID"));
        assert!(tan.image.is_none());
    }
}

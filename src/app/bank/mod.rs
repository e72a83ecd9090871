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
//! schedule, which runs [`morning`]: [`sync_connection`] with
//! [`Trigger::Scheduled`] for each of [`auto_sync_connections`], then
//! auto-confirm and the pushes.

mod dialog;
mod live;
mod morning;
mod views;

use dialog::{expire_later, resume, run, spawn_job};
pub use live::{Live, Now, WAIT_MAX};
pub use morning::{morning, Summary};
pub use views::{
    AccountView, AutoSync, ConnectInput, ConnectionState, ConnectionView, SyncOutcome,
    SyncSettings, SyncState, SyncedBatch, TanMethodView, TanView,
};

use crate::config::Secret;
use crate::error::{BankAddressProblem, BankFailure, BankSyncProblem, Error, Reason, Result};
use crate::services::fints::{
    self, address, Account, BankState, BankTarget, Client, ClientConfig, Connected, Credentials,
    Fetched, Outcome,
};
use crate::state::AppState;
use crate::store;
use crate::store::bank::{self, BankAccount, BankConnection, NewConnection};
use crate::store::users::{User, UserId};
use chrono::NaiveDate;
use live::{Phase, Waiting};
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
    // The address given, else the bundled bank table's.
    let known = crate::domain::banks::by_code(&input.bank_code);
    let url = input
        .url
        .clone()
        .filter(|u| !u.trim().is_empty())
        .or_else(|| known.and_then(|b| b.url).map(str::to_string))
        .ok_or_else(|| Error::invalid("url", Reason::BankSync(BankSyncProblem::UrlNeeded)))?;
    let checked = address::check_bank_url(&url, state.config.fints_allow_local)
        .map_err(|p| Error::invalid("url", Reason::BankAddress(p)))?;
    let url = checked.url.to_string();
    let id = store::new_id();
    let bank_name = known.map_or_else(|| input.bank_code.clone(), |b| b.name.to_string());
    let credentials = Credentials {
        login: input.login_name.clone(),
        customer_id: input.customer_id.clone(),
        pin: input.pin.clone(),
    };
    let client = client_for(state, &product_id, &url, &input.bank_code, credentials).await?;

    // Live before the row exists, so the connection is never seen `ready`
    // while its login runs.
    if !Live::of(state).begin(&id, &user.id) {
        return Err(Error::refused(Reason::BankSync(BankSyncProblem::Busy)));
    }
    let (u, now) = (user.id.clone(), now(state));
    let new_id = id.clone();
    let (code, login, customer) = (
        input.bank_code.clone(),
        input.login_name.clone(),
        input.customer_id.clone(),
    );
    let (name, address) = (bank_name.clone(), url.clone());
    let inserted = state
        .db
        .transaction(move |tx| {
            bank::insert(
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
        .await;
    if let Err(e) = inserted {
        Live::of(state).end(&id);
        return Err(e);
    }
    tracing::info!(
        connection = %id,
        bank = %input.bank_code,
        login = %fints::mask(&input.login_name),
        "connecting a bank"
    );
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
            .transaction(move |tx| bank::delete(tx, &u, &gone))
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
    let Some((methods, mut bank, mut job)) = Live::of(state).take_choice(&id, &user.id) else {
        return Err(Error::refused(Reason::BankSync(
            BankSyncProblem::NotWaiting,
        )));
    };
    if !methods.iter().any(|m| m.code == code) || !bank.choose_tan_method(&code) {
        // Still waiting for a method the bank offers.
        let generation = Live::of(state).set(&id, &user.id, Phase::Choose { methods, bank, job });
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
    let Some((waiting, job)) = Live::of(state).take_typed(&id, &user.id) else {
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
    // Before the database: a dialog settles before it leaves (`live`).
    let live = Live::of(state).now(&id, &user.id);
    let u = user.id.clone();
    let (conn, accounts) = state
        .db
        .run(move |c| {
            let conn = bank::find(c, &u, &id)?.ok_or(Error::NotFound)?;
            let accounts = bank::accounts(c, &u, &conn.id)?;
            Ok((conn, accounts))
        })
        .await?;
    Ok(view(user, conn, accounts, live))
}

/// The user's connections, oldest first.
pub async fn list(state: &AppState, user: &User) -> Result<Vec<ConnectionView>> {
    // Before the database: a dialog settles before it leaves (`live`).
    let mut live = Live::of(state).all_of(&user.id);
    let u = user.id.clone();
    let all = state
        .db
        .run(move |c| {
            bank::list(c, &u)?
                .into_iter()
                .map(|conn| {
                    let accounts = bank::accounts(c, &u, &conn.id)?;
                    Ok((conn, accounts))
                })
                .collect::<Result<Vec<_>>>()
        })
        .await?;
    Ok(all
        .into_iter()
        .map(|(conn, accounts)| {
            let now = live.remove(&conn.id);
            view(user, conn, accounts, now)
        })
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
            bank::find(tx, &u, &conn_id)?.ok_or(Error::NotFound)?;
            let accounts = bank::accounts(tx, &u, &conn_id)?;
            let iban = iban.trim().replace(' ', "").to_uppercase();
            let bank_account = accounts
                .iter()
                .find(|a| a.iban.eq_ignore_ascii_case(&iban))
                .ok_or_else(|| Error::unknown("iban"))?;
            if let Some(account) = &account_id {
                store::require_owned_field::<store::accounts::Account>(
                    tx,
                    &u,
                    "accountId",
                    account,
                )?;
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
            bank::link(tx, &u, &conn_id, &bank_account.iban, account_id.as_deref())?;
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
            let conn = bank::find(tx, &u, &conn_id)?.ok_or(Error::NotFound)?;
            let mut has_pin = conn.pin_sealed.is_some();
            if settings.save_pin == Some(true) && settings.pin.is_none() && !has_pin {
                return Err(Error::invalid("pin", Reason::Required));
            }
            if let Some(pin) = &sealed {
                bank::set_pin(tx, &u, &conn_id, pin.as_deref(), &now)?;
                has_pin = pin.is_some();
            }
            if settings.auto_sync == Some(true) && !has_pin {
                return Err(Error::invalid(
                    "autoSync",
                    Reason::BankSync(BankSyncProblem::AutoSyncNeedsPin),
                ));
            }
            bank::set_switches(
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
        .transaction(move |tx| bank::set_pin(tx, &u, &conn_id, None, &now))
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
        .transaction(move |tx| bank::delete(tx, &u, &conn_id))
        .await?;
    if !found {
        return Err(Error::NotFound);
    }
    Live::of(state).end(&id);
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
            for (user_id, id) in bank::auto_sync(c)? {
                let Some(user) = crate::store::users::find(c, &user_id)? else {
                    continue;
                };
                let Some(conn) = bank::find(c, &user_id, &id)? else {
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
            let conn = bank::find(c, &u, &conn_id)?.ok_or(Error::NotFound)?;
            let accounts = bank::accounts(c, &u, &conn_id)?;
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
    if !Live::of(state).begin(&id, &user.id) {
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
            Live::of(state).end(&id);
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
        .run(move |c| bank::find(c, &u, &id)?.map(drop).ok_or(Error::NotFound))
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

/// The connection's view; `live` is its live state read before `conn`.
fn view(
    user: &User,
    conn: BankConnection,
    accounts: Vec<BankAccount>,
    live: Option<Now>,
) -> ConnectionView {
    let (state_now, tan, tan_methods) = match live {
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

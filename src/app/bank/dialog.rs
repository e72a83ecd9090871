//! A dialog with the bank as a job: the login of a connect, then each
//! linked account's fetch, carried across a TAN or an approval in memory
//! (`live`), staging each account's bookings as one batch when it arrives.

use super::live::{Live, Phase, Waiting};
use super::{
    now, seal_state, Job, Kind, Progress, Step, SyncedBatch, TanView, Target, FIRST_SYNC_DAYS,
    WAIT_MAX,
};
use crate::app::import::{self, BankStatement};
use crate::domain::import::read::ClosingBalance;
use crate::error::{BankFailure, Error, Result};
use crate::services::fints::{self, Account, BankState, Connected, Fetched, Outcome, Statement};
use crate::state::AppState;
use crate::store::bank::{self, BankAccount};
use crate::store::users::UserId;
use chrono::Days;

// ---------------------------------------------------------------- driving

/// Runs a job's work on its own task, so a request that goes away does
/// not cut a dialog (or a staging) short.
pub(super) async fn spawn_job<F>(work: F) -> Result<Progress>
where
    F: std::future::Future<Output = Result<Progress>> + Send + 'static,
{
    tokio::spawn(work)
        .await
        .map_err(|e| Error::Internal(anyhow::anyhow!("bank job: {e}")))?
}

/// Starts (or goes on with) the job from its current state: the login of a
/// connect, or the next account's fetch.
pub(super) async fn resume(state: &AppState, mut job: Job) -> Result<Progress> {
    match &job.kind {
        Kind::Connect { .. } => {
            let step = Step::Connect(job.client.connect(job.bank.clone()).await);
            run(state, job, step).await
        }
        Kind::Sync(_) => match next_fetch(state, &mut job).await {
            Ok(Some(step)) => run(state, job, step).await,
            Ok(None) => finish_sync(state, job).await,
            Err(e) => {
                Live::of(state).end(&job.id);
                Err(e)
            }
        },
    }
}

/// [`advance`], and the connection settled when it fails with an error of
/// ours (not the bank's).
pub(super) async fn run(state: &AppState, job: Job, step: Step) -> Result<Progress> {
    let id = job.id.clone();
    let r = advance(state, job, step).await;
    if r.is_err() {
        Live::of(state).end(&id);
    }
    r
}

/// Takes the bank's answer and goes on until the job is done, fails, or
/// waits for the user.
pub(super) async fn advance(state: &AppState, mut job: Job, mut step: Step) -> Result<Progress> {
    loop {
        match step {
            Step::Connect(Ok(Outcome::Done(connected))) => {
                job.bank = connected.state.clone();
                settle_connect(state, &mut job, &connected).await?;
                match std::mem::replace(&mut job.kind, Kind::Connect { then: None }) {
                    Kind::Connect { then: None } => {
                        settle(state, &job, None, false).await?;
                        Live::of(state).end(&job.id);
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
                let generation = Live::of(state).set(
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
pub(super) fn wait_for_tan(state: &AppState, job: Job, waiting: Waiting) -> Progress {
    let challenge = match &waiting {
        Waiting::Connect(p) => p.challenge().clone(),
        Waiting::Fetch(p) => p.challenge().clone(),
    };
    let view = TanView::of(&challenge);
    let (id, user) = (job.id.clone(), job.user.id.clone());
    tracing::info!(connection = %id, decoupled = challenge.decoupled, "bank asks for a TAN");
    if challenge.decoupled {
        Live::of(state).set(
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
        let generation = Live::of(state).set(
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
pub(super) fn expire_later(state: &AppState, id: &str, generation: u64) {
    let (st, id) = (state.clone(), id.to_string());
    tokio::spawn(async move {
        tokio::time::sleep(WAIT_MAX).await;
        Live::of(&st).expire(&id, generation);
    });
}

/// The next linked account's fetch, if any is left.
pub(super) async fn next_fetch(state: &AppState, job: &mut Job) -> Result<Option<Step>> {
    let Kind::Sync(plan) = &mut job.kind else {
        return Ok(None);
    };
    if !plan.planned {
        plan.planned = true;
        let (u, id) = (job.user.id.clone(), job.id.clone());
        let stored = state.db.run(move |c| bank::accounts(c, &u, &id)).await?;
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
pub(super) async fn stage(state: &AppState, job: &mut Job, fetched: Fetched) -> Result<()> {
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
                amount: b.amount.into(),
                currency: Some(b.currency),
            }),
        },
        // A connection deleted meanwhile takes its sync's batch with it.
        move |tx, day| {
            bank::find(tx, &u, &id)?.ok_or(Error::NotFound)?;
            bank::saw_booking(tx, &u, &id, &key, day)
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

pub(super) async fn finish_sync(state: &AppState, mut job: Job) -> Result<Progress> {
    let done = match &mut job.kind {
        Kind::Sync(plan) => std::mem::take(&mut plan.done),
        Kind::Connect { .. } => Vec::new(),
    };
    settle(state, &job, None, true).await?;
    Live::of(state).end(&job.id);
    tracing::info!(connection = %job.id, batches = done.len(), "bank sync done");
    Ok(Progress::Done(done))
}

/// A failed dialog: the reason on `lastError`; a wrong or locked PIN drops
/// the saved PIN and stops automatic sync at once.
pub(super) async fn fail(state: &AppState, job: Job, e: fints::Error) -> Result<Progress> {
    tracing::warn!(connection = %job.id, error = %e, "bank dialog failed");
    let failure = e.failure();
    settle(state, &job, Some(&failure), false).await?;
    Live::of(state).end(&job.id);
    Ok(Progress::Failed(failure))
}

/// Writes how the dialog ended: the failure or none, and the sync's time.
pub(super) async fn settle(
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
                bank::set_pin(tx, &u, &id, None, &now)?;
            }
            let error = error.as_ref().map(|(c, t)| (*c, t.as_deref()));
            bank::set_outcome(tx, &u, &id, error, synced.then_some(now.as_str()), &now)?;
            Ok(())
        })
        .await
}

/// The bank's state as a connection keeps it: sealed, with the chosen TAN
/// method and the bank's name in the clear.
pub(super) struct Kept {
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
        bank::set_state(tx, user, id, &self.sealed, method, name, now).map(drop)
    }
}

/// Keeps the bank's state (sealed) with the connection.
pub(super) async fn keep_bank_state(state: &AppState, job: &Job, bank: &BankState) -> Result<()> {
    let kept = Kept::of(state, bank)?;
    let (u, id, now) = (job.user.id.clone(), job.id.clone(), now(state));
    state
        .db
        .transaction(move |tx| kept.write(tx, &u, &id, &now))
        .await
}

/// A login succeeded: the state, the accounts and (when asked) the PIN.
pub(super) async fn settle_connect(
    state: &AppState,
    job: &mut Job,
    connected: &Connected,
) -> Result<()> {
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
            if bank::find(tx, &u, &id)?.is_none() {
                // Deleted while the bank was asked.
                return Ok(());
            }
            kept.write(tx, &u, &id, &now)?;
            bank::replace_accounts(tx, &u, &id, &shown)?;
            if let Some(pin) = &pin {
                bank::set_pin(tx, &u, &id, Some(pin), &now)?;
            }
            Ok(())
        })
        .await
}

/// The key of a bank account: its IBAN, else its account number.
pub(super) fn key_of(a: &Account) -> String {
    a.iban.clone().unwrap_or_else(|| a.account_number.clone())
}

pub(super) fn bank_account(a: &Account) -> BankAccount {
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

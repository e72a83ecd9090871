//! The bundled scheduler: runs the jobs in-process on
//! `NOTIFICATION_SCHEDULE`, `INSIGHTS_SCHEDULE`,
//! `CASHKEEPER_BACKUP_SCHEDULE` and `CASHKEEPER_BANK_SYNC_SCHEDULE`
//! (five-field cron, UTC), and with them the daily housekeeping.
//! Each job takes its lock, so a run never overlaps another run of the same
//! job (nor one started by the cron route).

use crate::config::{Config, Schedule};
use crate::state::AppState;
use anyhow::Context;
use chrono::Utc;
use tokio_cron_scheduler::{Job, JobScheduler};

/// The running scheduler; stop it with [`Scheduler::shutdown`].
pub struct Scheduler(Option<JobScheduler>);

/// tokio-cron-scheduler counts seconds too: run at second 0.
fn with_seconds(five_fields: &str) -> String {
    format!("0 {five_fields}")
}

/// The jobs and when they run: none when every configured schedule is
/// off, otherwise those and the daily housekeeping.
fn jobs(config: &Config) -> Vec<(&'static str, Schedule)> {
    let mut jobs = vec![
        ("upcoming-payments", config.notification_schedule.clone()),
        ("insights", config.insights_schedule.clone()),
        ("backup", config.backup_schedule.clone()),
        ("bank-sync", config.bank_sync_schedule.clone()),
    ];
    if jobs.iter().all(|(_, s)| *s == Schedule::Off) {
        return Vec::new();
    }
    jobs.push((
        "housekeeping",
        Schedule::Cron(super::housekeeping::SCHEDULE.to_string()),
    ));
    jobs
}

/// Runs the housekeeping once (what expired while the service was stopped
/// goes at once, also when the scheduler does not run), then starts the
/// scheduler unless every schedule is off.
pub async fn start(state: AppState) -> anyhow::Result<Scheduler> {
    super::housekeeping::run(&state).await;
    let jobs = jobs(&state.config);
    if jobs.is_empty() {
        return Ok(Scheduler(None));
    }
    let sched = JobScheduler::new()
        .await
        .context("starting the scheduler")?;
    for (name, schedule) in jobs {
        let Schedule::Cron(expr) = schedule else {
            tracing::info!(job = name, "scheduled run off");
            continue;
        };
        let st = state.clone();
        let job = Job::new_async_tz(with_seconds(&expr), Utc, move |_, _| {
            let st = st.clone();
            Box::pin(async move {
                match name {
                    "insights" => {
                        crate::app::insights::run(&st).await;
                    }
                    "backup" => {
                        super::backups::run(&st).await;
                    }
                    "housekeeping" => {
                        super::housekeeping::run(&st).await;
                    }
                    "bank-sync" => {
                        super::bank_sync::run(&st).await;
                    }
                    _ => {
                        crate::app::reminders::run(&st).await;
                    }
                }
            })
        })
        .with_context(|| format!("schedule of {name}: {expr}"))?;
        sched.add(job).await.context("adding a job")?;
        tracing::info!(job = name, schedule = %expr, "scheduled (UTC)");
    }
    sched.start().await.context("starting the scheduler")?;
    Ok(Scheduler(Some(sched)))
}

impl Scheduler {
    pub async fn shutdown(mut self) {
        if let Some(mut s) = self.0.take() {
            let _ = s.shutdown().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_fields_become_six_with_second_zero() {
        assert_eq!(with_seconds("0 8 * * *"), "0 0 8 * * *");
        // The scheduler's parser accepts what the configuration accepted.
        assert!(
            Job::new_async_tz(with_seconds("*/15 6-22 * * 1-5"), Utc, |_, _| Box::pin(
                async {}
            ))
            .is_ok()
        );
    }

    #[test]
    fn housekeeping_runs_daily_with_the_other_jobs() {
        let mut config = Config::for_data_dir("/nonexistent");
        assert!(jobs(&config).is_empty(), "every schedule off: no scheduler");
        config.insights_schedule = Schedule::Cron("0 6 * * *".into());
        let jobs = jobs(&config);
        let (_, schedule) = jobs.iter().find(|(n, _)| *n == "housekeeping").unwrap();
        let Schedule::Cron(expr) = schedule else {
            panic!("housekeeping is off")
        };
        // A minute and an hour, then every day.
        assert!(expr.ends_with(" * * *"), "{expr}");
        assert!(Job::new_async_tz(with_seconds(expr), Utc, |_, _| Box::pin(async {})).is_ok());
    }

    #[test]
    fn the_bank_sync_runs_on_its_schedule_alone_too() {
        let mut config = Config::for_data_dir("/nonexistent");
        config.bank_sync_schedule = Schedule::Cron("20 5 * * *".into());
        let jobs = jobs(&config);
        let names: Vec<&str> = jobs.iter().map(|(n, _)| *n).collect();
        assert!(names.contains(&"bank-sync"), "{names:?}");
        assert!(names.contains(&"housekeeping"), "{names:?}");
        let (_, schedule) = jobs.iter().find(|(n, _)| *n == "bank-sync").unwrap();
        assert_eq!(*schedule, Schedule::Cron("20 5 * * *".into()));
    }
}

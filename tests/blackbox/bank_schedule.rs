//! The morning bank sync (`jobs::bank_sync`, docs/bank-sync.md): connections
//! with automatic sync on are synced against the loopback mock bank, a
//! batch auto-confirm may take is confirmed with the bank's balance, the
//! others wait and are announced by web push through a loopback push
//! service; a TAN is asked for once, a refused PIN turns automatic sync off.
//! The job is run directly, as the scheduler runs it.

use crate::fints_bank::{self, booking_cents, Fail, MockBank, Sca, Scenario, BANK_CODE, IBAN};
use crate::networth::amount;
use crate::push::{push_service, subscribe, vapid, BrowserKeys, Received};
use crate::support::*;
use cashkeeper::config::{Config, Vapid};
use cashkeeper::jobs::bank_sync::{self, Summary};
use rust_decimal::Decimal;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// The server, its push service, and what that received.
struct Setup {
    app: TestApp,
    keys: Vapid,
    push_base: String,
    received: Arc<Mutex<Vec<Received>>>,
}

fn configure(c: &mut Config, keys: Vapid) {
    c.vapid = Some(keys);
    c.push_allow_loopback_http = true;
    fints_bank::allow_mock_banks(c);
}

async fn setup() -> Setup {
    let (push_base, received) = push_service().await;
    let keys = vapid();
    let k = keys.clone();
    let app = spawn_app_with(move |c| configure(c, k)).await;
    Setup {
        app,
        keys,
        push_base,
        received,
    }
}

/// A user with a browser subscribed to push, in `locale`.
struct Person {
    user: TestUser,
    browser: BrowserKeys,
    endpoint: String,
}

impl Setup {
    async fn person(&self, locale: &str, path: &str) -> Person {
        let user = self.app.new_user().await;
        self.app
            .ok(&user, "updateSettings", json!({ "locale": locale }))
            .await;
        let browser = BrowserKeys::new();
        let endpoint = format!("{}/push/{path}", self.push_base);
        let res = subscribe(&self.app, &user.cookie, &browser.json(&endpoint)).await;
        assert_eq!(res.status(), 201);
        Person {
            user,
            browser,
            endpoint,
        }
    }

    /// The push messages `person`'s browser received, decrypted.
    fn messages(&self, person: &Person) -> Vec<Value> {
        let path = person.endpoint.trim_start_matches(&self.push_base);
        self.received
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.path == path)
            .map(|r| {
                let mut secret = web_push_native::Auth::default();
                secret.copy_from_slice(&person.browser.auth);
                let plain =
                    web_push_native::decrypt(r.body.clone(), &person.browser.secret, &secret)
                        .expect("decrypts");
                serde_json::from_slice(&plain).unwrap()
            })
            .collect()
    }

    async fn run(&self) -> Summary {
        bank_sync::run(&self.app.state).await
    }

    /// Stops the server and starts it again on the same data: what lived
    /// in memory only (a dialog waiting for a TAN) is gone, as on the next
    /// morning.
    async fn restart(mut self) -> Setup {
        let dir = self.app.stop().await;
        let k = self.keys.clone();
        self.app = spawn_app_in(dir, move |c| configure(c, k)).await;
        self
    }
}

/// A connection of `user` to `bank` with the PIN saved and automatic sync
/// on, its one account linked to a new account "Giro" (balance 1000 €):
/// the connection's id and the account's.
async fn connected(
    app: &TestApp,
    user: &TestUser,
    bank: &MockBank,
    auto_confirm: bool,
) -> (String, String) {
    let account = app.account(user, "Giro", "EUR").await;
    let id = fints_bank::connected_to(app, user, bank, true, &account).await;
    let c = app
        .ok(
            user,
            "setBankSync",
            json!({"id": id, "autoSync": true, "autoConfirm": auto_confirm}),
        )
        .await;
    assert_eq!(c["autoSync"], true, "{c}");
    (id, account)
}

/// The bank's closing balance after its first `n` bookings, in euros.
fn bank_balance(n: usize) -> Decimal {
    Decimal::new(
        fints_bank::OPENING + (0..n).map(booking_cents).sum::<i64>(),
        2,
    )
}

async fn balance(app: &TestApp, user: &TestUser, account: &str) -> Decimal {
    let accounts = app.ok(user, "listAccounts", json!({})).await;
    let a = accounts
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == account)
        .unwrap()
        .clone();
    amount(&a["balance"])
}

async fn imports(app: &TestApp, user: &TestUser) -> Vec<Value> {
    app.ok(user, "listImports", json!({}))
        .await
        .as_array()
        .unwrap()
        .clone()
}

async fn records(app: &TestApp, user: &TestUser) -> (usize, usize) {
    let n = |v: Value| v.as_array().unwrap().len();
    (
        n(app.ok(user, "listDailyExpenses", json!({})).await),
        n(app.ok(user, "listIncomes", json!({})).await),
    )
}

async fn bank_name(app: &TestApp, user: &TestUser, id: &str) -> String {
    let c = app.ok(user, "getBankConnection", json!({ "id": id })).await;
    c["bankName"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn bank_schedule_auto_confirm_writes_the_bookings_and_the_banks_balance() {
    let s = setup().await;
    let bank = MockBank::start(Scenario::default()).await;
    let p = s.person("en", "ok").await;
    let (_, giro) = connected(&s.app, &p.user, &bank, true).await;

    let run = s.run().await;
    assert_eq!(
        (run.connections, run.synced, run.confirmed),
        (1, 1, 1),
        "{run:?}"
    );
    let batches = imports(&s.app, &p.user).await;
    assert_eq!(batches.len(), 1, "{batches:?}");
    assert_eq!(batches[0]["status"], "confirmed", "{}", batches[0]);
    assert_eq!(batches[0]["source"], "fints");
    // Bookings 0 and 2 are money in, booking 1 money out.
    assert_eq!(records(&s.app, &p.user).await, (1, 2));
    assert_eq!(balance(&s.app, &p.user, &giro).await, bank_balance(3));
    assert_eq!(bank_balance(3), Decimal::new(100_250, 2));
    // Nothing waits, so nothing is pushed.
    assert!(s.messages(&p).is_empty(), "{:?}", s.messages(&p));
    bank.assert_all_ended();
}

#[tokio::test]
async fn bank_schedule_without_auto_confirm_the_batch_waits_and_one_push_says_so() {
    let s = setup().await;
    let bank = MockBank::start(Scenario {
        bookings: 12,
        ..Scenario::default()
    })
    .await;
    let p = s.person("de", "ok").await;
    let (id, giro) = connected(&s.app, &p.user, &bank, false).await;
    let name = bank_name(&s.app, &p.user, &id).await;

    let run = s.run().await;
    assert_eq!(
        (run.synced, run.confirmed, run.waiting),
        (1, 0, 1),
        "{run:?}"
    );
    let batches = imports(&s.app, &p.user).await;
    assert_eq!(batches.len(), 1);
    assert_ne!(batches[0]["status"], "confirmed");
    assert_eq!(batches[0]["counts"]["new"], 12, "{}", batches[0]);
    assert_eq!(records(&s.app, &p.user).await, (0, 0));
    assert_eq!(balance(&s.app, &p.user, &giro).await, Decimal::new(1000, 0));
    let got = s.messages(&p);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        got[0]["title"],
        format!("12 neue Buchungen bei {name} zum Prüfen")
    );
    assert_eq!(
        got[0]["url"],
        format!("/import?batch={}", batches[0]["id"].as_str().unwrap())
    );

    // The next morning the bank has nothing new since the last booking the
    // sync saw (a bank serves from the day after it): no second push.
    bank.change(|sc| sc.bookings = 0);
    let run = s.run().await;
    assert_eq!(run.synced, 1, "{run:?}");
    assert_eq!(s.messages(&p).len(), 1, "{:?}", s.messages(&p));
}

#[tokio::test]
async fn bank_schedule_english_push_names_the_count_and_the_bank() {
    let s = setup().await;
    let bank = MockBank::start(Scenario::default()).await;
    let p = s.person("en", "ok").await;
    let (id, _) = connected(&s.app, &p.user, &bank, false).await;
    let name = bank_name(&s.app, &p.user, &id).await;
    s.run().await;
    let got = s.messages(&p);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        got[0]["title"],
        format!("3 new bookings at {name} to review")
    );
}

#[tokio::test]
async fn bank_schedule_a_tan_is_asked_for_once_and_the_bank_not_again() {
    let s = setup().await;
    let bank = MockBank::start(Scenario {
        statement: Sca::Tan,
        ..Scenario::default()
    })
    .await;
    let p = s.person("en", "ok").await;
    let (id, _) = connected(&s.app, &p.user, &bank, true).await;
    let name = bank_name(&s.app, &p.user, &id).await;

    let run = s.run().await;
    assert_eq!((run.asked, run.synced), (1, 0), "{run:?}");
    let got = s.messages(&p);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["title"], format!("{name} asks for an approval"));
    assert_eq!(got[0]["url"], format!("/bank/{id}"));
    let asked_bank = bank.sent("HKKAZ");
    assert!(asked_bank > 0);

    // The next morning (the waiting dialog gone with a restart) the job
    // neither asks the bank nor pushes again.
    let s = s.restart().await;
    let run = s.run().await;
    assert_eq!((run.asked, run.skipped, run.synced), (0, 1, 0), "{run:?}");
    assert_eq!(s.messages(&p).len(), 1);
    assert_eq!(bank.sent("HKKAZ"), asked_bank, "no new request to the bank");
    let run = s.run().await;
    assert_eq!((run.asked, run.skipped), (0, 1), "{run:?}");
    assert_eq!(bank.sent("HKKAZ"), asked_bank);

    // The person fetches by hand and types the TAN: from then on the
    // morning sync runs again.
    let sync = s.app.ok(&p.user, "syncBank", json!({ "id": id })).await;
    assert_eq!(sync["state"], "tan", "{sync}");
    let tan = s
        .app
        .ok(
            &p.user,
            "sendTan",
            json!({"id": id, "tan": fints_bank::TAN}),
        )
        .await;
    assert_eq!(tan["state"], "ready", "{tan}");
    assert!(tan["lastSyncAt"].is_string(), "{tan}");
    bank.change(|sc| sc.statement = Sca::NotNeeded);
    let run = s.run().await;
    assert_eq!((run.skipped, run.synced), (0, 1), "{run:?}");
    assert_eq!(
        s.messages(&p).len(),
        1,
        "nothing new after the sync by hand"
    );
}

#[tokio::test]
async fn bank_schedule_a_refused_pin_turns_automatic_sync_off_and_says_so() {
    let s = setup().await;
    let bank = MockBank::start(Scenario::default()).await;
    let p = s.person("de", "ok").await;
    let (id, _) = connected(&s.app, &p.user, &bank, true).await;
    let name = bank_name(&s.app, &p.user, &id).await;
    // The PIN was changed at the bank.
    bank.change(|sc| sc.fail = Fail::WrongPin);

    let run = s.run().await;
    assert_eq!((run.pin_refused, run.synced), (1, 0), "{run:?}");
    let c = s
        .app
        .ok(&p.user, "getBankConnection", json!({ "id": id }))
        .await;
    assert_eq!(c["autoSync"], false, "{c}");
    assert_eq!(c["pinSaved"], false, "{c}");
    let got = s.messages(&p);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["title"], format!("{name}: automatischer Abruf aus"));
    assert!(
        got[0]["body"]
            .as_str()
            .unwrap()
            .contains("PIN nicht angenommen"),
        "{got:?}"
    );
    // The bank is not tried again.
    let signed = bank.sent("HNSHA");
    let run = s.run().await;
    assert_eq!(run.connections, 0, "{run:?}");
    assert_eq!(bank.sent("HNSHA"), signed);
    assert_eq!(s.messages(&p).len(), 1);
}

#[tokio::test]
async fn bank_schedule_two_users_connections_sync_into_their_own_data() {
    let s = setup().await;
    let (bank_a, bank_b) = (
        MockBank::start(Scenario::default()).await,
        MockBank::start(Scenario {
            bookings: 5,
            ..Scenario::default()
        })
        .await,
    );
    let (a, b) = (s.person("en", "a").await, s.person("en", "b").await);
    let (_, giro_a) = connected(&s.app, &a.user, &bank_a, true).await;
    let (_, giro_b) = connected(&s.app, &b.user, &bank_b, false).await;

    let run = s.run().await;
    assert_eq!((run.connections, run.synced), (2, 2), "{run:?}");
    assert_eq!(records(&s.app, &a.user).await, (1, 2));
    assert_eq!(balance(&s.app, &a.user, &giro_a).await, bank_balance(3));
    let (ia, ib) = (
        imports(&s.app, &a.user).await,
        imports(&s.app, &b.user).await,
    );
    assert_eq!((ia.len(), ib.len()), (1, 1));
    assert_eq!(ia[0]["accountId"], giro_a.as_str());
    assert_eq!(ib[0]["accountId"], giro_b.as_str());
    assert_eq!(ib[0]["counts"]["new"], 5, "{}", ib[0]);
    assert_eq!(records(&s.app, &b.user).await, (0, 0));
    assert!(s.messages(&a).is_empty());
    let got = s.messages(&b);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0]["title"]
        .as_str()
        .unwrap()
        .starts_with("5 new bookings at "));
}

#[tokio::test]
async fn bank_schedule_a_batch_with_a_conflict_is_not_confirmed_by_itself() {
    let s = setup().await;
    let bank = MockBank::start(Scenario::default()).await;
    let p = s.person("en", "ok").await;
    let (_, giro) = connected(&s.app, &p.user, &bank, true).await;
    // Booking 1 is 2.50 € to "Payee 1" on 2 February 2024; this one-time
    // expense a day later is a near match a person decides.
    s.app
        .ok(
            &p.user,
            "createDailyExpense",
            json!({"name": "Payee 1", "merchant": "Payee 1", "amount": "2.50",
                   "date": "2024-02-03", "accountId": giro}),
        )
        .await;
    let before = balance(&s.app, &p.user, &giro).await;

    let run = s.run().await;
    assert_eq!(
        (run.synced, run.confirmed, run.waiting),
        (1, 0, 1),
        "{run:?}"
    );
    let batches = imports(&s.app, &p.user).await;
    assert_eq!(batches[0]["counts"]["conflict"], 1, "{}", batches[0]);
    assert_ne!(batches[0]["status"], "confirmed");
    assert_eq!(balance(&s.app, &p.user, &giro).await, before);
    let got = s.messages(&p);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0]["title"]
            .as_str()
            .unwrap()
            .starts_with("3 new bookings at "),
        "{got:?}"
    );
}

/// CPU time (user + system) of process `pid` so far, from
/// `/proc/PID/stat` (what `getrusage` answers for a process of its own).
fn cpu_of(pid: u32) -> std::time::Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // After the command's name in parentheses: state is field 3, utime 14,
    // stime 15.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // SAFETY: sysconf reads a constant of the system.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
    std::time::Duration::from_micros(ticks * 1_000_000 / per_second)
}

/// CPU time (user + system) of this process so far (`getrusage`): the
/// mock bank's answers and the test's client.
fn own_cpu() -> std::time::Duration {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(libc::RUSAGE_SELF, &mut u), 0);
        u
    };
    let t = |tv: libc::timeval| {
        std::time::Duration::from_secs(tv.tv_sec as u64)
            + std::time::Duration::from_micros(tv.tv_usec as u64)
    };
    t(usage.ru_utime) + t(usage.ru_stime)
}

/// The benchmark of docs/performance.md ("A bank sync of 3,000
/// bookings"): the real executable syncs `BOOKINGS` bookings over
/// `PAGES` continuation pages (default 3,000 over 6) from the mock bank
/// in this process; prints the wall time of `syncBank` (until the batch is
/// staged and reconciled), the service's CPU time and the mock bank's,
/// and the service's peak memory. Run with a release build:
/// `cargo test --release --test blackbox bank_sync_benchmark -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark: run by hand with --release (docs/performance.md)"]
async fn bank_sync_benchmark() {
    use crate::support::service::status_mib;
    use crate::support::service::Service;
    let env = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (bookings, pages) = (env("BOOKINGS", 3000), env("PAGES", 6));
    let bank = MockBank::start(Scenario {
        bookings,
        per_page: bookings.div_ceil(pages),
        ..Scenario::default()
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(
        dir.path(),
        &[
            ("CASHKEEPER_FINTS_PRODUCT_ID", "CASHKEEPERBENCH"),
            ("CASHKEEPER_FINTS_ALLOW_LOCAL", "true"),
            ("CASHKEEPER_BANK_SYNC_SCHEDULE", "off"),
        ],
    );
    let pid = service.child.id();
    let cookie = service.register("bench@example.org").await;
    let ok = |reply: Option<Value>| {
        let reply = reply.expect("an answer");
        assert_eq!(reply["success"], true, "{reply}");
        reply["data"].clone()
    };
    let account = service.giro(&cookie).await;
    let c = ok(service
        .action(
            "connectBank",
            json!({"bankCode": BANK_CODE, "url": bank.url, "loginName": fints_bank::LOGIN,
                   "pin": fints_bank::PIN, "savePin": true}),
            Some(&cookie),
        )
        .await);
    let id = c["id"].clone();
    ok(service
        .action(
            "linkBankAccount",
            json!({"id": id, "iban": IBAN, "accountId": account}),
            Some(&cookie),
        )
        .await);

    let (peak_before, rss_before) = (status_mib(pid, "VmHWM"), status_mib(pid, "VmRSS"));
    let (cpu_service, cpu_bank) = (cpu_of(pid), own_cpu());
    let started = std::time::Instant::now();
    let synced = ok(service
        .action("syncBank", json!({ "id": id }), Some(&cookie))
        .await);
    let wall = started.elapsed();
    let (cpu_service, cpu_bank) = (cpu_of(pid) - cpu_service, own_cpu() - cpu_bank);
    let peak = status_mib(pid, "VmHWM");
    assert_eq!(synced["state"], "done", "{synced}");
    assert_eq!(synced["batches"][0]["counts"]["new"], bookings, "{synced}");
    let statements = bank.sent("HKKAZ") + bank.sent("HKCAZ");
    assert_eq!(statements, pages, "one statement request per page");
    println!(
        "bank sync of {bookings} bookings over {pages} pages: syncBank {:.3} s wall, \
         service CPU {:.3} s, mock bank and client CPU {:.3} s; service memory \
         {rss_before} MiB before, peak {peak_before} MiB before and {peak} MiB after",
        wall.as_secs_f64(),
        cpu_service.as_secs_f64(),
        cpu_bank.as_secs_f64(),
    );
}

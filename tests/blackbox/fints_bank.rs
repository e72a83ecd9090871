//! A loopback mock bank speaking FinTS 3.0 PIN/TAN over HTTP (base64
//! bodies), its answers modelled on recorded dialogs of real banks (DKB's
//! pushTAN and MT940 paging, GLS's camt.052 through HKCAZ, Atruvia's
//! decoupled approval, KSK's and Postbank's locked access). Scenarios pick
//! the TAN methods, where a TAN or an approval is asked for, failures, and
//! how many bookings over how many continuation pages it serves.

use crate::support::{spawn_app_with, TestApp, TestUser};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use cashkeeper::services::fints::message::Response;
use cashkeeper::services::fints::syntax::Segment;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

pub const BANK_CODE: &str = "12030000";
pub const LOGIN: &str = "test@user";
/// The login as FinTS text: `@` escaped.
const LOGIN_FINTS: &str = "test?@user";
pub const PIN: &str = "Geheim-PIN-4711";
pub const TAN: &str = "778899";
pub const IBAN: &str = "DE89120300001234567890";
pub const BIC: &str = "BYLADEM1001";
pub const ACCOUNT: &str = "1234567890";
pub const SYSTEM_ID: &str = "MOCKSYSTEMID0001";
pub const OPENING: i64 = 100_000; // cents
/// The one TAN medium the user has (pushTAN 921 needs one named).
pub const MEDIUM: &str = "Mein Handy";

/// Where the bank wants strong authentication.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sca {
    /// 3076: not needed.
    NotNeeded,
    /// 0030: a typed TAN.
    Tan,
    /// 3955: approval in the app, answered 3956 this many times first.
    Decoupled(u32),
}

/// The TAN methods the user has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Methods {
    /// pushTAN 921 (typed) only.
    Typed,
    /// 921 typed and 946 decoupled: the user chooses.
    Choice,
    /// 946 decoupled only.
    Decoupled,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fail {
    None,
    /// 9910 on every signed message.
    WrongPin,
    /// 3938 at dialog init (as KSK sends it: a warning in an accepted dialog).
    Locked,
    /// 9078 on the product id.
    ProductRefused,
    /// The connection is closed without an answer to a message holding
    /// this segment.
    DropOn(&'static str),
    /// Requests are read and never answered.
    Silent,
    /// The first message holding this segment is read and never answered;
    /// later ones are (a bank that hung once).
    HangFirst(&'static str),
}

#[derive(Clone, Debug)]
pub struct Scenario {
    pub methods: Methods,
    pub init: Sca,
    pub statement: Sca,
    pub camt: bool,
    pub bookings: usize,
    pub per_page: usize,
    pub fail: Fail,
}

impl Default for Scenario {
    fn default() -> Scenario {
        Scenario {
            methods: Methods::Typed,
            init: Sca::NotNeeded,
            statement: Sca::NotNeeded,
            camt: false,
            bookings: 3,
            per_page: 1000,
            fail: Fail::None,
        }
    }
}

/// What the bank received.
#[derive(Default, Debug)]
pub struct Seen {
    /// Per message, the kinds of its segments (inside the envelope too).
    pub messages: Vec<Vec<String>>,
    /// Dialog ids ended with HKEND.
    pub ended: Vec<String>,
    /// Dialog ids opened.
    pub opened: Vec<String>,
    /// The HKKAZ/HKCAZ continuation points received.
    pub touchdowns: Vec<String>,
    /// The booking ranges HKKAZ/HKCAZ asked for: (from, to) as sent.
    pub ranges: Vec<(String, String)>,
    pub product_ids: Vec<String>,
    /// Per HKTAN process 4: the order it names and the TAN medium.
    pub hktans: Vec<(String, String)>,
}

#[derive(Default)]
struct Dialogs {
    next: u32,
    /// Task reference → the answer waiting behind the TAN, and the 3956
    /// answers still to give.
    pending: HashMap<String, (String, u32)>,
    /// Whether the message of [`Fail::HangFirst`] came.
    hung: bool,
}

pub struct MockBank {
    pub url: String,
    pub seen: Arc<Mutex<Seen>>,
    pub ended: Arc<tokio::sync::Notify>,
    /// What the bank does from the next request on ([`MockBank::change`]).
    scenario: Arc<Mutex<Scenario>>,
}

impl MockBank {
    pub async fn start(scenario: Scenario) -> MockBank {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/fints", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Seen::default()));
        let ended = Arc::new(tokio::sync::Notify::new());
        let dialogs = Arc::new(Mutex::new(Dialogs::default()));
        let scenario = Arc::new(Mutex::new(scenario));
        let (s, e, current) = (seen.clone(), ended.clone(), scenario.clone());
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let sc = current.lock().unwrap().clone();
                let (s, e, d) = (s.clone(), e.clone(), dialogs.clone());
                tokio::spawn(async move { serve(stream, sc, s, e, d).await });
            }
        });
        MockBank {
            url,
            seen,
            ended,
            scenario,
        }
    }

    /// Changes what the bank does from the next connection on (a PIN
    /// changed at the bank, a TAN asked for where none was).
    pub fn change(&self, f: impl FnOnce(&mut Scenario)) {
        f(&mut self.scenario.lock().unwrap());
    }

    /// Waits until `n` dialogs were ended with HKEND, within [`GENEROUS`];
    /// the panic says which were opened and which ended.
    pub async fn wait_ended(&self, n: usize) {
        let deadline = tokio::time::Instant::now() + GENEROUS;
        loop {
            let notified = self.ended.notified();
            if self.seen.lock().unwrap().ended.len() >= n {
                return;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                let seen = self.seen.lock().unwrap();
                panic!(
                    "{n} dialogs not ended within {GENEROUS:?}: opened {:?}, ended {:?}",
                    seen.opened, seen.ended
                );
            }
        }
    }

    /// Panics unless every dialog that was opened was ended, naming them.
    pub fn assert_all_ended(&self) {
        let seen = self.seen.lock().unwrap();
        assert!(
            seen.opened.iter().all(|d| seen.ended.contains(d)),
            "dialogs left open at the bank: opened {:?}, ended {:?}",
            seen.opened,
            seen.ended
        );
    }

    /// Every dialog that was opened was ended.
    pub fn all_ended(&self) -> bool {
        let seen = self.seen.lock().unwrap();
        seen.opened.iter().all(|d| seen.ended.contains(d))
    }

    pub fn sent(&self, kind: &str) -> usize {
        let seen = self.seen.lock().unwrap();
        seen.messages
            .iter()
            .flatten()
            .filter(|k| k.as_str() == kind)
            .count()
    }
}

// ------------------------------------------------- the app's side

/// The product registration the bank tests' apps send.
pub const PRODUCT: &str = "MOCKPRODUCT123456789";

/// Lets the app connect to a bank on loopback, with a product id.
pub fn allow_mock_banks(c: &mut cashkeeper::config::Config) {
    c.fints_product_id = Some(PRODUCT.into());
    c.fints_allow_local = true;
}

/// An app that may connect to the mock banks.
pub async fn bank_app() -> TestApp {
    spawn_app_with(allow_mock_banks).await
}

/// `connectBank`'s body for `bank` (by its bank code and address).
pub fn connect_body(bank: &MockBank, pin: &str, save_pin: bool) -> Value {
    json!({
        "bankCode": BANK_CODE,
        "url": bank.url,
        "loginName": LOGIN,
        "pin": pin,
        "savePin": save_pin,
    })
}

/// Connects `user` to `bank` with the right PIN: the connection as
/// `connectBank` answers it.
pub async fn connect(app: &TestApp, user: &TestUser, bank: &MockBank, save_pin: bool) -> Value {
    app.ok(user, "connectBank", connect_body(bank, PIN, save_pin))
        .await
}

/// Links the bank's one account ([`IBAN`]) of connection `id` to the
/// user's `account`: the connection as `linkBankAccount` answers it.
pub async fn link(app: &TestApp, user: &TestUser, id: &str, account: &str) -> Value {
    let linked = app
        .ok(
            user,
            "linkBankAccount",
            json!({"id": id, "iban": IBAN, "accountId": account}),
        )
        .await;
    assert_eq!(linked["accounts"][0]["accountId"], account, "{linked}");
    linked
}

/// A connection of `user` to `bank` made `ready` at once, its one account
/// linked to `account`: the connection's id.
pub async fn connected_to(
    app: &TestApp,
    user: &TestUser,
    bank: &MockBank,
    save_pin: bool,
    account: &str,
) -> String {
    let conn = connect(app, user, bank, save_pin).await;
    assert_eq!(conn["state"], "ready", "{conn}");
    let id = conn["id"].as_str().unwrap().to_string();
    link(app, user, &id, account).await;
    id
}

/// How long a test waits for the server's own work with a bank (an
/// approval polled at the bank's interval, a dialog ended in the
/// background): far beyond what it takes on a loaded machine, so that
/// running out means it never happens.
pub const GENEROUS: Duration = Duration::from_secs(120);

/// `getBankConnection` until its state is not `state`, within
/// [`GENEROUS`]; the panic says the state last seen.
pub async fn until_not(app: &TestApp, user: &TestUser, id: &str, state: &str) -> Value {
    let deadline = tokio::time::Instant::now() + GENEROUS;
    loop {
        let c = app.ok(user, "getBankConnection", json!({"id": id})).await;
        if c["state"] != state {
            return c;
        }
        if tokio::time::Instant::now() > deadline {
            panic!("connection stayed {state} for {GENEROUS:?}: {c}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn read_request(stream: &mut TcpStream) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())?;
    while buf.len() < head_end + len {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Some(buf[head_end..head_end + len].to_vec())
}

async fn serve(
    mut stream: TcpStream,
    scenario: Scenario,
    seen: Arc<Mutex<Seen>>,
    ended: Arc<tokio::sync::Notify>,
    dialogs: Arc<Mutex<Dialogs>>,
) {
    let Some(body) = read_request(&mut stream).await else {
        return;
    };
    if scenario.fail == Fail::Silent {
        std::future::pending::<()>().await;
    }
    let clean: Vec<u8> = body
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    let Ok(raw) = STANDARD.decode(&clean) else {
        return;
    };
    let Ok(request) = Response::parse(&raw) else {
        return;
    };
    let kinds: Vec<String> = request.segments.iter().map(Segment::kind).collect();
    if let Fail::DropOn(kind) = scenario.fail {
        if kinds.iter().any(|k| k == kind) {
            seen.lock().unwrap().messages.push(kinds);
            return; // closes the connection without an answer
        }
    }
    if let Fail::HangFirst(kind) = scenario.fail {
        let first = kinds.iter().any(|k| k == kind)
            && !std::mem::replace(&mut dialogs.lock().unwrap().hung, true);
        if first {
            seen.lock().unwrap().messages.push(kinds.clone());
            ended.notify_waiters();
            std::future::pending::<()>().await;
        }
    }
    let answer = answer(&request, &scenario, &seen, &dialogs);
    seen.lock().unwrap().messages.push(kinds);
    ended.notify_waiters();
    let b64 = STANDARD.encode(&answer);
    let reply = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{b64}",
        b64.len()
    );
    let _ = stream.write_all(reply.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// `@n@` and the bytes.
fn bin(bytes: &[u8]) -> Vec<u8> {
    let mut v = format!("@{}@", bytes.len()).into_bytes();
    v.extend_from_slice(bytes);
    v
}

fn seg<'a>(r: &'a Response, kind: &str) -> Option<&'a Segment> {
    r.first(kind)
}

/// The bank's parameters, modelled on DKB's and Atruvia's BPD.
fn bpd(scenario: &Scenario) -> String {
    let sca = |s: Sca| if s == Sca::NotNeeded { "N" } else { "J" };
    let mut s = format!(
        "HIBPA:10:3:4+7+280:{BANK_CODE}+Mockbank Loopback AG+3+1+300'\
HIKOM:11:4:4+280:{BANK_CODE}+1+3:mock.invalid/fints'\
HISHV:12:3:4+N+PIN:1'\
HIKAZS:13:5:4+1+1+360:J'\
HIKAZS:14:6:4+1+1+1+360:J:N'\
HISALS:15:5:4+3+1'\
HISALS:16:7:4+1+1+1'\
HISPAS:17:1:4+1+1+1+J:J:N:sepade?:xsd?:pain.001.001.03.xsd'\
HITANS:18:6:4+1+1+1+J:N:0:921:2:pushTAN2.0:::pushTAN 2.0:6:1:TAN:2048:J:2:N:0:0:N:N:00:2:N:1'\
HITANS:19:7:4+1+1+1+N:N:0:946:2:DECOUPLED:Decoupled::SecureGo plus (Direktfreigabe):::TAN:2048:J:1:N:0:2:N:J:00:0:N:1:150:2:2:J:J'\
HIPINS:20:1:4+1+1+1+5:20:6:Benutzerkennung::HKTAN:N:HKKAZ:{}:HKCAZ:{}:HKSAL:N:HKSPA:N:HKTAB:N'\
HITABS:22:4:4+1+1+0'",
        sca(scenario.statement),
        sca(scenario.statement),
    );
    if scenario.camt {
        s.push_str(
            "HICAZS:21:1:4+1+1+1+450:N:N:urn?:iso?:std?:iso?:20022?:tech?:xsd?:camt.052.001.02'",
        );
    }
    s
}

fn upd() -> String {
    format!(
        "HIUPA:30:4:4+{LOGIN_FINTS}+3+0'HIUPD:31:6:4+{ACCOUNT}::280:{BANK_CODE}+{IBAN}+{LOGIN_FINTS}+1+EUR+Erika Mustermann++Girokonto++HKSAK:1+HKKAZ:1+HKCAZ:1+HKSAL:1+HKSPA:1+HKTAN:1'"
    )
}

/// The bank's and the user's parameters when HKVVB names older versions
/// (a client without them, like python-fints, asks in its first signed
/// dialog).
fn outdated_parameters(r: &Response, scenario: &Scenario) -> String {
    let Some(vvb) = seg(r, "HKVVB") else {
        return String::new();
    };
    let mut s = String::new();
    if vvb.text(1, 0) != "7" {
        s.push_str("HIRMS:5:2:4+3050::BPD nicht mehr aktuell, aktuelle Version enthalten.'");
        s.push_str(&bpd(scenario));
    }
    if vvb.text(2, 0) != "3" {
        s.push_str("HIRMS:6:2:4+3050::UPD nicht mehr aktuell, aktuelle Version enthalten.'");
        s.push_str(&upd());
    }
    s
}

fn allowed_methods(scenario: &Scenario) -> &'static str {
    match scenario.methods {
        Methods::Typed => "921",
        Methods::Choice => "921:946",
        Methods::Decoupled => "946",
    }
}

/// Amount of booking `i` in cents: credits and debits alternating.
pub fn booking_cents(i: usize) -> i64 {
    let cents = 100 * (i as i64 + 1) + 50;
    if i.is_multiple_of(2) {
        cents
    } else {
        -cents
    }
}

fn money(cents: i64, sep: char) -> String {
    format!("{}{sep}{:02}", cents.abs() / 100, cents.abs() % 100)
}

/// A FinTS amount: decimal comma, no trailing zeros (`1003,5`, `100,`).
pub fn fints_decimal(cents: i64) -> String {
    let s = money(cents, ',');
    s.trim_end_matches('0').to_owned()
}

/// Booking `i`'s day in February 2024.
pub fn booking_day(i: usize) -> u32 {
    1 + (i % 28) as u32
}

fn mt940_page(first: usize, last: usize) -> Vec<u8> {
    let opening: i64 = OPENING + (0..first).map(booking_cents).sum::<i64>();
    let mut s = format!(
        "\r\n:20:STARTUMSE\r\n:25:{BANK_CODE}/{ACCOUNT}\r\n:28C:00000/001\r\n:60F:C240201EUR{}\r\n",
        money(opening, ',')
    );
    let mut balance = opening;
    for i in first..last {
        let c = booking_cents(i);
        balance += c;
        let d = booking_day(i);
        s.push_str(&format!(
            ":61:2402{d:02}02{d:02}{}{}N062NONREF\r\n:86:166?00GUTSCHR. UEBERWEISUNG?109310?20SVWZ+Booking {i}?30{BIC}?31DE00000000000000000{i:03}?32Payee {i}\r\n",
            if c < 0 { "D" } else { "C" },
            money(c, ','),
        ));
    }
    s.push_str(&format!(":62F:C240229EUR{}\r\n-", money(balance, ',')));
    s.into_bytes()
}

fn camt_page(page: usize, first: usize, last: usize) -> Vec<u8> {
    let mut entries = String::new();
    for i in first..last {
        let c = booking_cents(i);
        let d = booking_day(i);
        let (ind, party) = if c < 0 {
            ("DBIT", "Cdtr")
        } else {
            ("CRDT", "Dbtr")
        };
        entries.push_str(&format!(
            "<Ntry><Amt Ccy=\"EUR\">{}</Amt><CdtDbtInd>{ind}</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2024-02-{d:02}</Dt></BookgDt><ValDt><Dt>2024-02-{d:02}</Dt></ValDt><NtryDtls><TxDtls><RltdPties><{party}><Nm>Payee {i}</Nm></{party}></RltdPties><RmtInf><Ustrd>Booking {i}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>",
            money(c, '.')
        ));
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Document xmlns=\"urn:iso:std:iso:20022:tech:xsd:camt.052.001.02\"><BkToCstmrAcctRpt><GrpHdr><MsgId>M{page}</MsgId><CreDtTm>2024-02-29T10:00:00</CreDtTm></GrpHdr><Rpt><Id>R{page}</Id><Acct><Id><IBAN>{IBAN}</IBAN></Id><Ccy>EUR</Ccy></Acct>{entries}</Rpt></BkToCstmrAcctRpt></Document>"
    )
    .into_bytes()
}

/// The answer to a statement request: the page the continuation point
/// names, and a 3040 when more follow.
fn statement_answer(
    scenario: &Scenario,
    order: &Segment,
    seg_no: u32,
    seen: &Mutex<Seen>,
) -> Vec<u8> {
    let camt = order.kind() == "HKCAZ";
    let touchdown = if camt {
        order.text(7, 0)
    } else {
        order.text(6, 0)
    };
    if !touchdown.is_empty() {
        seen.lock().unwrap().touchdowns.push(touchdown.clone());
    }
    let (from, to) = if camt { (4, 5) } else { (3, 4) };
    seen.lock()
        .unwrap()
        .ranges
        .push((order.text(from, 0), order.text(to, 0)));
    let page: usize = touchdown
        .strip_prefix("MOCK-PAGE:")
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let per = scenario.per_page.max(1);
    let first = (page * per).min(scenario.bookings);
    let last = ((page + 1) * per).min(scenario.bookings);
    let more = last < scenario.bookings;
    let mut out =
        format!("HIRMS:4:2:{seg_no}+0020::Die gebuchten Umsatze wurden ubermittelt.").into_bytes();
    if more {
        out.extend_from_slice(
            format!(
                "+3040::Es liegen weitere Informationen vor.:MOCK-PAGE?:{}",
                page + 1
            )
            .as_bytes(),
        );
    }
    out.extend_from_slice(b"'");
    if camt {
        out.extend_from_slice(
            format!("HICAZ:5:1:{seg_no}+{IBAN}:{BIC}:{ACCOUNT}::280:{BANK_CODE}+urn?:iso?:std?:iso?:20022?:tech?:xsd?:camt.052.001.02+").as_bytes(),
        );
        out.extend(bin(&camt_page(page, first, last)));
        out.extend_from_slice(b"'");
    } else {
        out.extend_from_slice(format!("HIKAZ:5:5:{seg_no}+").as_bytes());
        out.extend(bin(&mt940_page(first, last)));
        out.extend_from_slice(b"'");
    }
    out
}

fn balance_answer(scenario: &Scenario, seg_no: u32, version: u32) -> Vec<u8> {
    let total: i64 = OPENING + (0..scenario.bookings).map(booking_cents).sum::<i64>();
    let sign = if total < 0 { "D" } else { "C" };
    // Version 7 names the account with IBAN and BIC.
    let account = if version >= 7 {
        format!("{IBAN}:{BIC}:{ACCOUNT}::280:{BANK_CODE}")
    } else {
        format!("{ACCOUNT}::280:{BANK_CODE}")
    };
    format!(
        "HIRMS:4:2:{seg_no}+0020::Auftrag ausgefuhrt.'HISAL:5:{version}:{seg_no}+{account}+Girokonto+EUR+{sign}:{}:EUR:20240229'",
        fints_decimal(total)
    )
    .into_bytes()
}

/// The answer to one message, envelope included.
fn answer(
    r: &Response,
    scenario: &Scenario,
    seen: &Mutex<Seen>,
    dialogs: &Mutex<Dialogs>,
) -> Vec<u8> {
    let incoming = seg(r, "HNHBK").map(|s| s.text(3, 0)).unwrap_or_default();
    let msg_no = seg(r, "HNHBK").map(|s| s.text(4, 0)).unwrap_or_default();
    let signed = seg(r, "HNSHA").is_some();
    let dialog = if incoming == "0" || incoming.is_empty() {
        let mut d = dialogs.lock().unwrap();
        d.next += 1;
        let id = format!("MOCKDIALOG{:04}", d.next);
        seen.lock().unwrap().opened.push(id.clone());
        id
    } else {
        incoming
    };
    let number = |kind: &str| seg(r, kind).map(|s| s.number()).unwrap_or(0);
    let mut inner: Vec<u8> = Vec::new();
    // FinTS text is ISO 8859-1, as banks send it ("bestätigen" is one
    // byte per letter).
    let mut push = |s: &str| {
        inner.extend(
            s.chars()
                .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')),
        )
    };

    if let Some(vvb) = seg(r, "HKVVB") {
        seen.lock().unwrap().product_ids.push(vvb.text(4, 0));
    }
    if let Some(t) = seg(r, "HKTAN").filter(|s| s.text(1, 0) == "4") {
        let medium = t.text(if t.version() == 5 { 12 } else { 11 }, 0);
        seen.lock().unwrap().hktans.push((t.text(2, 0), medium));
    }
    let pin = seg(r, "HNSHA").map(|s| s.text(3, 0)).unwrap_or_default();
    let tan = seg(r, "HNSHA").map(|s| s.text(3, 1)).unwrap_or_default();

    if seg(r, "HKEND").is_some() {
        seen.lock().unwrap().ended.push(dialog.clone());
        push("HIRMG:3:2+0010::Nachricht entgegengenommen.+0100::Dialog beendet.'");
    } else if signed && (scenario.fail == Fail::WrongPin || pin != PIN) {
        push("HIRMG:3:2+9050::Die Nachricht enthält Fehler.+9800::Dialog abgebrochen+9910::PIN ungültig.'");
    } else if scenario.fail == Fail::ProductRefused && seg(r, "HKVVB").is_some() {
        push("HIRMG:3:2+9050::Die Nachricht enthält Fehler.+9800::Dialog abgebrochen'");
        push(&format!(
            "HIRMS:4:2:{}+9078::Produktregistrierung fehlt oder ist ungültig.'",
            number("HKVVB")
        ));
    } else if seg(r, "HKIDN").is_some_and(|s| s.text(2, 0) == "9999999999") {
        push("HIRMG:3:2+3060::Bitte beachten Sie die enthaltenen Warnungen/Hinweise.'");
        push("HIRMS:4:2:3+3050::BPD nicht mehr aktuell, aktuelle Version enthalten.+0020::Informationen fehlerfrei entgegengenommen.'");
        push(&bpd(scenario));
    } else if seg(r, "HKSYN").is_some() {
        push("HIRMG:3:2+3060::Bitte beachten Sie die enthaltenen Warnungen/Hinweise.'");
        push(&outdated_parameters(r, scenario));
        push(&format!(
            "HIRMS:4:2:4+3920::Zugelassene Zwei-Schritt-Verfahren fur den Benutzer.:{}+0020::Der Auftrag wurde ausgefuhrt.'",
            allowed_methods(scenario)
        ));
        push(&format!("HISYN:5:4:5+{SYSTEM_ID}'"));
    } else if let Some(hktan) =
        seg(r, "HKTAN").filter(|s| s.text(1, 0) == "2" || s.text(1, 0) == "S")
    {
        let reference = hktan.text(5, 0);
        let process = hktan.text(1, 0);
        let mut d = dialogs.lock().unwrap();
        match d.pending.get_mut(&reference) {
            None => push("HIRMG:3:2+9050::Die Nachricht enthält Fehler.'HIRMS:4:2:3+9210::Auftragsreferenz unbekannt.'"),
            Some((_, waits)) if process == "S" && *waits > 0 => {
                *waits -= 1;
                push(&format!(
                    "HIRMG:3:2+3060::Bitte beachten Sie die enthaltenen Warnungen/Hinweise.'HIRMS:4:2:{}+3956::Starke Kundenauthentifizierung noch ausstehend.'HITAN:5:7:{}+S++{reference}'",
                    hktan.number(),
                    hktan.number()
                ));
            }
            Some(_) if process == "2" && tan != TAN => {
                push("HIRMG:3:2+9050::Die Nachricht enthält Fehler.'HIRMS:4:2:3+9941::TAN ungültig.'");
            }
            Some(_) => {
                let (held, _) = d.pending.remove(&reference).unwrap();
                push("HIRMG:3:2+0010::Nachricht entgegengenommen.'");
                push(&format!("HITAN:4:{}:{}+{process}++{reference}'", hktan.version(), hktan.number()));
                inner.extend_from_slice(&STANDARD.decode(held).unwrap());
            }
        }
    } else {
        // Dialog init, HKSPA, HKKAZ/HKCAZ, HKSAL: the order's own answer,
        // held back behind a TAN or approval where the scenario says so.
        let mut body: Vec<u8> = Vec::new();
        let mut sca = Sca::NotNeeded;
        let mut locked = false;
        if seg(r, "HKIDN").is_some() {
            body.extend_from_slice(outdated_parameters(r, scenario).as_bytes());
            body.extend_from_slice(
                format!(
                    "HIRMS:5:2:3+3920::Zugelassene Zwei-Schritt-Verfahren fur den Benutzer.:{}+0020::Der Auftrag wurde ausgefuhrt.'",
                    allowed_methods(scenario)
                )
                .as_bytes(),
            );
            sca = scenario.init;
            locked = scenario.fail == Fail::Locked;
        }
        if let Some(spa) = seg(r, "HKSPA") {
            body.extend_from_slice(
                format!(
                    "HIRMS:6:2:{}+0020::Auftrag ausgefuhrt.'HISPA:7:1:{}+J:{IBAN}:{BIC}:{ACCOUNT}::280:{BANK_CODE}'",
                    spa.number(),
                    spa.number()
                )
                .as_bytes(),
            );
        }
        if let Some(tab) = seg(r, "HKTAB") {
            body.extend_from_slice(
                format!(
                    "HIRMS:6:2:{}+0020::Der Auftrag wurde ausgefuhrt.'HITAB:7:4:{}+0+A:1:::::::::::{MEDIUM}::::::::'",
                    tab.number(),
                    tab.number()
                )
                .as_bytes(),
            );
        }
        for kind in ["HKKAZ", "HKCAZ"] {
            if let Some(order) = seg(r, kind) {
                body.extend(statement_answer(scenario, order, order.number(), seen));
                sca = scenario.statement;
            }
        }
        if let Some(sal) = seg(r, "HKSAL") {
            body.extend(balance_answer(scenario, sal.number(), sal.version()));
        }
        if locked {
            push("HIRMG:3:2+3060::Bitte beachten Sie die enthaltenen Warnungen/Hinweise.'");
            push("HIRMS:4:2:4+3938::Ihr Zugang ist vorlaufig gesperrt - Bitte PIN-Sperre aufheben.+0020::Der Auftrag wurde ausgefuhrt.'");
        } else {
            let hktan = seg(r, "HKTAN");
            let tan_no = hktan.map(|s| s.number()).unwrap_or(0);
            let tan_v = hktan.map(|s| s.version()).unwrap_or(6);
            match (sca, hktan) {
                (Sca::NotNeeded, _) | (_, None) => {
                    push("HIRMG:3:2+0010::Nachricht entgegengenommen.'");
                    if hktan.is_some() {
                        push(&format!("HIRMS:8:2:{tan_no}+3076::Starke Kundenauthentifizierung nicht notwendig.'HITAN:9:{tan_v}:{tan_no}+4++noref+nochallenge'"));
                    }
                    inner.extend(body);
                }
                (Sca::Tan, Some(_)) | (Sca::Decoupled(_), Some(_)) => {
                    let mut d = dialogs.lock().unwrap();
                    let reference = format!("MOCKREF-{dialog}-{msg_no}");
                    let waits = if let Sca::Decoupled(n) = sca { n } else { 0 };
                    d.pending
                        .insert(reference.clone(), (STANDARD.encode(&body), waits));
                    push("HIRMG:3:2+3060::Bitte beachten Sie die enthaltenen Warnungen/Hinweise.'");
                    if matches!(sca, Sca::Tan) {
                        push(&format!("HIRMS:8:2:{tan_no}+0030::Auftrag empfangen - Bitte die empfangene TAN eingeben.'HITAN:9:{tan_v}:{tan_no}+4++{reference}+Bitte geben Sie die pushTAN ein.'"));
                    } else {
                        push(&format!("HIRMS:8:2:{tan_no}+3955::Sicherheitsfreigabe erfolgt über anderen Kanal.'HITAN:9:{tan_v}:{tan_no}+4++{reference}+Bitte bestätigen Sie den Vorgang in Ihrer SecureGo plus App.'"));
                    }
                }
            }
        }
    }
    envelope(&dialog, &msg_no, signed, inner)
}

fn envelope(dialog: &str, msg_no: &str, signed: bool, inner: Vec<u8>) -> Vec<u8> {
    let mut rest = Vec::new();
    if signed {
        rest.extend_from_slice(format!("HNVSK:998:3+PIN:2+998+1+2::{SYSTEM_ID}+1:20240229:100000+2:2:13:@8@00000000:5:1+280:{BANK_CODE}:{LOGIN_FINTS}:V:0:0+0'HNVSD:999:1+").as_bytes());
        let mut signed_inner = format!("HNSHK:2:4+PIN:2+999+1234567+1+1+2::{SYSTEM_ID}+1+1:20240229:100000+1:999:1+6:10:19+280:{BANK_CODE}:{LOGIN_FINTS}:S:0:0'").into_bytes();
        signed_inner.extend(inner);
        signed_inner.extend_from_slice(b"HNSHA:90:2+1234567'");
        rest.extend(bin(&signed_inner));
        rest.extend_from_slice(b"'");
    } else {
        rest.extend(inner);
    }
    rest.extend_from_slice(format!("HNHBS:99:1+{msg_no}'").as_bytes());
    let head =
        |size: usize| format!("HNHBK:1:3+{size:012}+300+{dialog}+{msg_no}+{dialog}:{msg_no}'");
    let size = head(0).len() + rest.len();
    let mut out = head(size).into_bytes();
    out.extend(rest);
    out
}

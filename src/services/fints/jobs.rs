//! The work of a dialog, step by step: the segments each step sends and
//! what its answer holds (accounts, bookings pages, balance).

use super::dialog::Dialog;
use super::message::{Response, COUNTRY, ONE_STEP};
use super::syntax::{Element, Item, Segment};
use super::{
    params, Account, Balance, BankState, Connected, Error, Fetched, Statement, CAMT_052,
    CAZ_VERSIONS, KAZ_VERSIONS, MAX_PAGES, SAL_VERSIONS, SPA_VERSIONS, TAB_VERSIONS, TAN_VERSIONS,
};
use chrono::NaiveDate;
use rust_decimal::Decimal;
use std::str::FromStr;

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
    pub(super) fn step(&self) -> Step {
        match self {
            Job::Connect { step } | Job::Fetch { step, .. } => *step,
        }
    }
    pub(super) fn set_step(&mut self, s: Step) {
        match self {
            Job::Connect { step } | Job::Fetch { step, .. } => *step = s,
        }
    }
}

/// A dialog with its work.
pub(super) struct Run {
    pub(super) dialog: Dialog,
    pub(super) job: Job,
    /// The task reference of the order waiting for a TAN.
    pub(super) pending_reference: String,
}

impl Run {
    pub(super) fn tan_version(&self) -> u32 {
        self.dialog
            .state
            .chosen_tan_method()
            .map(|m| m.hktan_version)
            .filter(|v| TAN_VERSIONS.contains(v))
            .or_else(|| self.dialog.state.version("HKTAN", TAN_VERSIONS))
            .unwrap_or(6)
    }

    /// HKTAN process 4 announcing `order`, or `None` with one-step PIN/TAN.
    pub(super) fn hktan_for(&self, order: &str) -> Option<Segment> {
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
    pub(super) fn media_wanted(&self) -> bool {
        let state = &self.dialog.state;
        state.tan_medium.is_none()
            && state.chosen_tan_method().is_some_and(|m| m.needs_medium)
            && state.version("HKTAB", TAB_VERSIONS).is_some()
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
    pub(super) fn request(&self, step: Step) -> Option<Vec<Segment>> {
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
                let (from, to, touchdown) = (*from, *to, touchdown.as_deref());
                let segment = if *camt {
                    let version = state.version("HKCAZ", CAZ_VERSIONS)?;
                    let format = state
                        .camt_formats
                        .iter()
                        .find(|f| f.ends_with("camt.052.001.02"))
                        .or(state.camt_formats.first())
                        .cloned()
                        .unwrap_or_else(|| CAMT_052.to_owned());
                    let account = vec![self.ktv(true), Element::text(&format)];
                    statement_order("HKCAZ", version, account, from, to, touchdown)
                } else {
                    let version = state.version("HKKAZ", KAZ_VERSIONS)?;
                    let account = vec![self.ktv(version >= 7)];
                    statement_order("HKKAZ", version, account, from, to, touchdown)
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
    pub(super) fn take(&mut self, r: &Response) -> Result<(), Error> {
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

pub(super) fn next_after(job: &Job, step: Step) -> Step {
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

/// A statement order, HKKAZ and HKCAZ alike: `account` (for HKCAZ with
/// the camt format), then "all accounts" (N), the booking range, the
/// number of entries and the continuation point. Every field up to the
/// continuation point is sent, empty ones too, as python-fints sends it: a
/// bank server that reads the order by position (python-fints' own mock
/// bank does) finds no booking range in a trimmed segment.
pub(super) fn statement_order(
    kind: &str,
    version: u32,
    account: Vec<Element>,
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
    touchdown: Option<&str>,
) -> Segment {
    let mut e = account;
    e.extend([
        Element::text("N"),
        Element::text(&ymd(from)),
        Element::text(&ymd(to)),
        Element::empty(),
        Element::text(touchdown.unwrap_or("")),
    ]);
    Segment::new(kind, version, e)
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
    fn both_statement_orders_keep_every_field_up_to_the_continuation_point() {
        let day = NaiveDate::from_ymd_opt(2024, 2, 1);
        let account = || vec![Element::text("1234567890")];
        let kaz = statement_order("HKKAZ", 6, account(), day, day, None);
        let mut camt = account();
        camt.push(Element::text(CAMT_052));
        let caz = statement_order("HKCAZ", 1, camt, day, day, None);
        // Account (and format), N, from, to, entries, continuation point.
        assert_eq!(kaz.elements().len(), 6);
        assert_eq!(caz.elements().len(), 7);
        let written = String::from_utf8_lossy(&super::super::syntax::write(&[kaz])).into_owned();
        assert!(written.ends_with("+N+20240201+20240201++'"), "{written}");
        let paged = statement_order("HKKAZ", 6, account(), None, None, Some("P:2"));
        assert_eq!(paged.text(6, 0), "P:2");
        assert_eq!(paged.text(3, 0), "");
    }

    fn hisal(balance: &str) -> Segment {
        let text = format!("HISAL:5:7:3+DE1:BIC:1::280:1+Giro+EUR+{balance}'");
        super::super::syntax::parse(text.as_bytes())
            .unwrap()
            .remove(0)
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
}

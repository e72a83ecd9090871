//! ISO 20022 camt.053 (statement) and camt.052 (account report) reader.
//!
//! The XML is read into a small element tree (local names only, no
//! namespaces, no DTD or entity expansion), except the entries: each `Ntry`
//! of a `Stmt`/`Rpt` is read into rows as soon as it closes and then
//! dropped, so that a file of 100,000 entries never stands as a tree.
//! What comes before the entries (the account, the balances) is in the
//! statement's element by then; the closing balances are read when the
//! statement closes.
//!
//! Rules (see docs/import-formats.md):
//! - date: `BookgDt` (falling back to `ValDt` when a pending entry has none);
//! - amount: entry `Amt` signed by `CdtDbtInd` (DBIT negative); charges are
//!   not subtracted;
//! - a batch entry with two or more `TxDtls` whose own amounts add up exactly
//!   to the entry amount is split into one row per `TxDtls`; otherwise one row
//!   per entry (a split row's line is that of its `TxDtls`, a whole entry's
//!   that of its `Ntry`);
//! - payee: the name of the party whose account is not the statement
//!   account; if that cannot be decided, the creditor of a debit and the
//!   debtor of a credit, swapped for reversals (`RvslInd` `true` or `1`)
//!   and returns (`RtrInf`); each part of a split batch its own;
//! - memo: all `Ustrd` joined with a space, else the structured creditor
//!   reference, else `AddtlTxInf`, else (not for batch parts) the entry's
//!   `AddtlNtryInf`;
//! - closing: `Bal` with code `CLBD`, the latest per account.

use super::text::{at_least_cents, parse_decimal, ymd_iso, Lines};
use super::{currency_code, most, Account, Accounts, Balance, Error, Kind, Part};
use crate::domain::import::budget::Budget;
use crate::domain::import::row::{Problem, Row};
use quick_xml::events::Event;
use quick_xml::Reader;
use rust_decimal::Decimal;
use std::borrow::Cow;

/// Deeper elements than this are skipped; camt needs about 12 levels.
const MAX_DEPTH: usize = 64;

/// Recognises camt.053 / camt.052 by the namespace or the message element.
pub fn sniff(head: &str) -> Option<Kind> {
    if head.contains("xsd:camt.053.") || head.contains("BkToCstmrStmt>") {
        Some(Kind::Camt053)
    } else if head.contains("xsd:camt.052.") || head.contains("BkToCstmrAcctRpt>") {
        Some(Kind::Camt052)
    } else {
        None
    }
}

/// One XML element: local name, attributes, direct text, children. Its
/// name and text are pieces of the file's text where they can be, so that
/// reading an entry of some 30 elements does not allocate for each.
#[derive(Default, Debug)]
struct Node<'a> {
    name: Cow<'a, str>,
    attrs: Vec<(Cow<'a, str>, String)>,
    text: Cow<'a, str>,
    children: Vec<Node<'a>>,
    line: usize,
    /// The element's place among all elements of the file, from 1.
    seq: usize,
}

impl<'a> Node<'a> {
    /// This element and all below it.
    fn count(&self) -> usize {
        1 + self.children.iter().map(Node::count).sum::<usize>()
    }

    fn child(&self, name: &str) -> Option<&Node<'a>> {
        self.children.iter().find(|c| c.name == name)
    }

    fn all<'n>(&'n self, name: &'n str) -> impl Iterator<Item = &'n Node<'a>> + 'n {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// The element at a path of child names.
    fn at(&self, path: &[&str]) -> Option<&Node<'a>> {
        let mut node = self;
        for name in path {
            node = node.child(name)?;
        }
        Some(node)
    }

    /// The trimmed text at a path, None when missing or empty.
    fn text_at(&self, path: &[&str]) -> Option<String> {
        let t = self.at(path)?.text.trim();
        if t.is_empty() {
            None
        } else {
            Some(t.to_string())
        }
    }

    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Adds text to the element's own, borrowing the first piece.
    fn push_text(&mut self, text: Cow<'a, str>) {
        if self.text.is_empty() {
            self.text = text;
        } else {
            self.text.to_mut().push_str(&text);
        }
    }
}

/// `part`, a piece of the reader's `input`, as a piece of `input` (with
/// its lifetime); a copy if it is not one.
fn piece<'a>(input: &'a str, part: &str) -> Cow<'a, str> {
    let start = (part.as_ptr() as usize).wrapping_sub(input.as_ptr() as usize);
    match input.get(start..start.wrapping_add(part.len())) {
        Some(found) if found.as_ptr() == part.as_ptr() => Cow::Borrowed(found),
        _ => Cow::Owned(part.to_owned()),
    }
}

/// Reads the XML into a tree, handing each entry of a statement to
/// `on_entry` (with the statement as read so far) instead of keeping it. A
/// document that breaks off (truncated or ill-formed) keeps what was read
/// before the break; the line of the break is returned too so a caller can
/// report it when nothing usable was found. The elements held at once (the
/// tree and the entry being read) are counted as they come and refused
/// past [`most`]`(Part::Elements)`, so a file of many empty elements never
/// stands as a tree.
fn parse_tree<'a>(
    text: &'a str,
    budget: &Budget,
    on_entry: &mut dyn FnMut(&Node<'a>, Node<'a>) -> Result<(), Error>,
) -> Result<(Node<'a>, Option<usize>), Error> {
    let mut lines = Lines::new(text);
    let max_held = most(Part::Elements);
    let (mut held, mut seq) = (0usize, 0usize);
    let mut reader = Reader::from_str(text);
    let config = reader.config_mut();
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    let mut stack: Vec<Node<'a>> = vec![Node {
        line: 1,
        ..Node::default()
    }];
    // Elements skipped because they are nested too deeply.
    let mut skipped = 0usize;
    let mut broken = None;
    loop {
        budget.check()?;
        if held > max_held {
            let pos = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
            return Err(Error::TooMuch {
                part: Part::Elements,
                line: lines.line_of(pos),
            });
        }
        let pos = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        let event = match reader.read_event() {
            Ok(e) => e,
            Err(_) => {
                let at = usize::try_from(reader.error_position()).unwrap_or(pos);
                broken = Some(lines.line_of(at));
                break;
            }
        };
        match event {
            Event::Start(e) => {
                if skipped > 0 || stack.len() > MAX_DEPTH {
                    skipped += 1;
                } else {
                    (held, seq) = (held + 1, seq + 1);
                    stack.push(element(text, &e, lines.line_of(pos), seq));
                }
            }
            Event::Empty(e) => {
                if skipped > 0 || stack.len() > MAX_DEPTH {
                    continue;
                }
                (held, seq) = (held + 1, seq + 1);
                let node = element(text, &e, lines.line_of(pos), seq);
                if let Some(parent) = stack.last_mut() {
                    parent.children.push(node);
                }
            }
            Event::End(_) => {
                if skipped > 0 {
                    skipped -= 1;
                } else if stack.len() > 1 {
                    held -= close(&mut stack, on_entry)?;
                }
            }
            Event::Text(t) => {
                if let (0, Some(node)) = (skipped, stack.last_mut()) {
                    node.push_text(t.xml10_content());
                }
            }
            Event::CData(t) => {
                if let (0, Some(node)) = (skipped, stack.last_mut()) {
                    node.push_text(t.xml10_content());
                }
            }
            Event::GeneralRef(r) => {
                // Only the predefined entities and character references are
                // resolved; anything a DTD would define is dropped.
                let c = match &*r {
                    "amp" => Some('&'),
                    "lt" => Some('<'),
                    "gt" => Some('>'),
                    "quot" => Some('"'),
                    "apos" => Some('\''),
                    _ => r.resolve_char_ref().ok().flatten(),
                };
                if let (Some(c), 0, Some(node)) = (c, skipped, stack.last_mut()) {
                    node.text.to_mut().push(c);
                }
            }
            Event::Eof => break,
            Event::Decl(_) | Event::PI(_) | Event::DocType(_) | Event::Comment(_) => {}
        }
    }
    // Close whatever is still open (a cut-off file).
    while stack.len() > 1 {
        close(&mut stack, on_entry)?;
        budget.check()?;
    }
    Ok((stack.pop().unwrap_or_default(), broken))
}

/// Closes the innermost open element: an entry of a statement goes to
/// `on_entry`, anything else to its parent. Answers how many elements are
/// no longer held (those of the entry).
fn close<'a>(
    stack: &mut Vec<Node<'a>>,
    on_entry: &mut dyn FnMut(&Node<'a>, Node<'a>) -> Result<(), Error>,
) -> Result<usize, Error> {
    if let Some(node) = stack.pop() {
        if let Some(parent) = stack.last_mut() {
            if node.name == "Ntry" && (parent.name == "Stmt" || parent.name == "Rpt") {
                let released = node.count();
                on_entry(parent, node)?;
                return Ok(released);
            }
            parent.children.push(node);
        }
    }
    Ok(0)
}

fn element<'a>(
    input: &'a str,
    e: &quick_xml::events::BytesStart<'_>,
    line: usize,
    seq: usize,
) -> Node<'a> {
    let name = piece(input, e.local_name().as_ref());
    let attrs = e
        .attributes()
        .flatten()
        .map(|a| {
            (
                piece(input, a.key.local_name().as_ref()),
                super::text::unescape_entities(&a.value),
            )
        })
        .collect();
    Node {
        name,
        attrs,
        text: Cow::Borrowed(""),
        children: Vec::new(),
        line,
        seq,
    }
}

/// Reads a camt.053 or camt.052 file: its text, decoded from `encoding` ([`super::decode`]).
pub fn read_text(
    text: &str,
    encoding: &'static str,
    budget: &Budget,
) -> Result<(&'static str, Vec<Account>), Error> {
    let mut accounts = Accounts::default();
    // The statement's account, found once per statement and number of
    // its elements read (it is read before the statement's entries).
    let mut known: Option<(usize, usize, String)> = None;
    let (root, broken) = parse_tree(text, budget, &mut |stmt, ntry| {
        let id = match &known {
            Some((seq, n, id)) if *seq == stmt.seq && *n == stmt.children.len() => id.clone(),
            _ => {
                let id = account_of(stmt, &mut accounts)?;
                known = Some((stmt.seq, stmt.children.len(), id.clone()));
                id
            }
        };
        read_entry(&id, &ntry, &mut accounts)
    })?;
    let message = find_message(&root).ok_or(Error::Malformed {
        line: broken.unwrap_or(1),
    })?;
    let mut statements = 0;
    for stmt in message
        .children
        .iter()
        .filter(|c| c.name == "Stmt" || c.name == "Rpt")
    {
        statements += 1;
        read_statement(stmt, &mut accounts)?;
    }
    if statements == 0 {
        return Err(Error::Malformed {
            line: broken.unwrap_or(message.line),
        });
    }
    Ok((encoding, accounts.list))
}

/// The encoding named in the XML declaration, if any.
pub fn xml_declared_encoding(bytes: &[u8]) -> Option<String> {
    let head = bytes.get(..200).unwrap_or(bytes);
    let head = String::from_utf8_lossy(head);
    let decl_end = head.find("?>")?;
    let decl = head.get(..decl_end)?;
    let pos = decl.find("encoding")?;
    let rest = decl.get(pos + "encoding".len()..)?.trim_start();
    let rest = rest.strip_prefix('=')?.trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let value = rest.get(1..)?;
    let end = value.find(quote)?;
    Some(value.get(..end)?.to_string())
}

/// The `BkToCstmrStmt` / `BkToCstmrAcctRpt` element, at most two levels down.
fn find_message<'n, 'a>(root: &'n Node<'a>) -> Option<&'n Node<'a>> {
    let is_msg = |n: &Node| n.name == "BkToCstmrStmt" || n.name == "BkToCstmrAcctRpt";
    for top in &root.children {
        if is_msg(top) {
            return Some(top);
        }
        if let Some(found) = top.children.iter().find(|c| is_msg(c)) {
            return Some(found);
        }
    }
    None
}

/// The statement's account, noted with its currency (from the account, or
/// else from a balance's amount).
fn account_of(stmt: &Node, accounts: &mut Accounts) -> Result<String, Error> {
    let id = stmt
        .text_at(&["Acct", "Id", "IBAN"])
        .or_else(|| stmt.text_at(&["Acct", "Id", "Othr", "Id"]))
        .unwrap_or_default();
    accounts.get(&id)?;
    accounts.currency(
        &id,
        stmt.text_at(&["Acct", "Ccy"])
            .and_then(|c| currency_code(&c)),
    )?;
    for bal in stmt.all("Bal") {
        if let Some(ccy) = bal.child("Amt").and_then(|a| a.attr("Ccy")) {
            accounts.currency(&id, currency_code(ccy))?;
        }
    }
    Ok(id)
}

/// The rows of one entry of the statement of account `id`.
fn read_entry(id: &str, ntry: &Node, accounts: &mut Accounts) -> Result<(), Error> {
    let own = normalize_account(id);
    let entry_ccy = ntry
        .child("Amt")
        .and_then(|a| a.attr("Ccy"))
        .and_then(currency_code);
    accounts.currency(id, entry_ccy.clone())?;
    let currency = match entry_ccy {
        Some(ccy) => Some(ccy),
        None => accounts.get(id)?.currency.clone(),
    };
    for row in entry_rows(ntry, &own, currency) {
        accounts.push(id, row)?;
    }
    Ok(())
}

/// The statement's account and its booked closing balance.
fn read_statement(stmt: &Node, accounts: &mut Accounts) -> Result<(), Error> {
    let id = account_of(stmt, accounts)?;
    for bal in stmt.all("Bal") {
        let code = bal.text_at(&["Tp", "CdOrPrtry", "Cd"]).unwrap_or_default();
        if code != "CLBD" {
            continue;
        }
        let amount = bal.text_at(&["Amt"]).and_then(|a| parse_decimal(&a));
        let date = bal
            .text_at(&["Dt", "Dt"])
            .or_else(|| bal.text_at(&["Dt", "DtTm"]))
            .and_then(|d| ymd_iso(&d));
        if let (Some(amount), Some(date)) = (amount, date) {
            let amount = if is_debit(bal) { -amount } else { amount };
            accounts.closing(&id, Balance { date, amount })?;
        }
    }
    Ok(())
}

fn is_debit(node: &Node) -> bool {
    node.text_at(&["CdtDbtInd"]).as_deref() == Some("DBIT")
}

/// Account numbers compare without spaces and case.
fn normalize_account(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_uppercase)
        .collect()
}

/// The rows of one `Ntry`: one, or one per `TxDtls` for a batch that splits.
fn entry_rows(ntry: &Node, own: &str, currency: Option<String>) -> Vec<Row> {
    let amount_text = ntry.text_at(&["Amt"]).unwrap_or_default();
    let amount = parse_decimal(&amount_text);
    let debit = is_debit(ntry);
    let signed = amount.map(|a| if debit { -a } else { a });
    let date_text = ntry
        .text_at(&["BookgDt", "Dt"])
        .or_else(|| ntry.text_at(&["BookgDt", "DtTm"]))
        .or_else(|| ntry.text_at(&["ValDt", "Dt"]))
        .or_else(|| ntry.text_at(&["ValDt", "DtTm"]))
        .unwrap_or_default();
    let date = ymd_iso(&date_text);
    // An XML boolean: `true` or `1`.
    let reversal = ntry
        .text_at(&["RvslInd"])
        .is_some_and(|r| r.eq_ignore_ascii_case("true") || r == "1");
    // camt.052.001.08 nests the status code, older versions hold it as text.
    let status = ntry
        .text_at(&["Sts", "Cd"])
        .or_else(|| ntry.text_at(&["Sts"]))
        .unwrap_or_default();
    let problem = if date.is_none() {
        Some(Problem::Date { value: date_text })
    } else if amount.is_none() {
        Some(Problem::Amount { value: amount_text })
    } else if !status.is_empty() && status != "BOOK" {
        Some(Problem::Pending { value: status })
    } else {
        None
    };
    let txs: Vec<&Node> = ntry.all("NtryDtls").flat_map(|d| d.all("TxDtls")).collect();
    let entry_info = ntry.text_at(&["AddtlNtryInf"]).unwrap_or_default();

    if let (Some(parts), None) = (split_parts(&txs, signed, debit), &problem) {
        return txs
            .iter()
            .zip(parts)
            .map(|(tx, part)| Row {
                line: tx.line,
                date,
                amount: Some(part),
                currency: currency.clone(),
                payee: payee(tx, own, part.is_sign_positive(), reversal),
                memo: memo(&[tx]),
                problem: None,
            })
            .collect();
    }

    let credit = !debit;
    let payee = txs
        .iter()
        .map(|tx| payee(tx, own, credit, reversal))
        .find(|p| !p.is_empty())
        .unwrap_or_default();
    let mut memo = memo(&txs);
    if memo.is_empty() {
        memo = entry_info;
    }
    vec![Row {
        line: ntry.line,
        date,
        amount: signed,
        currency,
        payee,
        memo,
        problem,
    }]
}

/// The signed amounts of the parts of a batch entry, when there are two or
/// more parts that each state an amount and they add up to the entry amount.
fn split_parts(txs: &[&Node], entry: Option<Decimal>, entry_debit: bool) -> Option<Vec<Decimal>> {
    let entry = entry?;
    if txs.len() < 2 {
        return None;
    }
    let mut parts = Vec::with_capacity(txs.len());
    for tx in txs {
        let amt = tx
            .text_at(&["Amt"])
            .or_else(|| tx.text_at(&["AmtDtls", "TxAmt", "Amt"]))
            .and_then(|a| parse_decimal(&a))?;
        let debit = match tx.text_at(&["CdtDbtInd"]).as_deref() {
            Some("DBIT") => true,
            Some("CRDT") => false,
            _ => entry_debit,
        };
        parts.push(at_least_cents(if debit { -amt } else { amt }));
    }
    let mut sum = Decimal::ZERO;
    for p in &parts {
        sum = sum.checked_add(*p)?;
    }
    (sum == entry).then_some(parts)
}

/// The counterparty name of one transaction.
fn payee(tx: &Node, own: &str, credit: bool, reversal: bool) -> String {
    let Some(parties) = tx.child("RltdPties") else {
        return String::new();
    };
    let name = |role: &str| {
        parties
            .text_at(&[role, "Nm"])
            .or_else(|| parties.text_at(&[role, "Pty", "Nm"]))
    };
    let account = |role: &str| {
        parties
            .text_at(&[role, "Id", "IBAN"])
            .or_else(|| parties.text_at(&[role, "Id", "Othr", "Id"]))
            .map(|a| normalize_account(&a))
    };
    let dbtr_is_own = !own.is_empty() && account("DbtrAcct").as_deref() == Some(own);
    let cdtr_is_own = !own.is_empty() && account("CdtrAcct").as_deref() == Some(own);
    let chosen = if dbtr_is_own && !cdtr_is_own {
        name("Cdtr")
    } else if cdtr_is_own && !dbtr_is_own {
        name("Dbtr")
    } else {
        // A reversal or a returned payment books the original payment
        // backwards, so the counterparty has the other role.
        let swapped = reversal || tx.child("RtrInf").is_some();
        if credit != swapped {
            name("Dbtr")
        } else {
            name("Cdtr")
        }
    };
    chosen.unwrap_or_default()
}

/// The remittance text of one or more transactions.
fn memo(txs: &[&Node]) -> String {
    let rmts = || txs.iter().filter_map(|tx| tx.child("RmtInf"));
    let join = |parts: Vec<String>| {
        parts
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let ustrd = join(
        rmts()
            .flat_map(|r| r.all("Ustrd"))
            .map(|u| u.text.trim().to_string())
            .collect(),
    );
    if !ustrd.is_empty() {
        return ustrd;
    }
    let reference = join(
        rmts()
            .flat_map(|r| r.all("Strd"))
            .filter_map(|s| s.text_at(&["CdtrRefInf", "Ref"]))
            .collect(),
    );
    if !reference.is_empty() {
        return reference;
    }
    txs.iter()
        .find_map(|tx| tx.text_at(&["AddtlTxInf"]))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::super::{read_as, Kind};
    use super::*;
    use std::str::FromStr;

    fn dec(s: &str) -> Option<Decimal> {
        Decimal::from_str(s).ok()
    }

    fn doc(entries: &str) -> String {
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><Stmt>
<Acct><Id><IBAN>DE00OWN</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">5.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Dt><Dt>2024-01-31</Dt></Dt></Bal>
{entries}
</Stmt></BkToCstmrStmt></Document>"#
        )
    }

    const BATCH: &str = r#"<Ntry><Amt Ccy="EUR">6.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>
<BookgDt><Dt>2024-01-02</Dt></BookgDt><NtryDtls><Btch><NbOfTxs>2</NbOfTxs></Btch>
<TxDtls><AmtDtls><TxAmt><Amt Ccy="EUR">3.50</Amt></TxAmt></AmtDtls>
<RltdPties><Dbtr><Nm>Me</Nm></Dbtr><DbtrAcct><Id><IBAN>DE00 own</IBAN></Id></DbtrAcct><Cdtr><Nm>Shop A</Nm></Cdtr></RltdPties>
<RmtInf><Ustrd> first </Ustrd></RmtInf></TxDtls>
<TxDtls><AmtDtls><TxAmt><Amt Ccy="EUR">AMOUNT2</Amt></TxAmt></AmtDtls>
<RltdPties><Cdtr><Nm>Shop B</Nm></Cdtr></RltdPties><RmtInf><Ustrd>second</Ustrd></RmtInf></TxDtls>
</NtryDtls><AddtlNtryInf>Batch booking</AddtlNtryInf></Ntry>"#;

    /// An entry's element names and texts are pieces of the file's text,
    /// not copies; a text with a character reference or in two pieces is
    /// its own, and reads as written.
    #[test]
    fn an_entrys_names_and_texts_are_pieces_of_the_file() {
        let xml = doc(
            "<Ntry><Amt Ccy=\"EUR\">1.00</Amt><AddtlNtryInf>Caf&#233; &amp; Bar</AddtlNtryInf></Ntry>",
        );
        let mut seen = Vec::new();
        parse_tree(&xml, &Budget::unlimited(), &mut |_, ntry| {
            for node in &ntry.children {
                seen.push((
                    node.name.to_string(),
                    matches!(node.name, Cow::Borrowed(_)),
                    node.text.to_string(),
                    matches!(node.text, Cow::Borrowed(_)),
                ));
            }
            seen.push((
                ntry.children[0].attrs[0].0.to_string(),
                matches!(ntry.children[0].attrs[0].0, Cow::Borrowed(_)),
                ntry.children[0].attrs[0].1.clone(),
                false,
            ));
            Ok(())
        })
        .unwrap();
        let seen: Vec<_> = seen
            .iter()
            .map(|(n, nb, t, tb)| (n.as_str(), *nb, t.as_str(), *tb))
            .collect();
        assert_eq!(
            seen,
            [
                ("Amt", true, "1.00", true),
                ("AddtlNtryInf", true, "Café & Bar", false),
                ("Ccy", true, "EUR", false),
            ]
        );
        let outside = String::from("Amt");
        assert!(matches!(piece(&xml, &outside), Cow::Owned(o) if o == "Amt"));
    }

    #[test]
    fn batch_entry_is_split_when_parts_add_up() {
        let xml = doc(&BATCH.replace("AMOUNT2", "2.50"));
        let (_, accounts) = read_as(Kind::Camt053, xml.as_bytes()).expect("readable");
        let rows = &accounts[0].rows;
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].amount, dec("-3.50"));
        assert_eq!(rows[0].payee, "Shop A");
        assert_eq!(rows[0].memo, "first");
        assert_eq!(rows[1].amount, dec("-2.50"));
        assert_eq!(rows[1].payee, "Shop B");
        assert!(rows[0].line < rows[1].line);
        assert_eq!(accounts[0].closing.as_ref().map(|b| b.amount), dec("-5.00"));
    }

    #[test]
    fn batch_entry_is_kept_whole_when_parts_do_not_add_up() {
        let xml = doc(&BATCH.replace("AMOUNT2", "2.00"));
        let (_, accounts) = read_as(Kind::Camt053, xml.as_bytes()).expect("readable");
        let rows = &accounts[0].rows;
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].amount, dec("-6.00"));
        assert_eq!(rows[0].memo, "first second");
        assert_eq!(rows[0].payee, "Shop A");
    }

    #[test]
    fn reversal_takes_the_debtor_of_the_original_collection() {
        let xml = doc(
            r#"<Ntry><Amt Ccy="CHF">6.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><RvslInd>true</RvslInd>
<Sts>BOOK</Sts><BookgDt><Dt>2016-04-10</Dt></BookgDt><NtryDtls><TxDtls>
<RltdPties><Dbtr><Nm>Maria</Nm></Dbtr><DbtrAcct><Id><IBAN>CH37</IBAN></Id></DbtrAcct></RltdPties>
<RmtInf><Ustrd>Mitteilung 128</Ustrd></RmtInf><RtrInf><Rsn><Cd>MD06</Cd></Rsn></RtrInf></TxDtls></NtryDtls></Ntry>
<Ntry><Amt Ccy="EUR">53.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>PDNG</Cd></Sts>
<BookgDt><Dt>2021-03-26</Dt></BookgDt><NtryDtls><TxDtls>
<RltdPties><Dbtr><Nm>Sven</Nm></Dbtr><Cdtr><Nm>Erwin</Nm></Cdtr></RltdPties>
<RtrInf><Rsn><Cd>MS03</Cd></Rsn></RtrInf></TxDtls></NtryDtls><AddtlNtryInf>LS RUECK</AddtlNtryInf></Ntry>"#,
        );
        let (_, accounts) = read_as(Kind::Camt053, xml.as_bytes()).expect("readable");
        let rows = &accounts[0].rows;
        assert_eq!(rows[0].payee, "Maria");
        assert_eq!(rows[0].amount, dec("-6.00"));
        assert_eq!(rows[1].payee, "Sven");
        assert_eq!(rows[1].memo, "LS RUECK");
        assert_eq!(
            rows[1].problem,
            Some(Problem::Pending {
                value: "PDNG".into()
            })
        );
    }

    #[test]
    fn entities_and_doctype_are_not_expanded() {
        let xml = r#"<?xml version="1.0"?>
<!DOCTYPE Document [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.052.001.02"><BkToCstmrAcctRpt><Rpt>
<Acct><Id><IBAN>X</IBAN></Id></Acct>
<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2024-01-02</Dt></BookgDt>
<NtryDtls><TxDtls><RmtInf><Ustrd>A &amp; B &x;</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>
</Rpt></BkToCstmrAcctRpt></Document>"#;
        assert_eq!(sniff(xml), Some(Kind::Camt052));
        let (_, accounts) = read_as(Kind::Camt052, xml.as_bytes()).expect("readable");
        assert_eq!(accounts[0].rows[0].memo, "A & B");
    }

    #[test]
    fn cut_off_file_keeps_complete_entries() {
        let xml = doc(&BATCH.replace("AMOUNT2", "2.50"));
        let cut = xml.get(..xml.len() - 40).unwrap_or_default();
        let (_, accounts) = read_as(Kind::Camt053, cut.as_bytes()).expect("readable");
        assert_eq!(accounts[0].rows.len(), 2);
    }

    /// A returned direct debit booked as one entry of two transactions:
    /// money in, each part's counterparty the creditor that collected it.
    const RETURNED: &str = r#"<Ntry><Amt Ccy="EUR">85.40</Amt><CdtDbtInd>CRDT</CdtDbtInd><RvslInd>RVSL</RvslInd>
<Sts>BOOK</Sts><BookgDt><Dt>2024-03-05</Dt></BookgDt><NtryDtls><Btch><NbOfTxs>2</NbOfTxs></Btch>
<TxDtls><AmtDtls><TxAmt><Amt Ccy="EUR">60.00</Amt></TxAmt></AmtDtls>TXCDI
<RltdPties>DBTR<Cdtr><Nm>Energie BV</Nm></Cdtr>
<CdtrAcct><Id><IBAN>NL00ENER0000000001</IBAN></Id></CdtrAcct></RltdPties>
<RmtInf><Ustrd>Termijn maart</Ustrd></RmtInf>RTR</TxDtls>
<TxDtls><AmtDtls><TxAmt><Amt Ccy="EUR">25.40</Amt></TxAmt></AmtDtls>TXCDI
<RltdPties>DBTR<Cdtr><Pty><Nm>Sportclub</Nm></Pty></Cdtr></RltdPties>
<RmtInf><Ustrd>Contributie</Ustrd></RmtInf>RTR</TxDtls>
</NtryDtls></Ntry>"#;

    #[test]
    fn returned_batch_parts_take_their_creditors() {
        let own =
            "<Dbtr><Nm>J. Jansen</Nm></Dbtr><DbtrAcct><Id><IBAN>DE00OWN</IBAN></Id></DbtrAcct>";
        let rtr = "<RtrInf><Rsn><Cd>MD06</Cd></Rsn></RtrInf>";
        let crdt = "<CdtDbtInd>CRDT</CdtDbtInd>";
        for (rvsl, cdi, dbtr, rtr) in [
            ("true", "", own, rtr),
            ("true", "", "", ""),
            ("true", crdt, own, ""),
            ("1", crdt, "", ""),
            ("1", "", own, ""),
        ] {
            let entry = RETURNED
                .replace("RVSL", rvsl)
                .replace("TXCDI", cdi)
                .replace("DBTR", dbtr)
                .replace("RTR", rtr);
            let (_, accounts) = read_as(Kind::Camt053, doc(&entry).as_bytes()).expect("readable");
            let rows = &accounts[0].rows;
            let case = format!("{rvsl} {cdi} {dbtr} {rtr}");
            assert_eq!(rows.len(), 2, "{case}");
            assert_eq!(rows[0].amount, dec("60.00"));
            assert_eq!(rows[0].payee, "Energie BV", "{case}");
            assert_eq!(rows[0].memo, "Termijn maart");
            assert_eq!(rows[1].amount, dec("25.40"));
            assert_eq!(rows[1].payee, "Sportclub", "{case}");
        }
    }
}

//! OFX reader for OFX 1.x (SGML, leaf tags usually not closed), OFX 2.x
//! (XML) and QFX, with one tag scanner for all of them: files that claim
//! OFX 2 but carry an SGML body are common, so the body is never handed to
//! an XML parser.
//!
//! A tag followed by text before the next `<` is a leaf with that value; any
//! other tag opens an aggregate that a later `</NAME>` closes (closing every
//! aggregate opened after it, which is how unclosed SGML elements end). An
//! aggregate opened again while it is open closes the open one first. The
//! open aggregates are counted by name, so each tag costs the same however
//! many are open, and more than [`most`]`(Part::OpenTags)` open at once
//! refuse the file.
//!
//! Rules (see docs/import-formats.md): date `DTPOSTED` (date part as written,
//! no time-zone shift), amount `TRNAMT` as signed in the file, payee `NAME`,
//! memo `MEMO`, currency `CURDEF`, account `ACCTID` of `BANKACCTFROM` /
//! `CCACCTFROM`, closing `LEDGERBAL`.

use super::text::{collapse, parse_decimal, unescape_entities, ymd_compact, Lines};
use super::{currency_code, most, Account, Accounts, Balance, Error, Part, MAX_ROWS};
use crate::domain::import::budget::Budget;
use crate::domain::import::row::{Problem, Row};
use std::borrow::Cow;
use std::collections::HashMap;

/// Recognises OFX by its 1.x header or an `<OFX>` / `<?OFX` tag near the start.
pub fn sniff(head: &str) -> bool {
    if head.starts_with("OFXHEADER") {
        return true;
    }
    if !head.starts_with('<') {
        return false;
    }
    let upper = head.get(..head.len().min(2048)).unwrap_or(head);
    let upper = upper.to_ascii_uppercase();
    upper.contains("<OFX>") || upper.contains("<?OFX ")
}

/// The charset an OFX file declares: the 1.x `CHARSET:` / `ENCODING:` header
/// lines or the XML declaration of 2.x.
pub fn declared_charset(bytes: &[u8]) -> Option<String> {
    let head = bytes.get(..1024).unwrap_or(bytes);
    let head = String::from_utf8_lossy(head);
    if head.trim_start().starts_with('<') {
        return super::camt::xml_declared_encoding(bytes);
    }
    let mut encoding = None;
    let mut charset = None;
    for line in head.lines() {
        let line = line.trim();
        if line.starts_with('<') {
            break;
        }
        if let Some((key, value)) = line.split_once(':') {
            match key.trim().to_ascii_uppercase().as_str() {
                "ENCODING" => encoding = Some(value.trim().to_ascii_uppercase()),
                "CHARSET" => charset = Some(value.trim().to_ascii_uppercase()),
                _ => {}
            }
        }
    }
    if encoding.as_deref() == Some("UTF-8") {
        return Some("utf-8".into());
    }
    match charset.as_deref() {
        Some("1252") => Some("windows-1252".into()),
        Some("ISO-8859-1") | Some("8859-1") | Some("LATIN1") => Some("iso-8859-1".into()),
        Some("NONE") | None => None,
        Some(other) => Some(other.to_ascii_lowercase()),
    }
}

/// One statement (`STMTRS` / `CCSTMTRS`) being read.
#[derive(Default)]
struct Statement {
    account: Option<String>,
    currency: Option<String>,
    rows: Vec<Row>,
    ledger: Option<Balance>,
}

impl Statement {
    /// Keeps a row until the statement ends; refused past [`MAX_ROWS`]
    /// with the rows of the statements before.
    fn push(&mut self, row: Row, accounts: &Accounts) -> Result<(), Error> {
        if self.rows.len() + accounts.rows >= MAX_ROWS {
            return Err(Error::TooManyRows);
        }
        self.rows.push(row);
        Ok(())
    }
}

/// One `STMTTRN` being read.
#[derive(Default)]
struct Txn {
    line: usize,
    posted: Option<String>,
    amount: Option<String>,
    name: Option<String>,
    payee_name: Option<String>,
    memo: Option<String>,
}

/// The aggregates open, innermost last, and how many of each name.
#[derive(Default)]
struct Open {
    stack: Vec<String>,
    count: HashMap<String, usize>,
}

impl Open {
    fn contains(&self, name: &str) -> bool {
        self.count.get(name).is_some_and(|&n| n > 0)
    }

    fn push(&mut self, name: String) {
        *self.count.entry(name.clone()).or_default() += 1;
        self.stack.push(name);
    }

    /// Takes off `name` and every aggregate opened after it, innermost
    /// first; nothing when `name` is not open.
    fn close_from(&mut self, name: &str) -> Vec<String> {
        if !self.contains(name) {
            return Vec::new();
        }
        let pos = self.stack.iter().rposition(|n| n == name).unwrap_or(0);
        let mut closed: Vec<String> = self.stack.drain(pos..).collect();
        closed.reverse();
        for n in &closed {
            if let Some(c) = self.count.get_mut(n) {
                *c -= 1;
            }
        }
        closed
    }
}

/// Reads an OFX or QFX file: its text, decoded from `encoding` ([`super::decode`]).
pub fn read_text(
    text: &str,
    encoding: &'static str,
    budget: &Budget,
) -> Result<(&'static str, Vec<Account>), Error> {
    let mut lines = Lines::new(text);
    let start = find_ofx_tag(text).ok_or(Error::Malformed { line: 1 })?;

    let mut accounts = Accounts::default();
    let mut open = Open::default();
    let mut stmt: Option<Statement> = None;
    let mut txn: Option<Txn> = None;
    let mut ledger_amount: Option<String> = None;
    let mut ledger_date: Option<String> = None;
    let mut found_statement = false;
    // Whether a CDATA section may still end further on.
    let mut cdata_ends = true;

    let mut rest = text.get(start..).unwrap_or_default();
    let mut offset = start;
    while let Some(lt) = rest.find('<') {
        budget.check()?;
        let tag_start = offset + lt;
        let after = rest.get(lt + 1..).unwrap_or_default();
        let Some(gt) = after.find('>') else { break };
        let tag = after.get(..gt).unwrap_or_default().trim();
        let body_start = lt + 1 + gt + 1;
        let body_rest = rest.get(body_start..).unwrap_or_default();
        let mut value_end = body_rest.find('<').unwrap_or(body_rest.len());
        let mut value = Cow::Borrowed(body_rest.get(..value_end).unwrap_or_default());
        let mut literal = false;
        // A value in a CDATA section is its text, as written.
        if value.trim().is_empty() && !tag.starts_with(['/', '?', '!']) && cdata_ends {
            match cdata(body_rest) {
                Cdata::Value(text, used) => {
                    (value, value_end, literal) = (Cow::Owned(text), used, true);
                }
                // No section ends after this one: none will be looked for.
                Cdata::Unended => cdata_ends = false,
                Cdata::None => {}
            }
        }
        rest = body_rest.get(value_end..).unwrap_or_default();
        offset += body_start + value_end;

        if tag.starts_with('?') || tag.starts_with('!') || tag.is_empty() {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let name = name.trim().to_ascii_uppercase();
            for closed in open.close_from(&name) {
                close(
                    &closed,
                    &mut stmt,
                    &mut txn,
                    &mut accounts,
                    &mut ledger_amount,
                    &mut ledger_date,
                )?;
            }
            continue;
        }
        let name = tag
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .trim_end_matches('/')
            .to_ascii_uppercase();
        let value = value.trim();
        if value.is_empty() {
            // An aggregate (or an empty leaf, which behaves the same).
            if !tag.ends_with('/') {
                for closed in open.close_from(&name) {
                    close(
                        &closed,
                        &mut stmt,
                        &mut txn,
                        &mut accounts,
                        &mut ledger_amount,
                        &mut ledger_date,
                    )?;
                }
                if open.stack.len() >= most(Part::OpenTags) {
                    return Err(Error::TooMuch {
                        part: Part::OpenTags,
                        line: lines.line_of(tag_start),
                    });
                }
            }
            match name.as_str() {
                "STMTRS" | "CCSTMTRS" => {
                    if let Some(open) = stmt.take() {
                        finish_statement(open, &mut accounts)?;
                    }
                    stmt = Some(Statement::default());
                    found_statement = true;
                }
                "STMTTRN" => {
                    if let (Some(done), Some(s)) = (txn.take(), stmt.as_mut()) {
                        let currency = s.currency.clone();
                        s.push(finish_txn(done, currency), &accounts)?;
                    }
                    txn = Some(Txn {
                        line: lines.line_of(tag_start),
                        ..Txn::default()
                    });
                }
                "LEDGERBAL" => {
                    ledger_amount = None;
                    ledger_date = None;
                }
                _ => {}
            }
            if !tag.ends_with('/') {
                open.push(name);
            }
            continue;
        }
        let value = if literal {
            value.to_string()
        } else {
            unescape_entities(value)
        };
        let inside = |n: &str| open.contains(n);
        match name.as_str() {
            "CURDEF" => {
                if let Some(s) = stmt.as_mut() {
                    s.currency = currency_code(&value);
                }
            }
            "ACCTID" if inside("BANKACCTFROM") || inside("CCACCTFROM") => {
                if let Some(s) = stmt.as_mut() {
                    s.account = Some(value.trim().to_string());
                }
            }
            "BALAMT" if inside("LEDGERBAL") => ledger_amount = Some(value),
            "DTASOF" if inside("LEDGERBAL") => ledger_date = Some(value),
            _ => {
                if let Some(t) = txn.as_mut() {
                    match name.as_str() {
                        "DTPOSTED" => t.posted = Some(value),
                        "TRNAMT" => t.amount = Some(value),
                        "NAME" if inside("PAYEE") => t.payee_name = Some(value),
                        "NAME" => t.name = Some(value),
                        "MEMO" => t.memo = Some(value),
                        _ => {}
                    }
                }
            }
        }
        if let (Some(s), Some(a), Some(d)) = (stmt.as_mut(), &ledger_amount, &ledger_date) {
            if let (Some(amount), Some(date)) = (parse_decimal(a), ymd_compact(d.trim())) {
                s.ledger = Some(Balance { date, amount });
            }
        }
    }
    // A cut-off file: keep what was read.
    for closed in open.stack.drain(..).rev() {
        close(
            &closed,
            &mut stmt,
            &mut txn,
            &mut accounts,
            &mut ledger_amount,
            &mut ledger_date,
        )?;
    }
    if let Some(open) = stmt.take() {
        finish_statement(open, &mut accounts)?;
    }
    if !found_statement {
        return Err(Error::Malformed {
            line: lines.line_of(start),
        });
    }
    Ok((encoding, accounts.list))
}

/// What follows a tag with no text of its own.
enum Cdata {
    /// The text of a CDATA section (and any text after it up to the next
    /// tag), and how many bytes of the input it took.
    Value(String, usize),
    /// A CDATA section starts but nothing after it ends one.
    Unended,
    /// No CDATA section.
    None,
}

/// Reads `<![CDATA[text]]>` at the start of `body` (after blanks).
fn cdata(body: &str) -> Cdata {
    let lead = body.len() - body.trim_start().len();
    let Some(inner) = body.get(lead..).and_then(|b| b.strip_prefix("<![CDATA[")) else {
        return Cdata::None;
    };
    let Some(end) = inner.find("]]>") else {
        return Cdata::Unended;
    };
    let after = inner.get(end + 3..).unwrap_or_default();
    let tail = after.find('<').unwrap_or(after.len());
    let mut text = inner.get(..end).unwrap_or_default().to_string();
    text.push_str(after.get(..tail).unwrap_or_default());
    Cdata::Value(text, lead + "<![CDATA[".len() + end + 3 + tail)
}

/// The byte offset of the `<OFX>` tag.
fn find_ofx_tag(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(pos) = text.get(from..)?.find('<') {
        let at = from + pos;
        let tag = text.get(at + 1..at + 5).unwrap_or_default();
        if tag.eq_ignore_ascii_case("OFX>") {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Ends an aggregate.
fn close(
    name: &str,
    stmt: &mut Option<Statement>,
    txn: &mut Option<Txn>,
    accounts: &mut Accounts,
    ledger_amount: &mut Option<String>,
    ledger_date: &mut Option<String>,
) -> Result<(), Error> {
    match name {
        "STMTTRN" => {
            if let (Some(done), Some(s)) = (txn.take(), stmt.as_mut()) {
                let currency = s.currency.clone();
                s.push(finish_txn(done, currency), accounts)?;
            }
        }
        "STMTRS" | "CCSTMTRS" => {
            if let Some(open) = stmt.take() {
                finish_statement(open, accounts)?;
            }
        }
        "LEDGERBAL" => {
            *ledger_amount = None;
            *ledger_date = None;
        }
        _ => {}
    }
    Ok(())
}

fn finish_statement(stmt: Statement, accounts: &mut Accounts) -> Result<(), Error> {
    let id = stmt.account.unwrap_or_default();
    accounts.get(&id)?;
    accounts.currency(&id, stmt.currency.clone())?;
    let mut rows = stmt.rows;
    // CURDEF may come after a transaction in a damaged file.
    for row in rows.iter_mut().filter(|r| r.currency.is_none()) {
        row.currency = stmt.currency.clone();
    }
    accounts.push_all(&id, rows)?;
    if let Some(balance) = stmt.ledger {
        accounts.closing(&id, balance)?;
    }
    Ok(())
}

fn finish_txn(t: Txn, currency: Option<String>) -> Row {
    let date_text = t.posted.unwrap_or_default();
    let amount_text = t.amount.unwrap_or_default();
    let date = ymd_compact(date_text.trim());
    let amount = parse_decimal(&amount_text);
    let problem = if date.is_none() {
        Some(Problem::Date { value: date_text })
    } else if amount.is_none() {
        Some(Problem::Amount { value: amount_text })
    } else {
        None
    };
    let tidy = |s: Option<String>| s.map(|v| v.trim().to_string()).unwrap_or_default();
    let mut payee = tidy(t.name);
    if payee.is_empty() {
        payee = tidy(t.payee_name);
    }
    Row {
        line: t.line,
        date,
        amount,
        currency,
        payee: if payee.contains('\n') {
            collapse(&payee)
        } else {
            payee
        },
        memo: tidy(t.memo),
        problem,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{read_as, Kind};
    use super::*;
    use rust_decimal::Decimal;
    use std::str::FromStr;

    #[test]
    fn sgml_with_unclosed_tags_on_one_line() {
        let body = "OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nCHARSET:1252\r\n\r\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>cad<BANKACCTFROM><BANKID>1<ACCTID>42<ACCTTYPE>SAVINGS</BANKACCTFROM><BANKTRANLIST><STMTTRN><TRNTYPE>CREDIT<DTPOSTED>20050923120000.000<TRNAMT>100<FITID>4<NAME>D\u{e9}p\u{f4}t<MEMO>m1</STMTTRN><STMTTRN><DTPOSTED>2005-bad<TRNAMT>-1.5<NAME>X</STMTTRN></BANKTRANLIST><LEDGERBAL><BALAMT>4855.99<DTASOF>20080223132935.218[-5:EST]</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\r\n";
        assert!(sniff(&String::from_utf8_lossy(body.as_bytes())));
        let mut bytes = Vec::new();
        // Write the Windows-1252 bytes for "Dépôt" as the bank does.
        for c in body.chars() {
            bytes.push(u8::try_from(u32::from(c)).unwrap_or(b'?'));
        }
        let (encoding, accounts) = read_as(Kind::Ofx, &bytes).expect("readable");
        assert_eq!(encoding, "windows-1252");
        assert_eq!(accounts.len(), 1);
        let a = &accounts[0];
        assert_eq!(a.id, "42");
        assert_eq!(a.currency.as_deref(), Some("CAD"));
        assert_eq!(a.rows.len(), 2);
        assert_eq!(a.rows[0].line, 6);
        assert_eq!(a.rows[0].payee, "Dépôt");
        assert_eq!(a.rows[0].memo, "m1");
        assert_eq!(a.rows[0].amount, Decimal::from_str("100.00").ok());
        assert_eq!(
            a.rows[1].problem,
            Some(Problem::Date {
                value: "2005-bad".into()
            })
        );
        assert_eq!(
            a.closing.as_ref().map(|b| b.amount),
            Decimal::from_str("4855.99").ok()
        );
    }

    #[test]
    fn cdata_sections_are_read_as_their_text() {
        let body = "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>AUD<BANKACCTFROM><ACCTID>123</BANKACCTFROM><BANKTRANLIST>\n<STMTTRN><DTPOSTED>20190801<TRNAMT>-12.40<NAME><![CDATA[EFTPOS WDL SHOP <A> & CO  ]]></NAME><MEMO><![CDATA[ Card 1234 ]]></STMTTRN>\n<STMTTRN><DTPOSTED>20190802<TRNAMT><![CDATA[5.00]]><NAME>Plain &amp; simple</STMTTRN>\n<STMTTRN><DTPOSTED>20190803<TRNAMT>1<NAME><![CDATA[never ended</STMTTRN>\n</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>";
        let (_, accounts) = read_as(Kind::Ofx, body.as_bytes()).expect("readable");
        let rows = &accounts[0].rows;
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].payee, "EFTPOS WDL SHOP <A> & CO");
        assert_eq!(rows[0].memo, "Card 1234");
        assert_eq!(rows[0].amount, Decimal::from_str("-12.40").ok());
        assert_eq!(rows[1].amount, Decimal::from_str("5.00").ok());
        assert_eq!(rows[1].payee, "Plain & simple");
        assert_eq!(rows[2].amount, Decimal::from_str("1.00").ok());
        assert_eq!(rows[2].payee, "");
    }

    #[test]
    fn transfer_target_account_is_not_the_statement_account() {
        let body = "<?xml version=\"1.0\"?><?OFX OFXHEADER=\"200\"?>\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>USD</CURDEF>\n<BANKACCTFROM><ACCTID>A1</ACCTID></BANKACCTFROM><BANKTRANLIST>\n<STMTTRN><DTPOSTED>20240101</DTPOSTED><TRNAMT>-5</TRNAMT><BANKACCTTO><ACCTID>B2</ACCTID></BANKACCTTO><MEMO></MEMO><PAYEE><NAME>Shop</NAME></PAYEE></STMTTRN>\n</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>";
        let (_, accounts) = read_as(Kind::Ofx, body.as_bytes()).expect("readable");
        assert_eq!(accounts.len(), 1);
        assert_eq!(accounts[0].id, "A1");
        assert_eq!(accounts[0].rows[0].payee, "Shop");
        assert_eq!(accounts[0].rows[0].line, 4);
    }
}

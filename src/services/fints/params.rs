//! What the bank says about itself (BPD: its name, the orders and versions
//! it serves, its TAN methods, which orders need a TAN) and about the user
//! (UPD: the accounts), read from its answers into [`BankState`], the
//! serialisable state an app keeps per connection so that later dialogs
//! skip the anonymous dialog and the customer system id's synchronisation.

use super::message::Response;
use super::syntax::Segment;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A TAN method the bank offers (HITANS).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TanMethod {
    /// The security function code, e.g. `921`.
    pub code: String,
    pub name: String,
    /// Approval in the bank's app instead of a typed TAN.
    pub decoupled: bool,
    /// Seconds before the first and between further status requests
    /// (decoupled only).
    pub first_poll_secs: u32,
    pub poll_secs: u32,
    /// The HKTAN version it belongs to.
    pub hktan_version: u32,
    /// Whether the bank wants the TAN medium's name in HKTAN.
    pub needs_medium: bool,
}

/// An account the user may reach (UPD and HKSPA).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Account {
    pub iban: Option<String>,
    pub bic: Option<String>,
    pub account_number: String,
    pub subaccount: Option<String>,
    /// The product's name, e.g. "Girokonto".
    pub name: Option<String>,
    pub owner_name: Option<String>,
    pub currency: Option<String>,
    pub bank_code: String,
    /// The orders the bank allows on this account (UPD).
    #[serde(default)]
    pub allowed: Vec<String>,
}

/// The bank's and the user's parameters and the customer system id: what
/// an app stores per connection.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct BankState {
    pub bpd_version: u32,
    pub bank_name: Option<String>,
    /// Supported versions of each parameter segment, e.g. `HKKAZ` → `[5, 7]`.
    pub orders: BTreeMap<String, Vec<u32>>,
    /// Orders that need a TAN (HIPINS); absent means no.
    pub tan_required: BTreeMap<String, bool>,
    pub tan_methods: Vec<TanMethod>,
    /// camt formats the bank serves for HKCAZ.
    pub camt_formats: Vec<String>,
    pub upd_version: u32,
    pub accounts: Vec<Account>,
    /// The customer system id (HKSYN).
    pub system_id: Option<String>,
    /// The TAN methods allowed for this user (3920).
    pub allowed_tan_methods: Vec<String>,
    /// The chosen TAN method's code.
    pub tan_method: Option<String>,
    /// The TAN medium's name, when the method needs one: set when the
    /// bank names one medium, else chosen from `tan_media`.
    pub tan_medium: Option<String>,
    /// The active TAN media the bank named (HKTAB), e.g. phones.
    #[serde(default)]
    pub tan_media: Vec<String>,
}

impl BankState {
    pub fn has_bpd(&self) -> bool {
        self.bpd_version > 0 || !self.orders.is_empty()
    }

    /// The highest version of `order` (e.g. `HKKAZ`) the bank offers among
    /// `ours`.
    pub fn version(&self, order: &str, ours: &[u32]) -> Option<u32> {
        let key = format!("HI{}S", &order[2..]);
        self.orders
            .get(&key)?
            .iter()
            .copied()
            .filter(|v| ours.contains(v))
            .max()
    }

    pub fn needs_tan(&self, order: &str) -> bool {
        self.tan_required.get(order).copied().unwrap_or(false)
    }

    /// The TAN methods this user may choose: two-step methods of the BPD
    /// that the bank allowed for the user (all of them when it did not say).
    pub fn usable_tan_methods(&self) -> Vec<TanMethod> {
        self.tan_methods
            .iter()
            .filter(|m| {
                self.allowed_tan_methods.is_empty() || self.allowed_tan_methods.contains(&m.code)
            })
            .cloned()
            .collect()
    }

    /// The chosen TAN method, if it is still offered.
    pub fn chosen_tan_method(&self) -> Option<&TanMethod> {
        let code = self.tan_method.as_ref()?;
        self.tan_methods.iter().find(|m| &m.code == code)
    }

    /// Whether the bank works with one-step PIN/TAN only for this user.
    pub fn one_step_only(&self) -> bool {
        (!self.allowed_tan_methods.is_empty()
            && self.allowed_tan_methods.iter().all(|c| c == "999"))
            || (self.tan_methods.is_empty() && self.has_bpd())
    }

    /// Chooses the TAN method by its code; `false` when the bank does not
    /// offer it to this user.
    pub fn choose_tan_method(&mut self, code: &str) -> bool {
        if self.usable_tan_methods().iter().any(|m| m.code == code) {
            self.tan_method = Some(code.to_owned());
            true
        } else {
            false
        }
    }

    /// Chooses the TAN medium by its name; `false` when the bank did not
    /// name it.
    pub fn choose_tan_medium(&mut self, name: &str) -> bool {
        if self.tan_media.iter().any(|m| m == name) {
            self.tan_medium = Some(name.to_owned());
            true
        } else {
            false
        }
    }

    /// Takes the BPD, UPD, system id and allowed TAN methods from an answer.
    pub fn absorb(&mut self, response: &Response) {
        if let Some(bpa) = response.first("HIBPA") {
            self.bpd_version = bpa.text(1, 0).parse().unwrap_or(0);
            self.bank_name = Some(bpa.text(3, 0)).filter(|s| !s.is_empty());
            self.orders.clear();
            self.tan_methods.clear();
            self.tan_required.clear();
            self.camt_formats.clear();
            for s in &response.segments {
                let kind = s.kind();
                if kind.len() == 6 && kind.ends_with('S') && kind.starts_with("HI") {
                    let versions = self.orders.entry(kind.clone()).or_default();
                    if !versions.contains(&s.version()) {
                        versions.push(s.version());
                    }
                }
                match kind.as_str() {
                    "HITANS" => self.tan_methods_from(s),
                    "HIPINS" => self.pins_from(s),
                    "HICAZS" => {
                        for item in s.element(4).map(|e| &e.0[..]).unwrap_or(&[]) {
                            let t = item.as_text();
                            if t.contains("camt.052") && !self.camt_formats.contains(&t) {
                                self.camt_formats.push(t);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        if let Some(upa) = response.first("HIUPA") {
            self.upd_version = upa.text(2, 0).parse().unwrap_or(0);
            let accounts: Vec<Account> = response.all("HIUPD").map(account_from_upd).collect();
            merge_accounts(&mut self.accounts, accounts);
        }
        if let Some(syn) = response.first("HISYN") {
            let id = syn.text(1, 0);
            if !id.is_empty() {
                self.system_id = Some(id);
            }
        }
        if let Some(c) = response.code("3920") {
            let allowed: Vec<String> = c.params.iter().filter(|p| !p.is_empty()).cloned().collect();
            if !allowed.is_empty() {
                self.allowed_tan_methods = allowed;
            }
        }
        let spa: Vec<Account> = response.all("HISPA").flat_map(accounts_from_spa).collect();
        if !spa.is_empty() {
            merge_accounts(&mut self.accounts, spa);
        }
    }

    fn tan_methods_from(&mut self, s: &Segment) {
        let version = s.version();
        let width = match version {
            5 => 22,
            6 => 21,
            7 => 26,
            _ => return,
        };
        let Some(params) = s.element(4) else { return };
        let items: Vec<String> = params.0.iter().map(|i| i.as_text()).collect();
        for m in items.get(3..).unwrap_or(&[]).chunks(width) {
            // A cut-off last method (a hostile or broken answer) is
            // read as far as it goes: every field by `get`.
            let field = |i: usize| m.get(i).map(String::as_str).unwrap_or("");
            if m.len() < 6 {
                break;
            }
            let decoupled = field(2).to_ascii_lowercase().contains("decoupled")
                || field(3).to_ascii_lowercase().contains("decoupled");
            let poll = |i: usize| {
                if width == 26 {
                    field(i).parse().unwrap_or(0)
                } else {
                    0
                }
            };
            let method = TanMethod {
                code: field(0).to_owned(),
                name: field(5).to_owned(),
                decoupled,
                first_poll_secs: poll(22),
                poll_secs: poll(23),
                hktan_version: version,
                // "Description of the TAN medium required": 2 = yes.
                needs_medium: field(if width == 22 { 20 } else { 18 }) == "2",
            };
            // A method named in HITANS of several versions: the newest wins.
            if let Some(old) = self.tan_methods.iter_mut().find(|o| o.code == method.code) {
                if old.hktan_version < version {
                    *old = method;
                }
            } else {
                self.tan_methods.push(method);
            }
        }
    }

    fn pins_from(&mut self, s: &Segment) {
        let Some(params) = s.element(4) else { return };
        let items: Vec<String> = params.0.iter().map(|i| i.as_text()).collect();
        for pair in items.get(5..).unwrap_or(&[]).chunks(2) {
            if let [order, flag] = pair {
                self.tan_required.insert(order.clone(), flag == "J");
            }
        }
    }
}

/// The names of the TAN media in HITAB (version 4: the name is item 12
/// of each medium's group).
pub fn tan_media_of(response: &Response) -> Vec<String> {
    response
        .all("HITAB")
        .filter(|s| s.version() == 4)
        .flat_map(|s| s.elements().iter().skip(1))
        .map(|e| e.at(12))
        .filter(|name| !name.is_empty())
        .collect()
}

/// Takes accounts in, keeping what is already known of one (HKSPA gives
/// IBAN and BIC, the UPD names and currency).
fn merge_accounts(known: &mut Vec<Account>, new: Vec<Account>) {
    for a in new {
        let same = known.iter_mut().find(|k| {
            (k.account_number == a.account_number
                && !a.account_number.is_empty()
                && k.subaccount == a.subaccount)
                || (k.iban.is_some() && k.iban == a.iban)
        });
        match same {
            Some(k) => {
                k.iban = a.iban.or(k.iban.take());
                k.bic = a.bic.or(k.bic.take());
                k.name = a.name.or(k.name.take());
                k.owner_name = a.owner_name.or(k.owner_name.take());
                k.currency = a.currency.or(k.currency.take());
                if k.account_number.is_empty() {
                    k.account_number = a.account_number;
                }
                if k.bank_code.is_empty() {
                    k.bank_code = a.bank_code;
                }
                if !a.allowed.is_empty() {
                    k.allowed = a.allowed;
                }
            }
            None => known.push(a),
        }
    }
}

fn some(s: String) -> Option<String> {
    Some(s).filter(|s| !s.is_empty())
}

fn account_from_upd(s: &Segment) -> Account {
    let allowed = s
        .elements()
        .iter()
        .skip(9)
        .map(|e| e.at(0))
        .filter(|k| k.len() == 5 && k.chars().all(|c| c.is_ascii_uppercase()))
        .collect();
    Account {
        iban: some(s.text(2, 0)),
        bic: None,
        account_number: s.text(1, 0),
        subaccount: some(s.text(1, 1)),
        name: some(s.text(8, 0)),
        owner_name: some([s.text(6, 0), s.text(7, 0)].join(" ").trim().to_owned()),
        currency: some(s.text(5, 0)),
        bank_code: s.text(1, 3),
        allowed,
    }
}

fn accounts_from_spa(s: &Segment) -> Vec<Account> {
    s.elements()
        .iter()
        .filter(|e| e.0.len() >= 7)
        .map(|e| Account {
            iban: some(e.at(1)),
            bic: some(e.at(2)),
            account_number: e.at(3),
            subaccount: some(e.at(4)),
            bank_code: e.at(6),
            ..Account::default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::fints::syntax::{Element, Item};
    use proptest::prelude::*;

    const KINDS: &[&str] = &[
        "HIBPA", "HITANS", "HIPINS", "HICAZS", "HIKAZS", "HIUPA", "HIUPD", "HISPA", "HISYN",
        "HIRMS", "HIRMG",
    ];

    fn segment() -> impl Strategy<Value = Segment> {
        let item = prop_oneof![
            Just(String::new()),
            Just("J".to_owned()),
            Just("N".to_owned()),
            Just("3920".to_owned()),
            Just("HKKAZ".to_owned()),
            Just("decoupled".to_owned()),
            "[0-9]{1,3}",
            "[A-Za-z ]{0,6}",
        ];
        (
            0..KINDS.len(),
            4u32..8,
            proptest::collection::vec(proptest::collection::vec(item, 1..40), 0..12),
        )
            .prop_map(|(k, version, elements)| {
                let mut all = vec![Element::group(&[KINDS[k], "1", &version.to_string()])];
                all.extend(
                    elements
                        .into_iter()
                        .map(|items| Element(items.iter().map(|s| Item::text(s)).collect())),
                );
                Segment(all)
            })
    }

    proptest! {
        #[test]
        fn absorbing_any_segments_never_panics(
            mut segments in proptest::collection::vec(segment(), 0..12)
        ) {
            // A bank's parameters start with HIBPA, the user's with HIUPA.
            segments.insert(0, Segment(vec![Element::group(&["HIBPA", "1", "3"]), Element::text("1")]));
            segments.push(Segment(vec![Element::group(&["HIUPA", "2", "4"]), Element::text("x")]));
            let bytes = crate::services::fints::syntax::write(&segments);
            let response = Response::parse(&bytes).unwrap();
            let mut state = BankState::default();
            state.absorb(&response);
            let _ = state.usable_tan_methods();
            let _ = state.one_step_only();
            prop_assert!(state.tan_methods.iter().all(|m| m.hktan_version >= 5));
        }
    }

    #[test]
    fn tan_methods_of_every_version_and_which_orders_need_a_tan() {
        let bpd = b"HIBPA:1:3:4+7+280:1+Bank+3+1+300'\
HITANS:2:5:4+1+1+1+J:N:0:942:2:MTAN2:mobileTAN::mobile TAN:6:1:SMS:3:1:J:1:0:N:0:2:N:J:00:1:1'\
HITANS:3:6:4+1+1+1+J:N:0:921:2:pushTAN2.0:::pushTAN 2.0:6:1:TAN:2048:J:2:N:0:0:N:N:00:2:N:1'\
HITANS:4:7:4+1+1+1+N:N:0:946:2:DECOUPLED:Decoupled::SecureGo plus:::TAN:2048:J:1:N:0:2:N:J:00:0:N:1:150:5:3:J:J'\
HIPINS:5:1:4+1+1+1+5:20:6:Kennung::HKKAZ:J:HKSAL:N'";
        let mut state = BankState::default();
        state.absorb(&Response::parse(bpd).unwrap());
        let methods: Vec<_> = state
            .tan_methods
            .iter()
            .map(|m| {
                (
                    m.code.as_str(),
                    m.hktan_version,
                    m.decoupled,
                    m.first_poll_secs,
                    m.poll_secs,
                )
            })
            .collect();
        assert_eq!(
            methods,
            [
                ("942", 5, false, 0, 0),
                ("921", 6, false, 0, 0),
                ("946", 7, true, 5, 3)
            ]
        );
        assert!(state.needs_tan("HKKAZ"));
        assert!(!state.needs_tan("HKSAL"));
        assert!(!state.needs_tan("HKCAZ"));
        assert_eq!(state.version("HKKAZ", &[5, 6, 7]), None);
        assert_eq!(state.version("HKTAN", &[5, 6, 7]), Some(7));
        assert!(!state.choose_tan_method("999"));
        assert!(state.choose_tan_method("946"));
        assert_eq!(state.chosen_tan_method().map(|m| m.decoupled), Some(true));
    }
}

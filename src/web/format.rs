// TEMPORARY STUB (not committed)
use crate::i18n::Locale;
use rust_decimal::Decimal;
pub fn money(amount: Decimal, currency: &str, _l: Locale) -> String {
    format!("{:.2} {currency}", amount)
}
pub fn number(amount: Decimal, decimals: u32, _l: Locale) -> String {
    format!("{:.*}", decimals as usize, amount)
}
pub fn date(d: chrono::NaiveDate, _l: Locale) -> String {
    d.to_string()
}

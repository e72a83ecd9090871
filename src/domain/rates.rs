// TEMPORARY STUB (not committed)
use rust_decimal::Decimal;
pub struct Rates;
impl Rates {
    pub fn rate(&self, code: &str) -> Option<Decimal> {
        if code == "EUR" {
            Some(Decimal::ONE)
        } else {
            Some(Decimal::new(1085, 3))
        }
    }
    pub fn convert(&self, amount: Decimal, from: &str, to: &str) -> Option<Decimal> {
        Some(crate::domain::money::round(
            amount / self.rate(from)? * self.rate(to)?,
        ))
    }
}

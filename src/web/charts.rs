// TEMPORARY STUB (not committed)
use crate::i18n::Locale;
use maud::{html, Markup};
use rust_decimal::Decimal;
pub struct CategorySlice {
    pub label: String,
    pub amount: Decimal,
    pub color: String,
}
pub struct MonthBars {
    pub label: String,
    pub income: Decimal,
    pub expenses: Decimal,
}
pub fn spending_by_category(title: &str, _s: &[CategorySlice], _c: &str, _l: Locale) -> Markup {
    html! { h2 { (title) } }
}
pub fn income_vs_expenses(title: &str, _s: &[MonthBars], _c: &str, _l: Locale) -> Markup {
    html! { h2 { (title) } }
}

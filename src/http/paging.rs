//! The one page of a list an action answers: `limit` (how many), `offset`
//! (how many to pass over first) and `after` (the id of the last item of
//! the page before: the page begins after it, key-set paging, as cheap at
//! any depth, after `offset` more). `listDailyExpenses` and `getImport`
//! read it (`docs/actions.md`).

use crate::app::input::optional_id;
use crate::error::{Error, Reason, Result};

/// A page as the input asked for it, each field optional. The inputs
/// keep the three fields themselves, so that a refusal names the field
/// (`limit: …`), and hand them here.
#[derive(Default)]
pub struct Paging {
    pub limit: Option<i64>,
    pub offset: Option<i64>,
    pub after: Option<String>,
}

/// A page checked against a list's sizes.
#[derive(Debug, PartialEq)]
pub struct Page {
    /// From 1 to the list's largest page.
    pub limit: i64,
    /// Not negative.
    pub offset: i64,
    /// The id the page begins after, blank taken as none.
    pub after: Option<String>,
}

impl Paging {
    /// The page, `default` items long unless `limit` says otherwise, at
    /// most `max`; a refusal names `limit` or `offset`.
    pub fn check(self, default: i64, max: i64) -> Result<Page> {
        let limit = self.limit.unwrap_or(default);
        if !(1..=max).contains(&limit) {
            return Err(Error::invalid("limit", Reason::Between(1, max)));
        }
        let offset = self.offset.unwrap_or(0);
        if offset < 0 {
            return Err(Error::invalid("offset", Reason::NotNegative));
        }
        Ok(Page {
            limit,
            offset,
            after: optional_id(self.after),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_checked_against_the_lists_sizes() {
        let page = Paging::default().check(200, 1000).unwrap();
        assert_eq!(
            page,
            Page {
                limit: 200,
                offset: 0,
                after: None
            }
        );
        let asked = Paging {
            limit: Some(5),
            offset: Some(10),
            after: Some("  ".into()),
        };
        assert_eq!(asked.check(200, 1000).unwrap().after, None);
        let refused = |p: Paging| p.check(200, 1000).unwrap_err().to_string();
        for limit in [0, 1001, -1] {
            let p = Paging {
                limit: Some(limit),
                ..Paging::default()
            };
            assert!(refused(p).starts_with("limit"), "{limit}");
        }
        let p = Paging {
            offset: Some(-1),
            ..Paging::default()
        };
        assert!(refused(p).starts_with("offset"));
    }
}

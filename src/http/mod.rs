//! The kit every door that speaks HTTP shares (`actions`, `api`, `web`):
//! what a handler needs besides the use case it calls, and belongs to no
//! door. Below the doors and above `app`, which speaks no wire format.
//!
//! - [`session`]: who asks: the session extractors of the pages and the
//!   `/api` routes, and the cookies a started session sets;
//! - [`guard`]: the panic guard each door's routes sit behind;
//! - [`upload`]: the file-upload (multipart) extractor and its failures;
//! - [`paging`]: the one `limit`/`offset`/`after` page of a list;
//! - [`names`]: the names of the record actions and the assistant's
//!   write tools' actions.

pub mod guard;
pub mod names;
pub mod paging;
pub mod session;
pub mod upload;

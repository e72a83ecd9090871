//! Stored conversations (built in its own change).
pub fn register(_r: &mut super::super::Registry) {}

//! Fixed-size pages over an append-only feed, browsable from both ends.
//!
//! Pages are cut from the oldest entry: every page holds `per_page` entries except
//! possibly the newest one. See [`Feed`] for the high-level API and [`pages`] for
//! the underlying iterator.

pub mod feed;
pub mod pages;

pub use feed::Feed;
pub use pages::{pages, Pages};

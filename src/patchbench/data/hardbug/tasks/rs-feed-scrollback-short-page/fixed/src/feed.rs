//! An append-only feed browsed page by page.

use crate::pages::{pages, Pages};

/// An append-only feed cut into pages of a fixed size.
///
/// Page numbers count from the oldest page (page 0). Methods named `*_newest*`
/// count from the newest page instead: `page_from_newest(0)` is the page that
/// holds the most recent entry.
#[derive(Debug, Clone)]
pub struct Feed<T> {
    entries: Vec<T>,
    per_page: usize,
}

impl<T> Feed<T> {
    /// An empty feed with `per_page` entries per page.
    ///
    /// # Panics
    ///
    /// Panics when `per_page` is zero.
    pub fn new(per_page: usize) -> Self {
        assert!(per_page > 0, "a page holds at least one entry");
        Feed { entries: Vec::new(), per_page }
    }

    /// Appends an entry (it becomes the newest).
    pub fn push(&mut self, entry: T) {
        self.entries.push(entry);
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the feed has no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entries per page.
    pub fn per_page(&self) -> usize {
        self.per_page
    }

    /// Number of pages (the newest may be short).
    pub fn page_count(&self) -> usize {
        self.pages().len()
    }

    /// All pages, oldest first; the iterator also walks backwards.
    pub fn pages(&self) -> Pages<'_, T> {
        pages(&self.entries, self.per_page)
    }

    /// Page `n`, counting from the oldest page.
    pub fn page(&self, n: usize) -> Option<&[T]> {
        self.pages().nth(n)
    }

    /// The page holding the newest entry.
    pub fn latest(&self) -> Option<&[T]> {
        self.pages().next_back()
    }

    /// Page `k`, counting from the newest page (`0` is [`Feed::latest`]).
    pub fn page_from_newest(&self, k: usize) -> Option<&[T]> {
        self.pages().nth_back(k)
    }

    /// Pages newest first, each with its page number (counted from the oldest).
    pub fn numbered_newest_first(&self) -> impl Iterator<Item = (usize, &[T])> + '_ {
        self.pages().enumerate().rev()
    }

    /// "Load more" for a newest-first view: the next `count` older pages after the
    /// `shown` newest pages the reader has already seen.
    pub fn load_more(&self, shown: usize, count: usize) -> Vec<&[T]> {
        self.pages().rev().skip(shown).take(count).collect()
    }

    /// Milestone pages for a scroll bar: pages `0`, `stride`, `2 * stride`...
    /// (numbered from the oldest), listed newest first with their numbers.
    ///
    /// # Panics
    ///
    /// Panics when `stride` is zero.
    pub fn milestones_newest_first(&self, stride: usize) -> Vec<(usize, &[T])> {
        self.pages().enumerate().step_by(stride).rev().collect()
    }
}

impl<T> Extend<T> for Feed<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.entries.extend(iter);
    }
}

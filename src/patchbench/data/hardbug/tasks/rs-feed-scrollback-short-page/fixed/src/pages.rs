//! The page iterator.

use std::iter::FusedIterator;

/// Splits `items` into pages of `per_page` entries, cut from the start.
///
/// # Panics
///
/// Panics when `per_page` is zero.
pub fn pages<T>(items: &[T], per_page: usize) -> Pages<'_, T> {
    assert!(per_page > 0, "a page holds at least one entry");
    Pages { items, per_page }
}

/// Iterator over the pages of a slice, oldest first; see [`pages`].
///
/// The slice still to be paged is kept whole: a page is cut from its front by
/// `next`, from its back by `next_back`. The back page is the short one when the
/// length is not a multiple of the page size, so that both ends agree on where
/// pages start.
#[derive(Debug, Clone)]
pub struct Pages<'a, T> {
    items: &'a [T],
    per_page: usize,
}

impl<'a, T> Pages<'a, T> {
    /// Entries not yet yielded, from either end.
    pub fn remaining_entries(&self) -> usize {
        self.items.len()
    }

    /// Length of the page at the back of what remains.
    fn back_len(&self) -> usize {
        match self.items.len() % self.per_page {
            0 => self.per_page.min(self.items.len()),
            short => short,
        }
    }
}

impl<'a, T> Iterator for Pages<'a, T> {
    type Item = &'a [T];

    fn next(&mut self) -> Option<&'a [T]> {
        if self.items.is_empty() {
            return None;
        }
        let take = self.per_page.min(self.items.len());
        let (page, rest) = self.items.split_at(take);
        self.items = rest;
        Some(page)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.items.len().div_ceil(self.per_page);
        (n, Some(n))
    }

    fn count(self) -> usize {
        self.len()
    }

    fn nth(&mut self, n: usize) -> Option<&'a [T]> {
        // Every page but the back one is full: whole pages can be skipped at once.
        let skip = n.saturating_mul(self.per_page);
        if skip >= self.items.len() {
            self.items = &self.items[..0];
            return None;
        }
        self.items = &self.items[skip..];
        self.next()
    }

    fn last(mut self) -> Option<&'a [T]> {
        self.next_back()
    }
}

impl<'a, T> DoubleEndedIterator for Pages<'a, T> {
    fn next_back(&mut self) -> Option<&'a [T]> {
        if self.items.is_empty() {
            return None;
        }
        let take = self.back_len();
        let (rest, page) = self.items.split_at(self.items.len() - take);
        self.items = rest;
        Some(page)
    }

    fn nth_back(&mut self, n: usize) -> Option<&'a [T]> {
        // Only the back page may be short: skip it first, then whole pages.
        let skip = match n {
            0 => 0,
            _ => self.back_len().saturating_add((n - 1).saturating_mul(self.per_page)),
        };
        if skip >= self.items.len() {
            self.items = &self.items[..0];
            return None;
        }
        self.items = &self.items[..self.items.len() - skip];
        self.next_back()
    }
}

impl<T> ExactSizeIterator for Pages<'_, T> {}

impl<T> FusedIterator for Pages<'_, T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_pages() {
        let v: Vec<u32> = (0..7).collect();
        let got: Vec<&[u32]> = pages(&v, 3).collect();
        assert_eq!(got, vec![&[0, 1, 2][..], &[3, 4, 5][..], &[6][..]]);
    }

    #[test]
    fn back_page_is_the_short_one() {
        let v: Vec<u32> = (0..7).collect();
        let mut it = pages(&v, 3);
        assert_eq!(it.next_back(), Some(&[6][..]));
        assert_eq!(it.next_back(), Some(&[3, 4, 5][..]));
        assert_eq!(it.len(), 1);
    }

    #[test]
    fn skipping_whole_pages() {
        let v: Vec<u32> = (0..12).collect();
        assert_eq!(pages(&v, 4).nth(2), Some(&[8, 9, 10, 11][..]));
        assert_eq!(pages(&v, 4).nth_back(2), Some(&[0, 1, 2, 3][..]));
        assert_eq!(pages(&v, 4).nth(3), None);
    }
}

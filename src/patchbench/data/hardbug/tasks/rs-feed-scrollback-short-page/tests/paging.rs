//! Hidden tests: browsing a feed from both ends.

use pagefeed::{pages, Feed};

fn feed(entries: u32, per_page: usize) -> Feed<u32> {
    let mut f = Feed::new(per_page);
    f.extend(0..entries);
    f
}

fn owned(pages: Vec<&[u32]>) -> Vec<Vec<u32>> {
    pages.into_iter().map(<[u32]>::to_vec).collect()
}

mod oldest_first {
    use super::*;

    #[test]
    fn pages_cover_every_entry_in_order() {
        let f = feed(10, 4);
        let all: Vec<u32> = f.pages().flatten().copied().collect();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
        assert_eq!(f.page_count(), 3);
        assert_eq!(f.pages().map(<[u32]>::len).collect::<Vec<_>>(), vec![4, 4, 2]);
    }

    #[test]
    fn page_by_number() {
        let f = feed(11, 3);
        assert_eq!(f.page(0), Some(&[0, 1, 2][..]));
        assert_eq!(f.page(2), Some(&[6, 7, 8][..]));
        assert_eq!(f.page(3), Some(&[9, 10][..]));
        assert_eq!(f.page(4), None);
    }
}

mod newest_first {
    use super::*;

    #[test]
    fn latest_page_is_the_short_tail() {
        assert_eq!(feed(10, 4).latest(), Some(&[8, 9][..]));
        assert_eq!(feed(8, 4).latest(), Some(&[4, 5, 6, 7][..]));
        assert_eq!(feed(0, 4).latest(), None);
    }

    #[test]
    fn reversed_pages_mirror_the_oldest_first_pages() {
        for (entries, per_page) in [(10, 4), (12, 4), (1, 5), (17, 3)] {
            let f = feed(entries, per_page);
            let mut forward: Vec<&[u32]> = f.pages().collect();
            forward.reverse();
            assert_eq!(f.pages().rev().collect::<Vec<_>>(), forward, "{entries} entries / {per_page}");
        }
    }

    #[test]
    fn numbering_is_stable_in_both_directions() {
        let f = feed(10, 4);
        let numbers: Vec<(usize, u32)> = f.numbered_newest_first().map(|(n, p)| (n, p[0])).collect();
        assert_eq!(numbers, vec![(2, 8), (1, 4), (0, 0)]);
    }

    #[test]
    fn page_from_newest_on_whole_pages() {
        let f = feed(12, 4);
        assert_eq!(f.page_from_newest(0), Some(&[8, 9, 10, 11][..]));
        assert_eq!(f.page_from_newest(1), Some(&[4, 5, 6, 7][..]));
        assert_eq!(f.page_from_newest(2), Some(&[0, 1, 2, 3][..]));
        assert_eq!(f.page_from_newest(3), None);
    }

    #[test]
    fn page_from_newest_with_a_short_tail() {
        let f = feed(10, 4);
        assert_eq!(f.page_from_newest(0), Some(&[8, 9][..]));
        assert_eq!(f.page_from_newest(1), Some(&[4, 5, 6, 7][..]));
        assert_eq!(f.page_from_newest(2), Some(&[0, 1, 2, 3][..]));
        assert_eq!(f.page_from_newest(3), None);
        for k in 0..f.page_count() {
            assert_eq!(f.page_from_newest(k), f.page(f.page_count() - 1 - k), "page {k} from the newest");
        }
    }

    #[test]
    fn load_more_continues_after_the_pages_already_shown() {
        let f = feed(23, 5);
        assert_eq!(owned(f.load_more(0, 2)), vec![vec![20, 21, 22], vec![15, 16, 17, 18, 19]]);
        assert_eq!(owned(f.load_more(2, 2)), vec![vec![10, 11, 12, 13, 14], vec![5, 6, 7, 8, 9]]);
        assert_eq!(owned(f.load_more(4, 2)), vec![vec![0, 1, 2, 3, 4]]);
        assert!(f.load_more(5, 2).is_empty());
    }

    #[test]
    fn page_from_newest_of_posts_that_own_their_text() {
        let mut f = Feed::new(4);
        f.extend((0..10).map(|i| format!("post {i}")));
        let page: Vec<&str> = f.page_from_newest(1).expect("a second page").iter().map(String::as_str).collect();
        assert_eq!(page, vec!["post 4", "post 5", "post 6", "post 7"]);
    }

    #[test]
    fn milestones_are_listed_newest_first() {
        let starts = |f: &Feed<u32>, stride| -> Vec<(usize, Vec<u32>)> {
            f.milestones_newest_first(stride).into_iter().map(|(n, p)| (n, p.to_vec())).collect()
        };
        // Five pages: milestones 0, 2, 4.
        assert_eq!(starts(&feed(13, 3), 2), vec![(4, vec![12]), (2, vec![6, 7, 8]), (0, vec![0, 1, 2])]);
        // Four pages: milestones 0 and 2; the short newest page is not one of them.
        assert_eq!(starts(&feed(10, 3), 2), vec![(2, vec![6, 7, 8]), (0, vec![0, 1, 2])]);
        assert_eq!(starts(&feed(10, 3), 3), vec![(3, vec![9]), (0, vec![0, 1, 2])]);
    }
}

mod iterator {
    use super::*;

    #[test]
    fn both_ends_meet_without_overlap() {
        let v: Vec<u32> = (0..10).collect();
        let mut it = pages(&v, 3);
        assert_eq!(it.len(), 4);
        assert_eq!(it.next(), Some(&[0, 1, 2][..]));
        assert_eq!(it.next_back(), Some(&[9][..]));
        assert_eq!(it.len(), 2);
        assert_eq!(it.next_back(), Some(&[6, 7, 8][..]));
        assert_eq!(it.next(), Some(&[3, 4, 5][..]));
        assert_eq!(it.len(), 0);
        assert_eq!(it.next(), None);
        assert_eq!(it.next_back(), None);
    }

    #[test]
    fn jumping_back_lands_on_the_same_pages_as_walking_back() {
        for (entries, per_page) in [(10u32, 4usize), (12, 4), (7, 7), (8, 7), (31, 6)] {
            let v: Vec<u32> = (0..entries).collect();
            let walked: Vec<&[u32]> = pages(&v, per_page).rev().collect();
            for k in 0..=walked.len() {
                let jumped = pages(&v, per_page).rev().nth(k);
                assert_eq!(jumped, walked.get(k).copied(), "{entries} entries / {per_page}, k = {k}");
            }
        }
    }

    #[test]
    fn jumping_back_after_reading_the_front() {
        let v: Vec<u32> = (0..10).collect();
        let mut it = pages(&v, 4);
        assert_eq!(it.next(), Some(&[0, 1, 2, 3][..]));
        assert_eq!(it.nth_back(1), Some(&[4, 5, 6, 7][..]));
        assert_eq!(it.next(), None);
    }

    #[test]
    fn jumping_back_on_a_slice_of_two_million_entries() {
        // Zero-sized entries: two million of them take no memory.
        let v = [(); 2_097_153];
        let mut it = pages(&v, 4);
        assert_eq!(it.nth_back(1).map(<[()]>::len), Some(4));
        assert_eq!(it.len(), 524_287);
    }

    #[test]
    #[should_panic(expected = "at least one entry")]
    fn zero_sized_pages_are_rejected() {
        let _ = pages(&[1, 2, 3], 0);
    }
}

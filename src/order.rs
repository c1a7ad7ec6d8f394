//! One stable sort for the whole crate.
//!
//! `slice::sort_by` is generic over both the element and the comparator, so every call site
//! compiles its own copy of the sorting algorithm (a few KB each, some 60 KB in all). Here
//! the positions are sorted through a `dyn` comparator, which compiles the algorithm once;
//! the lists zcp sorts (services, variables, findings, postings, hits) are short enough that
//! the indirection does not show.

use std::cmp::Ordering;

/// Sorts `items` by `compare`, keeping equal items in their order (like `sort_by`).
pub fn sort_by<T>(items: &mut Vec<T>, compare: impl Fn(&T, &T) -> Ordering) {
    let mut order: Vec<usize> = (0..items.len()).collect();
    sort_positions(&mut order, &|a, b| compare(&items[a], &items[b]));
    let mut slots: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(order.into_iter().filter_map(|i| slots[i].take()));
}

/// Sorts by a key (like `sort_by_key`).
pub fn sort_by_key<T, K: Ord>(items: &mut Vec<T>, key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts in natural order (like `sort`).
pub fn sort<T: Ord>(items: &mut Vec<T>) {
    sort_by(items, T::cmp);
}

fn sort_positions(order: &mut [usize], compare: &dyn Fn(usize, usize) -> Ordering) {
    order.sort_by(|&a, &b| compare(a, b));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_and_matches_std() {
        let mut items: Vec<(u8, usize)> = (0..200).map(|i| ((i * 7 % 13) as u8, i)).collect();
        let mut expected = items.clone();
        expected.sort_by_key(|p| p.0);
        sort_by_key(&mut items, |p| p.0);
        assert_eq!(items, expected);
        let mut words = vec!["b".to_owned(), "a".into(), "c".into(), "a".into()];
        sort(&mut words);
        assert_eq!(words, ["a", "a", "b", "c"]);
        let mut empty: Vec<u8> = Vec::new();
        sort(&mut empty);
        assert!(empty.is_empty());
    }
}

//! The sessions list's order: a sorted list of session indexes in chunks, so that adding one
//! loaded session costs O(log n) comparisons plus moving at most one bounded chunk (never a full
//! re-sort), and finding the row `i` costs O(log n) through a Fenwick tree of chunk lengths.

use std::cmp::Ordering;

/// Chunks split when they reach twice this length.
const CHUNK: usize = 512;

/// Session indexes kept sorted by a comparator given at each call.
#[derive(Clone, Debug, Default)]
pub struct SortedOrder {
    chunks: Vec<Vec<u32>>,
    /// Fenwick tree over `chunks[i].len()`.
    tree: Vec<usize>,
    len: usize,
}

impl SortedOrder {
    /// An empty order.
    pub fn new() -> Self {
        SortedOrder::default()
    }

    /// Number of sessions.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Inserts `idx` after every element not greater than it; returns its row.
    pub fn insert(&mut self, idx: u32, cmp: impl Fn(u32, u32) -> Ordering) -> usize {
        self.len += 1;
        if self.chunks.is_empty() {
            self.chunks.push(vec![idx]);
            self.rebuild();
            return 0;
        }
        // The first chunk whose last element is greater than `idx` (else the last chunk).
        let c = self
            .chunks
            .partition_point(|ch| ch.last().is_some_and(|&l| cmp(l, idx) != Ordering::Greater))
            .min(self.chunks.len() - 1);
        let before = self.prefix(c);
        let chunk = &mut self.chunks[c];
        let pos = chunk.partition_point(|&x| cmp(x, idx) != Ordering::Greater);
        chunk.insert(pos, idx);
        let row = before + pos;
        if chunk.len() >= 2 * CHUNK {
            let tail = chunk.split_off(CHUNK);
            self.chunks.insert(c + 1, tail);
            self.rebuild();
        } else {
            self.add(c, 1);
        }
        row
    }

    /// Sorts everything again (a new sort column): O(n log n).
    pub fn resort(&mut self, cmp: impl Fn(u32, u32) -> Ordering) {
        let mut all: Vec<u32> = self.chunks.drain(..).flatten().collect();
        all.sort_by(|a, b| cmp(*a, *b));
        self.chunks = all.chunks(CHUNK).map(<[u32]>::to_vec).collect();
        self.rebuild();
    }

    /// The session index at row `i`.
    pub fn get(&self, i: usize) -> Option<usize> {
        if i >= self.len {
            return None;
        }
        // Fenwick descent: the chunk holding row i.
        let mut pos = 0;
        let mut rem = i;
        let mut step = self.tree.len().next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next <= self.tree.len() && self.tree[next - 1] <= rem {
                pos = next;
                rem -= self.tree[next - 1];
            }
            step /= 2;
        }
        self.chunks
            .get(pos)
            .and_then(|c| c.get(rem))
            .map(|&x| x as usize)
    }

    /// Every session index in order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.chunks.iter().flatten().map(|&x| x as usize)
    }

    /// Rows from `start`, in order.
    pub fn iter_from(&self, start: usize) -> impl Iterator<Item = usize> + '_ {
        let mut c = 0;
        let mut skip = start;
        while c < self.chunks.len() && skip >= self.chunks[c].len() {
            skip -= self.chunks[c].len();
            c += 1;
        }
        self.chunks
            .iter()
            .skip(c)
            .flatten()
            .skip(skip)
            .map(|&x| x as usize)
    }

    /// The row of session `idx` (O(n)).
    pub fn position(&self, idx: usize) -> Option<usize> {
        self.iter().position(|x| x == idx)
    }

    fn prefix(&self, chunk: usize) -> usize {
        let mut i = chunk;
        let mut s = 0;
        while i > 0 {
            s += self.tree[i - 1];
            i &= i - 1;
        }
        s
    }

    fn add(&mut self, chunk: usize, d: usize) {
        let mut i = chunk + 1;
        while i <= self.tree.len() {
            self.tree[i - 1] += d;
            i += i & i.wrapping_neg();
        }
    }

    fn rebuild(&mut self) {
        let n = self.chunks.len();
        self.tree = vec![0; n];
        for i in 0..n {
            self.tree[i] += self.chunks[i].len();
            let j = (i + 1) + ((i + 1) & (i + 1).wrapping_neg());
            if j <= n {
                let v = self.tree[i];
                self.tree[j - 1] += v;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn matches_a_stable_sort(keys in proptest::collection::vec(0u32..50, 0..3000), probes in proptest::collection::vec(0usize..3000, 0..20)) {
            let cmp = |a: u32, b: u32| keys[a as usize].cmp(&keys[b as usize]);
            let mut o = SortedOrder::new();
            for i in 0..keys.len() as u32 {
                let row = o.insert(i, cmp);
                prop_assert_eq!(o.get(row), Some(i as usize));
            }
            let mut want: Vec<u32> = (0..keys.len() as u32).collect();
            want.sort_by(|a, b| cmp(*a, *b));
            let got: Vec<u32> = o.iter().map(|x| x as u32).collect();
            prop_assert_eq!(&got, &want);
            for p in probes {
                prop_assert_eq!(o.get(p), want.get(p).map(|&x| x as usize));
                prop_assert_eq!(o.iter_from(p).next(), want.get(p).map(|&x| x as usize));
            }
            o.resort(|a, b| cmp(b, a));
            let mut rev: Vec<u32> = (0..keys.len() as u32).collect();
            rev.sort_by(|a, b| cmp(*b, *a));
            prop_assert_eq!(o.iter().map(|x| x as u32).collect::<Vec<_>>(), rev);
        }
    }
}

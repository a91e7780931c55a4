//! Which worker runs which groups of a dispatch.
//!
//! In: the number of groups (flattened ids `0..total`), the number of
//! workers and a chunk size. Out: [`Claims::claim`] hands a worker the
//! next chunk of groups it should run, or `None` once every group is
//! taken. Invariant: every group id is handed out exactly once, whatever
//! the workers' order and speed.
//!
//! Each worker owns a contiguous share of the groups and claims it from
//! the front, a chunk at a time, on a counter no other worker touches
//! until its own share is done. A worker whose share is done takes chunks
//! from the others' shares, starting with the next worker's. So on
//! uniform work each worker streams through one contiguous region of the
//! buffers (which the hardware prefetchers follow, and which stays in its
//! caches when the same dispatch runs again on the same memory), the
//! workers do not bounce one counter's cache line between them, and on
//! uneven work (mandelbrot's rows) the fast worker still takes over the
//! slow one's remaining chunks.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// One worker's share: the next group to claim, and where the share ends.
/// Aligned to two cache lines (an adjacent-line prefetcher pairs them), so
/// that owners claiming their own shares do not share a line.
#[repr(align(128))]
struct Share {
    next: AtomicU64,
    end: u64,
}

/// The shares of one dispatch's groups (see the module comment).
pub(super) struct Claims {
    shares: Box<[Share]>,
    chunk: u64,
}

impl Claims {
    /// `total` groups split into `workers` shares (at least one) as even
    /// as whole groups allow, claimed `chunk` groups (at least one) at a
    /// time.
    pub(super) fn new(total: u64, workers: usize, chunk: u64) -> Self {
        let n = workers.max(1) as u64;
        let shares = (0..n)
            .map(|k| Share {
                next: AtomicU64::new(split(total, n, k)),
                end: split(total, n, k + 1),
            })
            .collect();
        Claims {
            shares,
            chunk: chunk.max(1),
        }
    }

    /// How many shares there are (the worker indexes `claim` expects).
    pub(super) fn workers(&self) -> usize {
        self.shares.len()
    }

    /// The next chunk for worker `me` (taken modulo the number of
    /// shares): from its own share while that lasts, then from the
    /// others' in turn; `None` when no group is left. `from` is where
    /// the worker found its last chunk (start it at 0): shares seen empty
    /// stay empty, so the search resumes there.
    pub(super) fn claim(&self, me: usize, from: &mut usize) -> Option<Range<u64>> {
        let n = self.shares.len();
        while *from < n {
            let share = &self.shares[(me + *from) % n];
            // A look before the add keeps an emptied share's counter from
            // growing (and its line from bouncing) on every later claim.
            if share.next.load(Ordering::Relaxed) < share.end {
                let first = share.next.fetch_add(self.chunk, Ordering::Relaxed);
                if first < share.end {
                    return Some(first..(first + self.chunk).min(share.end));
                }
            }
            *from += 1;
        }
        None
    }
}

/// Where share `k` of `total` groups split `n` ways starts: the first
/// `total % n` shares are one group longer than the rest.
fn split(total: u64, n: u64, k: u64) -> u64 {
    k * (total / n) + k.min(total % n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn shares_are_contiguous_and_even() {
        let c = Claims::new(10, 3, 100);
        let mut from = 0;
        // Worker 0's share is 0..4 (10 = 4 + 3 + 3), then it takes the
        // others' in turn.
        assert_eq!(c.claim(0, &mut from), Some(0..4));
        assert_eq!(c.claim(0, &mut from), Some(4..7));
        assert_eq!(c.claim(0, &mut from), Some(7..10));
        assert_eq!(c.claim(0, &mut from), None);
        assert_eq!(c.claim(1, &mut 0), None);
    }

    #[test]
    fn a_worker_starts_with_its_own_share() {
        let c = Claims::new(64, 2, 8);
        assert_eq!(c.claim(1, &mut 0), Some(32..40));
        assert_eq!(c.claim(0, &mut 0), Some(0..8));
        // Indexes wrap: worker 2 of two shares is worker 0.
        assert_eq!(c.claim(2, &mut 0), Some(8..16));
    }

    #[test]
    fn more_workers_than_groups_leaves_some_shares_empty() {
        let c = Claims::new(2, 4, 1);
        let mut got = Vec::new();
        for me in 0..4 {
            let mut from = 0;
            while let Some(r) = c.claim(me, &mut from) {
                got.extend(r);
            }
        }
        assert_eq!(got, vec![0, 1]);
        assert_eq!(Claims::new(0, 3, 5).claim(0, &mut 0), None);
    }

    #[test]
    fn every_group_is_claimed_once_by_racing_workers() {
        for (total, workers, chunk) in [(1000, 2, 7), (4096, 3, 64), (5, 8, 1), (333, 4, 0)] {
            let c = Claims::new(total, workers, chunk);
            let seen: Vec<AtomicUsize> = (0..total).map(|_| AtomicUsize::new(0)).collect();
            std::thread::scope(|s| {
                for me in 0..workers {
                    let (c, seen) = (&c, &seen);
                    s.spawn(move || {
                        let mut from = 0;
                        while let Some(r) = c.claim(me, &mut from) {
                            for g in r {
                                seen[g as usize].fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    });
                }
            });
            assert!(
                seen.iter().all(|n| n.load(Ordering::Relaxed) == 1),
                "{total} groups, {workers} workers, chunk {chunk}"
            );
        }
    }
}

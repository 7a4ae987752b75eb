//! Where each waiting job stands, written so that a cycle rewrites only the jobs whose
//! order changed.
//!
//! A stored place (1st, 2nd, …) changes for every waiting job behind one that starts:
//! with thousands waiting, each cycle that started a few jobs rewrote thousands of rows.
//! Instead each waiting job keeps a rank, a number that only has to sort like the queue;
//! its place is counted when someone reads it (the waiting jobs ranked before it). A
//! cycle keeps the ranks of the longest run of jobs still in their recorded order and
//! gives new ranks, between their neighbours', only to the others: jobs just submitted,
//! jobs back from a preemption, jobs the policy moved.

/// The gap left between neighbours, so later arrivals fit between them.
const SPACING: i64 = 1 << 20;

/// The ranks for the waiting jobs in their new order, given the ranks they hold (`None`:
/// none yet). Strictly increasing; equal to the recorded rank wherever it could be kept.
pub fn ranks(held: &[Option<i64>]) -> Vec<i64> {
    let kept = longest_in_order(held);
    let mut out: Vec<i64> = Vec::with_capacity(held.len());
    let mut i = 0;
    while i < held.len() {
        if kept[i] {
            out.push(held[i].unwrap_or_default());
            i += 1;
            continue;
        }
        // A run of jobs to rank, between the kept neighbours (if any).
        let end = (i..held.len()).find(|&j| kept[j]).unwrap_or(held.len());
        let below = out.last().copied();
        let above = held.get(end).copied().flatten();
        let n = (end - i) as i64;
        let fresh: Option<Vec<i64>> = match (below, above) {
            (None, None) => Some((1..=n).map(|k| k * SPACING).collect()),
            (Some(lo), None) => Some((1..=n).map(|k| lo + k * SPACING).collect()),
            (None, Some(hi)) => Some((0..n).map(|k| hi - (n - k) * SPACING).collect()),
            (Some(lo), Some(hi)) => {
                let step = (hi - lo) / (n + 1);
                (step > 0).then(|| (1..=n).map(|k| lo + k * step).collect())
            }
        };
        let Some(fresh) = fresh else {
            // No room left between two neighbours: rank the whole queue afresh (rare: it
            // takes ~20 arrivals into one gap).
            return (1..=held.len() as i64).map(|k| k * SPACING).collect();
        };
        out.extend(fresh);
        i = end;
    }
    out
}

/// Which positions belong to a longest strictly increasing run of recorded ranks
/// (patience sorting, n log n).
fn longest_in_order(held: &[Option<i64>]) -> Vec<bool> {
    // tails[k]: index of the smallest last rank of an increasing run of length k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = vec![None; held.len()];
    for (i, rank) in held.iter().enumerate() {
        let Some(rank) = *rank else { continue };
        let k = tails.partition_point(|&t| held[t].unwrap_or_default() < rank);
        before[i] = k.checked_sub(1).map(|p| tails[p]);
        if k == tails.len() {
            tails.push(i);
        } else {
            tails[k] = i;
        }
    }
    let mut kept = vec![false; held.len()];
    let mut at = tails.last().copied();
    while let Some(i) = at {
        kept[i] = true;
        at = before[i];
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn increasing(r: &[i64]) -> bool {
        r.windows(2).all(|w| w[0] < w[1])
    }

    fn changed(held: &[Option<i64>], new: &[i64]) -> usize {
        held.iter().zip(new).filter(|(h, n)| **h != Some(**n)).count()
    }

    #[test]
    fn a_queue_in_its_recorded_order_keeps_every_rank_and_arrivals_go_behind() {
        let held = [Some(10), Some(20), Some(30), None, None];
        let new = ranks(&held);
        assert!(increasing(&new));
        assert_eq!(&new[..3], &[10, 20, 30]);
        assert_eq!(changed(&held, &new), 2, "only the two arrivals are written");
    }

    #[test]
    fn a_job_moved_forward_is_the_only_one_rewritten() {
        // The last job jumps to the front (a critical job, a policy change).
        let held = [Some(40 * SPACING), Some(SPACING), Some(2 * SPACING), Some(3 * SPACING)];
        let new = ranks(&[held[0], held[1], held[2], held[3]]);
        assert!(increasing(&new), "{new:?}");
        assert_eq!(changed(&held, &new), 1);
        let front = [Some(3 * SPACING), Some(SPACING), Some(2 * SPACING)];
        let new = ranks(&front);
        assert!(increasing(&new), "{new:?}");
        assert_eq!(changed(&front, &new), 1);
    }

    #[test]
    fn a_full_gap_ranks_the_whole_queue_afresh_and_stays_in_order() {
        let held = [Some(1), None, None, Some(2)];
        let new = ranks(&held);
        assert!(increasing(&new), "{new:?}");
        assert_eq!(new, vec![SPACING, 2 * SPACING, 3 * SPACING, 4 * SPACING]);
    }

    #[test]
    fn any_order_of_recorded_and_new_jobs_comes_out_strictly_increasing() {
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        for round in 0..300 {
            let n = (round % 40) + 1;
            let held: Vec<Option<i64>> = (0..n)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (!seed.is_multiple_of(4)).then_some((seed % 1000) as i64 * 3)
                })
                .collect();
            let new = ranks(&held);
            assert_eq!(new.len(), held.len());
            assert!(increasing(&new), "{held:?} -> {new:?}");
        }
    }
}

//! How a shadow version's decisions differ from the active one's, on the same snapshot:
//! rank correlation for priority, differing verdicts for quota, victim-set overlap for
//! reclaim. Figures a reviewer reads before promoting a version (O1).

use serde::Serialize;
use tidepool_api::records::ShadowDifference;
use tidepool_core::Verdict;

/// One comparison, recorded as a shadow event.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "measure", rename_all = "kebab-case")]
pub enum Difference {
    /// Spearman's rank correlation of the two orders (1 = same order, -1 = reversed).
    RankCorrelation { jobs: usize, rho: f64, first_choice_same: bool },
    /// Jobs whose verdict differs (admit vs hold, or different loans).
    Verdicts { jobs: usize, differing: usize, admitted_by_active: usize, admitted_by_shadow: usize },
    /// Overlap (Jaccard) of the first `k` victims each would preempt.
    VictimOverlap { allocations: usize, k: usize, jaccard: f64 },
}

impl Difference {
    /// The difference as the records keep it.
    pub fn shown(&self) -> ShadowDifference {
        let none = |measure: &str, compared: usize| ShadowDifference {
            measure: measure.into(),
            compared: compared as u64,
            rho: None,
            first_choice_same: None,
            differing: None,
            admitted_by_active: None,
            admitted_by_shadow: None,
            k: None,
            jaccard: None,
        };
        match *self {
            Difference::RankCorrelation { jobs, rho, first_choice_same } => ShadowDifference {
                rho: Some(rho),
                first_choice_same: Some(first_choice_same),
                ..none("rank-correlation", jobs)
            },
            Difference::Verdicts { jobs, differing, admitted_by_active, admitted_by_shadow } => {
                ShadowDifference {
                    differing: Some(differing as u64),
                    admitted_by_active: Some(admitted_by_active as u64),
                    admitted_by_shadow: Some(admitted_by_shadow as u64),
                    ..none("verdicts", jobs)
                }
            }
            Difference::VictimOverlap { allocations, k, jaccard } => ShadowDifference {
                k: Some(k as u64),
                jaccard: Some(jaccard),
                ..none("victim-overlap", allocations)
            },
        }
    }
}

/// Position of each item when sorted by score, highest first (ties by index).
fn ranks(scores: &[i64], highest_first: bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    if highest_first {
        order.sort_by_key(|&i| (std::cmp::Reverse(scores[i]), i));
    } else {
        order.sort_by_key(|&i| (scores[i], i));
    }
    let mut rank = vec![0; scores.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r;
    }
    rank
}

fn round(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

pub fn priority(active: &[i64], shadow: &[i64]) -> Difference {
    let n = active.len().min(shadow.len());
    let (a, s) = (ranks(&active[..n], true), ranks(&shadow[..n], true));
    let rho = if n < 2 {
        1.0
    } else {
        let d2: f64 = a.iter().zip(&s).map(|(x, y)| (*x as f64 - *y as f64).powi(2)).sum();
        let n = n as f64;
        1.0 - 6.0 * d2 / (n * (n * n - 1.0))
    };
    let first = |r: &[usize]| r.iter().position(|&x| x == 0);
    Difference::RankCorrelation { jobs: n, rho: round(rho), first_choice_same: first(&a) == first(&s) }
}

pub fn quota(active: &[Verdict], shadow: &[Verdict]) -> Difference {
    let admitted = |v: &[Verdict]| v.iter().filter(|x| matches!(x, Verdict::Admit { .. })).count();
    let differing = active
        .iter()
        .zip(shadow)
        .filter(|(a, s)| match (a, s) {
            (Verdict::Admit { borrowed: x }, Verdict::Admit { borrowed: y }) => x != y,
            (Verdict::Hold(_), Verdict::Hold(_)) => false,
            _ => true,
        })
        .count();
    Difference::Verdicts {
        jobs: active.len(),
        differing,
        admitted_by_active: admitted(active),
        admitted_by_shadow: admitted(shadow),
    }
}

pub fn reclaim(active: &[i64], shadow: &[i64]) -> Difference {
    let n = active.len().min(shadow.len());
    // The victims that matter are the first few; a tenth of the pool, at least one.
    let k = (n / 10).clamp(n.min(1), 64);
    let first = |scores: &[i64]| -> Vec<usize> {
        let r = ranks(&scores[..n], false);
        (0..n).filter(|&i| r[i] < k).collect()
    };
    let (a, s) = (first(active), first(shadow));
    let both = a.iter().filter(|i| s.contains(i)).count();
    let either = a.len() + s.len() - both;
    let jaccard = if either == 0 { 1.0 } else { both as f64 / either as f64 };
    Difference::VictimOverlap { allocations: n, k, jaccard: round(jaccard) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_orders_agree_and_reversed_ones_do_not() {
        assert_eq!(
            priority(&[3, 2, 1], &[30, 20, 10]),
            Difference::RankCorrelation { jobs: 3, rho: 1.0, first_choice_same: true }
        );
        assert_eq!(
            priority(&[3, 2, 1], &[1, 2, 3]),
            Difference::RankCorrelation { jobs: 3, rho: -1.0, first_choice_same: false }
        );
    }

    #[test]
    fn victim_overlap_counts_shared_first_victims() {
        let same = reclaim(&[1, 2, 3, 4], &[10, 20, 30, 40]);
        assert_eq!(same, Difference::VictimOverlap { allocations: 4, k: 1, jaccard: 1.0 });
        let other = reclaim(&[1, 2, 3, 4], &[40, 30, 20, 10]);
        assert_eq!(other, Difference::VictimOverlap { allocations: 4, k: 1, jaccard: 0.0 });
    }

    #[test]
    fn verdict_differences_are_counted() {
        let admit = Verdict::Admit { borrowed: vec![] };
        let hold = Verdict::Hold(tidepool_core::Reason::NoQuota);
        let d = quota(&[admit.clone(), admit.clone(), hold.clone()], &[admit, hold.clone(), hold]);
        assert_eq!(
            d,
            Difference::Verdicts { jobs: 3, differing: 1, admitted_by_active: 2, admitted_by_shadow: 1 }
        );
    }
}

//! Turning a groups file or a node count into the simulated cluster and its quotas.

use tidepool_core::{Category, Group, GroupId, Loan, LoanId, ModelId, Node, Quota, Snapshot};

use crate::sim::SimConfig;

/// A group and the nodes its guarantee is worth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupSpec {
    pub name: String,
    pub nodes: u32,
}

fn scaled(nodes: u32, scale: f64) -> u32 {
    if nodes == 0 { 0 } else { ((f64::from(nodes) * scale).round() as u32).max(1) }
}

/// Splits `total` nodes in proportion to `weights` (largest remainder, ties by order).
fn apportion(total: u32, weights: &[u32]) -> Vec<u32> {
    let sum: u64 = weights.iter().map(|&w| u64::from(w)).sum();
    if sum == 0 {
        return vec![0; weights.len()];
    }
    let exact: Vec<(u32, u64)> = weights
        .iter()
        .map(|&w| {
            let num = u64::from(total) * u64::from(w);
            ((num / sum) as u32, num % sum)
        })
        .collect();
    let mut shares: Vec<u32> = exact.iter().map(|e| e.0).collect();
    let mut left = total - shares.iter().sum::<u32>();
    let mut by_remainder: Vec<usize> = (0..weights.len()).collect();
    by_remainder.sort_by_key(|&i| std::cmp::Reverse(exact[i].1));
    for i in by_remainder {
        if left == 0 {
            break;
        }
        shares[i] += 1;
        left -= 1;
    }
    shares
}

/// The simulated groups: from a groups file, or every trace group with an equal share
/// of `nodes`; a groups file with `nodes` keeps the file's proportions.
pub fn resolve_groups(
    file: Option<Vec<(String, u32)>>,
    nodes: Option<u32>,
    scale: f64,
    trace_groups: &[String],
) -> Result<Vec<GroupSpec>, String> {
    let base: Vec<(String, u32)> = match (file, nodes) {
        (Some(file), None) => file,
        (Some(file), Some(n)) => {
            let shares = apportion(n, &file.iter().map(|g| g.1).collect::<Vec<_>>());
            file.into_iter().zip(shares).map(|((name, _), s)| (name, s)).collect()
        }
        (None, Some(n)) => {
            let shares = apportion(n, &vec![1; trace_groups.len()]);
            trace_groups.iter().cloned().zip(shares).collect()
        }
        (None, None) => {
            return Err("give --groups FILE, or --nodes N (or both) to size the cluster".into());
        }
    };
    Ok(base.into_iter().map(|(name, n)| GroupSpec { name, nodes: scaled(n, scale) }).collect())
}

/// The snapshot for a partition of groups: their nodes, their quotas, and, when several
/// groups share it, a standing loan from each group of its whole guarantee to the others.
pub fn snapshot(config: &SimConfig, members: &[GroupId]) -> Snapshot {
    let g = config.gpus_per_node;
    let mut snap =
        Snapshot { models: vec!["gpu".into()], config: config.cycle.clone(), ..Snapshot::default() };
    for (local, id) in members.iter().enumerate() {
        let spec = &config.groups[id.0 as usize];
        let group = GroupId(local as u32);
        snap.groups.push(Group::named(spec.name.clone()));
        let guaranteed = spec.nodes * u32::from(g);
        snap.quotas.push(Quota::guaranteeing(group, ModelId(0), Category::Training, guaranteed));
        if members.len() > 1 && guaranteed > 0 {
            snap.loans.push(Loan {
                id: LoanId(local as u64),
                lender: group,
                borrower: None,
                model: ModelId(0),
                gpus: guaranteed,
                ends_at: None,
            });
        }
        for n in 0..spec.nodes {
            snap.nodes.push(Node {
                name: format!("{}-{n}", spec.name),
                pool: "sim".into(),
                model: ModelId(0),
                gpus: g,
                nvlink_domains: Vec::new(),
                healthy: true,
            });
        }
    }
    snap
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apportions_by_largest_remainder() {
        assert_eq!(apportion(10, &[1, 1, 1]), vec![4, 3, 3]);
        assert_eq!(apportion(8, &[64, 32, 0]), vec![5, 3, 0]);
        assert_eq!(apportion(5, &[0, 0]), vec![0, 0]);
    }

    #[test]
    fn sizes_need_a_groups_file_or_a_node_count() {
        assert!(resolve_groups(None, None, 1.0, &[]).is_err());
        let eq = resolve_groups(None, Some(8), 0.5, &["a".into(), "b".into()]).unwrap();
        assert_eq!(
            eq,
            vec![GroupSpec { name: "a".into(), nodes: 2 }, GroupSpec { name: "b".into(), nodes: 2 }]
        );
        let file = resolve_groups(Some(vec![("x".into(), 64), ("y".into(), 8)]), None, 0.25, &[]).unwrap();
        assert_eq!(file.iter().map(|g| g.nodes).collect::<Vec<_>>(), vec![16, 2]);
    }
}

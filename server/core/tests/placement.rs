//! Topology-aware placement: gangs all or nothing, NVLink domains kept whole, best fit.
//! // T1, D1

mod common;

use common::{placed, reason, run, slots};
use tidepool_core::testkit::{alloc, cluster, job};
use tidepool_core::{Reason, Topology};

// T1, D1: a multi-node job is a gang; with 12 of the 16 GPUs it needs free it takes
// nothing at all (no partial start), and nothing else may take its reserved GPUs.
#[test]
fn a_gang_short_of_gpus_takes_nothing() {
    let snap = cluster()
        .nodes(2, 8)
        .group("a", 32)
        .running(alloc(10).on(0, 0x0F).limit(3600))
        .pending(job(1).gpus(16))
        .pending(job(2).gpus(1).limit(7200).at(1))
        .build();
    let plan = run(&snap, 1000);
    assert!(plan.placements.is_empty(), "{plan:#?}");
    assert_eq!(reason(&plan, 1), &Reason::Reserved { start_at: 3600 });
    let r = plan.reservations.first().expect("the gang is the highest blocked job");
    let mut reserved: Vec<(u32, u64)> = r.slots.iter().map(|s| (s.node.0, s.gpus)).collect();
    reserved.sort_unstable();
    assert_eq!(reserved, vec![(0, 0xFF), (1, 0xFF)], "two whole nodes once job 10 ends");
    assert!(matches!(reason(&plan, 2), Reason::WouldDelay { .. }));
}

// T1: with 16 free the gang starts at once, on two whole nodes rather than spread over
// three partly used ones.
#[test]
fn a_gang_with_enough_gpus_gets_whole_nodes() {
    let snap =
        cluster().nodes(3, 8).group("a", 32).running(alloc(10).on(1, 0b11)).pending(job(1).gpus(16)).build();
    let plan = run(&snap, 1000);
    assert_eq!(slots(placed(&plan, 1)), vec![(0, 0xFF), (2, 0xFF)]);
    assert!(plan.holds.is_empty());
}

// T1: a gang may not be spread when its topology asks for one node.
#[test]
fn a_same_node_job_is_never_split_across_nodes() {
    let snap = cluster()
        .nodes(2, 4)
        .group("a", 16)
        .config(|c| c.backfill = false)
        .running(alloc(10).on(0, 0b0011))
        .running(alloc(11).on(1, 0b0011))
        .pending(job(1).gpus(4).topology(Topology::SameNode))
        .build();
    let plan = run(&snap, 1000);
    assert!(plan.placements.is_empty());
    assert_eq!(reason(&plan, 1), &Reason::Fragmented { requested: 4, free: 4 });
}

// T1: a 4-GPU job lands inside one NVLink domain when one has room, even though the
// lowest free GPUs would straddle two domains.
#[test]
fn a_multi_gpu_job_lands_inside_one_nvlink_domain() {
    // One node, domains {0..3} and {4..7}; GPUs 0 and 1 are busy.
    let base = || cluster().nvlink_nodes(1, 8, 4).group("a", 16).running(alloc(10).on(0, 0b0000_0011));
    let table: [(u32, Topology, u64, &str); 4] = [
        (4, Topology::Any, 0b1111_0000, "the empty domain, not GPUs 2..5"),
        (2, Topology::Any, 0b0000_1100, "the fuller domain that still fits (best fit)"),
        (3, Topology::SameNvlink, 0b0111_0000, "only the empty domain has 3"),
        (5, Topology::Any, 0b1111_0100, "no domain has 5: the whole free domain, then one more"),
    ];
    for (gpus, topology, mask, why) in table {
        let snap = base().pending(job(1).gpus(gpus).topology(topology)).build();
        let plan = run(&snap, 1000);
        assert_eq!(slots(placed(&plan, 1)), vec![(0, mask)], "{gpus} GPUs {topology:?}: {why}");
    }
}

// T1: SameNvlink refuses a placement split over two domains; Any accepts it.
#[test]
fn same_nvlink_refuses_a_split() {
    // Domains {0..3} and {4..7}, two GPUs busy in each: 4 free, but no domain has 4.
    let snap = |topology| {
        cluster()
            .nvlink_nodes(1, 8, 4)
            .group("a", 16)
            .config(|c| c.backfill = false)
            .running(alloc(10).on(0, 0b0000_0011))
            .running(alloc(11).on(0, 0b0011_0000))
            .pending(job(1).gpus(4).topology(topology))
            .build()
    };
    let plan = run(&snap(Topology::SameNvlink), 1000);
    assert!(plan.placements.is_empty());
    assert_eq!(reason(&plan, 1), &Reason::Fragmented { requested: 4, free: 4 });

    let plan = run(&snap(Topology::Any), 1000);
    assert_eq!(slots(placed(&plan, 1)), vec![(0, 0b1100_1100)]);
}

// D1: best fit: a job goes to the fullest node that still fits it, keeping emptier
// nodes whole for larger jobs.
#[test]
fn best_fit_picks_the_fullest_node_that_fits() {
    // Free GPUs: node 0 has 8, node 1 has 3, node 2 has 5.
    let base = || {
        cluster()
            .nodes(3, 8)
            .group("a", 32)
            .running(alloc(10).on(1, 0b0001_1111))
            .running(alloc(11).on(2, 0b0000_0111))
    };
    let table: [(u32, u32); 5] = [(1, 1), (3, 1), (4, 2), (5, 2), (6, 0)];
    for (gpus, node) in table {
        let plan = run(&base().pending(job(1).gpus(gpus)).build(), 1000);
        let p = placed(&plan, 1);
        assert_eq!(p.slots.len(), 1, "{gpus} GPUs fit on one node");
        assert_eq!(p.slots[0].node.0, node, "{gpus} GPUs go to node {node}");
        assert_eq!(p.slots[0].gpus.count_ones(), gpus);
    }
}

// D1: within one cycle, each placement sees the GPUs the previous ones took.
#[test]
fn placements_in_one_cycle_never_share_a_gpu() {
    let snap = cluster()
        .nodes(2, 4)
        .group("a", 8)
        .pending(job(1).gpus(3))
        .pending(job(2).gpus(3).at(1))
        .pending(job(3).gpus(2).at(2))
        .build();
    let plan = run(&snap, 10);
    assert_eq!(slots(placed(&plan, 1)), vec![(0, 0b0111)]);
    assert_eq!(slots(placed(&plan, 2)), vec![(1, 0b0111)]);
    // Two GPUs are left, one on each node: a 2-GPU job of topology Any is spread.
    assert_eq!(slots(placed(&plan, 3)), vec![(0, 0b1000), (1, 0b1000)]);
}

// T1: an unhealthy node offers nothing, and a job that only it could hold can never run.
#[test]
fn unhealthy_nodes_offer_no_gpus() {
    let mut snap =
        cluster().nodes(2, 8).group("a", 32).pending(job(1).gpus(8)).pending(job(2).gpus(16)).build();
    snap.nodes[0].healthy = false;
    let plan = run(&snap, 10);
    assert_eq!(slots(placed(&plan, 1)), vec![(1, 0xFF)]);
    assert_eq!(reason(&plan, 2), &Reason::Infeasible { requested: 16, largest: 8 });
}

// What the server reads to batch submissions while nothing is free: the GPUs of healthy
// nodes that neither a running job nor this plan's placements hold.
#[test]
fn idle_gpus_count_what_neither_running_jobs_nor_placements_hold() {
    let mut snap =
        cluster().nodes(3, 8).group("a", 32).running(alloc(10).on(0, 0x0F)).pending(job(1).gpus(2)).build();
    snap.nodes[2].healthy = false;
    let plan = run(&snap, 1000);
    assert_eq!(plan.placements.len(), 1, "{plan:#?}");
    // 16 GPUs on healthy nodes, 4 running, 2 just placed.
    assert_eq!(plan.idle_gpus(&snap), 10);
    assert_eq!(tidepool_core::Plan::default().idle_gpus(&snap), 12, "before placing");
}

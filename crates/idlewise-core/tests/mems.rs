//! MEMS replay invariants on random traces (the DiskSim match itself is tested from Python on
//! DiskSim's own runs, `tests/test_mems_disksim.py`).

use idlewise_core::policy::PolicySpec;
use idlewise_core::{evaluate, Device, ReplayOptions, TraceView};
use proptest::prelude::*;

fn g2() -> Device {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/idlewise/catalog/cmu-mems-g2.toml")).unwrap();
    Device::from_toml(&text, "cmu-mems-g2").unwrap()
}

const POLICIES: [&str; 4] = ["timeout:0s", "timeout:1ms", "timeout:10ms", "timeout:100ms"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn time_is_conserved_and_every_request_pays_its_overhead_and_media(
        items in prop::collection::vec((0.0f64..1.0, 0u32..5, 0i64..6_000_000, 1i64..64, any::<bool>()), 1..200),
    ) {
        let device = g2();
        let mut t = 0.0;
        let (mut times, mut offsets, mut sizes, mut ops) = (vec![], vec![], vec![], vec![]);
        for (u, decade, block, blocks, write) in items {
            // Gaps from 10 us to 1 s: queueing, idle sweeps and stopped sleds all occur.
            t += 10f64.powi(decade as i32 - 5) * u * 10.0;
            times.push(t);
            offsets.push(block * 512);
            sizes.push(blocks * 512);
            ops.push(u8::from(write));
        }
        let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
        let specs: Vec<PolicySpec> = POLICIES.iter().map(|s| PolicySpec::parse(s).unwrap()).collect();
        let reports = evaluate(&trace, &device, &specs, &ReplayOptions::default(), None).unwrap();
        // The least a request can take: command overhead, one servo burst and one tip sector
        // (90 bits at 28 mm/s = 0.1286 ms), one sector over the bus.
        let floor_s = 0.0002 + 0.00012857 + 0.00000512;
        for r in &reports {
            let run = &r.run;
            prop_assert_eq!(run.requests, times.len() as u64);
            let accounted = run.accounted_time_s();
            prop_assert!((accounted - run.makespan_s).abs() <= 1e-9 * run.makespan_s.max(1.0), "{}: {} vs {}", run.policy, accounted, run.makespan_s);
            let parts: f64 = run.energy_by_mode_j.iter().sum::<f64>() + run.transition_energy_j + run.service_energy_j;
            prop_assert!((parts - run.energy_j).abs() <= 1e-9 * run.energy_j.max(1.0));
            // Nothing draws less than the stopped sled.
            prop_assert!(run.energy_j >= 0.050 * run.makespan_s * (1.0 - 1e-9));
            prop_assert!(run.mean_response_s >= floor_s * (1.0 - 1e-9), "{}: {}", run.policy, run.mean_response_s);
        }
    }
}

//! MEMS replay invariants on random traces (the DiskSim match itself is tested from Python on
//! DiskSim's own runs, `tests/test_mems_disksim.py`).

mod common;

use idlewise_core::policy::PolicySpec;
use idlewise_core::{evaluate, Device, ReplayOptions, TraceView};
use proptest::prelude::*;

fn catalog(name: &str) -> Device {
    let text = std::fs::read_to_string(format!("{}/../../python/idlewise/catalog/{name}.toml", env!("CARGO_MANIFEST_DIR"))).unwrap();
    Device::from_toml(&text, name).unwrap()
}

fn g2() -> Device {
    catalog("cmu-mems-g2")
}

/// A random trace: gaps from 10 us to 1 s (queueing, idle sweeps, interrupted and finished
/// shutdowns all occur), blocks anywhere on a device of `blocks` blocks.
fn trace_columns(items: Vec<(f64, u32, i64, i64, bool)>, blocks: i64) -> (Vec<f64>, Vec<i64>, Vec<i64>, Vec<u8>) {
    let mut t = 0.0;
    let (mut times, mut offsets, mut sizes, mut ops) = (vec![], vec![], vec![], vec![]);
    for (u, decade, block, size, write) in items {
        t += 10f64.powi(decade as i32 - 5) * u * 10.0;
        times.push(t);
        offsets.push((block % (blocks - size)) * 512);
        sizes.push(size * 512);
        ops.push(u8::from(write));
    }
    (times, offsets, sizes, ops)
}

const POLICIES: [&str; 4] = ["timeout:0s", "timeout:1ms", "timeout:10ms", "timeout:100ms"];

proptest! {
    #![proptest_config(common::config(300))]

    #[test]
    fn time_is_conserved_and_every_request_pays_its_overhead_and_media(
        items in prop::collection::vec((0.0f64..1.0, 0u32..5, 0i64..6_000_000, 1i64..64, any::<bool>()), 1..200),
    ) {
        let device = g2();
        let (times, offsets, sizes, ops) = trace_columns(items, 6_750_000);
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

proptest! {
    #![proptest_config(common::config(200))]

    /// Seed 004's device under both shutdown policies: time conserved, the theoretical minima
    /// below every policy, and the shutdowns' time and energy in the transitions.
    #[test]
    fn no_policy_beats_the_theoretical_minimum(
        items in prop::collection::vec((0.0f64..1.0, 0u32..5, 0i64..4_320_000, 1i64..64, any::<bool>()), 1..200),
        energy_efficient in any::<bool>(),
    ) {
        let mut device = catalog("ibm-mems-seed004");
        if energy_efficient {
            device = device.with_mems_shutdown("ee").unwrap();
        }
        let (times, offsets, sizes, ops) = trace_columns(items, 4_320_000);
        let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
        let specs: Vec<PolicySpec> = POLICIES.iter().map(|s| PolicySpec::parse(s).unwrap()).collect();
        let reports = evaluate(&trace, &device, &specs, &ReplayOptions::default(), None).unwrap();
        for r in &reports {
            let run = &r.run;
            let accounted = run.accounted_time_s();
            prop_assert!((accounted - run.makespan_s).abs() <= 1e-9 * run.makespan_s.max(1.0), "{}: {} vs {}", run.policy, accounted, run.makespan_s);
            prop_assert!(run.time_by_mode_s.iter().all(|&t| t >= -1e-12), "{:?}", run.time_by_mode_s);
            let least_j = run.theoretical_min_energy_j().unwrap();
            let least_s = run.theoretical_min_response_s().unwrap();
            prop_assert!(run.energy_j >= least_j * (1.0 - 1e-9), "{}: {} J below the minimum {} J", run.policy, run.energy_j, least_j);
            prop_assert!(least_j >= 0.005 * run.makespan_s * (1.0 - 1e-9));
            prop_assert!(least_s > 0.0);
            let shutdowns: u64 = run.transition_counts.iter().filter(|(from, _, _)| from == "idle").map(|(_, _, c)| c).sum();
            prop_assert_eq!(shutdowns > 0, run.transition_time_s > 0.0, "{}", run.policy);
        }
    }
}

/// Two traces random testing found, on seed 004's device with the energy-efficient shutdown: a
/// run that shuts down at once and serves the next request from the centre (a longer seek for
/// less energy), then the request queued behind it from where that seek ended, spends exactly
/// the least energy — and once spent 8.8e-8 J and 1.6e-7 J less than the "least", which took
/// the cheapest way request by request, charged the direct seek's time and went on from where
/// the direct seek ended.
#[test]
fn a_run_through_the_centre_spends_the_least_energy_and_no_less() {
    let device = catalog("ibm-mems-seed004").with_mems_shutdown("ee").unwrap();
    for items in [
        vec![(0.0, 0, 3446464, 1, false), (0.3326714883253397, 3, 1738176, 1, false)],
        vec![(0.0, 0, 3905808, 49, false), (0.26089249519134683, 3, 637583, 50, false), (0.0, 0, 380992, 1, false)],
    ] {
        let (times, offsets, sizes, ops) = trace_columns(items, 4_320_000);
        let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
        let specs: Vec<PolicySpec> = POLICIES.iter().map(|s| PolicySpec::parse(s).unwrap()).collect();
        let reports = evaluate(&trace, &device, &specs, &ReplayOptions::default(), None).unwrap();
        for r in &reports {
            let least_j = r.run.theoretical_min_energy_j().unwrap();
            assert!(r.run.energy_j >= least_j * (1.0 - 1e-12), "{}: {} J below the least {} J", r.run.policy, r.run.energy_j, least_j);
        }
        let at_once = reports.iter().find(|r| r.run.policy == "timeout:0s").unwrap();
        let least_j = at_once.run.theoretical_min_energy_j().unwrap();
        assert!((at_once.run.energy_j / least_j - 1.0).abs() < 1e-12, "{} J against the least {} J", at_once.run.energy_j, least_j);
    }
}

/// Seed 004 §6.2's shutdown figures for the IBM sled: two are what the acceleration was fitted
/// to (PE), two are predictions (EE), and so is "EE saves at least 40 % of the energy".
#[test]
fn seed_004_shutdown_times_and_the_energy_efficient_saving() {
    let pe = catalog("ibm-mems-seed004");
    let ee = pe.with_mems_shutdown("ee").unwrap();
    let cost = |d: &Device, x_um: f64, y_um: f64| d.service.mems.as_ref().unwrap().shutdown_cost_m(x_um * 1e-6, y_um * 1e-6).unwrap();
    for (device, x_um, seed_ms, tolerance) in [(&pe, 5.0, 0.6, 0.03), (&pe, 45.0, 1.6, 0.03), (&ee, 5.0, 1.6, 0.05), (&ee, 45.0, 2.0, 0.05)] {
        let ms = cost(device, x_um, 0.0).time_s * 1e3;
        assert!((ms / seed_ms - 1.0).abs() < tolerance, "{x_um} um: {ms} ms against the seed's {seed_ms}");
    }
    let mut least_saving: f64 = 1.0;
    for i in 0..=20 {
        for j in 0..=20 {
            let (x, y) = (-50.0 + 5.0 * i as f64, -50.0 + 5.0 * j as f64);
            if x == 0.0 && y == 0.0 {
                continue;
            }
            let (p, e) = (cost(&pe, x, y), cost(&ee, x, y));
            assert!(e.time_s >= p.time_s);
            least_saving = least_saving.min(1.0 - e.energy_j / p.energy_j);
        }
    }
    assert!((0.40..0.45).contains(&least_saving), "{least_saving}");
}

/// One request, then nothing for a second under `timeout:0s`: the sled shuts down from where
/// the request left it, and the ledger holds exactly that shutdown; a second request 0.3 ms
/// after the first ends interrupts it, and the sled brakes before seeking.
#[test]
fn shutdowns_are_charged_from_where_the_sled_stopped() {
    use idlewise_core::mechanics::mems::SledStart;
    let device = catalog("ibm-mems-seed004");
    let service = device.service.mems.as_ref().unwrap();
    let spec = [PolicySpec::parse("timeout:0s").unwrap()];
    // Block 100,000 of 4 KiB: where does the first request leave the sled, and when?
    let mut pos = service.rest;
    let first = service.serve(&mut pos, SledStart::Queued, 100_000, 8);
    let full = service.shutdown_cost(pos).unwrap();
    assert!(full.time_s > 0.5e-3 && full.time_s < 2.1e-3, "{}", full.time_s);

    let times = [0.0, 1.0];
    let trace = TraceView::new(&times, &[100_000 * 512, 100_000 * 512], &[4096, 4096], &[0, 0]).unwrap();
    let run = &evaluate(&trace, &device, &spec, &ReplayOptions::default(), None).unwrap()[0].run;
    // The second request's shutdown, from where it left the sled (the same block again, from
    // the centre), runs until the run ends: when its 8 sectors have crossed the bus.
    let mut again = service.rest;
    service.serve(&mut again, SledStart::Stopped, 100_000, 8);
    let bus_s = 8.0 * 5.12e-6;
    let (_, cut, _) = service.interrupt_shutdown(again, bus_s).unwrap();
    assert!((run.transition_time_s - full.time_s - bus_s).abs() < 1e-12, "{} vs {} + {bus_s}", run.transition_time_s, full.time_s);
    let expected_j = full.energy_j + cut.energy_j + 0.005 * (full.time_s + bus_s);
    assert!((run.transition_energy_j - expected_j).abs() < 1e-12, "{} vs {expected_j}", run.transition_energy_j);

    // Interrupted 0.3 ms into the shutdown.
    let t2 = first.media_ms / 1e3 + 0.3e-3;
    let times = [0.0, t2];
    let trace = TraceView::new(&times, &[100_000 * 512, 100_000 * 512], &[4096, 4096], &[0, 0]).unwrap();
    let run = &evaluate(&trace, &device, &spec, &ReplayOptions::default(), None).unwrap()[0].run;
    let (stop, before, braking) = service.interrupt_shutdown(pos, 0.3e-3).unwrap();
    assert!((before.time_s - 0.3e-3).abs() < 1e-12 && braking.time_s > 0.0);
    let mut from_stop = stop;
    let resumed = service.serve(&mut from_stop, SledStart::Queued, 100_000, 8);
    // The second request: braking, then its seek and media from where the sled stopped, then
    // its sectors over the bus; the last shutdown runs to the end.
    let media_end_s = t2 + braking.time_s + resumed.media_ms / 1e3;
    assert!((run.first_arrival_s + run.makespan_s - media_end_s - bus_s).abs() < 1e-12);
    let expected_s = 0.3e-3 + braking.time_s + bus_s;
    assert!((run.transition_time_s - expected_s).abs() < 1e-12, "{} vs {expected_s}", run.transition_time_s);
}

/// Seed 004's probe power, both conventions, by hand. A 4 KB read at block 0 is one pass over
/// 8 blocks × 64 tip sectors = 512 tips for one 90-bit tip sector (servo burst and data) at
/// 40 kbit/s: 2.25 ms. Charging every active tip (`all-tips`, the seed's 1 W) instead of the 512
/// it uses adds 3,584 × 0.244140625 mW over those 2.25 ms: 1.96875 mJ exactly. A 32 KB read uses
/// all 4,096 tips: the two conventions charge the same, to the bit.
#[test]
fn probe_power_conventions_differ_by_the_tips_a_pass_leaves_idle() {
    let per_tip = catalog("ibm-mems-seed004");
    let all_tips = per_tip.with_probe_power("all-tips").unwrap();
    assert!(per_tip.with_probe_power("some-tips").unwrap_err().to_string().contains("probe_power"));
    assert!(g2().with_probe_power("all-tips").is_ok());
    let service_j = |device: &Device, bytes: i64| {
        let (times, offsets, sizes, ops) = ([1.0], [0i64], [bytes], [0u8]);
        let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
        let mut policy = PolicySpec::parse("always-on").unwrap().build(device, &Default::default()).unwrap();
        idlewise_core::replay(&trace, device, policy.as_mut(), &ReplayOptions::default()).unwrap().service_energy_j
    };
    let extra_j = service_j(&all_tips, 4096) - service_j(&per_tip, 4096);
    assert!((extra_j - 1.96875e-3).abs() < 1e-12, "{extra_j}");
    assert_eq!(service_j(&all_tips, 32768), service_j(&per_tip, 32768));
}

proptest! {
    #![proptest_config(common::config(60))]

    /// Policies replayed alone (`without_references`) are the same runs as beside always-on and
    /// the oracle, to the bit: on a MEMS sled (whose references are two more replays) and on a
    /// disk with a seek curve (where the timeouts share one replay), with a policy outside the
    /// family and the oracle as a policy. Only the normalisations and the theoretical minima,
    /// which come from the references, are absent.
    #[test]
    fn policies_alone_are_the_runs_they_are_beside_the_references(
        items in prop::collection::vec((0.0f64..1.0, 0u32..7, 0i64..6_000_000, 1i64..64, any::<bool>()), 1..300),
        threads in 1usize..3,
    ) {
        let (times, offsets, sizes, ops) = trace_columns(items, 6_750_000);
        let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
        for (device, policies) in [
            (g2(), vec!["timeout:0s", "timeout:10ms", "oracle"]),
            (catalog("hitachi-travelstar-5k320"), vec!["timeout:100ms", "timeout:1s", "timeout:5s", "stpm:knob=50", "oracle"]),
        ] {
            let specs: Vec<PolicySpec> = policies.iter().map(|s| PolicySpec::parse(s).unwrap()).collect();
            let with = idlewise_core::evaluate_on(&trace, &device, &specs, &ReplayOptions::default(), None, threads).unwrap();
            let alone = idlewise_core::evaluate_on(&trace, &device, &specs, &ReplayOptions { without_references: true, ..Default::default() }, None, threads).unwrap();
            // The same reports on one thread as on two.
            let one_thread = idlewise_core::evaluate_on(&trace, &device, &specs, &ReplayOptions::default(), None, 1).unwrap();
            prop_assert_eq!(format!("{:?}", one_thread), format!("{:?}", with));
            for (w, a) in with.iter().zip(&alone) {
                prop_assert!(w.normalized_energy.is_some() && w.energy_vs_oracle.is_some());
                prop_assert!(a.normalized_energy.is_none() && a.normalized_system_energy.is_none() && a.normalized_mean_response.is_none() && a.energy_vs_oracle.is_none());
                prop_assert!(a.run.theoretical_min.is_none());
                prop_assert_eq!(w.run.theoretical_min.is_some(), device.name.contains("mems"));
                let mut run = w.run.clone();
                run.theoretical_min = None;
                prop_assert_eq!(format!("{:?}", run), format!("{:?}", a.run), "{}", w.run.policy);
                prop_assert_eq!(w.years_to_rated_cycles, a.years_to_rated_cycles);
            }
        }
    }
}

/// A sled's runs dealt over threads once a part is worth them (30,000 requests under three runs
/// and two references replayed apart): every report, normalisations and minima included, is the
/// one a single thread gives, bit for bit.
#[test]
fn a_sled_s_references_dealt_over_threads_give_one_thread_s_reports() {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let items: Vec<(f64, u32, i64, i64, bool)> = (0..30_000)
        .map(|_| ((next() % 1000) as f64 / 1000.0, (next() % 6) as u32, (next() % 6_000_000) as i64, 1 + (next() % 63) as i64, next() % 3 == 0))
        .collect();
    let (times, offsets, sizes, ops) = trace_columns(items, 6_750_000);
    let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
    let specs: Vec<PolicySpec> = ["timeout:1ms", "timeout:100ms", "oracle"].iter().map(|s| PolicySpec::parse(s).unwrap()).collect();
    let one = idlewise_core::evaluate_on(&trace, &g2(), &specs, &ReplayOptions::default(), None, 1).unwrap();
    for threads in [2, 3] {
        let dealt = idlewise_core::evaluate_on(&trace, &g2(), &specs, &ReplayOptions::default(), None, threads).unwrap();
        assert_eq!(format!("{dealt:?}"), format!("{one:?}"), "{threads} threads");
    }
    assert!(one.iter().all(|r| r.energy_vs_oracle.is_some() && r.run.theoretical_min.is_some()));
}

/// A MEMS text trace read as a user's command reads it (chunk by chunk, a sled's chunk now worth
/// a thread, the oracle replayed on the policies' thread): the same reports on two threads as
/// on one, bit for bit, references and a sweep's timeouts alike.
#[test]
fn a_streamed_sled_trace_gives_one_thread_s_reports_on_two() {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/mems-disksim/visible.trace"));
    for policies in [vec!["timeout:100ms"], vec!["timeout:0ms", "timeout:50ms", "oracle"]] {
        let specs: Vec<PolicySpec> = policies.iter().map(|s| PolicySpec::parse(s).unwrap()).collect();
        let read = |threads| idlewise_core::stream::evaluate_file(path, "disksim", &g2(), &specs, &ReplayOptions::default(), None, None, threads, None).unwrap();
        let one = read(1);
        assert_eq!(one.volumes[0].1, 20_000);
        let known = |key: &str| matches!(one.runs.column(key), Some(idlewise_core::run_table::Values::Maybe(_, missing)) if !missing.contains(&true));
        assert!(known("energy_vs_oracle") && known("theoretical_min_energy_j") && known("theoretical_min_response_s"));
        assert_eq!(format!("{:?}", read(2)), format!("{one:?}"), "{policies:?}");
    }
}

/// One sled policy replayed alone (no references) on a command's two threads: its blocks are cut
/// into segments, one speculated on the second thread (`Replay::feed_helped`), and the report is
/// one thread's bit for bit, in memory and streamed from the file alike.
#[test]
fn one_sled_policy_alone_on_two_threads_gives_one_thread_s_report() {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/mems-disksim/visible.trace"));
    let bytes = std::fs::read(path).unwrap();
    let base = idlewise_core::readers::read("disksim", &bytes).unwrap();
    // Five copies end to end: 100,000 requests, blocks worth cutting.
    let span = base.time_s[base.time_s.len() - 1] - base.time_s[0] + 0.01;
    let (mut times, mut offsets, mut sizes, mut ops) = (vec![], vec![], vec![], vec![]);
    for copy in 0..5 {
        for i in 0..base.time_s.len() {
            times.push(base.time_s[i] - base.time_s[0] + copy as f64 * span);
            offsets.push(base.offset_bytes[i]);
            sizes.push(base.size_bytes[i]);
            ops.push(base.is_write[i]);
        }
    }
    let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
    let alone = ReplayOptions { without_references: true, fold_offsets: true, ..Default::default() };
    for policy in ["timeout:100ms", "timeout:0s", "timeout:10s"] {
        let specs = vec![PolicySpec::parse(policy).unwrap()];
        let one = idlewise_core::evaluate_on(&trace, &g2(), &specs, &alone, None, 1).unwrap();
        let two = idlewise_core::evaluate_on(&trace, &g2(), &specs, &alone, None, 2).unwrap();
        assert_eq!(format!("{two:?}"), format!("{one:?}"), "{policy}");
        assert!(one[0].energy_vs_oracle.is_none());
        let read = |threads| idlewise_core::stream::evaluate_file(path, "disksim", &g2(), &specs, &alone, None, None, threads, None).unwrap();
        assert_eq!(format!("{:?}", read(2)), format!("{:?}", read(1)), "{policy}, streamed");
    }
}

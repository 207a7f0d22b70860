//! Runs that share one replay (`family.rs`: timeouts, cascades, EPC, APST, breakeven) give the
//! rows of separate replays: every field, every generated trace, device and option, fed in parts
//! of any size. Counts exactly; times, energies and responses to 1e-12 relative.

mod common;

use std::sync::Arc;

use idlewise_core::evaluate::Runs;
use idlewise_core::policy::PolicySpec;
use idlewise_core::{Device, ReplayMode, ReplayOptions, ResponseFrom, TraceView};
use proptest::prelude::*;

fn catalog(name: &str) -> Device {
    let path = format!("{}/../../python/idlewise/catalog/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    Device::from_toml(&std::fs::read_to_string(&path).unwrap(), &path).unwrap()
}

fn random_device(p: [f64; 3], t: [f64; 5], e: [f64; 5]) -> Device {
    Device::from_toml(
        &format!(
            "name='chain3'\nkind='disk'\n[[modes]]\nname='a'\npower_w={}\nserves=true\n[[modes]]\nname='b'\npower_w={}\n[[modes]]\nname='c'\npower_w={}\n\
             [[transitions]]\nfrom='a'\nto='b'\ntime_s={}\nenergy_j={}\n[[transitions]]\nfrom='b'\nto='a'\ntime_s={}\nenergy_j={}\n\
             [[transitions]]\nfrom='b'\nto='c'\ntime_s={}\nenergy_j={}\n[[transitions]]\nfrom='c'\nto='a'\ntime_s={}\nenergy_j={}\n\
             [[transitions]]\nfrom='a'\nto='c'\ntime_s={}\nenergy_j={}\n\
             [service]\noverhead_s=0.002\nread_bandwidth_bytes_per_s=5e6\nwrite_bandwidth_bytes_per_s=5e6\nactive_power_w=1.5\n",
            p[0], p[1], p[2], t[0], e[0], t[1], e[1], t[2], e[2], t[3], e[3], t[4], e[4]
        ),
        "random-chained",
    )
    .unwrap()
}

/// Bursts and idle gaps over six decades; original times (a transform's) up to 10 ms later.
fn trace_strategy() -> impl Strategy<Value = (Vec<f64>, Vec<i64>, Vec<i64>, Vec<u8>, Vec<f64>)> {
    prop::collection::vec((0.0f64..1.0, 0u32..6, 512i64..200_000, 0i64..1_000_000, any::<bool>(), 0.0f64..0.01), 1..300).prop_map(|items| {
        let mut t = 0.0;
        let mut out = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (u, decade, size, block, write, late) in items {
            t += 10f64.powi(decade as i32 - 3) * u * 10.0;
            out.0.push(t);
            out.1.push(block * 4096);
            out.2.push(size);
            out.3.push(u8::from(write));
            out.4.push(t + late);
        }
        out
    })
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs()) + 1e-15
}

fn same(shared: &idlewise_core::Report, separate: &idlewise_core::Report) -> Result<(), TestCaseError> {
    let (a, b) = (&shared.run, &separate.run);
    let what = &a.policy;
    prop_assert_eq!(&a.policy, &b.policy);
    prop_assert_eq!(a.requests, b.requests, "{}", what);
    prop_assert_eq!(a.wakeups, b.wakeups, "{}", what);
    prop_assert_eq!(a.cycle_wakeups, b.cycle_wakeups, "{}", what);
    prop_assert_eq!(a.load_unload_wakeups, b.load_unload_wakeups, "{}", what);
    prop_assert_eq!(a.delayed_requests, b.delayed_requests, "{}", what);
    prop_assert_eq!(&a.transition_counts, &b.transition_counts, "{}", what);
    for (x, y, name) in [
        (a.first_arrival_s, b.first_arrival_s, "first_arrival_s"),
        (a.makespan_s, b.makespan_s, "makespan_s"),
        (a.transition_time_s, b.transition_time_s, "transition_time_s"),
        (a.transition_energy_j, b.transition_energy_j, "transition_energy_j"),
        (a.service_time_s, b.service_time_s, "service_time_s"),
        (a.service_energy_j, b.service_energy_j, "service_energy_j"),
        (a.energy_j, b.energy_j, "energy_j"),
        (a.system_energy_j, b.system_energy_j, "system_energy_j"),
        (a.mean_response_s, b.mean_response_s, "mean_response_s"),
        (a.p50_response_s, b.p50_response_s, "p50_response_s"),
        (a.p95_response_s, b.p95_response_s, "p95_response_s"),
        (a.p99_response_s, b.p99_response_s, "p99_response_s"),
        (a.max_response_s, b.max_response_s, "max_response_s"),
        (shared.energy_vs_oracle.expect("references replayed"), separate.energy_vs_oracle.expect("references replayed"), "energy_vs_oracle"),
    ] {
        prop_assert!(close(x, y), "{what}: {name} shared {x} against separate {y}");
    }
    for (m, (x, y)) in a.time_by_mode_s.iter().zip(&b.time_by_mode_s).enumerate() {
        prop_assert!(close(*x, *y), "{what}: time in mode {m} shared {x} against separate {y}");
    }
    for (m, (x, y)) in a.energy_by_mode_j.iter().zip(&b.energy_by_mode_j).enumerate() {
        prop_assert!(close(*x, *y), "{what}: energy in mode {m} shared {x} against separate {y}");
    }
    // Always-on as a policy is replayed on its own; the reference always-on rides in the
    // family (its shared run is always-on's replay) and must be that replay bit for bit.
    if a.policy == "always-on" {
        for (report, how) in [(shared, "shared"), (separate, "separate")] {
            prop_assert_eq!(report.normalized_energy, Some(1.0), "always-on's energy against the reference's, {}", how);
            prop_assert_eq!(report.normalized_system_energy, Some(1.0), "always-on's system energy against the reference's, {}", how);
            prop_assert_eq!(report.normalized_mean_response, Some(1.0), "always-on's mean response against the reference's, {}", how);
        }
    }
    Ok(())
}

/// `n` requests from a xorshift stream seeded with `seed`: each gap `gap(r)` of the draw, 4 KiB
/// blocks anywhere in the first `blocks`, 1 to `max_blocks` of them, reads and writes alike.
fn generated(n: usize, seed: u64, blocks: u64, max_blocks: u64, gap: impl Fn(u64) -> f64) -> (Vec<f64>, Vec<i64>, Vec<i64>, Vec<u8>) {
    let mut state = seed;
    let (mut times, mut offsets, mut sizes, mut ops) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut t = 0.0;
    for _ in 0..n {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let r = state;
        t += gap(r);
        times.push(t);
        offsets.push(((r >> 8) % blocks) as i64 * 4096);
        sizes.push(4096 * (1 + ((r >> 40) % max_blocks) as i64));
        ops.push(u8::from(r >> 63 == 1));
    }
    (times, offsets, sizes, ops)
}

/// The reports of `specs`, the trace fed in parts cut at `cuts` (fractions), sharing a replay
/// or each on its own.
fn reports(device: &Device, specs: &[PolicySpec], trace: &TraceView, opts: &ReplayOptions, cuts: &[f64]) -> Vec<idlewise_core::Report> {
    let arc = Arc::new(device.clone());
    let mut runs = Runs::new(&arc, specs, opts, trace.arrival_s[0], 0).unwrap();
    let mut from = 0;
    let mut ends: Vec<usize> = cuts.iter().map(|c| (c * trace.len() as f64) as usize).collect();
    ends.push(trace.len());
    ends.sort_unstable();
    for to in ends {
        if to > from {
            runs.feed(&trace.slice(from, to), 1, None);
            from = to;
        }
    }
    runs.finish(device, Some(trace)).unwrap()
}

fn check(device: &Device, specs: &[&str], trace: &TraceView, opts: &ReplayOptions, cuts: &[f64]) -> Result<(), TestCaseError> {
    let specs: Vec<PolicySpec> = specs.iter().map(|s| PolicySpec::parse(s).unwrap()).collect();
    let shared = reports(device, &specs, trace, opts, cuts);
    let separate = reports(device, &specs, trace, &ReplayOptions { separate_runs: true, ..opts.clone() }, cuts);
    for (a, b) in shared.iter().zip(&separate) {
        same(a, b)?;
    }
    Ok(())
}

fn options(lead_s: f64, tail_s: f64, base_power_w: f64, original: bool) -> ReplayOptions {
    ReplayOptions {
        lead_s,
        tail_s,
        base_power_w,
        response_from: if original { ResponseFrom::Original } else { ResponseFrom::Issue },
        ..Default::default()
    }
}

/// Closed and synchronous replay, and a run that starts in a low-power mode, keep every run on
/// its own; the rows are those of separate replays all the same.
fn other_replays(kind: u8) -> ReplayOptions {
    match kind {
        0 => ReplayOptions::default(),
        1 => ReplayOptions { mode: ReplayMode::Closed, ..Default::default() },
        2 => ReplayOptions { mode: ReplayMode::Sync, ..Default::default() },
        _ => ReplayOptions { initial_mode: 1, ..Default::default() },
    }
}

fn ends() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), 0.0f64..3.0, 0.0f64..1e4]
}

/// Three-mode chained devices with random powers, times and energies.
fn chained_devices() -> impl Strategy<Value = Device> {
    (0.5f64..5.0, 0.3f64..0.9, 0.0f64..0.3, prop::array::uniform5(0.0f64..2.0), prop::array::uniform5(0.0f64..5.0))
        .prop_map(|(p0, f1, f2, t, e)| random_device([p0, p0 * f1, p0 * f2], t, e))
}

/// Timeouts drawn (as many as the generated trace draws, from 0 s to 100 s), some equal to a
/// gap between the trace's arrivals: a step exactly at an arrival.
fn timeouts() -> impl Strategy<Value = (Vec<f64>, Vec<usize>)> {
    (prop::collection::vec(prop_oneof![Just(0.0), 0.0f64..0.01, 0.0f64..3.0, 0.0f64..100.0], 1..8), prop::collection::vec(0usize..300, 0..4))
}

fn timeout_specs((timeouts, picked): &(Vec<f64>, Vec<usize>), times: &[f64]) -> Vec<String> {
    let mut specs: Vec<String> = timeouts.iter().map(|s| format!("timeout:{s}s")).collect();
    for &i in picked {
        if i + 1 < times.len() {
            specs.push(format!("timeout:{}s", times[i + 1] - times[i]));
        }
    }
    specs
}

/// One run replayed on its own; `walked`: keeping per-request records, which makes the run plan
/// and walk every gap (a one-step plan's gaps are otherwise charged directly, `sleep_through`).
fn replayed(device: &Device, spec: &str, trace: &TraceView, opts: &ReplayOptions, walked: bool) -> idlewise_core::metrics::RunResult {
    let mut policy = PolicySpec::parse(spec).unwrap().build(device, &idlewise_core::policy::BuildContext { base_power_w: opts.base_power_w }).unwrap();
    let opts = ReplayOptions { keep_per_request: walked, ..opts.clone() };
    let mut run = idlewise_core::replay(trace, device, policy.as_mut(), &opts).unwrap();
    run.per_request = None;
    run
}

/// Each spec replayed with its one-step gaps taken directly and walked: the same run, bit for bit.
fn direct_equals_walked(device: &Device, specs: &[String], trace: &TraceView, opts: &ReplayOptions) -> Result<(), TestCaseError> {
    for spec in specs {
        let direct = replayed(device, spec, trace, opts, false);
        let walked = replayed(device, spec, trace, opts, true);
        prop_assert_eq!(format!("{:?}", direct), format!("{:?}", walked), "{}", spec);
    }
    Ok(())
}

proptest! {
    #![proptest_config(common::config(400))]

    /// A one-step plan's gaps charged without planning them (stay ready, or go all the way down
    /// and wake at the arrival; else walked) give the walked plan's run bit for bit: every
    /// field, on random chained devices, timeouts at and around the gaps, every replay mode,
    /// drawn wake-ups.
    #[test]
    fn one_step_gaps_taken_directly_equal_the_walked_plan_bit_for_bit(
        (times, offsets, sizes, ops, original) in trace_strategy(),
        device in chained_devices(), drawn in timeouts(),
        lead in ends(), tail in ends(), replay in 0u8..4, seed in prop::option::of(any::<u64>()),
    ) {
        let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap().with_original_s(&original).unwrap();
        let mut specs = timeout_specs(&drawn, &times);
        specs.push(format!("timeout:c={}s", drawn.0[0]));
        specs.push("breakeven".to_string());
        let opts = ReplayOptions { mode: other_replays(replay).mode, initial_mode: other_replays(replay).initial_mode, transition_seed: seed, ..options(lead, tail, 0.5, false) };
        direct_equals_walked(&device, &specs, &trace, &opts)?;
    }

    /// The same on catalog devices: a seek curve (the 5K320), wake-ups whose time is drawn
    /// (the 340 MB Microdrive, with and without a seed), the Microdrive's two modes.
    #[test]
    fn one_step_gaps_taken_directly_equal_the_walked_plan_on_catalog_devices(
        (times, offsets, sizes, ops, original) in trace_strategy(),
        which in 0usize..3, drawn in timeouts(), replay in 0u8..4, seed in prop::option::of(any::<u64>()),
    ) {
        let device = catalog(["hitachi-travelstar-5k320", "ibm-microdrive-340mb", "hitachi-microdrive-1gb"][which]);
        let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap().with_original_s(&original).unwrap();
        let opts = ReplayOptions { mode: other_replays(replay).mode, initial_mode: other_replays(replay).initial_mode, transition_seed: seed, ..options(1.0, 5.0, 0.0, replay == 0) };
        direct_equals_walked(&device, &timeout_specs(&drawn, &times), &trace, &opts)?;
    }

    #[test]
    fn shared_timeouts_equal_separate_replays_on_random_devices(
        (times, offsets, sizes, ops, original) in trace_strategy(),
        device in chained_devices(), drawn in timeouts(),
        lead in ends(), tail in ends(), base in prop_oneof![Just(0.0), 0.1f64..2.0], from_original in any::<bool>(),
        cuts in prop::collection::vec(0.0f64..1.0, 0..4), replay in 0u8..4,
    ) {
        let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap().with_original_s(&original).unwrap();
        // The timeouts drawn, a cascade and breakeven.
        let mut specs = timeout_specs(&drawn, &times);
        specs.push(format!("timeout:b={}s,c={}s", drawn.0[0], drawn.0[0] + 1.0));
        // Timeouts into the middle mode: another route down and up, among the others by time.
        specs.extend(drawn.0.iter().map(|s| format!("timeout:b={}s", s * 0.7)));
        specs.extend(["breakeven".to_string(), "always-on".to_string(), "stpm:knob=50".to_string()]);
        let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
        let opts = ReplayOptions { mode: other_replays(replay).mode, initial_mode: other_replays(replay).initial_mode, ..options(lead, tail, base, from_original) };
        check(&device, &specs, &trace, &opts, &cuts)?;
    }

    /// A volume of a round-robin trace on a random device: past 512 requests, most after a gap,
    /// the cascade leaves the family (judged there) and the timeouts sleep through their gaps.
    #[test]
    fn a_volume_s_sweep_equals_separate_replays_on_random_devices(
        device in chained_devices(), drawn in timeouts(), seed in any::<u64>(), n in 513usize..1200,
        long in 0.5f64..50.0, lead in ends(), tail in ends(), cuts in prop::collection::vec(0.0f64..1.0, 0..3),
    ) {
        let (times, offsets, sizes, ops) = generated(n, seed | 1, 1_000_000, 8, |r| if r % 6 == 0 { 0.001 * (1 + r % 7) as f64 } else { long * (0.05 + ((r >> 20) % 1000) as f64 / 500.0) });
        let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
        let mut specs = timeout_specs(&drawn, &times);
        specs.extend(drawn.0.iter().map(|s| format!("timeout:b={}s", s * 0.7)));
        specs.push(format!("timeout:b={}s,c={}s", drawn.0[0], drawn.0[0] + 1.0));
        specs.extend(["breakeven".to_string(), "always-on".to_string()]);
        let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
        check(&device, &specs, &trace, &options(lead, tail, 0.5, false), &cuts)?;
    }

    #[test]
    fn shared_timers_equal_separate_replays_on_catalog_devices(
        (times, offsets, sizes, ops, original) in trace_strategy(),
        which in 0usize..4, timeouts in prop::collection::vec(0.0f64..20.0, 1..6),
        lead in ends(), tail in ends(), cuts in prop::collection::vec(0.0f64..1.0, 0..4),
    ) {
        let (name, own) = [
            ("hitachi-microdrive-1gb", "breakeven"),
            ("hitachi-travelstar-5k320", "hd-idle:10s"),
            ("seagate-constellation-es1-500gb", "epc"),
            ("samsung-950-pro-512gb", "apst"),
        ][which];
        let device = catalog(name);
        let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap().with_original_s(&original).unwrap();
        let mut specs: Vec<String> = timeouts.iter().map(|s| format!("timeout:{s}s")).collect();
        specs.push(own.to_string());
        let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
        check(&device, &specs, &trace, &options(lead, tail, 0.0, false), &cuts)?;
    }
}

/// Whether the runs of `specs` still share a replay after the whole trace (their family did
/// not disband).
fn still_sharing(device: &Device, specs: &[&str], trace: &TraceView, opts: &ReplayOptions) -> bool {
    let specs: Vec<PolicySpec> = specs.iter().map(|s| PolicySpec::parse(s).unwrap()).collect();
    let mut runs = Runs::new(&Arc::new(device.clone()), &specs, opts, trace.arrival_s[0], 0).unwrap();
    runs.feed(trace, 1, None);
    runs.runs_sharing_a_replay() > 0
}

/// Where a family's requests mostly follow a gap, its members that walk their gaps one by one
/// (cascades, EPC's timers) leave it after its first 512 requests and replay on their own (what
/// they shared carried into their ledgers), and a family of no other members disbands; the rows
/// stay those of separate replays, and a cascade's row is the same bit for bit whether it left
/// a family of timeouts or its family disbanded. 20,000 requests, most after a 3 s gap; fed
/// whole and in uneven parts.
#[test]
fn members_that_walk_their_gaps_leave_a_family_whose_requests_mostly_follow_a_gap() {
    let (times, offsets, sizes, ops) = generated(20_000, 0x2545_F491_4F6C_DD1D, 100_000, 8, |r| if r % 5 == 0 { 0.003 } else { 3.0 + (r % 100) as f64 * 0.01 });
    let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
    for (device, cuts, cascades) in [
        (catalog("hitachi-microdrive-1gb"), vec![], vec!["timeout:low-power-idle=0.5s,standby=2s", "timeout:low-power-idle=1s,standby=20s"]),
        (catalog("hitachi-travelstar-5k320"), vec![0.1, 0.2047, 0.2048, 0.5, 0.77], vec!["timeout:active-idle=0.1s,low-power-idle=1s,standby=5s", "timeout:low-power-idle=2s,standby=200s"]),
        (catalog("seagate-constellation-es1-500gb"), vec![0.33], vec!["epc", "timeout:idle_b=0.5s,standby_z=2s", "timeout:idle_c=2s,standby_z=50s"]),
    ] {
        let opts = options(7.0, 30.0, 1.0, false);
        let mut alone = cascades.clone();
        alone.push("always-on");
        assert!(!still_sharing(&device, &alone, &trace, &opts), "{}: a family of members that walk their gaps disbands", device.name);
        check(&device, &alone, &trace, &opts, &cuts).unwrap();
        let mut specs = vec!["timeout:0.5s", "timeout:10s", "breakeven"];
        specs.extend(&alone);
        assert!(still_sharing(&device, &specs, &trace, &opts), "{}: the timeouts stay in the family", device.name);
        check(&device, &specs, &trace, &opts, &cuts).unwrap();
        let parsed = |specs: &[&str]| -> Vec<PolicySpec> { specs.iter().map(|s| PolicySpec::parse(s).unwrap()).collect() };
        let (left, disbanded) = (reports(&device, &parsed(&specs), &trace, &opts, &cuts), reports(&device, &parsed(&alone), &trace, &opts, &cuts));
        for (k, cascade) in cascades.iter().enumerate() {
            assert_eq!(format!("{:?}", left[3 + k].run), format!("{:?}", disbanded[k].run), "{cascade} on {}", device.name);
        }
        // Those that left are dealt over the threads with the other runs: the same rows.
        let mut runs = Runs::new(&Arc::new(device.clone()), &parsed(&specs), &opts, trace.arrival_s[0], 0).unwrap();
        runs.feed(&trace, 2, None);
        let threaded = runs.finish(&device, Some(&trace)).unwrap();
        let whole = reports(&device, &parsed(&specs), &trace, &opts, &[]);
        for (a, b) in threaded.iter().zip(&whole) {
            assert_eq!(format!("{:?}", a.run), format!("{:?}", b.run), "{} on 2 threads, {}", a.run.policy, device.name);
        }
    }
}

/// A volume of a round-robin trace: nearly every request follows a gap long enough to send
/// most timeouts of a sweep all the way down, and they sleep through it whole (`Slept`), in
/// tracks by runs of members, some caught on their way down, some still ready and rejoining
/// the shared run. The family does not disband, and the rows are those of separate replays, and
/// each the same bit for bit as its policy's in a family of its own. Gaps of 0.2 s to 300 s
/// (log-uniform) and now and then a burst 2-10 ms apart (a queue behind a wake-up); 80
/// timeouts from 0.1 s to 200 s beside timeouts into another mode, a cascade, breakeven and
/// always-on; fed whole and in parts; on a disk with a seek curve, the Microdrive and a drive
/// with EPC's modes.
#[test]
fn a_sweep_on_a_volume_whose_every_request_follows_a_gap_sleeps_through_and_equals_separate_replays() {
    let (times, offsets, sizes, ops) = generated(6_000, 0x5DEE_CE66_D1CE_4E5B, 5_000_000, 16, |r| {
        if r % 7 == 0 { 0.002 + ((r >> 8) % 9) as f64 * 0.001 } else { 0.2 * 1500f64.powf(((r >> 16) % 10_000) as f64 / 10_000.0) }
    });
    let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
    let mut specs: Vec<String> = (0..80).map(|k| format!("timeout:{}s", 0.1 * 2000f64.powf(k as f64 / 79.0))).collect();
    specs.extend(["breakeven".to_string(), "always-on".to_string()]);
    for (device, cuts, other_mode, cascade) in [
        (catalog("hitachi-travelstar-5k320"), vec![0.25, 0.2501, 0.8], "", "hd-idle:30s"),
        (catalog("hitachi-microdrive-1gb"), vec![], "", "hd-idle:5s"),
        (catalog("seagate-constellation-es1-500gb"), vec![0.5], "idle_c", "timeout:idle_b=1s,standby_z=60s"),
    ] {
        let mut specs = specs.clone();
        specs.push(cascade.to_string());
        if !other_mode.is_empty() {
            specs.extend([0.3, 3.0, 30.0, 300.0].map(|s| format!("timeout:{other_mode}={s}s")));
        }
        let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
        for opts in [options(2.0, 50.0, 0.5, false), options(0.0, 0.0, 0.0, false)] {
            assert!(still_sharing(&device, &specs, &trace, &opts), "{}: the timeouts sleep through their gaps whole, so the family stays", device.name);
            check(&device, &specs, &trace, &opts, &cuts).unwrap();
        }
        rows_alone_equal_rows_together(&device, &specs, &trace, &options(2.0, 50.0, 0.5, false), &cuts, &[0, 1, 30, 79, 80, 82]);
    }
}

/// The rows `picks` of a sweep of `specs` are each the same, bit for bit, as its policy's
/// replayed on its own (in a family of its own): a sweep's row is `simulate`'s.
fn rows_alone_equal_rows_together(device: &Device, specs: &[&str], trace: &TraceView, opts: &ReplayOptions, cuts: &[f64], picks: &[usize]) {
    let all: Vec<PolicySpec> = specs.iter().map(|s| PolicySpec::parse(s).unwrap()).collect();
    let together = reports(device, &all, trace, opts, cuts);
    for &k in picks {
        let alone = reports(device, &all[k..=k], trace, opts, cuts);
        assert_eq!(format!("{:?}", alone[0].run), format!("{:?}", together[k].run), "{} on {}", specs[k], device.name);
    }
}

/// Many members going down in the same gaps serve the bursts after them in tracks (one replay
/// for all the members in one state), leave a track when it falls idle (back to the shared run,
/// or down again on their own, the track splitting), and take the tracks' responses through
/// histogram differences over runs of consecutive members: the rows are those of separate
/// replays. Bursts dense enough that a wake-up leaves a queue, idle gaps from 50 ms to 500 s
/// (log-uniform), 64 timeouts from 0.2 s to 300 s beside a cascade and breakeven; fed whole and
/// in uneven parts, on the 5K320 (a seek curve) and the 1 GB Microdrive. And a row is the same,
/// bit for bit, as its policy's replayed in a family of its own.
#[test]
fn members_in_one_state_share_a_track_and_still_equal_separate_replays() {
    let (times, offsets, sizes, ops) = generated(12_000, 0x1234_5678_9ABC_DEF1, 5_000_000, 32, |r| {
        if r % 40 == 0 { 0.05 * 10f64.powf(4.0 * ((r >> 16) % 10_000) as f64 / 10_000.0) } else { 0.002 + ((r >> 8) % 9) as f64 * 0.001 }
    });
    let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
    let mut specs: Vec<String> = (0..64).map(|k| format!("timeout:{}s", 0.2 * 1500f64.powf(k as f64 / 63.0))).collect();
    specs.extend(["timeout:low-power-idle=2s,standby=20s".to_string(), "breakeven".to_string(), "always-on".to_string()]);
    let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
    for (device, cuts) in [(catalog("hitachi-travelstar-5k320"), vec![0.3, 0.3001, 0.61]), (catalog("hitachi-microdrive-1gb"), vec![])] {
        check(&device, &specs, &trace, &options(2.0, 50.0, 0.5, false), &cuts).unwrap();
        check(&device, &specs, &trace, &options(0.0, 0.0, 0.0, true), &cuts).unwrap();
        // A row is the same bit for bit whatever runs share its family (and its tracks): a
        // sweep's row is `simulate`'s of its policy alone.
        rows_alone_equal_rows_together(&device, &specs, &trace, &options(2.0, 50.0, 0.5, false), &cuts, &[0, 9, 40, 63, 64, 65]);
    }
}

/// A family takes a thread of its own (carrying always-on, whose shared run it is), the
/// oracle's shadow following the same gaps on another: the rows, normalisations included, are
/// the same bit for bit as on one thread (and as separate replays to rounding), however many
/// threads, and whether the trace comes whole or in parts. 30,000 bursty requests, nine timers
/// (members act at some gaps and rejoin).
#[test]
fn a_family_on_a_thread_of_its_own_gives_the_same_rows_bit_for_bit() {
    // Bursts of requests 1-20 ms apart, and now and then an idle gap of 0.1 s to 100 s.
    let (times, offsets, sizes, ops) = generated(30_000, 0x9E37_79B9_7F4A_7C15, 1_000_000, 16, |r| {
        if r % 16 == 0 { 10f64.powf(-1.0 + 3.0 * ((r >> 20) % 1000) as f64 / 1000.0) } else { 0.001 + ((r >> 8) % 20) as f64 * 0.001 }
    });
    let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
    let specs: Vec<PolicySpec> = ["timeout:0.2s", "timeout:0.5s", "timeout:1s", "timeout:2s", "timeout:5s", "timeout:10s", "timeout:30s", "breakeven", "oracle"]
        .iter()
        .map(|s| PolicySpec::parse(s).unwrap())
        .collect();
    let device = catalog("hitachi-travelstar-5k320");
    let arc = Arc::new(device.clone());
    let opts = options(5.0, 20.0, 0.5, false);
    let rows = |threads: usize, cuts: &[usize]| -> Vec<String> {
        let mut runs = Runs::new(&arc, &specs, &opts, trace.arrival_s[0], 0).unwrap();
        let mut from = 0;
        for &to in cuts.iter().chain(std::iter::once(&trace.len())) {
            runs.feed(&trace.slice(from, to), threads, None);
            from = to;
        }
        runs.finish(&device, Some(&trace)).unwrap().iter().map(|r| format!("{r:?}")).collect()
    };
    let one = rows(1, &[]);
    for (threads, cuts) in [(2, vec![]), (3, vec![]), (2, vec![20_000, 25_000]), (4, vec![12_345])] {
        assert_eq!(rows(threads, &cuts), one, "{threads} threads, parts cut at {cuts:?}");
    }
    let separate = reports(&device, &specs, &trace, &ReplayOptions { separate_runs: true, ..opts.clone() }, &[]);
    let shared = reports(&device, &specs, &trace, &opts, &[]);
    for (a, b) in shared.iter().zip(&separate) {
        same(a, b).unwrap();
    }
}

/// Issue 60's case, by hand: a timeout of 16.25 s on the 1 GB Microdrive, a lead of 8,652 s,
/// 30 requests fed in parts cut after the 6th, 13th and 27th. A family counts a piece's shared
/// responses by taking them off the members that did not share them, or (once most requests
/// followed a gap) by adding them to those that did, and the way is chosen piece by piece: here
/// it goes take-off, add, take-off, add. The member rejoined the shared run in the second piece,
/// left it, and rejoined it in the third; the mark of where its sharing began was kept for the
/// adding way only, so in the fourth it still pointed into the second piece, and the first two
/// responses of the fourth were counted for no one: 28 requests where the replay has 30.
#[test]
fn a_member_sharing_when_the_counting_way_flips_keeps_every_response() {
    let times = [
        0.0, 0.08946672232162292, 0.1335773218923917, 0.1335773218923917, 0.2010882538000322, 0.2010882538000322, 0.2010882538000322, 0.2010882538000322, 7.9755695530225905,
        7.9755695530225905, 7.9755695530225905, 7.9755695530225905, 70.58544498475933, 70.62662925566939, 70.62662925566939, 70.62662925566939, 70.80846477253996, 70.86897581188202,
        70.86897581188202, 70.91974507005963, 70.98608552121911, 71.07538939360701, 71.10065496877704, 71.10065496877704, 71.10065496877704, 72.06169290713513, 72.06169290713513,
        72.06169290713513, 72.06169290713513, 72.06169290713513,
    ];
    let mut sizes = [512i64; 30];
    (sizes[4], sizes[5]) = (15_056, 8_130);
    let (offsets, ops) = ([0i64; 30], [0u8; 30]);
    let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
    let device = catalog("hitachi-microdrive-1gb");
    let specs = [PolicySpec::parse("timeout:16.253506000347897s").unwrap()];
    let opts = options(8652.260025735082, 0.0, 0.0, false);
    let shared = reports(&device, &specs, &trace, &opts, &[0.2, 0.44, 0.9]);
    assert_eq!(shared[0].run.requests, 30);
    assert_eq!(shared[0].run.wakeups, 2, "the lead and the 62.6 s gap");
    check(&device, &["timeout:16.253506000347897s"], &trace, &opts, &[0.2, 0.44, 0.9]).unwrap();
}

/// Requests whose share after a gap hovers about one half, so a family's counting way flips
/// from piece to piece: each item a request after a gap (milliseconds, seconds, minutes, or
/// hours to days), then 0 to 2 requests queued behind it.
fn hovering_trace() -> impl Strategy<Value = (Vec<f64>, Vec<i64>, Vec<i64>, Vec<u8>)> {
    prop::collection::vec((0u8..4, 0.0f64..1.0, 0usize..3, 512i64..100_000, any::<bool>()), 1..120).prop_map(|items| {
        let mut t = 0.0;
        let mut out = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (kind, u, queued, size, write) in items {
            t += match kind {
                0 => 1e-3 + 9e-3 * u,
                1 => 0.1 + 3.0 * u,
                2 => 3.0 + 600.0 * u,
                _ => 3600.0 * 48f64.powf(u),
            };
            for _ in 0..=queued {
                out.0.push(t);
                out.1.push((out.0.len() as i64 % 97) * 65_536);
                out.2.push(size);
                out.3.push(u8::from(write));
            }
        }
        out
    })
}

/// Lead and tail: none, seconds, or hours to a week.
fn long_ends() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), 0.0f64..30.0, 3600.0f64..604_800.0]
}

/// The idle periods of always-on's replay (the shared run's gaps: from a request's finish to
/// the next arrival), for timeouts that end exactly where a gap does.
fn shared_gaps_s(device: &Device, trace: &TraceView, opts: &ReplayOptions) -> Vec<f64> {
    let mut always_on = PolicySpec::parse("always-on").unwrap().build(device, &idlewise_core::policy::BuildContext::default()).unwrap();
    let run = idlewise_core::replay(trace, device, always_on.as_mut(), &ReplayOptions { keep_per_request: true, lead_s: 0.0, tail_s: 0.0, ..opts.clone() }).unwrap();
    let records = run.per_request.expect("kept");
    (1..records.arrival_s.len()).map(|i| records.arrival_s[i] - (records.arrival_s[i - 1] + records.response_s[i - 1])).filter(|g| *g > 0.0).collect()
}

proptest! {
    #![proptest_config(common::config(300))]

    /// The relatives of issue 60's case, drawn on purpose: the counting way flipping from piece
    /// to piece (a share after gaps near one half), parts cut at every request or anywhere,
    /// leads and tails of up to a week, members leaving and rejoining, timeouts equal to the
    /// shared run's gaps (to the bit), to the lead and to the tail; on the catalog's disks of
    /// each kind and on random chained devices. Every row is the separate replay's.
    #[test]
    fn shared_replays_equal_separate_ones_where_the_counting_way_flips(
        (times, offsets, sizes, ops) in hovering_trace(),
        which in 0usize..5, chained in chained_devices(),
        drawn in prop::collection::vec(prop_oneof![0.0f64..5.0, 5.0f64..700.0, 3600.0f64..200_000.0], 1..5),
        picked in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
        lead in long_ends(), tail in long_ends(), every_request in prop::bool::weighted(0.2),
        cuts in prop::collection::vec(0.0f64..1.0, 0..24), base in prop_oneof![Just(0.0), 0.1f64..2.0],
        observed in prop::option::of(prop::collection::vec(0.0f64..0.05, 1200)),
    ) {
        let (device, own) = match which {
            0 => (catalog("hitachi-microdrive-1gb"), "breakeven"),
            1 => (catalog("hitachi-travelstar-5k320"), "hd-idle:10s"),
            2 => (catalog("seagate-constellation-es1-500gb"), "epc"),
            3 => (catalog("samsung-950-pro-512gb"), "apst"),
            _ => (chained, "timeout:b=2s,c=30s"),
        };
        // Now and then served in times a recording gave (observed service) instead of the model's.
        let observed = observed.map(|o| o[..times.len()].to_vec());
        let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
        let trace = match observed.as_deref() {
            Some(service_s) => trace.with_observed_service_s(service_s).unwrap(),
            None => trace,
        };
        let opts = options(lead, tail, base, false);
        let gaps = shared_gaps_s(&device, &trace, &opts);
        let mut timeouts: Vec<f64> = drawn.clone();
        timeouts.extend([lead, tail].into_iter().filter(|&s| s > 0.0));
        if !gaps.is_empty() {
            timeouts.extend(picked.iter().map(|i| gaps[i.index(gaps.len())]));
        }
        let mut specs: Vec<String> = timeouts.iter().map(|s| format!("timeout:{s}s")).collect();
        specs.extend([own.to_string(), "breakeven".to_string(), "always-on".to_string()]);
        let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
        let cuts: Vec<f64> = if every_request { (1..trace.len()).map(|i| (i as f64 + 0.5) / trace.len() as f64).collect() } else { cuts };
        check(&device, &specs, &trace, &opts, &cuts)?;
    }
}

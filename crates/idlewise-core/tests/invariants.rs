//! Invariants of the replay ledger over random traces and random devices (property-based):
//! time is conserved, the oracle is a lower bound, breakeven is 2-competitive on two-state
//! devices, always-on never wakes and has the least response time.

mod common;

use idlewise_core::policy::PolicySpec;
use idlewise_core::{evaluate, Device, ReplayOptions, TraceView};
use proptest::prelude::*;

const POLICIES: [&str; 9] = [
    "always-on",
    "timeout:0s",
    "timeout:1500ms",
    "breakeven",
    "randomized:seed=3",
    "stpm:knob=50",
    "experts",
    "predictive",
    "oracle",
];

fn two_state(p0: f64, p1: f64, td: f64, ed: f64, tu: f64, eu: f64) -> Device {
    Device::from_toml(
        &format!(
            "name='rand2'\nkind='disk'\n[[modes]]\nname='idle'\npower_w={p0}\nserves=true\n[[modes]]\nname='sleep'\npower_w={p1}\n\
             [[transitions]]\nfrom='idle'\nto='sleep'\ntime_s={td}\nenergy_j={ed}\n[[transitions]]\nfrom='sleep'\nto='idle'\ntime_s={tu}\nenergy_j={eu}\n\
             [service]\noverhead_s=0.005\nread_bandwidth_bytes_per_s=2e6\nwrite_bandwidth_bytes_per_s=1e6\nactive_power_w={}\n",
            p0 * 1.3
        ),
        "random-two-state",
    )
    .unwrap()
}

fn three_state(p: [f64; 3], t: [f64; 4], e: [f64; 4]) -> Device {
    Device::from_toml(
        &format!(
            "name='rand3'\nkind='disk'\n[[modes]]\nname='a'\npower_w={}\nserves=true\n[[modes]]\nname='b'\npower_w={}\n[[modes]]\nname='c'\npower_w={}\n\
             [[transitions]]\nfrom='a'\nto='b'\ntime_s={}\nenergy_j={}\n[[transitions]]\nfrom='b'\nto='a'\ntime_s={}\nenergy_j={}\n\
             [[transitions]]\nfrom='a'\nto='c'\ntime_s={}\nenergy_j={}\n[[transitions]]\nfrom='c'\nto='a'\ntime_s={}\nenergy_j={}\n\
             [service]\noverhead_s=0.002\nread_bandwidth_bytes_per_s=5e6\nwrite_bandwidth_bytes_per_s=5e6\nactive_power_w=1.5\n",
            p[0], p[1], p[2], t[0], e[0], t[1], e[1], t[2], e[2], t[3], e[3]
        ),
        "random-three-state",
    )
    .unwrap()
}

/// Three modes where the deep mode may be reached only through the middle one, or also directly
/// (then the oracle must weigh the direct transition against the chain, time and energy together).
fn chained(p: [f64; 3], t: [f64; 5], e: [f64; 5], direct: bool) -> Device {
    let direct = if direct { format!("[[transitions]]\nfrom='a'\nto='c'\ntime_s={}\nenergy_j={}\n", t[4], e[4]) } else { String::new() };
    Device::from_toml(
        &format!(
            "name='chain3'\nkind='disk'\n[[modes]]\nname='a'\npower_w={}\nserves=true\n[[modes]]\nname='b'\npower_w={}\n[[modes]]\nname='c'\npower_w={}\n\
             [[transitions]]\nfrom='a'\nto='b'\ntime_s={}\nenergy_j={}\n[[transitions]]\nfrom='b'\nto='a'\ntime_s={}\nenergy_j={}\n\
             [[transitions]]\nfrom='b'\nto='c'\ntime_s={}\nenergy_j={}\n[[transitions]]\nfrom='c'\nto='a'\ntime_s={}\nenergy_j={}\n{direct}\
             [service]\noverhead_s=0.002\nread_bandwidth_bytes_per_s=5e6\nwrite_bandwidth_bytes_per_s=5e6\nactive_power_w=1.5\n",
            p[0], p[1], p[2], t[0], e[0], t[1], e[1], t[2], e[2], t[3], e[3]
        ),
        "random-chained",
    )
    .unwrap()
}

/// Random traces: bursts of closely spaced requests separated by gaps spread over four decades.
fn trace_strategy() -> impl Strategy<Value = (Vec<f64>, Vec<i64>, Vec<u8>)> {
    prop::collection::vec((0.0f64..1.0, 0u32..5, 512i64..200_000, any::<bool>()), 1..120).prop_map(|items| {
        let mut t = 0.0;
        let (mut times, mut sizes, mut ops) = (Vec::new(), Vec::new(), Vec::new());
        for (u, decade, size, write) in items {
            t += 10f64.powi(decade as i32 - 2) * u * 10.0;
            times.push(t);
            sizes.push(size);
            ops.push(u8::from(write));
        }
        (times, sizes, ops)
    })
}

/// Idle after the last request (a recording that goes on, `--tail`): none, short against the
/// transitions, or long.
fn tail_strategy() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), 0.0f64..3.0, 0.0f64..1e4]
}

/// Idle at both ends: a run may begin before its first request (`lead_s`, a recording that began
/// idle) and go on after its last (`tail_s`).
fn run_all(device: &Device, times: &[f64], sizes: &[i64], ops: &[u8], base: f64, (lead_s, tail_s): (f64, f64)) -> Vec<idlewise_core::Report> {
    let offsets = vec![0i64; times.len()];
    let trace = TraceView::new(times, &offsets, sizes, ops).unwrap();
    let specs: Vec<PolicySpec> = POLICIES.iter().map(|s| PolicySpec::parse(s).unwrap()).collect();
    evaluate(&trace, device, &specs, &ReplayOptions { base_power_w: base, tail_s, lead_s, ..Default::default() }, None).unwrap()
}

/// Whether the oracle bounds a run's last gap on `device`. Its plan there is the cheapest over
/// simple paths down, each ending in its destination; that bounds every walk a policy may take
/// after the last request (down, and back up by a pre-wake, any number of times) when each
/// transition draws at least the lesser power of the two modes it joins: every moment of a walk
/// then draws at least the power of the lowest mode it reaches, the cycles it makes on the way
/// there included (docs/semantics.md). A transition drawing less than both its modes (free and
/// slow) lets a policy cycle through it for less (the old condition here, every transition at
/// least the lowest mode's power, was neither needed nor enough).
fn tail_is_bounded(device: &Device, tail_s: f64) -> bool {
    tail_s == 0.0
        || device.transitions.iter().all(|t| {
            t.time_s == 0.0 || t.energy_j / t.time_s >= device.modes[t.from].power_w.min(device.modes[t.to].power_w)
        })
}

/// Catalog devices outside [`tail_is_bounded`]'s proof whose bound the property test checks as
/// they are (`catalog_devices_oracle_lowest`): the Constellation ES.1's idle_b -> idle_c draws
/// 2.133 W, between 2.98 W and 2.14 W, but every cycle through it passes idle_c -> idle_a (83.2 J).
const OUTSIDE_THE_PROOF_CHECKED: [&str; 1] = ["seagate-constellation-es1-500gb"];

fn check_common(reports: &[idlewise_core::Report], device: &Device, tail_s: f64) -> Result<(), TestCaseError> {
    let always_on = &reports[0].run;
    let oracle = &reports[POLICIES.len() - 1].run;
    let oracle_bounds = tail_is_bounded(device, tail_s) || OUTSIDE_THE_PROOF_CHECKED.contains(&device.name.as_str());
    // Always-on never wakes, but once from a device's own starting mode (DiskSim's MEMS sled).
    prop_assert_eq!(always_on.wakeups, u64::from(device.starting_mode(0) != 0));
    for r in reports {
        let run = &r.run;
        // Time conservation: residency + transitions + service = makespan.
        let accounted = run.accounted_time_s();
        prop_assert!((accounted - run.makespan_s).abs() <= 1e-6 * run.makespan_s.max(1.0), "{}: {} vs {}", run.policy, accounted, run.makespan_s);
        // Energy is the sum of its parts and never negative.
        let parts: f64 = run.energy_by_mode_j.iter().sum::<f64>() + run.transition_energy_j + run.service_energy_j;
        prop_assert!((parts - run.energy_j).abs() <= 1e-9 * run.energy_j.max(1.0));
        prop_assert!(run.energy_j >= 0.0);
        // Always-on has the least response time of all.
        prop_assert!(always_on.mean_response_s <= run.mean_response_s * (1.0 + 1e-12) + 1e-12, "{}", run.policy);
        prop_assert!(always_on.max_response_s <= run.max_response_s + 1e-12, "{}", run.policy);
        // Every request is served exactly once.
        prop_assert_eq!(run.requests, always_on.requests);
        // The oracle is the least energy of any schedule that adds no delay, so it bounds every
        // run whose requests never waited for a wake-up. (A run that delays requests can use
        // less: see `delay_can_buy_energy_below_the_no_delay_oracle` in replay.rs.)
        if run.delayed_requests == 0 && oracle_bounds {
            prop_assert!(oracle.energy_j <= run.energy_j * (1.0 + 1e-9) + 1e-9, "{}: oracle {} > {}", run.policy, oracle.energy_j, run.energy_j);
        }
    }
    // The oracle adds no delay and never loses to always-on.
    prop_assert!((oracle.mean_response_s - always_on.mean_response_s).abs() <= 1e-9);
    prop_assert!(oracle.energy_j <= always_on.energy_j * (1.0 + 1e-12));
    Ok(())
}

/// The oracle asked for a plan at every gap: what it was before gaps too short for any round
/// trip were charged without asking (`Policy::stays_ready_below_s`).
struct PlansEveryGap(Box<dyn idlewise_core::Policy>);

impl idlewise_core::Policy for PlansEveryGap {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn reads_gap_lengths(&self) -> bool {
        self.0.reads_gap_lengths()
    }
    fn plan_gap(&mut self, gap: &idlewise_core::policy::GapStart, plan: &mut idlewise_core::policy::Plan) {
        self.0.plan_gap(gap, plan)
    }
    fn end_gap(&mut self, idle_s: f64) {
        self.0.end_gap(idle_s)
    }
}

proptest! {
    #![proptest_config(common::config(1500))]

    #[test]
    fn two_state_invariants(
        (times, sizes, ops) in trace_strategy(),
        p0 in 0.2f64..5.0, p1_frac in 0.0f64..0.9,
        td in 0.0f64..2.0, ed in 0.0f64..5.0, tu in 0.0f64..3.0, eu in 0.0f64..10.0,
        base in 0.0f64..2.0, tail in tail_strategy(), lead in tail_strategy(),
    ) {
        let device = two_state(p0, p0 * p1_frac, td, ed, tu, eu);
        let reports = run_all(&device, &times, &sizes, &ops, base, (lead, tail));
        check_common(&reports, &device, tail)?;
        // breakeven is 2-competitive on a two-state device whose break-even time is set by energy,
        // gamma/(P0-P1) >= T_down + T_up (true of every catalog disk). When the round trip
        // dominates instead, a pre-waking oracle hides latency that an online timeout pays for
        // in ready-mode energy, and no ratio holds (docs/semantics.md).
        let gamma = ed + eu - p0 * p1_frac * (td + tu);
        let energy_dominates = p1_frac < 1.0 && gamma / (p0 * (1.0 - p1_frac)) >= td + tu;
        // The bound is over gaps that end in a request: in a run's last gap the oracle knows
        // that nothing follows and never pays the way back up, which no online rule can match.
        let breakeven = &reports[3].run;
        let oracle = &reports[POLICIES.len() - 1].run;
        prop_assert!(!energy_dominates || tail > 0.0 || breakeven.energy_j <= 2.0 * oracle.energy_j * (1.0 + 1e-9) + 1e-9, "breakeven {} > 2 x oracle {}", breakeven.energy_j, oracle.energy_j);
    }

    #[test]
    fn three_state_invariants(
        (times, sizes, ops) in trace_strategy(),
        p0 in 0.5f64..5.0, f1 in 0.3f64..0.9, f2 in 0.0f64..0.3,
        t in prop::array::uniform4(0.0f64..2.0), e in prop::array::uniform4(0.0f64..5.0), tail in tail_strategy(), lead in tail_strategy(),
    ) {
        let device = three_state([p0, p0 * f1, p0 * f2], t, e);
        let reports = run_all(&device, &times, &sizes, &ops, 0.0, (lead, tail));
        check_common(&reports, &device, tail)?;
    }

    #[test]
    fn chained_invariants(
        (times, sizes, ops) in trace_strategy(),
        p0 in 0.5f64..5.0, f1 in 0.3f64..0.9, f2 in 0.0f64..0.3,
        t in prop::array::uniform5(0.0f64..2.0), e in prop::array::uniform5(0.0f64..5.0), direct in any::<bool>(),
        tail in tail_strategy(), lead in tail_strategy(),
    ) {
        let device = chained([p0, p0 * f1, p0 * f2], t, e, direct);
        let reports = run_all(&device, &times, &sizes, &ops, 0.0, (lead, tail));
        check_common(&reports, &device, tail)?;
        // The oracle's per-gap choice is no dearer than any fixed way down and back.
        let offsets = vec![0i64; times.len()];
        let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
        for gap in idlewise_core::idle_gaps(&trace, &device, &ReplayOptions::default()).unwrap() {
            let best = device.best_mode_for_gap(gap).1;
            prop_assert!(best <= p0 * gap * (1.0 + 1e-12) + 1e-12);
            for m in 1..3 {
                if let (Some(down), Some(up)) = (device.route(0, m), device.route(m, 0)) {
                    if down.time_s + up.time_s <= gap {
                        let fixed = down.energy_j + up.energy_j + device.modes[m].power_w * (gap - down.time_s - up.time_s);
                        prop_assert!(best <= fixed * (1.0 + 1e-12) + 1e-12, "gap {}: {} > {}", gap, best, fixed);
                    }
                }
            }
        }
    }

    /// Gaps too short for any mode's round trip are spent ready without a plan: the oracle's
    /// run is, bit for bit, the one that plans every gap, on gaps drawn on both sides of the
    /// shortest round trip (and exactly at it) of random chained devices.
    #[test]
    fn the_oracle_charges_short_gaps_as_its_plan_would(
        p0 in 0.5f64..5.0, f1 in 0.3f64..0.9, f2 in 0.0f64..0.3,
        t in prop::array::uniform5(0.01f64..2.0), e in prop::array::uniform5(0.0f64..5.0), direct in any::<bool>(),
        gaps in prop::collection::vec((0usize..4, 0.5f64..2.0), 1..200), tail in tail_strategy(),
    ) {
        let device = chained([p0, p0 * f1, p0 * f2], t, e, direct);
        let shortest = device.shortest_round_trip_s();
        prop_assert!(shortest.is_finite());
        let (mut times, mut at) = (Vec::new(), 0.0);
        for (kind, f) in gaps {
            // A gap (after the request's ~2 ms service) a little shorter than, equal to, or a
            // little or a lot longer than the shortest round trip.
            at += 0.1 + match kind { 0 => shortest * f.min(1.0), 1 => shortest, 2 => shortest * f, _ => shortest * 10.0 * f };
            times.push(at);
        }
        let (offsets, sizes, ops) = (vec![0i64; times.len()], vec![4096i64; times.len()], vec![0u8; times.len()]);
        let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
        let opts = ReplayOptions { tail_s: tail, ..ReplayOptions::default() };
        let oracle = || PolicySpec::parse("oracle").unwrap().build(&device, &idlewise_core::policy::BuildContext { base_power_w: 0.0 }).unwrap();
        let fast = idlewise_core::replay(&trace, &device, oracle().as_mut(), &opts).unwrap();
        let planned = idlewise_core::replay(&trace, &device, &mut PlansEveryGap(oracle()), &opts).unwrap();
        prop_assert_eq!(format!("{fast:?}"), format!("{planned:?}"));
    }

    #[test]
    fn drawn_wake_up_times_conserve_time_and_keep_their_power(
        (times, sizes, ops) in trace_strategy(),
        p0 in 0.2f64..5.0, p1_frac in 0.0f64..0.9, td in 0.0f64..2.0, ed in 0.0f64..5.0,
        tu in 0.01f64..3.0, up_power in 0.1f64..4.0, spread in 0.01f64..2.0, normal in any::<bool>(), seed in any::<u64>(),
        tail in 0.0f64..20.0,
    ) {
        let text = format!(
            "name='rand2'\nkind='disk'\n[[modes]]\nname='idle'\npower_w={p0}\nserves=true\n[[modes]]\nname='sleep'\npower_w={}\n\
             [[transitions]]\nfrom='idle'\nto='sleep'\ntime_s={td}\nenergy_j={ed}\n\
             [[transitions]]\nfrom='sleep'\nto='idle'\ntime_s={tu}\nenergy_j={}\ntime_std_s={}\ntime_distribution='{}'\n\
             [service]\noverhead_s=0.005\nread_bandwidth_bytes_per_s=2e6\nwrite_bandwidth_bytes_per_s=1e6\nactive_power_w={p0}\n",
            p0 * p1_frac, up_power * tu, spread * tu, if normal { "normal" } else { "lognormal" }
        );
        let device = Device::from_toml(&text, "random-varying").unwrap();
        let offsets = vec![0i64; times.len()];
        let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
        let specs: Vec<PolicySpec> = POLICIES.iter().map(|s| PolicySpec::parse(s).unwrap()).collect();
        let opts = ReplayOptions { transition_seed: Some(seed), tail_s: tail, ..Default::default() };
        let reports = evaluate(&trace, &device, &specs, &opts, None).unwrap();
        let again = evaluate(&trace, &device, &specs, &opts, None).unwrap();
        let downs = |r: &idlewise_core::metrics::RunResult| r.transition_counts.iter().find(|(f, t, _)| f == "idle" && t == "sleep").map_or(0, |c| c.2);
        for (r, a) in reports.iter().zip(&again) {
            let run = &r.run;
            // Reproducible per seed.
            prop_assert_eq!(run.energy_j, a.run.energy_j);
            prop_assert_eq!(run.makespan_s, a.run.makespan_s);
            // Time conserved with drawn wake-ups and a tail.
            prop_assert!((run.accounted_time_s() - run.makespan_s).abs() <= 1e-6 * run.makespan_s.max(1.0), "{}", run.policy);
            // Wake-ups draw time at the wake-up's power: up energy = power x up time.
            let n_down = downs(run) as f64;
            let up_time = run.transition_time_s - n_down * td;
            let up_energy = run.transition_energy_j - n_down * ed;
            prop_assert!((up_energy - up_power * up_time).abs() <= 1e-6 * up_energy.abs().max(1.0), "{}: {} vs {}", run.policy, up_energy, up_power * up_time);
            prop_assert!(up_time >= -1e-9);
        }
    }

    /// Every catalog device as it stands (the proof above does not cover one of them), with idle
    /// at both ends: the oracle bounds every run that delayed no request.
    #[test]
    fn catalog_devices_oracle_lowest(
        (times, sizes, ops) in trace_strategy(), tail in tail_strategy(), lead in tail_strategy(), which in 0usize..64,
    ) {
        let devices = catalog_devices();
        let device = &devices[which % devices.len()];
        let reports = run_all(device, &times, &sizes, &ops, 0.0, (lead, tail));
        check_common(&reports, device, tail).map_err(|e| TestCaseError::fail(format!("{}: {e}", device.name)))?;
    }
}

/// A Cisco card's firmware holds CAM for 1.87 s after four requests within 100 ms
/// (`fast_psp`), keeping it out of doze. The oracle once planned each gap as if it could doze
/// at once; the hold pushed its doze past its own wake-up, so the last request found the card
/// in doze and waited 14 ms, and the oracle spent 0.9897 J against always-on's 0.9853 J (found
/// by `catalog_devices_oracle_lowest` in 30,000 cases). Told of the hold, it dozes only where
/// the round trip fits after it, or switches the card off (not held), and adds no delay.
#[test]
fn the_oracle_plans_around_a_cards_cam_hold() {
    let device = catalog_devices().iter().find(|d| d.name == "cisco-aironet-350-swap-nfs").expect("the card");
    let times = [0.0, 0.0, 0.0, 0.0, 0.5066440483224838, 0.595401247320384, 1.8729676718594304];
    let reports = run_all(device, &times, &[512; 7], &[0; 7], 0.0, (0.0, 0.0));
    let (always_on, oracle) = (&reports[0].run, &reports[POLICIES.len() - 1].run);
    assert_eq!(oracle.delayed_requests, 0);
    assert_eq!(oracle.makespan_s, always_on.makespan_s);
    assert!((oracle.mean_response_s - always_on.mean_response_s).abs() <= 1e-12);
    // Gaps of 0.50 s and 1.28 s, both within the hold: off (0.37 s, 0.167 J back) in each.
    assert!(oracle.energy_j < 0.4 * always_on.energy_j, "{} J against always-on's {} J", oracle.energy_j, always_on.energy_j);
    check_common(&reports, device, 0.0).unwrap();
}

/// The catalog's devices that have a low-power mode, read once.
fn catalog_devices() -> &'static [Device] {
    static DEVICES: std::sync::OnceLock<Vec<Device>> = std::sync::OnceLock::new();
    DEVICES.get_or_init(|| {
        let dir = format!("{}/../../python/idlewise/catalog", env!("CARGO_MANIFEST_DIR"));
        let mut paths: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "toml")).collect();
        paths.sort();
        paths
            .iter()
            .map(|p| Device::from_toml(&std::fs::read_to_string(p).unwrap(), &p.display().to_string()).unwrap())
            // A flash part alone has no power management to weigh; MEMS runs have their own
            // invariants (tests/mems.rs: a sled's position makes always-on's service differ).
            .filter(|d| d.mode_count() > 1 && d.service.mems.is_none())
            .collect()
    })
}

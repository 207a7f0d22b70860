//! The fast paths change no number: a run fed in blocks cut anywhere, runs shared among
//! threads, the ready-mode service computed once for all runs, and the oracle carried along
//! always-on's replay as a shadow all give, bit for bit,
//! what one plain request-by-request replay of each policy gives. Results are compared through
//! their `Debug` text, which prints every float exactly.

mod common;

use std::sync::Arc;

use idlewise_core::evaluate::evaluate_on;
use idlewise_core::policy::{BuildContext, PolicySpec};
use idlewise_core::replay::{References, Replay};
use idlewise_core::{replay, Device, ReplayMode, ReplayOptions, ResponseFrom, TraceView};
use proptest::prelude::*;

const POLICIES: [&str; 8] = ["always-on", "timeout:0s", "timeout:1500ms", "breakeven", "randomized:seed=3", "stpm:knob=50", "experts", "oracle"];

fn catalog(name: &str) -> Device {
    let path = format!("{}/../../python/idlewise/catalog/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    Device::from_toml(&std::fs::read_to_string(&path).unwrap(), &path).unwrap()
}

/// Devices that take each path: plain service (two and three modes), a seek curve, a wake-up
/// whose time is drawn (the oracle cannot be a shadow), a card that serves in power-save mode.
fn devices() -> Vec<Device> {
    ["ibm-microdrive-340mb", "hitachi-microdrive-1gb", "hitachi-travelstar-5k320", "cisco-350"].iter().map(|n| catalog(n)).collect()
}

#[derive(Debug, Clone)]
struct Columns {
    time_s: Vec<f64>,
    original_s: Vec<f64>,
    offset: Vec<i64>,
    size: Vec<i64>,
    write: Vec<u8>,
}

fn trace_strategy() -> impl Strategy<Value = Columns> {
    prop::collection::vec((0.0f64..1.0, 0u32..5, 512i64..200_000, any::<bool>(), 0i64..1_000_000), 1..400).prop_map(|items| {
        let mut t = 0.0;
        let mut c = Columns { time_s: vec![], original_s: vec![], offset: vec![], size: vec![], write: vec![] };
        for (u, decade, size, write, block) in items {
            t += 10f64.powi(decade as i32 - 3) * u * 10.0;
            c.time_s.push(t);
            c.original_s.push(t + u * 0.01);
            c.size.push(size);
            c.write.push(u8::from(write));
            c.offset.push(block * 512);
        }
        c
    })
}

/// Options of each kind, every policy replayed on its own: these tests hold runs to plain
/// replays bit for bit, which runs sharing one replay (`tests/family.rs`) match to rounding.
fn options(kind: u8) -> ReplayOptions {
    let separate = ReplayOptions { separate_runs: true, ..Default::default() };
    match kind {
        0 => ReplayOptions { base_power_w: 1.0, ..separate },
        1 => ReplayOptions { mode: ReplayMode::Closed, tail_s: 20.0, ..separate },
        2 => ReplayOptions { response_from: ResponseFrom::Original, transition_seed: Some(9), ..separate },
        _ => ReplayOptions { initial_mode: 1, tail_s: 3.0, ..separate },
    }
}

fn plain(trace: &TraceView, device: &Device, spec: &str, opts: &ReplayOptions) -> String {
    let mut policy = PolicySpec::parse(spec).unwrap().build(device, &BuildContext { base_power_w: opts.base_power_w }).unwrap();
    format!("{:?}", replay(trace, device, policy.as_mut(), opts).unwrap())
}

proptest! {
    #![proptest_config(common::config(48))]

    #[test]
    fn blocks_threads_and_the_shadow_oracle_change_no_number(c in trace_strategy(), kind in 0u8..4, cuts in prop::collection::vec(0usize..400, 0..6)) {
        let t = TraceView::new(&c.time_s, &c.offset, &c.size, &c.write).unwrap();
        let trace = if kind == 2 { t.with_original_s(&c.original_s).unwrap() } else { t };
        let opts = options(kind);
        let n = trace.len();
        let mut bounds: Vec<usize> = cuts.into_iter().map(|k| k % (n + 1)).chain([0, n]).collect();
        bounds.sort_unstable();
        bounds.dedup();
        for device in devices() {
            if opts.initial_mode >= device.mode_count() {
                continue;
            }
            let specs: Vec<PolicySpec> = POLICIES.iter().map(|s| PolicySpec::parse(s).unwrap()).filter(|s| s.build(&device, &BuildContext::default()).is_ok()).collect();
            let expected: Vec<String> = specs.iter().map(|s| plain(&trace, &device, &s.text, &opts)).collect();
            // Fed in blocks cut anywhere.
            let shared = Arc::new(device.clone());
            let trace = trace.validated().unwrap();
            for (spec, want) in specs.iter().zip(&expected) {
                let policy = spec.build(&device, &BuildContext { base_power_w: opts.base_power_w }).unwrap();
                let mut run = Replay::new(Arc::clone(&shared), policy, &opts, trace.arrival_s[0], n);
                for w in bounds.windows(2) {
                    run.feed(&trace.slice(w[0], w[1]));
                }
                prop_assert_eq!(&format!("{:?}", run.finish()), want, "{} on {} in blocks {:?}", spec.text, device.name, bounds);
            }
            // The references, the oracle as a shadow where it can be one, in the same blocks.
            let mut references = References::new(&shared, &opts, trace.arrival_s[0]).unwrap();
            for w in bounds.windows(2) {
                references.feed(&trace.slice(w[0], w[1]));
            }
            let (always_on, oracle) = references.finish();
            let mut reference_opts = opts.clone();
            reference_opts.theoretical_minimum = false;
            prop_assert_eq!(format!("{:?}", always_on), plain(&trace, &device, "always-on", &reference_opts), "always-on on {}", device.name);
            prop_assert_eq!(format!("{:?}", oracle.expect("the shadow is never late")), plain(&trace, &device, "oracle", &reference_opts), "oracle on {}", device.name);
            // Shared among threads, in the order asked.
            for threads in [1, 2, 5] {
                let reports = evaluate_on(&trace, &device, &specs, &opts, None, threads).unwrap();
                for (report, want) in reports.iter().zip(&expected) {
                    prop_assert_eq!(&format!("{:?}", report.run), want, "{} threads on {}", threads, device.name);
                }
            }
        }
    }
}

/// The shared ready-mode services are computed a million requests at a time, the head carried
/// from piece to piece and from part to part: a trace longer than a piece, fed whole or in parts
/// cut elsewhere, gives the same reports, and those of plain replays, on a disk whose service
/// depends on the head (a seek curve).
#[test]
fn shared_services_carry_the_head_across_pieces_and_parts() {
    use idlewise_core::evaluate::Runs;
    let device = catalog("hitachi-travelstar-5k320");
    let n = 1_300_000;
    let (mut time_s, mut offset, mut size, mut write) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut t = 0.0;
    for _ in 0..n {
        let r = next();
        t += if r % 16 == 0 { (r % 1000) as f64 * 0.01 } else { 0.002 };
        time_s.push(t);
        offset.push(((r >> 8) % 1_000_000) as i64 * 4096);
        size.push(4096 * (1 + ((r >> 40) % 16) as i64));
        write.push(u8::from(r >> 63 == 1));
    }
    let trace = TraceView::new(&time_s, &offset, &size, &write).unwrap().validated().unwrap();
    let specs: Vec<PolicySpec> = ["timeout:1s", "breakeven"].iter().map(|s| PolicySpec::parse(s).unwrap()).collect();
    let opts = ReplayOptions { separate_runs: true, ..Default::default() };
    let whole = format!("{:?}", evaluate_on(&trace, &device, &specs, &opts, None, 2).unwrap());
    let shared = Arc::new(device.clone());
    let mut runs = Runs::new(&shared, &specs, &opts, time_s[0], 0).unwrap();
    for from in (0..n).step_by(700_001) {
        runs.feed(&trace.slice(from, (from + 700_001).min(n)), 1, None);
    }
    let parts = format!("{:?}", runs.finish(&device, None).unwrap());
    assert_eq!(whole, parts);
    let timeout = plain(&trace, &device, "timeout:1s", &opts);
    assert!(whole.contains(&timeout), "the shared-service run differs from a plain replay of timeout:1s");
}

proptest! {
    #![proptest_config(common::config(48))]

    /// The idle gaps of a trace fed a part at a time (a file as it is read) are the gaps of the
    /// whole trace, on every path's device and wherever the parts are cut.
    #[test]
    fn idle_gaps_fed_in_parts_are_the_whole_trace_s(c in trace_strategy(), cuts in prop::collection::vec(0usize..400, 0..6)) {
        use idlewise_core::replay::IdleGapStream;

        let trace = TraceView::new(&c.time_s, &c.offset, &c.size, &c.write).unwrap();
        for device in devices() {
            let opts = ReplayOptions { fold_offsets: true, ..Default::default() };
            let whole = idlewise_core::idle_gaps(&trace, &device, &opts).unwrap();
            let mut bounds: Vec<usize> = cuts.iter().map(|&k| k.min(trace.len())).chain([0, trace.len()]).collect();
            bounds.sort_unstable();
            bounds.dedup();
            let mut stream = IdleGapStream::new(&device, &opts);
            let mut parts = Vec::new();
            for pair in bounds.windows(2) {
                parts.extend(stream.feed(&trace.slice(pair[0], pair[1])).unwrap());
            }
            parts.extend(stream.finish());
            prop_assert_eq!(format!("{parts:?}"), format!("{whole:?}"), "{}", device.name);
        }
    }

    /// Per-request records handed over after each part (streamed runs) are, joined, the records
    /// of one run fed the trace whole: on a disk, and on a MEMS device, whose requests complete
    /// out of order and hand over only those before the first still outstanding.
    #[test]
    fn per_request_records_taken_part_by_part_are_the_whole_run_s(c in trace_strategy(), cuts in prop::collection::vec(0usize..400, 0..4), kind in 0u8..4) {
        use idlewise_core::stream::{Positions, StreamedRuns};

        let n = c.time_s.len();
        let opts = ReplayOptions { keep_per_request: true, fold_offsets: true, ..options(kind) };
        let mut bounds: Vec<usize> = cuts.iter().map(|&k| k.min(n)).chain([0, n]).collect();
        bounds.sort_unstable();
        bounds.dedup();
        let shown = |p: &idlewise_core::metrics::PerRequest| format!("{:?}", (&p.arrival_s, &p.start_s, &p.response_s, &p.at_arrival));
        for name in ["hitachi-travelstar-5k320", "cmu-mems-g2"] {
            let device = catalog(name);
            let specs: Vec<PolicySpec> = ["timeout:1500ms", "experts"].iter().map(|s| PolicySpec::parse(s).unwrap()).collect();
            let mut runs = StreamedRuns::new(&device, &specs, &opts, None, 1, Positions::Records).unwrap();
            let mut taken: Vec<idlewise_core::metrics::PerRequest> = vec![Default::default(); specs.len()];
            let join = |into: &mut idlewise_core::metrics::PerRequest, p: &idlewise_core::metrics::PerRequest| {
                into.arrival_s.extend(&p.arrival_s);
                into.start_s.extend(&p.start_s);
                into.response_s.extend(&p.response_s);
                into.at_arrival.extend(&p.at_arrival);
            };
            for pair in bounds.windows(2) {
                let (from, to) = (pair[0], pair[1]);
                let mut part = idlewise_core::readers::Columns::from_records(&c.time_s[from..to], &c.offset[from..to], &c.size[from..to], &c.write[from..to], &[], from as u64 + 1);
                if opts.response_from == ResponseFrom::Original {
                    part.original_s = c.original_s[from..to].to_vec();
                }
                runs.feed(&part, None).unwrap();
                for (_, run, records) in runs.take_per_request() {
                    // Handed over complete: every record's response is known.
                    prop_assert!(records.response_s.iter().all(|r| !r.is_nan()), "{}", name);
                    join(&mut taken[run], &records);
                }
            }
            let done = runs.finish("records", n as u64, Vec::new()).unwrap();
            for (run, rest) in &done.runs.per_request {
                join(&mut taken[*run], rest);
            }
            let mut trace = TraceView::new(&c.time_s, &c.offset, &c.size, &c.write).unwrap();
            if opts.response_from == ResponseFrom::Original {
                trace = trace.with_original_s(&c.original_s).unwrap();
            }
            for (run, spec) in ["timeout:1500ms", "experts"].iter().enumerate() {
                let mut policy = PolicySpec::parse(spec).unwrap().build(&device, &BuildContext { base_power_w: opts.base_power_w }).unwrap();
                let whole = replay(&trace, &device, policy.as_mut(), &opts).unwrap();
                prop_assert_eq!(shown(&taken[run]), shown(whole.per_request.as_ref().unwrap()), "{} {}", name, spec);
            }
        }
    }
}

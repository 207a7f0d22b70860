//! A MEMS replay cut into segments speculated on other threads (`Replay::feed_helped`) gives the
//! result of one replay bit for bit, whether the speculation is taken, or refused and replayed
//! (a device not at rest where a segment begins, a gap the policy did not sleep through, a
//! shutdown cut short).

mod common;

use std::sync::Arc;

use idlewise_core::policy::{BuildContext, PolicySpec};
use idlewise_core::replay::{blocks, Replay};
use idlewise_core::{Device, ReplayOptions, TraceView};
use proptest::prelude::*;

fn catalog(name: &str) -> Arc<Device> {
    let text = std::fs::read_to_string(format!("{}/../../python/idlewise/catalog/{name}.toml", env!("CARGO_MANIFEST_DIR"))).unwrap();
    Arc::new(Device::from_toml(&text, name).unwrap())
}

struct Columns {
    time_s: Vec<f64>,
    offset_bytes: Vec<i64>,
    size_bytes: Vec<i64>,
    is_write: Vec<u8>,
}

impl Columns {
    fn view(&self) -> TraceView<'_> {
        TraceView::new(&self.time_s, &self.offset_bytes, &self.size_bytes, &self.is_write).unwrap()
    }
}

/// DiskSim's `visible.trace` (20,000 real requests) repeated `copies` times, its gaps scaled.
fn visible(copies: usize, gap_scale: f64) -> Columns {
    let path = format!("{}/../../tests/data/mems-disksim/visible.trace", env!("CARGO_MANIFEST_DIR"));
    let base = idlewise_core::readers::read("disksim", &std::fs::read(&path).unwrap()).unwrap();
    let span = base.time_s[base.time_s.len() - 1] - base.time_s[0] + 0.01;
    let mut c = Columns { time_s: vec![], offset_bytes: vec![], size_bytes: vec![], is_write: vec![] };
    for copy in 0..copies {
        for i in 0..base.time_s.len() {
            c.time_s.push((base.time_s[i] - base.time_s[0] + copy as f64 * span) * gap_scale);
            c.offset_bytes.push(base.offset_bytes[i]);
            c.size_bytes.push(base.size_bytes[i]);
            c.is_write.push(base.is_write[i]);
        }
    }
    c
}

/// The run's result as text (every float by its shortest exact form) and the segments taken:
/// fed block by block, on `helpers` more threads with segments of at least `least` requests.
fn replayed(device: &Arc<Device>, policy: &str, trace: &TraceView, opts: &ReplayOptions, helpers: usize, least: usize) -> (String, u64) {
    let policy = PolicySpec::parse(policy).unwrap().build(device, &BuildContext::default()).unwrap();
    let mut run = Replay::new(Arc::clone(device), policy, opts, trace.arrival_s[0], trace.len());
    for block in blocks(trace) {
        run.feed_in_segments(&block, helpers, least);
    }
    let taken = run.segments_taken();
    (format!("{:?}", run.finish()), taken)
}

const POLICIES: [&str; 4] = ["timeout:0s", "timeout:1ms", "timeout:10ms", "timeout:100ms"];

#[test]
fn segments_speculated_on_other_threads_give_one_replay_s_result_bit_for_bit() {
    let opts = ReplayOptions { fold_offsets: true, ..Default::default() };
    for (device, gap_scale) in [("cmu-mems-g2", 1.0), ("cmu-mems-g1", 1.0), ("cmu-mems-g3", 1.0 / 15.0), ("ibm-mems-seed004", 1.0)] {
        let device = catalog(device);
        let columns = visible(3, gap_scale);
        let trace = columns.view();
        for policy in POLICIES {
            let (alone, none_taken) = replayed(&device, policy, &trace, &opts, 0, 64);
            assert_eq!(none_taken, 0);
            let mut taken_somewhere = 0;
            for (helpers, least) in [(1, 4096), (1, 64), (3, 512), (7, 16)] {
                let (segmented, taken) = replayed(&device, policy, &trace, &opts, helpers, least);
                assert_eq!(segmented, alone, "{} {policy}, {helpers} helpers, segments of {least}+", device.name);
                taken_somewhere += taken;
            }
            // The test is not passed by refusing every speculation: on the trace as recorded
            // (idle 95 % of the time) every policy sleeps through most cuts.
            if gap_scale == 1.0 {
                assert!(taken_somewhere > 20, "{} {policy}: {taken_somewhere} segments taken", device.name);
            }
        }
    }
}

#[test]
fn a_queued_trace_refuses_segments_that_begin_while_the_device_is_busy() {
    // Gaps × 1/40: the sled is busy nearly all the time; most cuts fall in a queue.
    let device = catalog("cmu-mems-g2");
    let opts = ReplayOptions { fold_offsets: true, ..Default::default() };
    let columns = visible(2, 1.0 / 40.0);
    let trace = columns.view();
    for policy in ["timeout:0s", "oracle"] {
        let (alone, _) = replayed(&device, policy, &trace, &opts, 0, 16);
        let (segmented, _) = replayed(&device, policy, &trace, &opts, 5, 16);
        assert_eq!(segmented, alone, "{policy}");
    }
}

#[test]
fn runs_that_keep_more_than_sums_or_have_a_history_are_replayed_whole() {
    let device = catalog("cmu-mems-g2");
    let columns = visible(1, 1.0);
    let trace = columns.view();
    let plain = ReplayOptions { fold_offsets: true, ..Default::default() };
    let kept = ReplayOptions { keep_per_request: true, ..plain.clone() };
    let minima = ReplayOptions { theoretical_minimum: true, ..plain.clone() };
    // (The oracle wakes the sled at its gap's start plus the gap's length, which rounds
    // differently wherever the gap starts: a replica's answers would differ in their last bits.)
    for (policy, opts) in [("timeout:10ms", &kept), ("timeout:10ms", &minima), ("always-on", &plain), ("stpm:knob=50", &plain), ("oracle", &plain)] {
        let (alone, _) = replayed(&device, policy, &trace, opts, 0, 16);
        let (helped, taken) = replayed(&device, policy, &trace, opts, 3, 16);
        assert_eq!(helped, alone, "{policy}");
        assert_eq!(taken, 0, "{policy}: nothing speculated");
    }
}

/// A random trace: gaps from 10 µs to 1 s (queues, idle sweeps, interrupted and finished
/// shutdowns), blocks anywhere on a device of `blocks` blocks.
fn random_columns(items: Vec<(f64, u32, i64, i64, bool)>, blocks: i64) -> Columns {
    let mut t = 0.0;
    let mut c = Columns { time_s: vec![], offset_bytes: vec![], size_bytes: vec![], is_write: vec![] };
    for (u, decade, block, size, write) in items {
        t += 10f64.powi(decade as i32 - 5) * u * 10.0;
        c.time_s.push(t);
        c.offset_bytes.push((block % (blocks - size)) * 512);
        c.size_bytes.push(size * 512);
        c.is_write.push(u8::from(write));
    }
    c
}

proptest! {
    #![proptest_config(common::config(200))]

    #[test]
    fn random_traces_cut_anywhere_give_one_replay_s_result(
        items in prop::collection::vec((0.0f64..1.0, 0u32..6, 0i64..6_000_000, 1i64..200, any::<bool>()), 2..400),
        device in prop::sample::select(vec!["cmu-mems-g1", "cmu-mems-g2", "cmu-mems-g3", "ibm-mems-seed004"]),
        policy in prop::sample::select(vec!["timeout:0s", "timeout:500us", "timeout:5ms", "timeout:50ms", "timeout:1s", "oracle"]),
        helpers in 1usize..6,
        least in 1usize..40,
    ) {
        let device = catalog(device);
        let columns = random_columns(items, 6_000_000);
        let trace = columns.view();
        let opts = ReplayOptions { fold_offsets: true, ..Default::default() };
        let (alone, _) = replayed(&device, policy, &trace, &opts, 0, least);
        let (segmented, _) = replayed(&device, policy, &trace, &opts, helpers, least);
        prop_assert_eq!(segmented, alone);
    }
}

#[test]
fn a_segment_that_begins_in_a_shutdown_cut_short_is_put_back_and_replayed() {
    // Seed 004's sled is brought to its centre after the timeout (0.6–1.6 ms): a request that
    // comes during the shutdown brakes the sled where it is. The speculated segment's device
    // was idle from the arrival before, longer than the real one (which was busy serving it),
    // so for some gaps its shutdown is over where the real one's is cut short: the answers
    // differ after the real run's power manager has charged the gap, and the run is put back.
    let device = catalog("ibm-mems-seed004");
    let opts = ReplayOptions { fold_offsets: true, ..Default::default() };
    let mut refused = 0;
    for timeout_us in [0, 200, 1000] {
        let policy = format!("timeout:{timeout_us}us");
        for step in 0..400 {
            let gap_s = 1e-6 * (timeout_us as f64 + 25.0 * step as f64);
            let columns = Columns {
                time_s: vec![0.0, gap_s, gap_s + 0.5],
                offset_bytes: vec![900_000_000, 12_000, 1_500_000_000],
                size_bytes: vec![512, 4_096, 4_096],
                is_write: vec![0, 1, 0],
            };
            let trace = columns.view();
            let (alone, _) = replayed(&device, &policy, &trace, &opts, 0, 1);
            let (segmented, taken) = replayed(&device, &policy, &trace, &opts, 2, 1);
            assert_eq!(segmented, alone, "{policy}, second request {gap_s} s after the first");
            refused += usize::from(taken < 2);
        }
    }
    assert!(refused > 0, "some segment was refused");
}

#[test]
fn the_generated_disksim_family_cut_into_segments_gives_one_replay_s_results() {
    // The 27 workloads DiskSim's MEMS reference runs were made on (`tools/disksim-reference/
    // workloads.py`): 1 to 8,192 sectors, mixes and heavy tails, offered loads from 2 % to
    // 150 % (deep queues), reads 0/50/100 %, random, sequential and hot blocks, Poisson,
    // bursty and 1 ms-clock arrivals; on G1, G2 and G3, under the five timeouts of the family.
    let folder = format!("{}/../../tests/data/mems-disksim/family/workloads", env!("CARGO_MANIFEST_DIR"));
    let mut paths: Vec<_> = std::fs::read_dir(&folder).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    assert_eq!(paths.len(), 27);
    let opts = ReplayOptions { fold_offsets: true, ..Default::default() };
    let devices = [catalog("cmu-mems-g1"), catalog("cmu-mems-g2"), catalog("cmu-mems-g3")];
    let mut taken = 0;
    for path in &paths {
        let read = idlewise_core::readers::read_file("disksim", path).unwrap();
        let columns = Columns { time_s: read.time_s, offset_bytes: read.offset_bytes, size_bytes: read.size_bytes, is_write: read.is_write };
        let trace = columns.view();
        for device in &devices {
            for policy in ["timeout:0s", "timeout:1ms", "timeout:10ms", "timeout:50ms", "timeout:100ms"] {
                let (alone, _) = replayed(device, policy, &trace, &opts, 0, 32);
                for helpers in [1, 4] {
                    let (segmented, n) = replayed(device, policy, &trace, &opts, helpers, 32);
                    assert_eq!(segmented, alone, "{} on {} under {policy}, {helpers} helpers", path.display(), device.name);
                    taken += n;
                }
            }
        }
    }
    // Not passed by refusing everything: the busy workloads refuse most cuts (a queue there),
    // the idle ones take them; over the 1,620 segmented replays, more than a quarter's worth.
    assert!(taken > 405, "{taken} segments taken over the family");
}

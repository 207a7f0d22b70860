//! MEMS replay throughput: requests per second of the sled engine (DiskSim's `memsmodel`
//! mechanics: layout, seeks, idle sweep, host bus; seed 004's shutdowns) on one core.
//!
//! Usage: `cargo run --release -p idlewise-benchmarks --bin mems_replay -- [REQUESTS] [MODEL] [GAP_SCALE]`
//! (defaults: 5,000,000 requests; cmu-mems-g2; ibm-mems-seed004 for seed 004's sled; gaps as
//! recorded). A GAP_SCALE below 1 shrinks the gaps between arrivals: at 1/15 G2's sled is busy
//! 65 % of the time and the mean response triples as requests queue (issue 27's queued workload).
//!
//! The trace is `tests/data/mems-disksim/visible.trace` (20,000 real requests from DiskSim's
//! `ascii.trace`, folded onto G1's capacity) repeated end to end, each copy shifted by the span of
//! the last, until REQUESTS: real locality, sizes and gaps, at any length.

use std::sync::Arc;
use std::time::Instant;

use idlewise_core::policy::{BuildContext, PolicySpec};
use idlewise_core::replay::{blocks, Replay};
use idlewise_core::{replay, Device, ReplayOptions, TraceView};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map(|s| s.replace('_', "").parse().expect("REQUESTS must be an integer")).unwrap_or(5_000_000);
    let model = args.get(2).cloned().unwrap_or_else(|| "cmu-mems-g2".to_string());
    let gap_scale: f64 = args.get(3).map(|s| parse_scale(s)).unwrap_or(1.0);
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let device_path = format!("{root}/python/idlewise/catalog/{model}.toml");
    let text = std::fs::read_to_string(&device_path).unwrap_or_else(|e| panic!("cannot read {device_path}: {e}"));
    let device = Device::from_toml(&text, &device_path).unwrap_or_else(|e| panic!("{e}"));
    let trace_path = format!("{root}/tests/data/mems-disksim/visible.trace");
    let bytes = std::fs::read(&trace_path).unwrap_or_else(|e| panic!("cannot read {trace_path}: {e}"));
    let base = idlewise_core::readers::read("disksim", &bytes).unwrap_or_else(|e| panic!("{trace_path}: {e:?}"));

    let span = base.time_s[base.time_s.len() - 1] - base.time_s[0] + 0.01;
    let (mut time_s, mut offset, mut size, mut write) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    let mut copy = 0.0;
    while time_s.len() < n {
        for i in 0..base.time_s.len() {
            if time_s.len() == n {
                break;
            }
            time_s.push((base.time_s[i] - base.time_s[0] + copy * span) * gap_scale);
            offset.push(base.offset_bytes[i]);
            size.push(base.size_bytes[i]);
            write.push(base.is_write[i]);
        }
        copy += 1.0;
    }
    let trace = TraceView::new(&time_s, &offset, &size, &write).unwrap();
    println!("device: {}", device.name);
    println!("requests: {n}, span: {:.1} h, gaps scaled by {gap_scale}", trace.span_s() / 3600.0);
    println!("{:<20} {:>10} {:>16} {:>18}", "policy", "seconds", "requests/s", "mean response ms");
    // The last run is the always-on reference `evaluate` makes once per (trace, device), which
    // also computes seed 004's theoretical minima.
    for (spec, theoretical_minimum) in [("timeout:100ms", false), ("timeout:10ms", false), ("timeout:1ms", false), ("timeout:0s", false), ("always-on", false), ("always-on", true)] {
        let mut policy = PolicySpec::parse(spec).unwrap().build(&device, &BuildContext { base_power_w: 0.0 }).unwrap();
        let opts = ReplayOptions { theoretical_minimum, ..Default::default() };
        let start = Instant::now();
        let result = replay(&trace, &device, policy.as_mut(), &opts).unwrap();
        let seconds = start.elapsed().as_secs_f64();
        let name = if theoretical_minimum { format!("{} + minima", result.policy) } else { result.policy.clone() };
        println!("{:<20} {:>10.3} {:>16.0} {:>18.3}", name, seconds, n as f64 / seconds, result.mean_response_s * 1e3);
        std::hint::black_box(result.energy_j);
    }
    // One policy's replay cut into segments speculated side by side (`Replay::feed_helped`):
    // the same result, on HELPERS more threads.
    let helpers: usize = std::env::var("HELPERS").ok().and_then(|h| h.parse().ok()).unwrap_or(1);
    for spec in ["timeout:100ms", "timeout:0s"] {
        let policy = PolicySpec::parse(spec).unwrap().build(&device, &BuildContext { base_power_w: 0.0 }).unwrap();
        let start = Instant::now();
        let mut run = Replay::new(Arc::new(device.clone()), policy, &ReplayOptions::default(), trace.arrival_s[0], 0);
        for block in blocks(&trace) {
            run.feed_helped(&block, helpers);
        }
        let result = run.finish();
        let seconds = start.elapsed().as_secs_f64();
        let name = format!("{spec}, +{helpers} threads");
        println!("{:<20} {:>10.3} {:>16.0} {:>18.3}", name, seconds, n as f64 / seconds, result.mean_response_s * 1e3);
    }
}

/// A scale as a number or a fraction (`0.1`, `1/15`).
fn parse_scale(text: &str) -> f64 {
    let value = match text.split_once('/') {
        Some((a, b)) => a.trim().parse::<f64>().ok().zip(b.trim().parse::<f64>().ok()).map(|(a, b)| a / b),
        None => text.trim().parse().ok(),
    };
    value.filter(|v| v.is_finite() && *v > 0.0).unwrap_or_else(|| panic!("GAP_SCALE must be a positive number or a fraction, got {text}"))
}

//! Replay throughput: requests per second of single-device replay on an in-memory trace, for
//! every policy family, on one core, plus the growth of peak memory during each replay.
//!
//! Usage: `cargo run --release -p idlewise-benchmarks --bin replay_throughput -- [REQUESTS] [DEVICE.toml]`
//! (defaults: 10,000,000 requests; the catalog's hitachi-microdrive-1gb).
//!
//! The synthetic trace is deterministic (PCG seed 1): bursts of 1–16 requests 1–5 ms apart,
//! separated by Pareto-distributed gaps (α = 1.2, minimum 0.2 s), sizes 4–64 KiB, 30 % writes.
//! That mixes gaps below and above the microdrive's break-even times, so every policy takes
//! both branches.

use std::time::Instant;

use idlewise_core::policy::{BuildContext, PolicySpec};
use idlewise_core::{replay, Device, ReplayOptions, TraceView};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l.split_whitespace().nth(1).unwrap_or("0").parse().unwrap_or(0)))
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map(|s| s.replace('_', "").parse().expect("REQUESTS must be an integer")).unwrap_or(10_000_000);
    let device_path = args.get(2).cloned().unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../python/idlewise/catalog/hitachi-microdrive-1gb.toml").to_string()
    });
    let text = std::fs::read_to_string(&device_path).unwrap_or_else(|e| panic!("cannot read {device_path}: {e}"));
    let device = Device::from_toml(&text, &device_path).unwrap_or_else(|e| panic!("{e}"));

    let mut rng = Pcg64Mcg::seed_from_u64(1);
    let (mut time_s, mut offset, mut size, mut write) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    let mut t = 0.0f64;
    while time_s.len() < n {
        let burst = rng.gen_range(1..=16);
        for _ in 0..burst {
            if time_s.len() == n {
                break;
            }
            t += rng.gen_range(0.001..0.005);
            time_s.push(t);
            offset.push(rng.gen_range(0..(1i64 << 30)));
            size.push(4096 * rng.gen_range(1..=16));
            write.push(u8::from(rng.gen_bool(0.3)));
        }
        let u: f64 = rng.gen_range(f64::EPSILON..1.0);
        t += 0.2 / u.powf(1.0 / 1.2);
    }
    let trace = TraceView::new(&time_s, &offset, &size, &write).unwrap();
    println!("device: {}", device.name);
    println!("requests: {n}, span: {:.1} days", trace.span_s() / 86_400.0);
    println!("{:<44} {:>10} {:>16} {:>14}", "policy", "seconds", "requests/s", "peak RSS +KiB");
    for spec in ["always-on", "timeout:2s", "timeout:low-power-idle=0.5s,standby=5s", "breakeven", "randomized:seed=7", "stpm:knob=50", "experts", "predictive", "oracle"] {
        let mut policy = PolicySpec::parse(spec).unwrap().build(&device, &BuildContext { base_power_w: 1.44 }).unwrap();
        let before = peak_rss_kib();
        let start = Instant::now();
        let result = replay(&trace, &device, policy.as_mut(), &ReplayOptions { base_power_w: 1.44, ..Default::default() }).unwrap();
        let seconds = start.elapsed().as_secs_f64();
        let grown = peak_rss_kib().saturating_sub(before);
        println!("{:<44} {:>10.3} {:>16.0} {:>14}", result.policy, seconds, n as f64 / seconds, grown);
        std::hint::black_box(result.energy_j);
    }
}

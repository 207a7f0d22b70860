//! Replay throughput: requests per second of single-device replay on an in-memory trace, for
//! every policy family, on one core, plus the growth of peak memory during each replay.
//!
//! Usage: `cargo run --release -p idlewise-benchmarks --bin replay_throughput -- [REQUESTS] [DEVICE.toml ...]`
//! (defaults: 10,000,000 requests; the catalog's two-state ibm-microdrive-340mb and three-state
//! hitachi-microdrive-1gb).
//!
//! The trace is validated once, as `evaluate` does for all the runs of a call; the time that
//! takes is printed apart. First comes the yardstick the engine is measured against: a plain
//! fixed-timeout loop over the same columns (a dozen lines: FIFO server, one timeout, energy and
//! response sums, no modes, plans, ledger or percentiles).
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
    let catalog = concat!(env!("CARGO_MANIFEST_DIR"), "/../python/idlewise/catalog/");
    let device_paths: Vec<String> = if args.len() > 2 {
        args[2..].to_vec()
    } else {
        ["ibm-microdrive-340mb.toml", "hitachi-microdrive-1gb.toml"].iter().map(|f| format!("{catalog}{f}")).collect()
    };
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
    let start = Instant::now();
    let trace = TraceView::new(&time_s, &offset, &size, &write).unwrap().validated().unwrap();
    let validation_s = start.elapsed().as_secs_f64();
    println!("requests: {n}, span: {:.1} days, validated once in {validation_s:.3} s", trace.span_s() / 86_400.0);
    for device_path in &device_paths {
        let text = std::fs::read_to_string(device_path).unwrap_or_else(|e| panic!("cannot read {device_path}: {e}"));
        let device = Device::from_toml(&text, device_path).unwrap_or_else(|e| panic!("{e}"));
        println!();
        println!("device: {} ({} modes)", device.name, device.mode_count());
        println!("{:<44} {:>10} {:>16} {:>14}", "policy", "seconds", "requests/s", "peak RSS +KiB");
        let start = Instant::now();
        let plain = plain_timeout_loop(&trace, &device, 2.0);
        let seconds = start.elapsed().as_secs_f64();
        println!("{:<44} {:>10.3} {:>16.0} {:>14}", "(plain fixed-timeout loop, 2 s)", seconds, n as f64 / seconds, 0);
        std::hint::black_box(plain);
        for spec in ["always-on", "timeout:2s", "timeout:low-power-idle=0.5s,standby=5s", "breakeven", "randomized:seed=7", "stpm:knob=50", "experts", "predictive", "oracle"] {
            let Ok(spec) = PolicySpec::parse(spec) else { continue };
            let Ok(mut policy) = spec.build(&device, &BuildContext { base_power_w: 1.44 }) else { continue };
            let before = peak_rss_kib();
            let start = Instant::now();
            let result = replay(&trace, &device, policy.as_mut(), &ReplayOptions { base_power_w: 1.44, ..Default::default() }).unwrap();
            let seconds = start.elapsed().as_secs_f64();
            let grown = peak_rss_kib().saturating_sub(before);
            println!("{:<44} {:>10.3} {:>16.0} {:>14}", result.policy, seconds, n as f64 / seconds, grown);
            std::hint::black_box(result.energy_j);
        }
    }
}

/// The yardstick: a fixed timeout on the device's first two modes, written as plainly as a
/// researcher would (spin down `timeout_s` after the queue empties, wake on the next arrival).
fn plain_timeout_loop(trace: &TraceView, device: &Device, timeout_s: f64) -> (f64, f64, u64) {
    let (ready_w, sleep_w) = (device.modes[0].power_w, device.modes[1].power_w);
    let down = device.route(0, 1).expect("a way down");
    let up = device.route(1, 0).expect("a way up");
    let s = &device.service;
    let (mut free_at, mut energy_j, mut response_sum_s, mut wakeups) = (trace.arrival_s[0], 0.0, 0.0, 0u64);
    for i in 0..trace.len() {
        let arrival = trace.arrival_s[i];
        let mut ready_at = free_at;
        if arrival > free_at {
            let gap = arrival - free_at;
            if gap > timeout_s + down.time_s {
                energy_j += ready_w * timeout_s + down.energy_j + sleep_w * (gap - timeout_s - down.time_s) + up.energy_j;
                ready_at = arrival + up.time_s;
                wakeups += 1;
            } else {
                energy_j += ready_w * gap;
                ready_at = arrival;
            }
        }
        let bandwidth = if trace.is_write[i] != 0 { s.write_bandwidth_bytes_per_s } else { s.read_bandwidth_bytes_per_s };
        let service_s = s.overhead_s + trace.size_bytes[i] as f64 / bandwidth;
        free_at = ready_at.max(arrival) + service_s;
        energy_j += service_s * if trace.is_write[i] != 0 { s.write_power_w } else { s.read_power_w };
        response_sum_s += free_at - arrival;
    }
    (energy_j, response_sum_s, wakeups)
}

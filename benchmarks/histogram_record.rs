//! Response histograms under a sweep's access pattern: nanoseconds per recorded response when K
//! runs record in turn (K = 1: one policy; K = 100: a sweep's members), each histogram in
//! blocks (the form of a run of more than 65,536 responses).
//!
//! Usage: `cargo run --release -p idlewise-benchmarks --bin histogram_record -- [K ...]`
//! (default: 1 8 100). Responses are log-distributed from 1 ms to 10 s (a few thousand
//! buckets a run, some hundred KB of counts for 100 runs: more than a core's L2), drawn from a
//! fixed table so that every build records the same values in the same order.

use std::time::Instant;

use idlewise_core::metrics::ResponseStats;

const RECORDS: usize = 100_000_000;

fn main() {
    let mut ks: Vec<usize> = std::env::args().skip(1).map(|s| s.parse().expect("K must be an integer")).collect();
    if ks.is_empty() {
        ks = vec![1, 8, 100];
    }
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let values: Vec<f64> = (0..1 << 16)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let u = (state >> 11) as f64 / (1u64 << 53) as f64;
            1e-3 * 10f64.powf(4.0 * u * u * u)
        })
        .collect();
    println!("{:>5} {:>12}", "K", "ns/response");
    for k in ks {
        let mut runs: Vec<ResponseStats> = (0..k).map(|_| ResponseStats::default()).collect();
        // Every run past the list form, its blocks allocated.
        for run in runs.iter_mut() {
            for &v in &values {
                run.record(v);
            }
        }
        let start = Instant::now();
        for i in 0..RECORDS {
            runs[i % k].record(values[(i * 7919) & 0xffff]);
        }
        let elapsed = start.elapsed().as_secs_f64();
        let medians: f64 = runs.iter().map(|r| r.quantile_s(0.5)).sum();
        println!("{k:>5} {:>12.2}   (sum of medians {medians:.6} s)", elapsed * 1e9 / RECORDS as f64);
    }
}

//! A trace larger than memory: REQUESTS generated DiskSim ASCII records (default one billion,
//! ~27 GB of text) written by a generator thread into a named pipe and replayed by
//! `stream::evaluate_file` as they are read, under `timeout:2s` next to always-on and the oracle,
//! on the two-state IBM Microdrive. Prints the time, the rate and the process's peak resident
//! memory (VmHWM), which must not grow with REQUESTS.
//!
//! Usage: `cargo run --release -p idlewise-benchmarks --bin stream_billion -- [REQUESTS] [THREADS] [POLICIES] [VOLUMES] [PARTS]`
//!
//! POLICIES (default 1) runs `timeout:1s` to `timeout:POLICIES s` on the one pass (the
//! references beside them); VOLUMES (default 1) spreads the requests round-robin over that many
//! device numbers, each replayed as its own disk, as a multi-volume trace (Alibaba, Tencent) is.
//! PARTS (default 1) replays the volumes in that many parts, one pass of the generator each
//! (`sweep --volume-parts`): the peak memory is one part's runs. With `IDLEWISE_SEPARATE_RUNS=1`
//! every timeout is replayed on its own instead of sharing one replay (`ReplayOptions::separate_runs`),
//! to measure what sharing saves.
//!
//! The records are deterministic (PCG seed 1): bursts of 1–16 requests 1–5 ms apart separated
//! by Pareto gaps (α = 1.2, minimum 0.2 s), sizes 1–16 sectors of 4 KiB, 30 % writes, one device.

use std::io::Write;
use std::time::Instant;

use idlewise_core::policy::PolicySpec;
use idlewise_core::run_table::Values;
use idlewise_core::stream::evaluate_file;
use idlewise_core::{Device, ReplayOptions};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok()))
        .unwrap_or(0.0)
        / 1024.0
}

/// Appends the decimal digits of `v`.
fn digits(out: &mut Vec<u8>, mut v: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&tmp[i..]);
}

fn generate(path: &str, n: u64, volumes: u64) {
    let mut pipe = std::io::BufWriter::with_capacity(1 << 20, std::fs::OpenOptions::new().write(true).open(path).expect("open the pipe"));
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    let (mut t_us, mut written) = (0u64, 0u64);
    let mut line = Vec::with_capacity(64);
    while written < n {
        for _ in 0..rng.gen_range(1..=16) {
            if written == n {
                break;
            }
            t_us += rng.gen_range(1_000..5_000);
            line.clear();
            digits(&mut line, t_us / 1000);
            line.push(b'.');
            let frac = t_us % 1000;
            line.extend_from_slice(&[b'0' + (frac / 100) as u8, b'0' + (frac / 10 % 10) as u8, b'0' + (frac % 10) as u8]);
            line.push(b' ');
            digits(&mut line, written % volumes);
            line.push(b' ');
            digits(&mut line, rng.gen_range(0..(1u64 << 21)) * 8);
            line.push(b' ');
            digits(&mut line, 8 * rng.gen_range(1..=16u64));
            line.extend_from_slice(if rng.gen_bool(0.3) { b" 0\n" } else { b" 1\n" });
            pipe.write_all(&line).expect("write to the pipe");
            written += 1;
        }
        let u: f64 = rng.gen_range(f64::EPSILON..1.0);
        t_us += (200_000.0 / u.powf(1.0 / 1.2)) as u64;
    }
    pipe.flush().expect("flush the pipe");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: u64 = args.get(1).map(|s| s.replace('_', "").parse().expect("REQUESTS must be an integer")).unwrap_or(1_000_000_000);
    let threads: usize = args.get(2).map(|s| s.parse().expect("THREADS must be an integer")).unwrap_or(2);
    let policies: u64 = args.get(3).map(|s| s.parse().expect("POLICIES must be an integer")).unwrap_or(1);
    let volumes: u64 = args.get(4).map(|s| s.parse().expect("VOLUMES must be an integer")).unwrap_or(1).max(1);
    let parts: u32 = args.get(5).map(|s| s.parse().expect("PARTS must be an integer")).unwrap_or(1).max(1);
    let device_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../python/idlewise/catalog/ibm-microdrive-340mb.toml");
    let device = Device::from_toml(&std::fs::read_to_string(device_path).unwrap(), device_path).unwrap();
    let specs: Vec<PolicySpec> = if policies == 1 {
        vec![PolicySpec::parse("timeout:2s").unwrap()]
    } else {
        (1..=policies).map(|k| PolicySpec::parse(&format!("timeout:{k}s")).unwrap()).collect()
    };
    let start = Instant::now();
    let mut done: Option<idlewise_core::Result<idlewise_core::stream::StreamedEvaluation>> = None;
    for part in 0..parts {
        let path = std::env::temp_dir().join(format!("idlewise-stream-{}-{part}.fifo", std::process::id()));
        let c_path = std::ffi::CString::new(path.to_str().expect("a UTF-8 temp path")).unwrap();
        // SAFETY: mkfifo reads a NUL-terminated path and creates a pipe; no memory is shared.
        assert_eq!(unsafe { mkfifo(c_path.as_ptr(), 0o600) }, 0, "mkfifo {}", path.display());
        let generator_path = path.to_str().unwrap().to_string();
        let generator = std::thread::spawn(move || generate(&generator_path, n, volumes));
        let which = (parts > 1).then_some((part, parts));
        let opts = ReplayOptions { separate_runs: std::env::var_os("IDLEWISE_SEPARATE_RUNS").is_some_and(|v| v == "1"), ..Default::default() };
        let pass = evaluate_file(&path, "disksim", &device, &specs, &opts, None, which, threads, None);
        generator.join().expect("the generator finishes");
        let _ = std::fs::remove_file(&path);
        done = Some(match (done, pass) {
            (Some(Ok(all)), Ok(pass)) => all.join(pass),
            (Some(Err(e)), _) | (_, Err(e)) => Err(e),
            (None, pass) => pass,
        });
    }
    let seconds = start.elapsed().as_secs_f64();
    let done = done.expect("at least one part");
    let done = done.unwrap_or_else(|e| panic!("{e}"));
    let records: u64 = done.volumes.iter().map(|(_, n, _)| n).sum();
    let runs = done.runs.runs;
    println!("{records} requests streamed through a pipe in {seconds:.1} s = {:.2} M requests/s (read, parsed and replayed \
              under {} policies ({runs} runs over {} volumes, {parts} part(s)) next to always-on and the oracle, {threads} threads); \
              {:.0} M request replays/s; peak RSS {:.0} MiB",
             records as f64 / seconds / 1e6, specs.len(), done.volumes.len(), records as f64 * (specs.len() + 2) as f64 / seconds / 1e6,
             peak_rss_mib());
    let first = |key: &str| match done.runs.column(key) {
        Some(Values::Floats(v)) | Some(Values::Maybe(v, _)) => v[0],
        Some(Values::Counts(v)) => v[0] as f64,
        None => f64::NAN,
    };
    println!("volume {:?}, {}: energy {:.6e} J, {:.4} of always-on, {} wake-ups", done.volumes[0].0,
             done.runs.policy.distinct[done.runs.policy.codes[0] as usize], first("energy_j"), first("normalized_energy"), first("wakeups"));
}

extern "C" {
    fn mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
}

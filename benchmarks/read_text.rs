//! The text readers alone, in Rust: reads FILE as FORMAT whole (as `idlewise.read_trace` does
//! below the binding) REPEAT times with one parsing thread, then with the default number (the
//! cores), and prints the best rates. Files come from
//! `python benchmarks/read_formats.py --write DIR` (the same generators as that benchmark).
//!
//! Usage: `cargo run --release -p idlewise-benchmarks --bin read_text -- FORMAT FILE [REPEAT]`
//!
//! With `CHUNKED=1` in the environment, each repeat also reads the file in chunks whose records
//! are dropped as they come (the parse without the whole trace's fresh memory) and prints its time.

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (format, path) = match (args.get(1), args.get(2)) {
        (Some(f), Some(p)) => (f.clone(), std::path::PathBuf::from(p)),
        _ => {
            eprintln!("usage: read_text FORMAT FILE [REPEAT]");
            std::process::exit(2);
        }
    };
    let repeat: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(5);
    let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    for threads in [1, idlewise_core::readers::parse_threads()] {
        time_reads(&format, &path, repeat, threads, bytes);
    }
}

fn time_reads(format: &str, path: &std::path::Path, repeat: usize, threads: usize, bytes: u64) {
    let mut best = f64::INFINITY;
    let mut records = 0;
    for _ in 0..repeat {
        let start = Instant::now();
        let columns = match idlewise_core::readers::read_file_with(format, path, threads, None) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                std::process::exit(1);
            }
        };
        best = best.min(start.elapsed().as_secs_f64());
        records = columns.time_s.len();
        if std::env::var("CHUNKED").is_ok() {
            let start = Instant::now();
            let mut out = idlewise_core::readers::Columns::default();
            let file = std::fs::File::open(path).expect("the file was just read");
            let dropped = idlewise_core::readers::read_chunks(format, file, None, true, threads, &mut out, |c| {
                c.clear_records();
                Ok(())
            });
            if let Err(e) = dropped {
                eprintln!("{}: {e}", path.display());
                std::process::exit(1);
            }
            eprintln!("in chunks, records dropped: {:.3} s", start.elapsed().as_secs_f64());
        }
    }
    println!(
        "{format:<10} {records:>11} records {:>7.0} MB, {threads} thread(s), best of {repeat}: {best:6.3} s = {:6.1} M records/s ({:.0} MB/s)",
        bytes as f64 / 1e6,
        records as f64 / best / 1e6,
        bytes as f64 / best / 1e6
    );
}

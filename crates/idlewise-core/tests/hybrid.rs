//! The hybrid disk engine (seed 003): hand-computed scenarios and invariants over random traces.

mod common;

use idlewise_core::hybrid::{replay_hybrid, FlushAlgorithm, FlushWhen, HybridConfig, HybridResult, HybridRuns};
use idlewise_core::{replay, Device, PolicySpec, ReplayMode, ReplayOptions, TraceView};
use proptest::prelude::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9 * b.abs().max(1.0)
}

/// Ready 1 W, standby 0.1 W; down 1 s / 1 J; up 2 s / 4 J; a request takes 10 ms + size / 1 MB/s at 2 W.
fn disk() -> Device {
    Device::from_toml(
        "name='disk'\nkind='disk'\n[[modes]]\nname='ready'\npower_w=1.0\nserves=true\n[[modes]]\nname='standby'\npower_w=0.1\n\
         [[transitions]]\nfrom='ready'\nto='standby'\ntime_s=1.0\nenergy_j=1.0\n[[transitions]]\nfrom='standby'\nto='ready'\ntime_s=2.0\nenergy_j=4.0\n\
         [service]\noverhead_s=0.01\nread_bandwidth_bytes_per_s=1e6\nwrite_bandwidth_bytes_per_s=1e6\nactive_power_w=2.0\n",
        "disk.toml",
    )
    .unwrap()
}

/// Idle 0.01 W; reads and writes at 1 MB/s and 0.1 W, no latency.
fn flash() -> Device {
    Device::from_toml(
        "name='flash'\nkind='flash'\n[[modes]]\nname='idle'\npower_w=0.01\nserves=true\n\
         [service]\noverhead_s=0\nread_bandwidth_bytes_per_s=1e6\nwrite_bandwidth_bytes_per_s=1e6\nactive_power_w=0.1\n",
        "flash.toml",
    )
    .unwrap()
}

fn run(times: &[f64], offsets: &[i64], sizes: &[i64], ops: &[u8], policy: &str, config: HybridConfig) -> HybridResult {
    let trace = TraceView::new(times, offsets, sizes, ops).unwrap();
    let d = disk();
    let p = PolicySpec::parse(policy).unwrap().build(&d, &Default::default()).unwrap();
    replay_hybrid(&trace, &d, &flash(), p, config, &ReplayOptions::default()).unwrap()
}

fn config(when: FlushWhen, nvcache: Option<u64>) -> HybridConfig {
    HybridConfig { nvcache_bytes: nvcache, dram_bytes: 4096, when, algorithm: FlushAlgorithm::Chunked, final_flush: false }
}

// A write at 0 (disk 0-0.011); idle from 0.011, down at 1.011-2.011 under timeout:1s. At 5 s a
// 488 B write is redirected (flash writes 488 + 512 B in 1 ms); at 6 s it is read back from
// flash (0.488 ms); at 7 s a read of unheld sectors spins the disk up (7-9 s) and is served
// 9-9.011 s.
const TIMES: [f64; 4] = [0.0, 5.0, 6.0, 7.0];
const OFFSETS: [i64; 4] = [0, 4096, 4096, 0];
const SIZES: [i64; 4] = [1000, 488, 488, 1000];
const OPS: [u8; 4] = [1, 1, 0, 0];

#[test]
fn writes_while_spun_down_go_to_flash_and_each_spin_up_flushes() {
    let r = run(&TIMES, &OFFSETS, &SIZES, &OPS, "timeout:1s", config(FlushWhen::Each, Some(1 << 20)));
    assert_eq!((r.writes_redirected, r.bytes_redirected, r.reads_from_nvcache, r.reads_spinning_up), (1, 488, 1, 1));
    assert_eq!((r.disk.wakeups, r.flushes, r.bytes_unflushed), (1, 1, 0));
    // The flush starts when the read is served (9.011 s): one 1000 B flash read (1 ms), then the
    // 488 B write (10.488 ms): 11.488 ms.
    assert!(close(r.flush.time_s, 0.011488) && close(r.flush.nvcache_time_s, 0.001) && close(r.flush.disk_time_s, 0.010488), "{:?}", r.flush);
    assert_eq!((r.flush.disk_ios, r.flush.nvcache_reads, r.flush.bytes_flushed), (1, 1, 488));
    assert!(close(r.disk.mean_response_s, (0.011 + 0.001 + 0.000488 + 2.011) / 4.0), "{}", r.disk.mean_response_s);
    assert_eq!(r.bytes_cached_per_spindown, vec![488]);
    // The period ends with the read at 7 s that spins the disk up.
    assert_eq!(r.spindown_ends_s, vec![7.0]);
    assert_eq!(r.flash_bytes_written, 1000);
    assert!(close(r.disk.makespan_s, 9.022488), "{}", r.disk.makespan_s);
    // Disk: ready 0.011-1.011 (1 J) and 9.011-9.012 while the flush reads the flash (1 mJ) + the
    // two hops (5 J) + standby 2.011-7 (0.4989 J) + three services at 2 W (0.011 + 0.011 +
    // 0.010488 s); the flash is idle at 0.01 W except 1 ms + 0.488 ms + 1 ms at 0.1 W.
    let disk_j = 1.0 + 0.001 + 5.0 + 0.4989 + 2.0 * (0.011 + 0.011 + 0.010488);
    assert!(close(r.disk.energy_j, disk_j), "{} vs {}", r.disk.energy_j, disk_j);
    let flash_busy = 0.001 + 0.000488 + 0.001;
    assert!(close(r.flash_energy_j, 0.1 * flash_busy + 0.01 * (r.disk.makespan_s - flash_busy)), "{}", r.flash_energy_j);
    assert!(close(r.disk.accounted_time_s(), r.disk.makespan_s));
}

#[test]
fn flush_when_full_keeps_the_data_cached_across_spin_ups() {
    let r = run(&TIMES, &OFFSETS, &SIZES, &OPS, "timeout:1s", config(FlushWhen::Full, Some(1 << 20)));
    assert_eq!((r.flushes, r.bytes_unflushed, r.disk.wakeups), (0, 488, 1));
    assert!(close(r.disk.makespan_s, 9.011));
}

#[test]
fn a_write_that_does_not_fit_spins_up_flushes_then_writes_to_the_platters() {
    // NVCache of 1536 B: the 488 B write at 5 s fits (1000 B with its metadata); a second one
    // at 5.5 s does not. Spin up 5.5-7.5 s, flush (1 ms read + 10.488 ms write), then the write
    // (10.488 ms): it completes at 7.5 + 0.011488 + 0.010488.
    let r = run(&[0.0, 5.0, 5.5], &[0, 4096, 8192], &[1000, 488, 488], &[1, 1, 1], "timeout:1s", config(FlushWhen::Full, Some(1536)));
    assert_eq!((r.writes_redirected, r.flushes, r.disk.wakeups, r.bytes_written_to_disk), (1, 1, 1, 1000 + 488));
    assert!(close(r.disk.max_response_s, 2.0 + 0.011488 + 0.010488), "{}", r.disk.max_response_s);
}

#[test]
fn reads_gather_held_sectors_from_flash_while_the_disk_spins() {
    // Under `full` the NVCache still holds 4096..4584 after the spin-up at 7 s; a read of
    // 4096..5096 at 10 s is served by the disk (11 ms) and the flash (its 488 held bytes,
    // 0.488 ms) together.
    let mut times = TIMES.to_vec();
    times.push(10.0);
    let r = run(&times, &[0, 4096, 4096, 0, 4096], &[1000, 488, 488, 1000, 1000], &[1, 1, 0, 0, 0], "timeout:1s", config(FlushWhen::Full, Some(1 << 20)));
    assert_eq!(r.reads_spinning_up, 1);
    assert!(close(r.flash_busy_s, 0.001 + 0.000488 + 0.000488), "{}", r.flash_busy_s);
}

#[test]
fn a_closed_loop_hybrid_run_is_stretched_by_the_spin_up() {
    // Closed loop: the redirected write is issued 5 s after the first write completes (5.011 s,
    // done 5.012 s); the read 2 s later (7.012 s) spins the disk up to 9.012 s and is served by
    // 9.023 s. Open loop it would be done at 9.011 s.
    let trace = TraceView::new(&[0.0, 5.0, 7.0], &[0, 4096, 0], &[1000, 488, 1000], &[1, 1, 0]).unwrap();
    let d = disk();
    let p = PolicySpec::parse("timeout:1s").unwrap().build(&d, &Default::default()).unwrap();
    let opts = ReplayOptions { mode: ReplayMode::Closed, ..Default::default() };
    let r = replay_hybrid(&trace, &d, &flash(), p, config(FlushWhen::Full, Some(1 << 20)), &opts).unwrap();
    assert!(close(r.disk.makespan_s, 9.023), "{}", r.disk.makespan_s);
    assert_eq!((r.writes_redirected, r.disk.wakeups), (1, 1));
}

#[test]
fn the_disk_waits_ready_for_the_next_chunk_and_its_policy_does_not_spin_it_down_mid_flush() {
    // timeout:0s spins the disk down whenever it falls idle. Two 488 B writes are redirected (5 s,
    // 6 s; 1000 B of log each); the read at 7 s spins the disk up (7-9 s), served by 9.011 s; then
    // `each` flushes through a 1 KiB DRAM chunk (algorithm 2): read 1024 B (1.024 ms, the second
    // entry cut and read again), write 488 B (10.488 ms), read 1000 B (1 ms) while the disk waits
    // ready, write (10.488 ms): 23 ms, with no spin-down between the writes.
    let trace = TraceView::new(&[0.0, 5.0, 6.0, 7.0], &[0, 4096, 8192, 0], &[1000, 488, 488, 1000], &[1, 1, 1, 0]).unwrap();
    let d = disk();
    let p = PolicySpec::parse("timeout:0s").unwrap().build(&d, &Default::default()).unwrap();
    let config = HybridConfig { nvcache_bytes: Some(1 << 20), dram_bytes: 1024, when: FlushWhen::Each, algorithm: FlushAlgorithm::Chunked, final_flush: false };
    let r = replay_hybrid(&trace, &d, &flash(), p, config, &ReplayOptions::default()).unwrap();
    assert_eq!((r.writes_redirected, r.flushes, r.flush.disk_ios, r.flush.nvcache_reads), (2, 1, 2, 2));
    assert_eq!(r.disk.wakeups, 1);
    assert!(close(r.flush.time_s, 0.023) && close(r.flush.nvcache_time_s, 0.002024) && close(r.flush.disk_time_s, 0.020976), "{:?}", r.flush);
    assert!(close(r.disk.makespan_s, 9.034), "{}", r.disk.makespan_s);
    assert!((r.disk.accounted_time_s() - r.disk.makespan_s).abs() < 1e-9);
}

#[test]
fn the_oracle_is_refused_because_a_hybrid_disks_gaps_are_not_known_in_advance() {
    let trace = TraceView::new(&TIMES, &OFFSETS, &SIZES, &OPS).unwrap();
    let d = disk();
    let p = PolicySpec::parse("oracle").unwrap().build(&d, &Default::default()).unwrap();
    let err = replay_hybrid(&trace, &d, &flash(), p, config(FlushWhen::Full, None), &ReplayOptions::default()).unwrap_err().to_string();
    assert!(err.starts_with("option 'policy': 'oracle' reads each idle gap's length"), "{err}");
}

fn random_trace() -> impl Strategy<Value = (Vec<f64>, Vec<i64>, Vec<i64>, Vec<u8>)> {
    prop::collection::vec((0.0f64..1.0, 0u32..4, 0i64..64, 1i64..16, any::<bool>()), 1..150).prop_map(|items| {
        let mut t = 0.0;
        let mut out = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (u, decade, block, sectors, write) in items {
            t += 10f64.powi(decade as i32 - 1) * u * 5.0;
            out.0.push(t);
            out.1.push(block * 512);
            out.2.push(sectors * 512);
            out.3.push(u8::from(write));
        }
        out
    })
}

proptest! {
    #![proptest_config(common::config(300))]

    #[test]
    fn hybrid_invariants(
        (times, offsets, sizes, ops) in random_trace(),
        nv_sectors in prop::option::of(4u64..64), dram_sectors in 2u64..32,
        each in any::<bool>(), algorithm in 1u32..5, timeout in 0.0f64..3.0, final_flush in any::<bool>(),
    ) {
        let config = HybridConfig {
            nvcache_bytes: nv_sectors.map(|s| s * 512),
            dram_bytes: dram_sectors * 512,
            when: if each { FlushWhen::Each } else { FlushWhen::Full },
            algorithm: FlushAlgorithm::from_number(algorithm).unwrap(),
            final_flush,
        };
        let policy = format!("timeout:{timeout}s");
        let r = run(&times, &offsets, &sizes, &ops, &policy, config);
        let user_writes: u64 = sizes.iter().zip(&ops).filter(|(_, &w)| w == 1).map(|(&s, _)| s as u64).sum();
        // Every byte the user writes goes to the platters or is redirected.
        prop_assert_eq!(user_writes, r.bytes_written_to_disk + r.bytes_redirected);
        // Nothing is lost: what was redirected is flushed, left in the NVCache, or made stale by a
        // later write to the platters (never flushed back over it); merging only shrinks what
        // the platters write for it.
        prop_assert_eq!(r.flush.bytes_flushed + r.bytes_unflushed + r.bytes_superseded, r.bytes_redirected);
        prop_assert!(r.flush.bytes_flushed <= r.bytes_redirected);
        if config.algorithm == FlushAlgorithm::SortedMerged {
            prop_assert!(r.flush.disk_bytes_written <= r.flush.bytes_flushed);
        } else {
            prop_assert_eq!(r.flush.disk_bytes_written, r.flush.bytes_flushed);
        }
        prop_assert_eq!(r.disk.requests, times.len() as u64);
        // Spin-down periods: all redirected data is in one, and they end in time order.
        prop_assert_eq!(r.bytes_cached_per_spindown.iter().sum::<u64>(), r.bytes_redirected);
        prop_assert_eq!(r.bytes_cached_per_spindown.len(), r.spindown_ends_s.len());
        prop_assert!(r.spindown_ends_s.windows(2).all(|w| w[0] <= w[1]));
        prop_assert!((r.disk.accounted_time_s() - r.disk.makespan_s).abs() <= 1e-6 * r.disk.makespan_s.max(1.0));
        prop_assert!(r.flush.time_s + 1e-12 >= r.flush.disk_time_s.max(0.0));
        // An unbounded NVCache flushed only when full never flushes (but at the end, if asked).
        if config.nvcache_bytes.is_none() && !each && !final_flush {
            prop_assert_eq!(r.flushes, 0);
        }
        if final_flush {
            // Everything redirected ends on the platters or was superseded there.
            prop_assert_eq!(r.bytes_unflushed, 0);
            // The same run as without the final flush until its last request: the final flush
            // writes exactly what that run left in the log, and costs at least its disk writes.
            let without = run(&times, &offsets, &sizes, &ops, &policy, HybridConfig { final_flush: false, ..config });
            prop_assert_eq!(r.flush.bytes_flushed, without.flush.bytes_flushed + without.bytes_unflushed);
            prop_assert_eq!(r.flushes, without.flushes + u64::from(without.bytes_unflushed > 0));
            prop_assert!(r.flush.time_s >= without.flush.time_s);
            prop_assert!(r.disk.energy_j + 1e-9 >= without.disk.energy_j);
        }
    }

    #[test]
    fn with_no_spin_down_the_hybrid_is_the_plain_disk((times, offsets, sizes, ops) in random_trace(), each in any::<bool>()) {
        let config = HybridConfig { nvcache_bytes: Some(1 << 20), dram_bytes: 1 << 16, when: if each { FlushWhen::Each } else { FlushWhen::Full }, algorithm: FlushAlgorithm::SortedMerged, final_flush: false };
        let r = run(&times, &offsets, &sizes, &ops, "always-on", config);
        let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
        let d = disk();
        let mut p = PolicySpec::parse("always-on").unwrap().build(&d, &Default::default()).unwrap();
        let plain = replay(&trace, &d, p.as_mut(), &ReplayOptions::default()).unwrap();
        prop_assert_eq!(r.disk.energy_j, plain.energy_j);
        prop_assert_eq!(r.disk.mean_response_s, plain.mean_response_s);
        prop_assert_eq!(r.disk.makespan_s, plain.makespan_s);
        prop_assert_eq!((r.writes_redirected, r.flushes), (0, 0));
    }

    #[test]
    fn fed_in_parts_the_runs_equal_the_whole_trace_replayed(
        (times, offsets, sizes, ops) in random_trace(), cuts in prop::collection::vec(0usize..150, 0..6),
        closed in any::<bool>(), timeout in 0.0f64..3.0, nv_sectors in prop::option::of(4u64..64),
    ) {
        // What `idlewise hybrid` does as a file is read: every configuration and the plain disk,
        // fed the trace cut anywhere, give the whole trace's results bit for bit.
        let d = disk();
        let spec = PolicySpec::parse(&format!("timeout:{timeout}s")).unwrap();
        let opts = ReplayOptions { mode: if closed { ReplayMode::Closed } else { ReplayMode::Open }, ..Default::default() };
        let configs: Vec<HybridConfig> = [(FlushWhen::Each, 1u32), (FlushWhen::Full, 4)]
            .iter()
            .map(|&(when, a)| HybridConfig { nvcache_bytes: nv_sectors.map(|s| s * 512), dram_bytes: 2048, when, algorithm: FlushAlgorithm::from_number(a).unwrap(), final_flush: false })
            .collect();
        let mut runs = HybridRuns::new(&d, &flash(), &spec, &Default::default(), &configs, &opts).unwrap();
        let mut bounds: Vec<usize> = cuts.into_iter().map(|c| c.min(times.len())).chain([0, times.len()]).collect();
        bounds.sort_unstable();
        for w in bounds.windows(2) {
            let (a, b) = (w[0], w[1]);
            runs.feed(&TraceView::new(&times[a..b], &offsets[a..b], &sizes[a..b], &ops[a..b]).unwrap()).unwrap();
        }
        let (plain, parts) = runs.finish().unwrap();
        let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
        let whole_plain = replay(&trace, &d, spec.build(&d, &Default::default()).unwrap().as_mut(), &opts).unwrap();
        prop_assert_eq!(format!("{plain:?}"), format!("{whole_plain:?}"));
        for (config, r) in parts {
            let whole = replay_hybrid(&trace, &d, &flash(), spec.build(&d, &Default::default()).unwrap(), config, &opts).unwrap();
            prop_assert_eq!(format!("{r:?}"), format!("{whole:?}"));
        }
    }
}

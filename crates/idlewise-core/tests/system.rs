//! The multi-device system engine: hand-computed scenarios from seed 000 and invariants.

use idlewise_core::policy::{BuildContext, PolicySpec};
use idlewise_core::system::{run_system, AppEvent, AppOp, SystemConfig};
use idlewise_core::{replay, Device, ReplayOptions, TraceView};

fn catalog(name: &str) -> Device {
    let path = format!("{}/../../python/idlewise/catalog/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    Device::from_toml(&std::fs::read_to_string(&path).unwrap(), &path).unwrap()
}

fn spec(s: &str) -> PolicySpec {
    PolicySpec::parse(s).unwrap()
}

fn read(time_s: f64, object: u64, size_bytes: f64, cached: bool) -> AppEvent {
    AppEvent { time_s, object, size_bytes, op: AppOp::Read, cached }
}

#[test]
fn storage_alone_equals_the_single_device_replay() {
    let disk = catalog("hitachi-microdrive-1gb");
    let times: Vec<f64> = (0..200).map(|i| (i as f64 * 7.3) % 50.0 + i as f64 * 3.1).collect();
    let mut times = times;
    times.sort_by(f64::total_cmp);
    let events: Vec<AppEvent> = times.iter().enumerate().map(|(i, &t)| read(t, (i % 17) as u64, 4096.0 * (1 + (i % 17) % 5) as f64, true)).collect();
    for policy in ["always-on", "timeout:2s", "stpm:knob=50", "breakeven"] {
        let cfg = SystemConfig { adaptive: false, closed_loop: false, base_power_w: 0.0, ..Default::default() };
        let sys = run_system(&events, (&disk, &spec(policy)), None, &cfg).unwrap();
        // Each cached read is the file's two metadata blocks, then its data.
        let times: Vec<f64> = times.iter().flat_map(|&t| [t; 3]).collect();
        let offsets: Vec<i64> = events.iter().flat_map(|e| [(e.object as i64) << 20; 3]).collect();
        let sizes: Vec<i64> = events.iter().flat_map(|e| [4096, 4096, e.size_bytes as i64]).collect();
        let ops = vec![0u8; times.len()];
        let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
        let mut p = spec(policy).build(&disk, &BuildContext::default()).unwrap();
        let single = replay(&trace, &disk, p.as_mut(), &ReplayOptions::default()).unwrap();
        assert_eq!(sys.storage.energy_j, single.energy_j, "{policy}");
        assert_eq!(sys.storage.time_by_mode_s, single.time_by_mode_s, "{policy}");
        assert_eq!(sys.storage.wakeups, single.wakeups, "{policy}");
        // A read's response is its data request's, the last of its three to finish.
        assert_eq!(sys.max_response_s, single.max_response_s, "{policy}");
        assert_eq!(sys.storage.makespan_s, single.makespan_s, "{policy}");
    }
}

#[test]
fn a_32kb_read_with_the_disk_in_standby_goes_to_the_network() {
    // Seed 000 section 2.2: disk in standby, card in CAM: the network is faster and cheaper.
    let disk = catalog("hitachi-microdrive-1gb");
    let card = catalog("cisco-350");
    let cfg = SystemConfig { storage_initial_mode: disk.mode_index("standby").unwrap(), ..Default::default() };
    let events = [read(0.0, 1, 32768.0, true)];
    let r = run_system(&events, (&disk, &spec("stpm:knob=50")), Some((&card, &spec("stpm:knob=50"))), &cfg).unwrap();
    assert_eq!((r.counters.network_reads, r.counters.storage_reads), (1, 0));
    let network_time = card.service(32768.0, false, 0.0, 0.0).0;
    assert!((r.mean_response_s - network_time).abs() < 1e-12, "{}", r.mean_response_s);
    // The disk in performance idle would have served it better: one ghost hint, too little to spin up.
    assert_eq!((r.counters.disk_hints, r.hint_spin_ups, r.spin_ups), (1, 0, 0));
    // The static cache reads it from the disk and pays the 820 ms spin-up.
    let static_cfg = SystemConfig { adaptive: false, ..cfg };
    let s = run_system(&events, (&disk, &spec("timeout:20s")), Some((&card, &spec("psm"))), &static_cfg).unwrap();
    assert_eq!((s.counters.network_reads, s.counters.storage_reads, s.spin_ups), (0, 1, 1));
    assert!(s.mean_response_s > 0.82);
}

#[test]
fn a_burst_of_small_cached_reads_spins_the_disk_up_through_ghost_hints() {
    let disk = catalog("hitachi-microdrive-1gb");
    let card = catalog("cisco-350");
    let cfg = SystemConfig { storage_initial_mode: disk.mode_index("standby").unwrap(), ..Default::default() };
    // 40 reads of 16 KB, 100 ms of think time apart: each goes to the network and hints the disk.
    let events: Vec<AppEvent> = (0..40).map(|i| read(i as f64 * 0.1, i, 16384.0, true)).collect();
    let with = run_system(&events, (&disk, &spec("stpm:knob=50")), Some((&card, &spec("stpm:knob=50"))), &cfg).unwrap();
    assert!(with.hint_spin_ups >= 1, "hints never spun the disk up");
    assert!(with.counters.network_reads >= 1 && with.counters.storage_reads >= 1);
    let no_hints = SystemConfig { ghost_hints: false, ..cfg.clone() };
    let without = run_system(&events, (&disk, &spec("stpm:knob=50")), Some((&card, &spec("stpm:knob=50"))), &no_hints).unwrap();
    assert_eq!((without.counters.storage_reads, without.hint_spin_ups, without.ghost_hints), (0, 0, 0));
    assert!(with.mean_response_s < without.mean_response_s);
}

#[test]
fn writes_queued_while_the_disk_sleeps_are_written_when_it_wakes_or_reported_at_the_end() {
    let disk = catalog("hitachi-microdrive-1gb");
    let card = catalog("cisco-350");
    let cfg = SystemConfig { storage_initial_mode: disk.mode_index("standby").unwrap(), ..Default::default() };
    // A miss (fetched from the network, then cached in the background), then a cached read of a
    // large object that goes to the disk and wakes it: the queued write follows it.
    let events = [read(0.0, 1, 8192.0, false), read(1.0, 2, 2_000_000.0, true)];
    let r = run_system(&events, (&disk, &spec("stpm:knob=50")), Some((&card, &spec("stpm:knob=50"))), &cfg).unwrap();
    // The miss stores its data and its metadata: two queued writes.
    assert_eq!((r.counters.writes_queued, r.counters.writes_flushed, r.writes_pending_at_end), (2, 2, 0));
    assert_eq!(r.counters.storage_reads, 1);
    assert_eq!(r.storage.requests, 5, "the read (two metadata blocks and the data) and the two flushed writes");
    // If the run ends first, the write is still queued, and the report says so.
    let r = run_system(&events[..1], (&disk, &spec("stpm:knob=50")), Some((&card, &spec("stpm:knob=50"))), &cfg).unwrap();
    assert_eq!((r.counters.writes_queued, r.counters.writes_flushed, r.writes_pending_at_end), (2, 0, 2));
    // Delete and rename wait in the queue too, and the application does not wait for them.
    let ops = [read(0.0, 1, 8192.0, true), AppEvent { time_s: 1.0, object: 1, size_bytes: 0.0, op: AppOp::Rename, cached: false },
               AppEvent { time_s: 2.0, object: 1, size_bytes: 0.0, op: AppOp::Delete, cached: false }];
    let r = run_system(&ops, (&disk, &spec("stpm:knob=50")), Some((&card, &spec("stpm:knob=50"))), &cfg).unwrap();
    assert_eq!((r.counters.writes_queued, r.writes_pending_at_end, r.requests), (2, 2, 3));
}

#[test]
fn every_request_is_served_once_and_each_device_conserves_time() {
    let disk = catalog("hitachi-microdrive-1gb");
    let card = catalog("cisco-350");
    let mut events = Vec::new();
    let mut t = 0.0;
    for i in 0..300u64 {
        t += [0.05, 0.3, 2.0, 12.0, 40.0][(i * 7 % 5) as usize];
        let op = if i % 11 == 0 { AppOp::Write } else { AppOp::Read };
        events.push(AppEvent { time_s: t, object: i % 60, size_bytes: 2048.0 * (1 + i % 9) as f64, op, cached: i % 3 != 0 });
    }
    for knob in [0.0, 50.0, 99.0] {
        for hints in [true, false] {
            let cfg = SystemConfig { knob, ghost_hints: hints, ..Default::default() };
            let r = run_system(&events, (&disk, &spec(&format!("stpm:knob={knob}"))), Some((&card, &spec(&format!("stpm:knob={knob}")))), &cfg).unwrap();
            assert_eq!(r.counters.storage_reads + r.counters.network_reads + r.uploads, events.len() as u64);
            assert_eq!(r.requests, events.len() as u64);
            let net = r.network.as_ref().unwrap();
            for run in [&r.storage, net] {
                assert!((run.accounted_time_s() - run.makespan_s).abs() < 1e-6 * run.makespan_s.max(1.0), "{}", run.policy);
            }
            assert_eq!(r.storage.requests, 3 * r.counters.storage_reads + r.counters.writes_flushed);
            assert_eq!(net.requests, r.counters.network_reads + r.uploads);
            assert!(r.energy_lower_bound_j <= r.energy_j);
            assert!((r.energy_j - (r.storage_energy_j + r.network_energy_j + r.base_energy_j + r.io_cpu_energy_j)).abs() < 1e-9);
            // The CPU draws its I/O power exactly while a device serves.
            let serving_s = r.storage.service_time_s + net.service_time_s;
            assert!((r.io_cpu_energy_j - cfg.io_cpu_power_w * serving_s).abs() < 1e-9 && r.io_cpu_energy_j > 0.0);
        }
    }
}

#[test]
fn bad_inputs_are_refused() {
    let disk = catalog("hitachi-microdrive-1gb");
    let cfg = SystemConfig::default();
    let err = run_system(&[read(0.0, 1, 10.0, false)], (&disk, &spec("stpm")), None, &cfg).unwrap_err().to_string();
    assert!(err.contains("never cached or written") && err.contains("record 0"), "{err}");
    let err = run_system(&[read(0.0, 1, -1.0, true)], (&disk, &spec("stpm")), None, &cfg).unwrap_err().to_string();
    assert!(err.contains("size_bytes"), "{err}");
    let err = run_system(&[read(0.0, 1, 1.0, true)], (&disk, &spec("stpm")), None, &SystemConfig { knob: 120.0, ..cfg.clone() }).unwrap_err().to_string();
    assert!(err.contains("knob"), "{err}");
    let write = AppEvent { time_s: 0.0, object: 1, size_bytes: 1.0, op: AppOp::Write, cached: false };
    assert!(run_system(&[write], (&disk, &spec("stpm")), None, &cfg).unwrap_err().to_string().contains("network"));
}

/// One read in seed 000's Figure 3 set-up, through the system engine: the device that serves
/// it starts in `mode`, the other rests in its low-power mode (the card in PSM, the disk in
/// standby), as the devices' own power management leaves them when idle; the platform draws its
/// base power and, while a device serves, the fitted CPU power. Returns the response time and the
/// whole system's energy.
fn figure3_read(from_disk: bool, size_bytes: f64, mode: &str) -> (f64, f64) {
    let disk = catalog("hitachi-microdrive-1gb");
    let card = catalog("cisco-350");
    let (disk_mode, card_mode) = if from_disk { (mode, "psm") } else { ("standby", mode) };
    let cfg = SystemConfig {
        adaptive: false,
        storage_initial_mode: disk.mode_index(disk_mode).unwrap(),
        network_initial_mode: card.mode_index(card_mode).unwrap(),
        ..Default::default()
    };
    // Static: a cached object comes from the disk, an uncached one from the network; the devices
    // stay where they are put.
    let r = run_system(&[read(0.0, 1, size_bytes, from_disk)], (&disk, &spec("always-on")), Some((&card, &spec("always-on"))), &cfg).unwrap();
    (r.mean_response_s, r.energy_j)
}

fn within(value: f64, measured: f64, fraction: f64) -> bool {
    (value - measured).abs() <= fraction * measured.abs()
}

#[test]
fn seed000_figure3_under_one_convention() {
    // Fitted (a regression guard, not a prediction): the CPU's draw during I/O was chosen so that
    // "if the microdrive had been in performance idle mode, the Web browser would have read the
    // cached copy, saving an additional 160 ms and 580 mJ": 250 - 160 = 90 ms, 0.9 - 0.58 = 0.32 J.
    let (t, e) = figure3_read(true, 32768.0, "performance-idle");
    assert!(within(t, 0.090, 0.05) && within(e, 0.32, 0.02), "fitted point moved: disk 32 KB from performance idle: {t} s, {e} J");
    // Predicted: "reading the file from the server requires only 250 ms and 0.9 Joules if the
    // network is in CAM".
    let (t, e) = figure3_read(false, 32768.0, "cam");
    assert!(within(t, 0.250, 0.05) && within(e, 0.9, 0.1), "network 32 KB in CAM: {t} s, {e} J");
    // Predicted: "Reading a 32 KB file from the microdrive takes 820 ms and 2.3 Joules if the
    // drive is in standby mode". The spin-up alone is Figure 2's 820 ms and 0.9 J; the model adds
    // the read after it, which the seed's figure does not (docs/seed000.md): 11 % slower, 19 %
    // dearer. Pinned so that a change to either shows.
    let (t, e) = figure3_read(true, 32768.0, "standby");
    assert!(within(t, 0.82, 0.15) && within(e, 2.3, 0.22), "disk 32 KB from standby: {t} s, {e} J");
    assert!(t > 0.82 && e > 2.3, "the read after the spin-up is the model's, not the seed's: {t} s, {e} J");
    // Predicted: "Reading a 512 KB file from the drive in standby mode takes 320 ms less than
    // reading it from the network in CAM."
    let (disk_t, _) = figure3_read(true, 524_288.0, "standby");
    let (net_t, _) = figure3_read(false, 524_288.0, "cam");
    assert!(within(net_t - disk_t, 0.320, 0.2), "512 KB: network {net_t} s - disk {disk_t} s");
    // And the network in PSM is slower than in CAM for a 32 KB object (the figure's PSM line).
    let (psm_t, _) = figure3_read(false, 32768.0, "psm");
    assert!(psm_t > 0.250, "network 32 KB in PSM: {psm_t} s");
}


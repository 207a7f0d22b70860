//! Hand-computed scenarios for the engine's physics: routes and chains, spin-ups inside chains,
//! 802.11 PSM serving and beacons, delayed requests, and the device sanity checks. Each expected
//! value is derived in the comment beside it.

use idlewise_core::metrics::RunResult;
use idlewise_core::{evaluate, Device, PolicySpec, ReplayOptions, TraceView};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9 * b.abs().max(1.0)
}

fn run(device: &Device, spec: &str, times: &[f64], sizes: &[i64], opts: &ReplayOptions) -> RunResult {
    let offsets = vec![0i64; times.len()];
    let ops = vec![0u8; times.len()];
    let trace = TraceView::new(times, &offsets, sizes, &ops).unwrap();
    let specs = [PolicySpec::parse(spec).unwrap()];
    evaluate(&trace, device, &specs, opts, None).unwrap().remove(0).run
}

fn count(r: &RunResult, from: &str, to: &str) -> u64 {
    r.transition_counts.iter().find(|(f, t, _)| f == from && t == to).map_or(0, |c| c.2)
}

const INSTANT_SERVICE: &str = "[service]\noverhead_s=0\nread_bandwidth_bytes_per_s=1e6\nwrite_bandwidth_bytes_per_s=1e6\nactive_power_w=10\n";

/// Issue 7 §2.2: ready 10 W, mid 5 W, deep 0 W; a direct ready->deep that is quick but dear, a
/// chain through mid that is slow but cheap.
fn direct_and_chain() -> Device {
    Device::from_toml(&direct_and_chain_toml_with(""), "direct-and-chain.toml").unwrap()
}

#[test]
fn oracle_takes_the_direct_transition_when_the_chain_does_not_fit() {
    // One 0.45 s gap. Staying ready: 4.5 J. The chain down (0.4 s) and back (0.1 s) does not
    // fit. Direct down 0.1 s / 0.5 J, asleep 0.25 s at 0 W, up 0.1 s / 0.1 J: 0.6 J, no delay.
    let r = run(&direct_and_chain(), "oracle", &[0.0, 0.45], &[0, 0], &ReplayOptions::default());
    assert!(close(r.energy_j, 0.6), "{}", r.energy_j);
    assert_eq!((count(&r, "ready", "deep"), count(&r, "deep", "ready"), r.delayed_requests), (1, 1, 0));
}

#[test]
fn oracle_takes_the_chain_when_it_fits_and_is_cheaper() {
    // One 1 s gap: chain down 0.4 s / 0.2 J + up 0.1 s / 0.1 J = 0.3 J < direct 0.6 J < ready 10 J.
    let r = run(&direct_and_chain(), "oracle", &[0.0, 1.0], &[0, 0], &ReplayOptions::default());
    assert!(close(r.energy_j, 0.3), "{}", r.energy_j);
    assert_eq!((count(&r, "ready", "mid"), count(&r, "mid", "deep"), count(&r, "ready", "deep")), (1, 1, 0));
    assert!(close(r.mean_response_s, 0.0));
}

#[test]
fn a_policy_move_uses_the_direct_transition() {
    // timeout:deep=0s on the 0.45 s gap: direct down 0.1 s / 0.5 J, asleep to 0.45, wake 0.1 s /
    // 0.1 J: 0.6 J and a 0.1 s response for the second request.
    let r = run(&direct_and_chain(), "timeout:deep=0s", &[0.0, 0.45], &[0, 0], &ReplayOptions::default());
    assert!(close(r.energy_j, 0.6), "{}", r.energy_j);
    assert_eq!((count(&r, "ready", "deep"), count(&r, "ready", "mid")), (1, 0));
    assert!(close(r.max_response_s, 0.1));
}

#[test]
fn a_device_file_can_name_the_chain_a_policy_takes() {
    let text = direct_and_chain_toml_with("[[routes]]\nfrom='ready'\nto='deep'\nvia=['mid']\n");
    let d = Device::from_toml(&text, "routes.toml").unwrap();
    // Down by the chain 0.4 s / 0.2 J from 0 to 0.4, asleep 0.6 s, up 0.1 s / 0.1 J.
    let r = run(&d, "timeout:deep=0s", &[0.0, 1.0], &[0, 0], &ReplayOptions::default());
    assert!(close(r.energy_j, 0.3), "{}", r.energy_j);
    let bad = direct_and_chain_toml_with("[[routes]]\nfrom='deep'\nto='mid'\nvia=[]\n");
    let err = Device::from_toml(&bad, "routes.toml").unwrap_err().to_string();
    assert!(err.contains("no transition deep -> mid"), "{err}");
}

fn direct_and_chain_toml_with(extra: &str) -> String {
    format!(
        "name='dc'\nkind='disk'\n\
         [[modes]]\nname='ready'\npower_w=10\nserves=true\n[[modes]]\nname='mid'\npower_w=5\n[[modes]]\nname='deep'\npower_w=0\n\
         [[transitions]]\nfrom='ready'\nto='mid'\ntime_s=0.2\nenergy_j=0.1\n\
         [[transitions]]\nfrom='mid'\nto='deep'\ntime_s=0.2\nenergy_j=0.1\n\
         [[transitions]]\nfrom='ready'\nto='deep'\ntime_s=0.1\nenergy_j=0.5\n\
         [[transitions]]\nfrom='deep'\nto='ready'\ntime_s=0.1\nenergy_j=0.1\n\
         [[transitions]]\nfrom='mid'\nto='ready'\ntime_s=0.1\nenergy_j=5\n{extra}{INSTANT_SERVICE}"
    )
}

/// The Hitachi microdrive of seed 000 without a direct ready -> standby transition.
fn microdrive_without_direct_standby() -> Device {
    Device::from_toml(
        "name='md'\nkind='disk'\n\
         [[modes]]\nname='performance-idle'\npower_w=0.76\nserves=true\n[[modes]]\nname='low-power-idle'\npower_w=0.34\n[[modes]]\nname='standby'\npower_w=0.08\n\
         [[transitions]]\nfrom='performance-idle'\nto='low-power-idle'\ntime_s=0.16\nenergy_j=0.15\n\
         [[transitions]]\nfrom='low-power-idle'\nto='standby'\ntime_s=0.32\nenergy_j=0.3\n\
         [[transitions]]\nfrom='low-power-idle'\nto='performance-idle'\ntime_s=0.3\nenergy_j=0.31\n\
         [[transitions]]\nfrom='standby'\nto='performance-idle'\ntime_s=0.82\nenergy_j=0.9\n\
         [service]\noverhead_s=0.02\nread_bandwidth_bytes_per_s=4e6\nwrite_bandwidth_bytes_per_s=3e6\nactive_power_w=0.946\n\
         [limits]\nstart_stop_cycles=300000\ncycle_modes=['standby']\n",
        "microdrive.toml",
    )
    .unwrap()
}

#[test]
fn an_arrival_during_a_chain_stops_it_between_hops() {
    // Served 0..0.02 s; idle; at 2.02 s the chain starts: ready -> low-power idle 2.02-2.18 s.
    // The request at 2.1 s lets that hop finish, the device stops in low-power idle and wakes
    // from there (0.3 s): ready at 2.48, served by 2.50: response 0.40 s. Energy: 2 s ready
    // (1.52 J) + 0.15 J + 0.31 J + two services of 0.02 s at 0.946 W = 2.01784 J.
    let r = run(&microdrive_without_direct_standby(), "timeout:standby=2s", &[0.0, 2.1], &[0, 0], &ReplayOptions::default());
    assert!(close(r.max_response_s, 0.40), "{}", r.max_response_s);
    assert!(close(r.energy_j, 1.52 + 0.15 + 0.31 + 2.0 * 0.02 * 0.946), "{}", r.energy_j);
    assert_eq!((count(&r, "low-power-idle", "standby"), count(&r, "low-power-idle", "performance-idle")), (0, 1));
    assert_eq!((r.wakeups, r.cycle_wakeups, r.delayed_requests), (1, 0, 1));
    assert!(close(r.accounted_time_s(), r.makespan_s));
}

#[test]
fn an_inverted_cascade_is_rejected_naming_both_modes() {
    let d = microdrive_without_direct_standby();
    let err = PolicySpec::parse("timeout:standby=1s,low-power-idle=5s").unwrap().build(&d, &Default::default()).err().unwrap().to_string();
    assert!(err.contains("standby") && err.contains("low-power-idle") && err.contains("shallower"), "{err}");
}

#[test]
fn a_spin_up_inside_a_chain_is_a_wake_up_and_a_cycle() {
    // No a -> b transition: the cascade's move from a to b goes a -> ready -> b, spinning up on
    // the way. Gap 0..20 s: a at 1 s (0.1 s), b at 5 s (a -> ready 0.1 s, ready -> b 0.1 s),
    // woken at 20 s from b. Two wake-ups, both consuming a rated cycle.
    let d = Device::from_toml(
        "name='ab'\nkind='disk'\n[[modes]]\nname='ready'\npower_w=2\nserves=true\n[[modes]]\nname='a'\npower_w=1\n[[modes]]\nname='b'\npower_w=0.5\n\
         [[transitions]]\nfrom='ready'\nto='a'\ntime_s=0.1\nenergy_j=0.1\n[[transitions]]\nfrom='a'\nto='ready'\ntime_s=0.1\nenergy_j=0.1\n\
         [[transitions]]\nfrom='ready'\nto='b'\ntime_s=0.1\nenergy_j=0.1\n[[transitions]]\nfrom='b'\nto='ready'\ntime_s=0.1\nenergy_j=0.1\n\
         [service]\noverhead_s=0\nread_bandwidth_bytes_per_s=1e6\nwrite_bandwidth_bytes_per_s=1e6\nactive_power_w=2\n[limits]\nstart_stop_cycles=1000\n",
        "ab.toml",
    )
    .unwrap();
    let r = run(&d, "timeout:a=1s,b=5s", &[0.0, 20.0], &[0, 0], &ReplayOptions::default());
    assert_eq!((r.wakeups, r.cycle_wakeups), (2, 2));
    assert_eq!((count(&r, "a", "ready"), count(&r, "ready", "b"), count(&r, "b", "ready")), (1, 1, 1));
}

#[test]
fn load_unload_and_start_stop_cycles_are_rated_apart() {
    // EPC-like disk: heads unloaded in 'unloaded' (spinning), spun down in 'stopped'. Requests at
    // 0, 10, 20, 100 s with unloaded after 5 s and stopped after 50 s: the 10 s and 20 s
    // requests wake from 'unloaded' (two head loads), the 100 s one from 'stopped' (a start and a
    // head load). Over the 100 s run: 3 loads = 2,592 a day against 600,000 (0.634 years) and
    // 1 start = 864 a day against 50,000 (0.1585 years): the start/stop rating runs out first.
    let epc = |limits: &str| {
        Device::from_toml(
            &format!(
                "name='epc'\nkind='disk'\n[[modes]]\nname='ready'\npower_w=5\nserves=true\n[[modes]]\nname='unloaded'\npower_w=3\n[[modes]]\nname='stopped'\npower_w=0.8\n\
                 [[transitions]]\nfrom='ready'\nto='unloaded'\ntime_s=0\nenergy_j=0\n[[transitions]]\nfrom='unloaded'\nto='ready'\ntime_s=0\nenergy_j=0\n\
                 [[transitions]]\nfrom='unloaded'\nto='stopped'\ntime_s=0\nenergy_j=0\n[[transitions]]\nfrom='stopped'\nto='ready'\ntime_s=0\nenergy_j=0\n\
                 [service]\noverhead_s=0\nread_bandwidth_bytes_per_s=1e9\nwrite_bandwidth_bytes_per_s=1e9\nactive_power_w=5\n[limits]\n{limits}"
            ),
            "epc.toml",
        )
        .unwrap()
    };
    let loads = "load_unload_cycles=600000\nload_unload_modes=['unloaded','stopped']\n";
    let (times, sizes) = ([0.0, 10.0, 20.0, 100.0], [0, 0, 0, 0]);
    let spec = "timeout:unloaded=5s,stopped=50s";
    let both = epc(&format!("start_stop_cycles=50000\nstart_stop_modes=['stopped']\n{loads}"));
    let r = run(&both, spec, &times, &sizes, &ReplayOptions::default());
    assert_eq!((r.wakeups, r.cycle_wakeups, r.load_unload_wakeups), (3, 1, 3));
    assert!(close(r.makespan_s, 100.0), "{}", r.makespan_s);
    assert!(close(r.load_unload_wakeups_per_day(), 2592.0));
    assert!(close(r.years_to_rated_cycles().unwrap(), 50_000.0 / 864.0 / 365.25));
    // Without the start/stop rating the load/unload one binds.
    let r = run(&epc(loads), spec, &times, &sizes, &ReplayOptions::default());
    assert!(close(r.years_to_rated_cycles().unwrap(), 600_000.0 / 2592.0 / 365.25));
    // A rating without its modes, or modes without a rating, is a clear error naming the field.
    for (limits, field) in [
        ("load_unload_cycles=600000\n", "limits.load_unload_modes"),
        ("load_unload_modes=['unloaded']\n", "limits.load_unload_cycles"),
        ("load_unload_cycles=600000\nload_unload_modes=['parked']\n", "limits.load_unload_modes[0]"),
    ] {
        let text = format!(
            "name='x'\nkind='disk'\n[[modes]]\nname='ready'\npower_w=5\nserves=true\n[[modes]]\nname='unloaded'\npower_w=3\n\
             [[transitions]]\nfrom='ready'\nto='unloaded'\ntime_s=0\nenergy_j=0\n[[transitions]]\nfrom='unloaded'\nto='ready'\ntime_s=0\nenergy_j=0\n\
             [service]\noverhead_s=0\nread_bandwidth_bytes_per_s=1e9\nwrite_bandwidth_bytes_per_s=1e9\nactive_power_w=5\n[limits]\n{limits}"
        );
        let err = Device::from_toml(&text, "x.toml").expect_err(field).to_string();
        assert!(err.contains(field) && err.contains("x.toml"), "{err}");
    }
}

/// A card like seed 000's Cisco 350 with the plain network service (no TCP model), so the
/// figures are easy to derive: 40 ms to the access point, 375,000 B/s down, beacons every 0.1 s.
fn plain_card() -> Device {
    Device::from_toml(
        "name='card'\nkind='network'\n[[modes]]\nname='cam'\npower_w=1.41\nserves=true\n[[modes]]\nname='psm'\npower_w=0.39\nserves=true\n\
         [[transitions]]\nfrom='psm'\nto='cam'\ntime_s=0.4\nenergy_j=0.51\n[[transitions]]\nfrom='cam'\nto='psm'\ntime_s=0.41\nenergy_j=0.53\n\
         [service]\noverhead_s=0.04\nread_bandwidth_bytes_per_s=375000\nwrite_bandwidth_bytes_per_s=32000\nactive_power_w=1.64\nbeacon_period_s=0.1\n",
        "card.toml",
    )
    .unwrap()
}

const KIB32: i64 = 32_768;
const TRANSFER_32K: f64 = 32_768.0 / 375_000.0;

#[test]
fn a_download_during_cam_to_psm_is_served_in_psm_after_the_transition() {
    // Read 1 at 0 in CAM: 0.04 + 0.087381 = 0.127381 s. CAM -> PSM from 0.127381 to 0.537381.
    // Read 2 at 0.3: the transition finishes, the request goes out at 0.537381, its data reach
    // the access point at 0.577381 and wait for the 0.6 s beacon: done at 0.687381, response
    // 0.387381 s, and the card never returns to CAM.
    let r = run(&plain_card(), "psm", &[0.0, 0.3, 10.0], &[KIB32; 3], &ReplayOptions::default());
    assert_eq!((count(&r, "psm", "cam"), count(&r, "cam", "psm")), (0, 1));
    let first = 0.04 + TRANSFER_32K;
    let second = 0.6 - 0.3 + TRANSFER_32K;
    // Read 3 at 10: data at the access point at 10.04, beacon at 10.1.
    let third = 0.1 + TRANSFER_32K;
    assert!(close(r.mean_response_s, (first + second + third) / 3.0), "{}", r.mean_response_s);
    // Reads 2 and 3 waited for power management (the transition, the beacons).
    assert_eq!(r.delayed_requests, 2);
    assert!(close(r.accounted_time_s(), r.makespan_s));
}

#[test]
fn an_arrival_on_a_beacon_waits_for_no_extra_beacon() {
    // Starting in PSM. Data of a read at 0.56 s reach the access point at 0.56 + 0.04, which is
    // the 0.6 s beacon though rounding gives 0.6000000000000001: no wait, as for 0.06 and 1.06.
    let opts = ReplayOptions { initial_mode: 1, ..Default::default() };
    for t in [0.06, 0.56, 1.06, 2.06] {
        let r = run(&plain_card(), "psm", &[t], &[KIB32], &opts);
        assert!(close(r.mean_response_s, 0.04 + TRANSFER_32K), "{t}: {}", r.mean_response_s);
        assert_eq!(r.delayed_requests, 0, "{t}");
    }
}

#[test]
fn beacon_waits_count_as_delayed_requests() {
    // 32 KB every 2 s: the first in CAM, then in PSM, each waiting 60 ms for a beacon.
    let times: Vec<f64> = (0..10).map(|i| i as f64 * 2.0).collect();
    let r = run(&plain_card(), "psm", &times, &[KIB32; 10], &ReplayOptions::default());
    assert_eq!(r.delayed_requests, 9);
    assert!(close(r.mean_response_s, (0.04 + TRANSFER_32K + 9.0 * (0.1 + TRANSFER_32K)) / 10.0));
}

#[test]
fn extreme_values_that_would_make_results_non_finite_are_rejected() {
    let base = |service: &str, transition_s: &str| {
        format!(
            "name='x'\nkind='disk'\n[[modes]]\nname='a'\npower_w=1\nserves=true\n[[modes]]\nname='b'\npower_w=0.1\n\
             [[transitions]]\nfrom='a'\nto='b'\ntime_s={transition_s}\nenergy_j=1\n[[transitions]]\nfrom='b'\nto='a'\ntime_s=1\nenergy_j=1\n{service}"
        )
    };
    let service = |overhead: &str, bandwidth: &str| {
        format!("[service]\noverhead_s={overhead}\nread_bandwidth_bytes_per_s={bandwidth}\nwrite_bandwidth_bytes_per_s=1e6\nactive_power_w=1\n")
    };
    for (text, field) in [
        (base(&service("1e308", "1e6"), "1"), "overhead_s"),
        (base(&service("0", "5e-324"), "1"), "read_bandwidth_bytes_per_s"),
        (base(&service("0", "1e6"), "1e308"), "time_s"),
    ] {
        let err = Device::from_toml(&text, "extreme.toml").unwrap_err().to_string();
        assert!(err.contains(field) && err.contains("physical range"), "{err}");
    }
    let ok = Device::from_toml(&base(&service("0.01", "1e6"), "1"), "ok.toml").unwrap();
    assert!(ok.warnings.is_empty());
}

#[test]
fn a_low_power_mode_drawing_more_than_ready_is_a_warning() {
    let d = Device::from_toml(
        "name='w'\nkind='disk'\n[[modes]]\nname='a'\npower_w=1\nserves=true\n[[modes]]\nname='b'\npower_w=2\n\
         [[transitions]]\nfrom='a'\nto='b'\ntime_s=1\nenergy_j=1\n[[transitions]]\nfrom='b'\nto='a'\ntime_s=1\nenergy_j=1\n\
         [service]\noverhead_s=0\nread_bandwidth_bytes_per_s=1e6\nwrite_bandwidth_bytes_per_s=1e6\nactive_power_w=1\n",
        "warn.toml",
    )
    .unwrap();
    assert_eq!(d.warnings.len(), 1);
    assert!(d.warnings[0].contains("'b' draws 2 W, more than the ready mode"), "{}", d.warnings[0]);
}

//! Hand-computed scenarios for the replay options seeds 001 and 002 need: a run that goes on
//! after its last request (`tail_s`), wake-ups whose time varies per use (`transition_seed`),
//! and responses measured from a request's original arrival (`ResponseFrom::Original`).

use idlewise_core::metrics::RunResult;
use idlewise_core::{replay, Device, PolicySpec, ReplayMode, ReplayOptions, ResponseFrom, TraceView};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9 * b.abs().max(1.0)
}

/// Ready 1 W, sleep 0 W; down 1 s / 1 J; up 2 s / 4 J (2 W), optionally varying; requests of
/// 1 MB take 1 s at 2 W.
fn two_state(up_spread: &str) -> Device {
    let text = format!(
        "name = \"two-state\"\nkind = \"disk\"\n\
         [[modes]]\nname = \"ready\"\npower_w = 1.0\nserves = true\n\
         [[modes]]\nname = \"sleep\"\npower_w = 0.0\n\
         [[transitions]]\nfrom = \"ready\"\nto = \"sleep\"\ntime_s = 1.0\nenergy_j = 1.0\n\
         [[transitions]]\nfrom = \"sleep\"\nto = \"ready\"\ntime_s = 2.0\nenergy_j = 4.0\n{up_spread}\n\
         [service]\noverhead_s = 0\nread_bandwidth_bytes_per_s = 1e6\nwrite_bandwidth_bytes_per_s = 1e6\nactive_power_w = 2.0\n"
    );
    Device::from_toml(&text, "two-state.toml").unwrap()
}

const MB: i64 = 1_000_000;

fn run_with(device: &Device, spec: &str, times: &[f64], original: Option<&[f64]>, opts: &ReplayOptions) -> RunResult {
    let offsets = vec![0i64; times.len()];
    let sizes = vec![MB; times.len()];
    let ops = vec![0u8; times.len()];
    let mut trace = TraceView::new(times, &offsets, &sizes, &ops).unwrap();
    if let Some(o) = original {
        trace = trace.with_original_s(o).unwrap();
    }
    let mut policy = PolicySpec::parse(spec).unwrap().build(device, &Default::default()).unwrap();
    replay(&trace, device, policy.as_mut(), opts).unwrap()
}

#[test]
fn a_tail_keeps_the_device_idling_under_its_policy_after_the_last_request() {
    // One request 0..1 s, then a 10 s tail under timeout:2s: ready 2 s (2 J), down 1 s (1 J),
    // asleep 7 s (0 J), no wake-up at the end. Service 2 J. Execution time 11 s.
    let r = run_with(&two_state(""), "timeout:2s", &[0.0], None, &ReplayOptions { tail_s: 10.0, ..Default::default() });
    assert!(close(r.makespan_s, 11.0), "{}", r.makespan_s);
    assert!(close(r.energy_j, 2.0 + 2.0 + 1.0), "{}", r.energy_j);
    assert_eq!(r.wakeups, 0);
    assert!(close(r.accounted_time_s(), r.makespan_s));
}

#[test]
fn a_closed_loop_fault_during_a_wake_up_stretches_the_run_by_the_wake_up() {
    // Closed loop, think time 5 s between two 1 s requests, timeout:0s: the second is issued at
    // 1 + 5 = 6 s, finds the disk asleep (down 1..2 s), wakes 6..8 s, served 8..9 s. The run is
    // 2 s (the wake-up) longer than always-on's 7 s.
    let opts = ReplayOptions { mode: ReplayMode::Closed, ..Default::default() };
    let on = run_with(&two_state(""), "always-on", &[0.0, 5.0], None, &opts);
    let off = run_with(&two_state(""), "timeout:0s", &[0.0, 5.0], None, &opts);
    assert!(close(on.makespan_s, 7.0) && close(off.makespan_s, 9.0), "{} {}", on.makespan_s, off.makespan_s);
}

#[test]
fn a_sync_replay_issues_at_the_trace_time_or_when_the_previous_completes() {
    // Seed 001's rule, always-on, 1 s requests at 0, 0.5 and 3 s: the second is issued when the
    // first completes (1 s) and served 1..2 s (response 1 s, from its issue); the third keeps its
    // trace time (3 s), the second having completed already. Responses 1, 1, 1 s; open loop would
    // give 1, 1.5, 1 s. Under timeout:0s the third finds the disk down (2..3 s) and waits for the
    // wake-up 3..5 s: served 5..6 s, response 3 s from its issue at 3 s.
    let sync = ReplayOptions { mode: ReplayMode::Sync, ..Default::default() };
    let on = run_with(&two_state(""), "always-on", &[0.0, 0.5, 3.0], None, &sync);
    assert!(close(on.mean_response_s, 1.0), "{}", on.mean_response_s);
    let open = run_with(&two_state(""), "always-on", &[0.0, 0.5, 3.0], None, &ReplayOptions::default());
    assert!(close(open.mean_response_s, 3.5 / 3.0), "{}", open.mean_response_s);
    let off = run_with(&two_state(""), "timeout:0s", &[0.0, 0.5, 3.0], None, &sync);
    assert!(close(off.mean_response_s, (1.0 + 1.0 + 3.0) / 3.0), "{}", off.mean_response_s);
    assert!(close(off.makespan_s, 6.0), "{}", off.makespan_s);
}

const SPREAD: &str = "time_std_s = 0.5\ntime_distribution = \"lognormal\"";

#[test]
fn a_varying_wake_up_takes_its_mean_unless_the_run_draws() {
    let fixed = run_with(&two_state(""), "timeout:0s", &[0.0, 10.0], None, &ReplayOptions::default());
    let varying = run_with(&two_state(SPREAD), "timeout:0s", &[0.0, 10.0], None, &ReplayOptions::default());
    assert_eq!(fixed.energy_j, varying.energy_j);
    assert_eq!(fixed.makespan_s, varying.makespan_s);
}

#[test]
fn drawn_wake_ups_are_reproducible_per_seed_and_keep_their_power() {
    let times: Vec<f64> = (0..20).map(|i| i as f64 * 10.0).collect();
    let opts = |seed| ReplayOptions { transition_seed: Some(seed), ..Default::default() };
    let device = two_state(SPREAD);
    let a = run_with(&device, "timeout:0s", &times, None, &opts(7));
    let b = run_with(&device, "timeout:0s", &times, None, &opts(7));
    let c = run_with(&device, "timeout:0s", &times, None, &opts(8));
    assert_eq!((a.energy_j, a.makespan_s), (b.energy_j, b.makespan_s));
    assert_ne!(a.makespan_s, c.makespan_s);
    for r in [&a, &c] {
        // 19 wake-ups at 2 W whatever they took; 20 downs of 1 s / 1 J (the last in the tail-less
        // end is not taken: the run ends at the last completion).
        let up_time = r.transition_time_s - 19.0;
        let up_energy = r.transition_energy_j - 19.0;
        assert!(close(up_energy, 2.0 * up_time), "{up_energy} {up_time}");
        // Each request waits for its wake-up and is served in 1 s: mean response = 1 + mean wake.
        assert!(close(r.mean_response_s, (1.0 + (1.0 + up_time / 19.0) * 19.0) / 20.0), "{}", r.mean_response_s);
        assert!(close(r.accounted_time_s(), r.makespan_s));
        // Drawn around the mean (2 s ± 0.5 s): 19 draws average within 4 standard errors.
        assert!((up_time / 19.0 - 2.0).abs() < 4.0 * 0.5 / 19f64.sqrt(), "{}", up_time / 19.0);
    }
}

#[test]
fn a_varying_wake_up_is_checked_where_it_is_declared() {
    let bad = |extra: &str, to: &str| {
        let text = format!(
            "name = \"x\"\nkind = \"disk\"\n[[modes]]\nname = \"ready\"\npower_w = 1.0\nserves = true\n[[modes]]\nname = \"sleep\"\npower_w = 0.0\n\
             [[transitions]]\nfrom = \"{}\"\nto = \"{to}\"\ntime_s = 1.0\nenergy_j = 1.0\n{extra}\n\
             [service]\noverhead_s = 0\nread_bandwidth_bytes_per_s = 1e6\nwrite_bandwidth_bytes_per_s = 1e6\nactive_power_w = 2.0\n",
            if to == "ready" { "sleep" } else { "ready" }
        );
        Device::from_toml(&text, "x.toml").unwrap_err().to_string()
    };
    let e = bad("time_std_s = 0.5", "sleep");
    assert!(e.contains("x.toml") && e.contains("time_std_s") && e.contains("wake-ups"), "{e}");
    let e = bad("time_std_s = 0.5\ntime_distribution = \"gamma\"", "ready");
    assert!(e.contains("time_distribution") && e.contains("gamma"), "{e}");
    let e = bad("time_distribution = \"normal\"", "ready");
    assert!(e.contains("without time_std_s"), "{e}");
    let e = bad("time_std_s = -1", "ready");
    assert!(e.contains("time_std_s") && e.contains("positive"), "{e}");
}

#[test]
fn responses_from_original_times_count_only_the_wait_past_when_data_was_wanted() {
    // Three requests issued together at 0 (a compressed group) that were wanted at 0, 1.5 and
    // 10 s. Served 0..1, 1..2, 2..3 s. From issue: 1, 2, 3 s. From original: 1, 0.5, 0 s.
    let device = two_state("");
    let times = [0.0, 0.0, 0.0];
    let original = [0.0, 1.5, 10.0];
    let issue = run_with(&device, "always-on", &times, Some(&original), &ReplayOptions::default());
    assert!(close(issue.mean_response_s, 2.0), "{}", issue.mean_response_s);
    let from_original = run_with(&device, "always-on", &times, Some(&original), &ReplayOptions { response_from: ResponseFrom::Original, ..Default::default() });
    assert!(close(from_original.mean_response_s, 0.5), "{}", from_original.mean_response_s);
    assert!(close(from_original.max_response_s, 1.0));
    // The device sees the same workload: energy and time do not depend on how responses are measured.
    assert_eq!(issue.energy_j, from_original.energy_j);
}

#[test]
fn original_times_cannot_be_measured_in_a_closed_loop() {
    let device = two_state("");
    let (t, o, s, w) = ([0.0, 1.0], [0i64; 2], [MB; 2], [0u8; 2]);
    let original = [0.0, 1.0];
    let trace = TraceView::new(&t, &o, &s, &w).unwrap().with_original_s(&original).unwrap();
    let mut policy = PolicySpec::parse("always-on").unwrap().build(&device, &Default::default()).unwrap();
    let opts = ReplayOptions { mode: ReplayMode::Closed, response_from: ResponseFrom::Original, ..Default::default() };
    let e = replay(&trace, &device, policy.as_mut(), &opts).unwrap_err().to_string();
    assert!(e.contains("response_from") && e.contains("closed"), "{e}");
}

/// Served in the times a recording observed (a diskstats recording's busy time), not the
/// model's: two 1 MB requests at 0 s and 3 s that kept the real device busy 0.25 s each, under
/// a timeout of 1 s: serving 2 × 0.25 s at 2 W (1 J), ready 0.25–1.25 s then down (1 s, 1 J),
/// asleep 2.25–3 s, woken by the second at 3 s (2 s, 4 J), served 5–5.25 s. The model alone
/// would serve each in 1 s and the first idle period would begin at 1 s, not 0.25 s.
#[test]
fn observed_service_times_replace_the_model_s_by_hand() {
    let device = two_state("");
    let (times, offsets, sizes, ops) = ([0.0, 3.0], [0i64; 2], [MB; 2], [0u8; 2]);
    let observed = [0.25, 0.25];
    let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap().with_observed_service_s(&observed).unwrap();
    let mut policy = PolicySpec::parse("timeout:1s").unwrap().build(&device, &Default::default()).unwrap();
    let r = replay(&trace, &device, policy.as_mut(), &ReplayOptions::default()).unwrap();
    assert!(close(r.service_time_s, 0.5) && close(r.service_energy_j, 1.0), "{} {}", r.service_time_s, r.service_energy_j);
    assert!(close(r.time_by_mode_s[0], 1.0) && close(r.time_by_mode_s[1], 0.75), "{:?}", r.time_by_mode_s);
    assert!(close(r.energy_j, 1.0 + 1.0 + 1.0 + 4.0) && close(r.makespan_s, 5.25), "{} {}", r.energy_j, r.makespan_s);
    // Every run of an evaluation takes them, the references too; a negative one is refused.
    let reports = idlewise_core::evaluate(&trace, &device, &[PolicySpec::parse("timeout:1s").unwrap()], &ReplayOptions::default(), None).unwrap();
    assert!(close(reports[0].run.energy_j, r.energy_j) && close(reports[0].run.service_time_s, 0.5));
    let bad = [0.25, -1.0];
    let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap().with_observed_service_s(&bad).unwrap();
    let e = idlewise_core::evaluate(&trace, &device, &[PolicySpec::parse("timeout:1s").unwrap()], &ReplayOptions::default(), None).unwrap_err();
    assert!(e.to_string().contains("service_s"), "{e}");
}

use super::*;

/// Two-state test device with round numbers: ready 1 W, sleep 0 W, down 1 s / 1 J,
/// up 2 s / 3 J, service 10 ms + size/1e6 at 2 W.
pub(crate) fn two_state() -> Device {
    Device::from_toml(
        r#"
        name = "two-state"
        kind = "disk"
        [[modes]]
        name = "idle"
        power_w = 1.0
        serves = true
        [[modes]]
        name = "sleep"
        power_w = 0.0
        [[transitions]]
        from = "idle"
        to = "sleep"
        time_s = 1.0
        energy_j = 1.0
        [[transitions]]
        from = "sleep"
        to = "idle"
        time_s = 2.0
        energy_j = 3.0
        [service]
        overhead_s = 0.01
        read_bandwidth_bytes_per_s = 1e6
        write_bandwidth_bytes_per_s = 1e6
        active_power_w = 2.0
        [limits]
        start_stop_cycles = 1000
        "#,
        "two-state.toml",
    )
    .unwrap()
}

#[test]
fn break_even_of_two_state_device() {
    let d = two_state();
    // gamma = 1 + 3 - 0 = 4 J over 1 W saving = 4 s > round trip 3 s.
    assert_eq!(d.break_even_s(1), 4.0);
    assert_eq!(d.gap_energy_j(1, 2.9), None);
    assert_eq!(d.gap_energy_j(1, 10.0), Some(4.0));
    assert_eq!(d.best_mode_for_gap(3.5), (READY, 3.5));
    assert_eq!(d.best_mode_for_gap(10.0), (1, 4.0));
}

fn expect_err(toml: &str, needle: &str) {
    let err = Device::from_toml(toml, "bad.toml").unwrap_err().to_string();
    assert!(err.contains(needle), "error '{err}' should mention '{needle}'");
    assert!(err.contains("bad.toml"), "error '{err}' should name the file");
}

pub(crate) const SERVICE: &str = "[service]\noverhead_s = 0.0\nread_bandwidth_bytes_per_s = 1.0\nwrite_bandwidth_bytes_per_s = 1.0\nactive_power_w = 1.0\n";

#[test]
fn rejects_unknown_mode_in_transition() {
    expect_err(
        &format!("name='x'\nkind='disk'\n[[modes]]\nname='a'\npower_w=1\nserves=true\n[[transitions]]\nfrom='a'\nto='zz'\ntime_s=1\nenergy_j=1\n{SERVICE}"),
        "unknown mode 'zz'",
    );
}

#[test]
fn rejects_negative_power_and_time() {
    expect_err(&format!("name='x'\nkind='disk'\n[[modes]]\nname='a'\npower_w=-1\nserves=true\n{SERVICE}"), "power_w");
    expect_err(
        &format!("name='x'\nkind='disk'\n[[modes]]\nname='a'\npower_w=1\nserves=true\n[[modes]]\nname='b'\npower_w=0\n[[transitions]]\nfrom='a'\nto='b'\ntime_s=-1\nenergy_j=1\n{SERVICE}"),
        "time_s",
    );
}

#[test]
fn rejects_missing_field_no_ready_mode_and_missing_return_path() {
    expect_err("name='x'\nkind='disk'\n[[modes]]\nname='a'\nserves=true\n", "power_w");
    expect_err(&format!("name='x'\nkind='disk'\n[[modes]]\nname='a'\npower_w=1\n{SERVICE}"), "no ready mode");
    expect_err(&format!("name='x'\nkind='disk'\n{SERVICE}"), "no modes");
    expect_err(
        &format!("name='x'\nkind='disk'\n[[modes]]\nname='a'\npower_w=1\nserves=true\n[[modes]]\nname='b'\npower_w=0\n[[transitions]]\nfrom='a'\nto='b'\ntime_s=1\nenergy_j=1\n{SERVICE}"),
        "no transition path back",
    );
    expect_err("name='x'\nkind='disk'\n[[modes]]\nname='a'\npower_w=1\nserves=true\n", "[service]");
    expect_err(&format!("name='x'\nkind='floppy'\n{SERVICE}"), "line 2");
}

#[test]
fn routes_chain_through_intermediate_modes() {
    let d = Device::from_toml(
        &format!(
            "name='x'\nkind='disk'\n[[modes]]\nname='a'\npower_w=2\nserves=true\n[[modes]]\nname='b'\npower_w=1\n[[modes]]\nname='c'\npower_w=0\n\
             [[transitions]]\nfrom='a'\nto='b'\ntime_s=1\nenergy_j=1\n[[transitions]]\nfrom='b'\nto='c'\ntime_s=1\nenergy_j=1\n\
             [[transitions]]\nfrom='c'\nto='a'\ntime_s=3\nenergy_j=5\n[[transitions]]\nfrom='b'\nto='a'\ntime_s=1\nenergy_j=1\n{SERVICE}"
        ),
        "chain.toml",
    )
    .unwrap();
    let r = d.route(0, 2).unwrap();
    assert_eq!((r.time_s, r.energy_j, r.hops.len()), (2.0, 2.0, 2));
    assert_eq!(d.deepest_mode(), Some(2));
}

#[test]
fn seek_curve_grows_with_distance() {
    let d = Device::from_toml(
        &format!(
            "name='x'\nkind='disk'\n[[modes]]\nname='a'\npower_w=1\nserves=true\n{SERVICE}\
             [service.seek]\nbytes_per_cylinder=1000\nboundary_cylinders=300\nsqrt_intercept_s=0.00381\nsqrt_coeff_s=0.00033\n\
             linear_intercept_s=0.00775\nlinear_coeff_s=0.0000059\nrotation_rpm=5400\nseek_power_w=2.0\n"
        ),
        "seek.toml",
    )
    .unwrap();
    // Sequential: no seek, no rotation.
    assert_eq!(d.service(0.0, false, 5000.0, 5000.0), (0.0, 0.0));
    let (t100, e100) = d.service(0.0, false, 100_000.0, 0.0);
    let half_rev = 30.0 / 5400.0;
    let seek100 = 0.00381 + 0.00033 * 10.0;
    assert!((t100 - (seek100 + half_rev)).abs() < 1e-12);
    assert!((e100 - (t100 * 1.0 + seek100 * 2.0)).abs() < 1e-12);
    let (t1000, e1000) = d.service(0.0, false, 1_000_000.0, 0.0);
    assert!((t1000 - (0.00775 + 0.0059 + half_rev)).abs() < 1e-12);
    assert!(e1000 > e100);
}

//! From a device file to a [`Device`]: every value checked against its physical range (read
//! from the unit in its name), every mode, transition, route and service model checked, with
//! errors naming the file and the field.

use super::*;

/// The physically meaningful range of a value, read from the unit in its field name (SI units
/// live in names). The bounds are far beyond any real device and keep every result finite: the
/// longest request (2^63 bytes at 1 B/s) at the highest power over 10^10 requests is ~10^34 J.
pub(super) fn physical_range(field: &str) -> (f64, f64, &'static str) {
    if field.ends_with("_bytes_per_s") {
        (1.0, 1e13, "bytes per second")
    } else if field.ends_with("_s") {
        (0.0, 1e7, "seconds")
    } else if field.ends_with("_w") {
        (0.0, 1e5, "watts")
    } else if field.ends_with("_j") {
        (0.0, 1e9, "joules")
    } else if field.ends_with("_rpm") {
        (1.0, 1e6, "revolutions per minute")
    } else if field.ends_with("bytes_per_cylinder") || field.ends_with("capacity.bytes") {
        (1.0, 1e15, "bytes")
    } else {
        (0.0, 1e15, "")
    }
}

pub(super) fn check_value(origin: &str, field: &str, value: f64, allow_zero: bool) -> Result<()> {
    if !value.is_finite() {
        return Err(Error::device(origin, field, format!("must be a finite number, got {value}")));
    }
    if value < 0.0 || (!allow_zero && value == 0.0) {
        let expected = if allow_zero { "non-negative" } else { "positive" };
        return Err(Error::device(origin, field, format!("must be {expected}, got {value}")));
    }
    let (min, max, unit) = physical_range(field);
    if value > max || (value != 0.0 && value < min) {
        return Err(Error::device(
            origin,
            field,
            format!("{value} is outside the physical range {min:e}..{max:e} {unit} that keeps results finite"),
        ));
    }
    Ok(())
}

/// A transition's varying time, checked: wake-ups only (the time a request waits), with a
/// positive mean, a positive deviation and a known distribution.
pub(super) fn transition_spread(origin: &str, i: usize, t: &TransitionFile, to: usize) -> Result<Option<TimeSpread>> {
    let field = |name: &str| format!("transitions[{i}] ({} -> {}).{name}", t.from, t.to);
    let Some(std_s) = t.time_std_s else {
        if t.time_distribution.is_some() {
            return Err(Error::device(origin, field("time_distribution"), "is given without time_std_s, the spread it describes"));
        }
        return Ok(None);
    };
    check_value(origin, &field("time_std_s"), std_s, false)?;
    if to != READY {
        return Err(Error::device(
            origin,
            field("time_std_s"),
            "a varying time is supported on wake-ups (transitions into the first, ready mode) only: those are the times requests wait for",
        ));
    }
    if t.time_s <= 0.0 {
        return Err(Error::device(origin, field("time_std_s"), "needs a positive mean time_s to vary around"));
    }
    let text = t.time_distribution.as_deref().unwrap_or("lognormal");
    let shape = SpreadShape::parse(text).ok_or_else(|| Error::device(origin, field("time_distribution"), format!("must be \"lognormal\" or \"normal\", got \"{text}\"")))?;
    Ok(Some(TimeSpread { shape, std_s }))
}

pub(super) const SHUTDOWN_POLICY_FIELD: &str = "service.mems.shutdown.policy";
pub(super) const PROBE_POWER_FIELD: &str = "service.mems.probe_power";

/// A sled shutdown policy by name; EE needs springs to return the sled.
pub(super) fn shutdown_policy(origin: &str, text: &str, has_springs: bool) -> Result<ShutdownPolicy> {
    let policy = ShutdownPolicy::parse(text).ok_or_else(|| Error::device(origin, SHUTDOWN_POLICY_FIELD, format!("must be \"pe\" or \"ee\", got \"{text}\"")))?;
    if policy == ShutdownPolicy::EnergyEfficient && !has_springs {
        return Err(Error::device(origin, SHUTDOWN_POLICY_FIELD, "\"ee\" lets the springs return the sled, and this sled has none (spring_factor = 0)"));
    }
    Ok(policy)
}

/// Checks a `[service.mems]` table and builds the sled. Integer geometry must divide into at
/// least one row, column and cylinder, or the layout has no blocks.
pub(super) fn mems_service(origin: &str, m: &MemsFile, overhead_s: f64, sled_power_w: f64) -> Result<MemsService> {
    let field = |name: &str| format!("service.mems.{name}");
    let small = |name: &str, value: u32| -> Result<i32> {
        if value == 0 || value > 1_000_000_000 {
            return Err(Error::device(origin, field(name), format!("must be a positive whole number up to 1e9, got {value}")));
        }
        Ok(value as i32)
    };
    for (name, value, zero_ok) in [
        ("acceleration_x_m_per_s2", m.acceleration_x_m_per_s2, false),
        ("acceleration_y_m_per_s2", m.acceleration_y_m_per_s2, false),
        ("settle_time_constants", m.settle_time_constants, true),
        ("spring_factor", m.spring_factor, true),
        ("sector_transfer_s", m.sector_transfer_s, true),
        ("tip_power_w", m.tip_power_w, true),
    ] {
        check_value(origin, &field(name), value, zero_ok)?;
    }
    // A write whose data has not crossed the bus reads the servo and schedules again (DiskSim's
    // "weird special case"), so the sled spins pass after pass while a sector crosses: a bus
    // slower than this makes a replay take time in proportion and was never a MEMS device.
    const SLOWEST_SECTOR_TRANSFER_S: f64 = 0.01;
    if m.sector_transfer_s > SLOWEST_SECTOR_TRANSFER_S {
        return Err(Error::device(
            origin,
            field("sector_transfer_s"),
            format!("gives {} s for a 512-byte sector; at most {SLOWEST_SECTOR_TRANSFER_S} s (51 kB/s) is accepted (DiskSim's G1-G3: 5.12e-6 s)", m.sector_transfer_s),
        ));
    }
    let seek_model = match m.seek_model.as_str() {
        "piecewise" => SeekModel::Piecewise,
        "hong" => SeekModel::Hong,
        other => return Err(Error::device(origin, field("seek_model"), format!("must be \"piecewise\" or \"hong\", got \"{other}\""))),
    };
    let spring_convention = match m.spring_convention.as_deref() {
        None | Some("disksim") => SpringConvention::DiskSim,
        Some("edge") => SpringConvention::Edge,
        Some(other) => return Err(Error::device(origin, field("spring_convention"), format!("must be \"disksim\" or \"edge\", got \"{other}\""))),
    };
    let physical_sweep = match m.idle_sweep.as_deref() {
        None | Some("disksim") => false,
        Some("physical") => true,
        Some(other) => return Err(Error::device(origin, field("idle_sweep"), format!("must be \"disksim\" or \"physical\", got \"{other}\""))),
    };
    // The actuators must at least hold the sled at the edge against the springs; the piecewise
    // model divides by the net force there, so it needs them strictly stronger.
    let edge_factor = match (seek_model, spring_convention) {
        (SeekModel::Hong, SpringConvention::DiskSim) => m.spring_factor / 2.0,
        _ => m.spring_factor,
    };
    if edge_factor > 1.0 || (seek_model == SeekModel::Piecewise && edge_factor >= 1.0) {
        return Err(Error::device(
            origin,
            field("spring_factor"),
            format!("{} gives springs stronger than the actuators at the edge of the stroke (the piecewise model needs a spring factor below 1; hong at most 1 with spring_convention = \"edge\", 2 with \"disksim\")", m.spring_factor),
        ));
    }
    let sled = Sled {
        x_length_nm: small("sled_movement_x_nm", m.sled_movement_x_nm)?,
        y_length_nm: small("sled_movement_y_nm", m.sled_movement_y_nm)?,
        bit_length_nm: small("bit_cell_length_nm", m.bit_cell_length_nm)?,
        tip_sector_length_bits: small("tip_sector_length_bits", m.tip_sector_length_bits)?,
        servo_burst_length_bits: small("servo_burst_length_bits", m.servo_burst_length_bits)?,
        tip_sectors_per_lbn: small("tip_sectors_per_block", m.tip_sectors_per_block)?,
        tips_usable: small("usable_tips", m.usable_tips)?,
        tips_simultaneous: small("active_tips", m.active_tips)?,
        bidirectional: m.bidirectional_access,
        // DiskSim's loader multiplies the file's value by 1e9 to get nm/s²: the value is m/s².
        x_accel_nm_s2: m.acceleration_x_m_per_s2 * 1e9,
        y_accel_nm_s2: m.acceleration_y_m_per_s2 * 1e9,
        access_speed_bits_per_s: small("access_speed_bits_per_s", m.access_speed_bits_per_s)?,
        resonant_frequency_hz: small("resonant_frequency_hz", m.resonant_frequency_hz)?,
        settle_time_constants: m.settle_time_constants,
        spring_factor: m.spring_factor,
        spring_convention,
        seek_model,
        physical_sweep,
        layout: Default::default(),
    }
    .prepared();
    if (sled.access_speed_bits_per_s as i64) * (sled.bit_length_nm as i64) > i32::MAX as i64 {
        return Err(Error::device(origin, field("access_speed_bits_per_s"), "times the bit cell length exceeds 2^31 nm/s".to_string()));
    }
    if sled.tips_simultaneous > sled.tips_usable || sled.tip_sectors_per_lbn > sled.tips_simultaneous {
        return Err(Error::device(origin, field("active_tips"), format!("need tip_sectors_per_block ({}) <= active_tips ({}) <= usable_tips ({})", sled.tip_sectors_per_lbn, sled.tips_simultaneous, sled.tips_usable)));
    }
    if sled.rows_per_column() < 1 || sled.cylinders() < 1 {
        return Err(Error::device(origin, field("sled_movement_y_nm"), "the sled's stroke holds no row of tip sectors at this bit cell length".to_string()));
    }
    let rest = sled.position(sled.centermost_lbn()).0.servo_start;
    if let Some(p) = m.seek_power_per_axis_w {
        check_value(origin, &field("seek_power_per_axis_w"), p, true)?;
    }
    let probes_charged = probes_charged(origin, m.probe_power.as_deref().unwrap_or("per-tip"), &sled)?;
    let shutdown = match &m.shutdown {
        None => None,
        Some(sd) => {
            let policy = shutdown_policy(origin, &sd.policy, m.spring_factor > 0.0)?;
            let axis_power_w = m
                .seek_power_per_axis_w
                .ok_or_else(|| Error::device(origin, field("seek_power_per_axis_w"), "is needed with [service.mems.shutdown]: the actuators' power while they move the sled".to_string()))?;
            let (x_axis, y_axis) = sled.spring_axes();
            Some(Shutdown { policy, x_axis, y_axis, axis_power_w })
        }
    };
    Ok(MemsService {
        sled,
        command_overhead_ms: overhead_s * 1e3,
        sector_transfer_ms: m.sector_transfer_s * 1e3,
        sled_power_w,
        tip_power_w: m.tip_power_w,
        probes_charged,
        rest,
        seek_axis_power_w: m.seek_power_per_axis_w,
        shutdown,
    })
}

/// The tips a MEMS pass pays for under a probe-power convention: `"per-tip"`, the ones it uses
/// (`None`); `"all-tips"`, every active tip (seed 004's 1 W whenever data move).
pub(super) fn probes_charged(origin: &str, convention: &str, sled: &Sled) -> Result<Option<i32>> {
    match convention {
        "per-tip" => Ok(None),
        "all-tips" => Ok(Some(sled.tips_simultaneous)),
        other => Err(Error::device(origin, PROBE_POWER_FIELD, format!("must be \"per-tip\" or \"all-tips\", got \"{other}\""))),
    }
}


impl Device {
    /// This MEMS device with another shutdown policy (`"pe"` or `"ee"`), for comparing the two.
    pub fn with_mems_shutdown(&self, policy: &str) -> Result<Device> {
        let mut device = self.clone();
        let shutdown = device
            .service
            .mems
            .as_mut()
            .and_then(|m| m.shutdown.as_mut())
            .ok_or_else(|| Error::device(&self.name, SHUTDOWN_POLICY_FIELD, "this device has no sled shutdown model ([service.mems.shutdown])"))?;
        shutdown.policy = shutdown_policy(&self.name, policy, shutdown.x_axis.omega2 > 0.0)?;
        Ok(device)
    }

    /// This MEMS device charging its probes' power another way: `"per-tip"` (each pass pays for
    /// the tips it uses) or `"all-tips"` (every active tip whenever data move, seed 004's 1 W).
    pub fn with_probe_power(&self, convention: &str) -> Result<Device> {
        let mut device = self.clone();
        let mems = device.service.mems.as_mut().ok_or_else(|| Error::device(&self.name, PROBE_POWER_FIELD, "this device has no MEMS sled"))?;
        mems.probes_charged = probes_charged(&self.name, convention, &mems.sled)?;
        Ok(device)
    }

    /// Parses and validates a TOML device description. `origin` names the file (or catalog entry)
    /// in error messages.
    pub fn from_toml(text: &str, origin: &str) -> Result<Device> {
        let file: DeviceFile = toml::from_str(text).map_err(|e| Error::device(origin, crate::error::toml_location(text, &e), e.message()))?;
        Device::from_file(file, origin)
    }

    pub(super) fn from_file(file: DeviceFile, origin: &str) -> Result<Device> {
        if file.name.trim().is_empty() {
            return Err(Error::device(origin, "name", "must not be empty"));
        }
        if file.modes.is_empty() {
            return Err(Error::device(
                origin,
                "modes",
                "no modes given; the first [[modes]] entry is the ready mode that serves requests",
            ));
        }
        if !file.modes[0].serves {
            return Err(Error::device(
                origin,
                format!("modes[0] ({})", file.modes[0].name),
                "the first mode is the ready mode and must have serves = true (no ready mode)",
            ));
        }
        let mut modes = Vec::with_capacity(file.modes.len());
        for (i, m) in file.modes.iter().enumerate() {
            let field = format!("modes[{i}] ({}).power_w", m.name);
            check_value(origin, &field, m.power_w, true)?;
            if modes.iter().any(|other: &Mode| other.name == m.name) {
                return Err(Error::device(origin, format!("modes[{i}].name"), format!("duplicate mode name '{}'", m.name)));
            }
            if let Some(timer) = m.epc_timer_s {
                check_value(origin, &format!("modes[{i}] ({}).epc_timer_s", m.name), timer, false)?;
                if i == 0 {
                    return Err(Error::device(origin, format!("modes[0] ({}).epc_timer_s", m.name), "the ready mode has no EPC timer; give timers to the idle and standby modes"));
                }
            }
            modes.push(Mode {
                name: m.name.clone(),
                power_w: m.power_w,
                serves: m.serves,
                epc_timer_s: m.epc_timer_s,
                provenance: Provenance { source: m.source.clone(), assumed: m.assumed.clone() },
            });
        }
        let index_of = |name: &str| modes.iter().position(|m| m.name == name);
        let known = || modes.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(", ");

        let mut transitions = Vec::with_capacity(file.transitions.len());
        for (i, t) in file.transitions.iter().enumerate() {
            let from = index_of(&t.from).ok_or_else(|| {
                Error::device(origin, format!("transitions[{i}].from"), format!("unknown mode '{}'; known modes: {}", t.from, known()))
            })?;
            let to = index_of(&t.to).ok_or_else(|| {
                Error::device(origin, format!("transitions[{i}].to"), format!("unknown mode '{}'; known modes: {}", t.to, known()))
            })?;
            if from == to {
                return Err(Error::device(origin, format!("transitions[{i}]"), format!("a transition from '{}' to itself", t.from)));
            }
            check_value(origin, &format!("transitions[{i}] ({} -> {}).time_s", t.from, t.to), t.time_s, true)?;
            check_value(origin, &format!("transitions[{i}] ({} -> {}).energy_j", t.from, t.to), t.energy_j, true)?;
            if transitions.iter().any(|x: &Transition| x.from == from && x.to == to) {
                return Err(Error::device(origin, format!("transitions[{i}]"), format!("duplicate transition {} -> {}", t.from, t.to)));
            }
            let spread = transition_spread(origin, i, t, to)?;
            transitions.push(Transition {
                from,
                to,
                time_s: t.time_s,
                energy_j: t.energy_j,
                spread,
                provenance: Provenance { source: t.source.clone(), assumed: t.assumed.clone() },
            });
        }

        let s = file.service.ok_or_else(|| {
            Error::device(origin, "service", "missing [service] table (overhead_s, read/write_bandwidth_bytes_per_s, active_power_w)")
        })?;
        check_value(origin, "service.overhead_s", s.overhead_s, true)?;
        check_value(origin, "service.read_bandwidth_bytes_per_s", s.read_bandwidth_bytes_per_s, false)?;
        check_value(origin, "service.write_bandwidth_bytes_per_s", s.write_bandwidth_bytes_per_s, false)?;
        check_value(origin, "service.active_power_w", s.active_power_w, true)?;
        let read_power_w = s.read_power_w.unwrap_or(s.active_power_w);
        let write_power_w = s.write_power_w.unwrap_or(s.active_power_w);
        check_value(origin, "service.read_power_w", read_power_w, true)?;
        check_value(origin, "service.write_power_w", write_power_w, true)?;
        if let Some(b) = s.beacon_period_s {
            check_value(origin, "service.beacon_period_s", b, false)?;
        }
        let seek = match s.seek {
            None => None,
            Some(k) => {
                for (field, value, zero_ok) in [
                    ("service.seek.bytes_per_cylinder", k.bytes_per_cylinder, false),
                    ("service.seek.boundary_cylinders", k.boundary_cylinders, true),
                    ("service.seek.sqrt_intercept_s", k.sqrt_intercept_s, true),
                    ("service.seek.sqrt_coeff_s", k.sqrt_coeff_s, true),
                    ("service.seek.linear_intercept_s", k.linear_intercept_s, true),
                    ("service.seek.linear_coeff_s", k.linear_coeff_s, true),
                    ("service.seek.seek_power_w", k.seek_power_w, true),
                ] {
                    check_value(origin, field, value, zero_ok)?;
                }
                if let Some(v) = k.single_cylinder_s {
                    check_value(origin, "service.seek.single_cylinder_s", v, true)?;
                }
                if let Some(c) = k.cylinders {
                    check_value(origin, "service.seek.cylinders", c, false)?;
                }
                let half_rotation_s = match k.rotation_rpm {
                    Some(rpm) => {
                        check_value(origin, "service.seek.rotation_rpm", rpm, false)?;
                        30.0 / rpm
                    }
                    None => 0.0,
                };
                Some(SeekCurve {
                    bytes_per_cylinder: k.bytes_per_cylinder,
                    boundary_cylinders: k.boundary_cylinders,
                    sqrt_intercept_s: k.sqrt_intercept_s,
                    sqrt_coeff_s: k.sqrt_coeff_s,
                    linear_intercept_s: k.linear_intercept_s,
                    linear_coeff_s: k.linear_coeff_s,
                    single_cylinder_s: k.single_cylinder_s,
                    capacity_bytes: k.cylinders.map(|c| c * k.bytes_per_cylinder),
                    half_rotation_s,
                    seek_power_w: k.seek_power_w,
                    provenance: Provenance { source: k.source, assumed: k.assumed },
                })
            }
        };
        let (tcp, tcp_provenance) = match s.tcp {
            None => (None, Provenance::default()),
            Some(k) => {
                check_value(origin, "service.tcp.one_way_latency_s", k.one_way_latency_s, true)?;
                check_value(origin, "service.tcp.mss_bytes", k.mss_bytes, false)?;
                check_value(origin, "service.tcp.initial_window_segments", k.initial_window_segments, false)?;
                check_value(origin, "service.tcp.request_bytes", k.request_bytes, true)?;
                (
                    Some(TcpLink {
                        one_way_latency_s: k.one_way_latency_s,
                        mss_bytes: k.mss_bytes,
                        initial_window_segments: k.initial_window_segments,
                        request_bytes: k.request_bytes,
                        connection_setup: k.connection_setup,
                    }),
                    Provenance { source: k.source, assumed: k.assumed },
                )
            }
        };
        let (mems, mems_provenance) = match s.mems {
            None => (None, Provenance::default()),
            Some(m) => (Some(mems_service(origin, &m, s.overhead_s, s.active_power_w)?), Provenance { source: m.source, assumed: m.assumed }),
        };
        let service = Service {
            tcp,
            tcp_provenance,
            mems,
            mems_provenance,
            overhead_s: s.overhead_s,
            read_bandwidth_bytes_per_s: s.read_bandwidth_bytes_per_s,
            write_bandwidth_bytes_per_s: s.write_bandwidth_bytes_per_s,
            read_power_w,
            write_power_w,
            beacon_period_s: s.beacon_period_s,
            seek,
            provenance: Provenance { source: s.source, assumed: s.assumed },
        };

        let mut limits = Limits {
            cycle_mode: (0..modes.len()).map(|m| m != READY).collect(),
            load_unload_mode: vec![false; modes.len()],
            ..Default::default()
        };
        let mode_set = |field: &str, names: &[String]| -> Result<Vec<bool>> {
            let mut set = vec![false; modes.len()];
            for (i, name) in names.iter().enumerate() {
                let m = index_of(name).ok_or_else(|| {
                    Error::device(origin, format!("limits.{field}[{i}]"), format!("unknown mode '{name}'; known modes: {}", known()))
                })?;
                set[m] = true;
            }
            Ok(set)
        };
        if let Some(l) = file.limits {
            if let Some(c) = l.start_stop_cycles {
                check_value(origin, "limits.start_stop_cycles", c, false)?;
            }
            limits.start_stop_cycles = l.start_stop_cycles;
            if let Some(names) = &l.start_stop_modes {
                limits.cycle_mode = mode_set("start_stop_modes", names)?;
            }
            match (l.load_unload_cycles, &l.load_unload_modes) {
                (Some(c), Some(names)) => {
                    check_value(origin, "limits.load_unload_cycles", c, false)?;
                    limits.load_unload_cycles = Some(c);
                    limits.load_unload_mode = mode_set("load_unload_modes", names)?;
                }
                (Some(_), None) => {
                    return Err(Error::device(origin, "limits.load_unload_modes", "required with load_unload_cycles: the modes whose heads are unloaded"))
                }
                (None, Some(_)) => {
                    return Err(Error::device(origin, "limits.load_unload_cycles", "load_unload_modes is given without the rating it counts against"))
                }
                (None, None) => {}
            }
            limits.provenance = Provenance { source: l.source, assumed: l.assumed };
        }

        let n = modes.len();
        let mut route_table = Vec::new();
        let mut policy_routes = policy_routes(n, &transitions, &mut route_table);
        for (i, r) in file.routes.iter().enumerate() {
            let field = format!("routes[{i}] ({} -> {})", r.from, r.to);
            let mut path = Vec::with_capacity(r.via.len() + 2);
            for name in std::iter::once(&r.from).chain(&r.via).chain(std::iter::once(&r.to)) {
                path.push(index_of(name).ok_or_else(|| Error::device(origin, &field, format!("unknown mode '{name}'; known modes: {}", known())))?);
            }
            let mut hops = Vec::with_capacity(path.len() - 1);
            for pair in path.windows(2) {
                let hop = transitions.iter().position(|t| t.from == pair[0] && t.to == pair[1]).ok_or_else(|| {
                    Error::device(origin, &field, format!("no transition {} -> {} to pass through", modes[pair[0]].name, modes[pair[1]].name))
                })?;
                hops.push(hop);
            }
            policy_routes[path[0] * n + path[path.len() - 1]] = Some(push_route(&mut route_table, &transitions, hops));
        }
        let policy_route = |from: usize, to: usize| policy_routes[from * n + to];
        for m in 1..n {
            if policy_route(READY, m).is_none() {
                return Err(Error::device(
                    origin,
                    format!("modes[{m}] ({})", modes[m].name),
                    format!("no transition path from the ready mode '{}' into this mode", modes[READY].name),
                ));
            }
            if policy_route(m, READY).is_none() {
                return Err(Error::device(
                    origin,
                    format!("modes[{m}] ({})", modes[m].name),
                    format!("no transition path back to the ready mode '{}'", modes[READY].name),
                ));
            }
        }

        let gap_options = (0..n)
            .map(|m| if m == READY { Vec::new() } else { gap_options(m, &modes, &transitions, &mut route_table) })
            .collect();
        let tail_routes = (1..n)
            .flat_map(|m| simple_paths(READY, m, n, &transitions))
            .map(|hops| push_route(&mut route_table, &transitions, hops))
            .collect();
        let mut warnings = Vec::new();
        for mode in modes.iter().skip(1) {
            if mode.power_w > modes[READY].power_w {
                warnings.push(format!(
                    "device {origin}: low-power mode '{}' draws {} W, more than the ready mode '{}' ({} W)",
                    mode.name, mode.power_w, modes[READY].name, modes[READY].power_w
                ));
            }
        }

        let initial_mode = match &file.initial_mode {
            None => READY,
            Some(name) => modes
                .iter()
                .position(|m| &m.name == name)
                .ok_or_else(|| Error::device(origin, "initial_mode", format!("unknown mode '{name}'")))?,
        };
        let capacity = match file.capacity {
            None => None,
            Some(c) => {
                if file.kind == DeviceKind::Network {
                    return Err(Error::device(origin, "capacity", "a network card stores nothing; a capacity is for storage devices"));
                }
                check_value(origin, "capacity.bytes", c.bytes, false)?;
                if c.bytes < 512.0 || c.bytes.fract() != 0.0 {
                    return Err(Error::device(origin, "capacity.bytes", format!("must be a whole number of bytes, at least one 512-byte sector, got {}", c.bytes)));
                }
                Some((c.bytes, Provenance { source: c.source, assumed: c.assumed }))
            }
        };
        let fast_psp = match file.fast_psp {
            None => None,
            Some(f) => {
                if file.kind != DeviceKind::Network {
                    return Err(Error::device(origin, "fast_psp", "only a network card switches between PSP and CAM"));
                }
                if f.burst_requests < 1 {
                    return Err(Error::device(origin, "fast_psp.burst_requests", "must be at least 1"));
                }
                check_value(origin, "fast_psp.window_s", f.window_s, false)?;
                check_value(origin, "fast_psp.hold_s", f.hold_s, false)?;
                let psp_mode = modes.iter().position(|m| m.name == f.psp_mode).ok_or_else(|| {
                    Error::device(origin, "fast_psp.psp_mode", format!("unknown mode '{}'; known modes: {}", f.psp_mode, modes.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(", ")))
                })?;
                if psp_mode == READY {
                    return Err(Error::device(origin, "fast_psp.psp_mode", "must be a low-power mode, not the ready mode (CAM)"));
                }
                Some(FastPsp { psp_mode, burst_requests: f.burst_requests, window_s: f.window_s, hold_s: f.hold_s, provenance: Provenance { source: f.source, assumed: f.assumed } })
            }
        };
        if let Some(interface) = file.interface.filter(|&i| (i == Interface::Wireless) != (file.kind == DeviceKind::Network)) {
            return Err(Error::device(origin, "interface", format!("a {} device is not attached by '{}'", file.kind.as_str(), interface.as_str())));
        }
        Ok(Device {
            initial_mode,
            name: file.name,
            kind: file.kind,
            interface: file.interface,
            description: file.description,
            source: file.source,
            assumptions: file.assumptions,
            modes,
            transitions,
            service,
            limits,
            capacity,
            fast_psp,
            warnings,
            route_table,
            policy_routes,
            gap_options,
            tail_routes,
        })
    }
}

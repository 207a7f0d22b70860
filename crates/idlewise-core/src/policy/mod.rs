//! Power-management policies. Each family lives in its own file and is selected by a spec
//! string such as `timeout:2s`, `stpm:knob=50` or `randomized:seed=7`.
//!
//! A policy is consulted once per idle gap: when the queue empties it fills a [`Plan`] — the mode
//! changes to make if nothing arrives — and when the gap ends it is told how long the gap was.
//! The replay engine carries the plan out; policies never touch the ledger.

mod always_on;
mod breakeven;
mod columns;
mod apst;
mod epc;
mod fast_psp;
mod experts;
mod hd_idle;
mod oracle;
mod predictive;
mod psm;
mod randomized;
mod range;
mod stpm;
mod stpm_network;
mod timeout;

pub use columns::{ParamValue, PolicyColumns};
pub use range::expand_range;

use crate::device::{Device, RouteId, READY};
use crate::error::{Error, Result};
use crate::units::parse_duration_s;

/// One planned mode change: begin the transition to `mode` `at_s` seconds after the gap began
/// (or as soon as the previous step's transition has finished, if later), by `route` when given
/// (the oracle's chosen path) or else the device's policy route.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    pub at_s: f64,
    pub mode: usize,
    pub route: Option<RouteId>,
}

impl Step {
    pub fn to(at_s: f64, mode: usize) -> Step {
        Step { at_s, mode, route: None }
    }
}

/// What a policy wants to happen during one idle gap.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub steps: Vec<Step>,
    /// Wake early so the device is ready exactly when the next request arrives. Only an offline
    /// policy, which knows the gap, can honour this; the engine ignores it if the wake-up would
    /// have had to start before the device settled.
    pub prewake: bool,
    /// The path back for the pre-wake (default: the policy route from where the device rests).
    pub prewake_route: Option<RouteId>,
}

impl Plan {
    pub fn clear(&mut self) {
        self.steps.clear();
        self.prewake = false;
        self.prewake_route = None;
    }

    pub fn push(&mut self, at_s: f64, mode: usize) {
        self.steps.push(Step::to(at_s, mode));
    }
}

/// What a policy is told when a gap begins.
#[derive(Debug, Clone, Copy)]
pub struct GapStart<'d> {
    /// The device the run models (its gap options and routes, for policies that plan with them:
    /// held by the run, not copied into every policy of every volume).
    pub device: &'d Device,
    /// Absolute time the queue emptied.
    pub time_s: f64,
    /// Length of the gap until the next arrival. Future knowledge: only offline policies
    /// (the oracle) may read it; online policies learn gap lengths through [`Policy::end_gap`].
    pub gap_s: f64,
    /// The gap ends the run: no request follows it, so nothing need wake the device.
    pub ends_run: bool,
    /// `(mode, s)`: the device cannot enter `mode` in the gap's first `s` (a network card's
    /// firmware holding CAM after a burst, `fast_psp.rs`); a plan's move into it waits.
    pub held: Option<(usize, f64)>,
}

/// Run-wide facts a policy may use when it is built.
#[derive(Debug, Clone, Copy, Default)]
pub struct BuildContext {
    /// Platform base power (W) of the simulated system; STPM weighs delays with it.
    pub base_power_w: f64,
}

pub trait Policy: Send {
    /// The expanded spec this policy runs, e.g. `timeout:4s` or `stpm:knob=50,base=1.44W`.
    fn name(&self) -> &str;
    /// Fills `plan` for the gap that starts now. `plan` arrives empty.
    fn plan_gap(&mut self, gap: &GapStart, plan: &mut Plan);
    /// The gap that began with the last `plan_gap` ended after `idle_s` seconds (arrival minus
    /// the time the queue emptied).
    fn end_gap(&mut self, _idle_s: f64) {}
    /// A request arrives at `arrival_s` while the device rests in `mode`, a low-power mode that
    /// can serve (802.11 PSM). True: serve it there; false (the default): wake to the ready mode.
    fn serve_in_mode(&mut self, _mode: usize, _arrival_s: f64) -> bool {
        false
    }
    /// Every request's arrival, before it is served (for policies that watch traffic, such as
    /// the network STPM's runs of transfers). Ghost hints arrive here too.
    fn note_transfer(&mut self, _arrival_s: f64) {}
    /// True for an offline policy, which reads each gap's length ([`GapStart::gap_s`]) before the
    /// gap starts. Engines whose gaps are not known in advance (a hybrid disk's, which depend on
    /// what its NVCache absorbs) refuse such a policy rather than hand it an unknown length.
    fn reads_gap_lengths(&self) -> bool {
        false
    }
    /// A ghost hint (seed 000 §4.4) at `now_s` while the device rests in `mode`: an application
    /// would have used this device had it been in its ready mode, and would have saved `benefit`
    /// (knob-weighted, `K·seconds + (100 − K)·joules`). True: wake the device now.
    fn ghost_hint(&mut self, _now_s: f64, _mode: usize, _benefit: f64) -> bool {
        false
    }
    /// For a policy whose plan is the same for every gap, made from the idle time alone, and
    /// that learns nothing from a gap (a timeout, a cascade of them, EPC's and APST's timers):
    /// when its first step comes, counted from the gap's start (infinite if it has none).
    /// Runs of such policies share one replay wherever their device stays ready (`family.rs`).
    fn first_step_s(&self) -> Option<f64> {
        None
    }
    /// A gap shorter than this (s) on `device` is one the policy spends in the ready mode
    /// with no step planned, whatever else it knows: the run then charges the gap without
    /// asking for a plan (an offline policy's gaps too short for any round trip). 0 (the
    /// default): every gap is planned.
    fn stays_ready_below_s(&self, _device: &Device) -> f64 {
        0.0
    }
    /// A new policy that decides every gap as this one would, for a policy whose decisions
    /// depend on the gap alone (it learns nothing, draws nothing): it can take up a replay
    /// anywhere, as a MEMS replay's segments speculated on other threads do
    /// (`device_sim::mems_segments`). `None` (the default): a policy with a history.
    fn replica(&self) -> Option<Box<dyn Policy>> {
        None
    }
    /// True for a policy that watches every request ([`Policy::observe_request`]). The engine
    /// then serves each request on its own rather than a queue's run at once, so it costs
    /// only the policies that ask.
    fn observes_requests(&self) -> bool {
        false
    }
    /// A request, once the device is ready to serve it (after any wake-up it caused): what an
    /// online policy may know then. Called only when [`Policy::observes_requests`] says so.
    fn observe_request(&mut self, _request: &Arrival) {}
}

/// What a policy sees of a request ([`Policy::observe_request`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Arrival {
    pub time_s: f64,
    pub size_bytes: f64,
    pub is_write: bool,
    /// The idle period the request ended (0 when the device was busy: it queued).
    pub idle_s: f64,
    /// The request found the device in a low-power mode (resting, or on its way down) and woke it.
    pub woke: bool,
}

/// Makes the policy of a spec the engine does not know (a policy written in Python, through the
/// binding): one new policy per run, as a built-in family's spec builds one.
pub trait PolicyMaker: Send + Sync {
    fn make(&self, device: &Device, ctx: &BuildContext) -> Result<Box<dyn Policy>>;
}

/// A [`PolicyMaker`] held by a spec: specs are compared and printed, the maker by identity.
#[derive(Clone)]
pub struct External(pub std::sync::Arc<dyn PolicyMaker>);

impl std::fmt::Debug for External {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("External(..)")
    }
}

impl PartialEq for External {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A borrowed policy is a policy: lets callers that own a policy lend it to a [`crate::device_sim::DeviceSim`].
impl<P: Policy + ?Sized> Policy for &mut P {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn plan_gap(&mut self, gap: &GapStart, plan: &mut Plan) {
        (**self).plan_gap(gap, plan)
    }
    fn end_gap(&mut self, idle_s: f64) {
        (**self).end_gap(idle_s)
    }
    fn first_step_s(&self) -> Option<f64> {
        (**self).first_step_s()
    }
    fn stays_ready_below_s(&self, device: &Device) -> f64 {
        (**self).stays_ready_below_s(device)
    }
    fn serve_in_mode(&mut self, mode: usize, arrival_s: f64) -> bool {
        (**self).serve_in_mode(mode, arrival_s)
    }
    fn note_transfer(&mut self, arrival_s: f64) {
        (**self).note_transfer(arrival_s)
    }
    fn ghost_hint(&mut self, now_s: f64, mode: usize, benefit: f64) -> bool {
        (**self).ghost_hint(now_s, mode, benefit)
    }
    fn reads_gap_lengths(&self) -> bool {
        (**self).reads_gap_lengths()
    }
    fn replica(&self) -> Option<Box<dyn Policy>> {
        (**self).replica()
    }
    fn observes_requests(&self) -> bool {
        (**self).observes_requests()
    }
    fn observe_request(&mut self, request: &Arrival) {
        (**self).observe_request(request)
    }
}

/// A policy that plans the same cascade for every gap: fixed timeouts, the lower envelope, a
/// drive's own timers (EPC, APST).
#[derive(Clone)]
pub(crate) struct FixedCascade {
    pub(crate) name: String,
    pub(crate) steps: Vec<Step>,
}

impl Policy for FixedCascade {
    fn name(&self) -> &str {
        &self.name
    }
    fn plan_gap(&mut self, _gap: &GapStart, plan: &mut Plan) {
        plan.steps.extend_from_slice(&self.steps);
    }
    fn first_step_s(&self) -> Option<f64> {
        Some(self.steps.iter().map(|s| s.at_s).fold(f64::INFINITY, f64::min))
    }
    fn replica(&self) -> Option<Box<dyn Policy>> {
        Some(Box::new(self.clone()))
    }
}

/// Documentation of one policy parameter, for `idlewise policies`.
#[derive(Debug, Clone, Copy)]
pub struct ParamDoc {
    pub name: &'static str,
    pub default: &'static str,
    pub help: &'static str,
}

/// A policy family: its name, what it does, its parameters and how to build it.
pub struct Family {
    pub name: &'static str,
    pub summary: &'static str,
    pub params: &'static [ParamDoc],
    pub example: &'static str,
    /// The drive itself runs the policy once it is set up (ATA EPC's timers, NVMe APST): a live
    /// manager sets it up and issues no command of its own for the model's changes.
    pub run_by_the_drive: bool,
    build: fn(&PolicySpec, &Device, &BuildContext) -> Result<Box<dyn Policy>>,
}

/// Every policy family, in the order `idlewise policies` lists them.
pub fn families() -> &'static [Family] {
    static FAMILIES: [Family; 12] = [
        always_on::FAMILY,
        timeout::FAMILY,
        hd_idle::FAMILY,
        epc::FAMILY,
        apst::FAMILY,
        breakeven::FAMILY,
        randomized::FAMILY,
        stpm::FAMILY,
        experts::FAMILY,
        predictive::FAMILY,
        psm::FAMILY,
        oracle::FAMILY,
    ];
    &FAMILIES
}

/// A parsed spec string: `family` or `family:arg,arg,...` where each arg is `key=value` or a bare
/// value (for `timeout:2s`).
#[derive(Debug, Clone, PartialEq)]
pub struct PolicySpec {
    pub text: String,
    pub family: String,
    pub args: Vec<(Option<String>, String)>,
    /// The maker of a policy from outside the engine (`text` its name, `family` its family).
    pub external: Option<External>,
}

impl PolicySpec {
    pub fn parse(text: &str) -> Result<PolicySpec> {
        let text = text.trim();
        let (family, rest) = match text.split_once(':') {
            Some((f, r)) => (f.trim(), Some(r)),
            None => (text, None),
        };
        if !families().iter().any(|f| f.name == family) {
            let names: Vec<&str> = families().iter().map(|f| f.name).collect();
            let hint = crate::error::did_you_mean(family, names.iter().copied());
            return Err(Error::spec(text, format!("unknown policy '{family}'{hint}; known policies: {}", names.join(", "))));
        }
        let mut args = Vec::new();
        if let Some(rest) = rest {
            for part in rest.split(',') {
                let part = part.trim();
                if part.is_empty() {
                    return Err(Error::spec(text, "empty parameter (stray comma or colon)"));
                }
                let (key, value) = match part.split_once('=') {
                    Some((k, v)) => (Some(k.trim().to_string()), v.trim().to_string()),
                    None => (None, part.to_string()),
                };
                if args.iter().any(|(k, _)| *k == key) {
                    let what = key.as_deref().map_or("a bare value".to_string(), |k| format!("parameter '{k}'"));
                    return Err(Error::spec(text, format!("{what} is given twice; give each parameter once")));
                }
                args.push((key, value));
            }
        }
        Ok(PolicySpec { text: text.to_string(), family: family.to_string(), args, external: None })
    }

    /// The spec of a policy made outside the engine, named `text` (its rows' `policy`), of
    /// `family`, which must not be a built-in family's name (the engine treats some by name).
    pub fn external(text: &str, family: &str, maker: std::sync::Arc<dyn PolicyMaker>) -> Result<PolicySpec> {
        if families().iter().any(|f| f.name == family) {
            return Err(Error::spec(text, format!("'{family}' is a built-in policy's name; name yours otherwise")));
        }
        if text.trim().is_empty() || family.trim().is_empty() {
            return Err(Error::spec(text, "a policy needs a name and a family"));
        }
        Ok(PolicySpec { text: text.to_string(), family: family.to_string(), args: Vec::new(), external: Some(External(maker)) })
    }

    /// Builds the policy for a device. Errors name the spec and say what was expected.
    pub fn build(&self, device: &Device, ctx: &BuildContext) -> Result<Box<dyn Policy>> {
        let policy = match &self.external {
            Some(External(maker)) => maker.make(device, ctx)?,
            None => {
                let family = families().iter().find(|f| f.name == self.family).expect("family checked at parse");
                (family.build)(self, device, ctx)?
            }
        };
        // A card whose firmware switches to CAM under traffic does so under any policy.
        Ok(match &device.fast_psp {
            Some(switch) => Box::new(fast_psp::FastPspPolicy::new(policy, switch.clone())),
            None => policy,
        })
    }

    fn error(&self, message: impl Into<String>) -> Error {
        Error::spec(&self.text, message)
    }

    /// Rejects bare values and keys not in `allowed`.
    fn expect_keys(&self, allowed: &[&str]) -> Result<()> {
        for (key, value) in &self.args {
            match key {
                None => {
                    return Err(self.error(format!(
                        "unexpected value '{value}'; write parameters as key=value ({})",
                        if allowed.is_empty() { "this policy takes none".to_string() } else { allowed.join(", ") }
                    )))
                }
                Some(k) if !allowed.contains(&k.as_str()) => {
                    return Err(self.error(format!(
                        "unknown parameter '{k}'{}; {}",
                        crate::error::did_you_mean(k, allowed.iter().copied()),
                        if allowed.is_empty() { "this policy takes none".to_string() } else { format!("expected one of {}", allowed.join(", ")) }
                    )))
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// As [`PolicySpec::expect_keys`], but one bare value (the family's main argument) is allowed.
    fn expect_keys_with_bare(&self, allowed: &[&str]) -> Result<()> {
        for (key, _) in &self.args {
            if let Some(k) = key {
                if !allowed.contains(&k.as_str()) {
                    return Err(self.error(format!("unknown parameter '{k}'{}; expected one of {}", crate::error::did_you_mean(k, allowed.iter().copied()), allowed.join(", "))));
                }
            }
        }
        Ok(())
    }

    pub(crate) fn raw(&self, key: &str) -> Option<&str> {
        self.args.iter().rev().find(|(k, _)| k.as_deref() == Some(key)).map(|(_, v)| v.as_str())
    }

    /// A plain number parameter within `[min, max]`.
    fn number(&self, key: &str, default: f64, min: f64, max: f64) -> Result<f64> {
        let Some(raw) = self.raw(key) else { return Ok(default) };
        let value: f64 = raw.parse().map_err(|_| self.error(format!("parameter '{key}' must be a number, got '{raw}'")))?;
        if !(value.is_finite() && value >= min && value <= max) {
            return Err(self.error(format!("parameter '{key}' must be between {min} and {max}, got {value}")));
        }
        Ok(value)
    }

    /// A power parameter: `1.44W`, `1440mW` or a bare number of watts.
    fn power_w(&self, key: &str, default: f64) -> Result<f64> {
        let Some(raw) = self.raw(key) else { return Ok(default) };
        crate::units::parse_power_w(raw).map_err(|m| self.error(format!("parameter '{key}': {m}")))
    }

    fn duration_s(&self, raw: &str, what: &str) -> Result<f64> {
        parse_duration_s(raw).map_err(|m| self.error(format!("{what}: {m}")))
    }

    fn seed(&self, key: &str, default: u64) -> Result<u64> {
        self.whole_number(key, default)
    }

    /// A non-negative integer parameter.
    fn whole_number(&self, key: &str, default: u64) -> Result<u64> {
        let Some(raw) = self.raw(key) else { return Ok(default) };
        raw.parse().map_err(|_| self.error(format!("parameter '{key}' must be a non-negative integer, got '{raw}'")))
    }
}

/// Formats a float for an expanded spec: shortest form that round-trips to a readable value.
pub(crate) fn fmt_num(v: f64) -> String {
    crate::units::trimmed_decimal(v, 6)
}

/// The deepest mode of a device, or an error explaining that the policy needs one.
pub(crate) fn require_low_power_mode(spec: &PolicySpec, device: &Device) -> Result<usize> {
    device.deepest_mode().ok_or_else(|| {
        spec.error(format!("device '{}' has only its ready mode; this policy needs a low-power mode to move to", device.name))
    })
}

/// The low-power mode named `name`, or an error listing the device's low-power modes (`what`
/// names them as the policy does: a mode, an EPC state).
pub(crate) fn named_low_power_mode(spec: &PolicySpec, device: &Device, name: &str, what: &str) -> Result<usize> {
    device.mode_index(name).filter(|&m| m != READY).ok_or_else(|| {
        let known: Vec<&str> = device.modes.iter().skip(1).map(|m| m.name.as_str()).collect();
        spec.error(format!("unknown {what} '{name}' for device '{}'; its low-power modes are: {}", device.name, known.join(", ")))
    })
}

/// The first two consecutive steps of a time-ordered cascade that do not go strictly deeper at a
/// strictly later time: an inverted cascade would wake a disk in the middle of an idle period.
pub(crate) fn first_out_of_order(device: &Device, steps: &[Step]) -> Option<(Step, Step)> {
    steps.windows(2).map(|w| (w[0], w[1])).find(|(a, b)| a.at_s == b.at_s || device.modes[b.mode].power_w >= device.modes[a.mode].power_w)
}

/// Keeps only cascade steps that go strictly deeper at strictly later times: a shallower mode
/// whose threshold is not earlier than a deeper one's is never worth entering.
pub(crate) fn monotone_cascade(device: &Device, mut steps: Vec<Step>) -> Vec<Step> {
    steps.retain(|s| s.at_s.is_finite() && s.mode != READY);
    steps.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
    let mut kept: Vec<Step> = Vec::with_capacity(steps.len());
    for step in steps {
        while let Some(last) = kept.last() {
            if device.modes[last.mode].power_w <= device.modes[step.mode].power_w {
                break; // `step` is not deeper: drop it below
            }
            if last.at_s >= step.at_s {
                kept.pop();
            } else {
                break;
            }
        }
        if kept.last().is_none_or(|last| device.modes[step.mode].power_w < device.modes[last.mode].power_w) {
            kept.push(step);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::tests::two_state;

    #[test]
    fn unknown_family_and_parameters_are_named() {
        let err = PolicySpec::parse("timout:2s").unwrap_err().to_string();
        assert!(err.contains("unknown policy 'timout'") && err.contains("timeout"), "{err}");
        let d = two_state();
        let ctx = BuildContext::default();
        let err = PolicySpec::parse("stpm:knobb=5").unwrap().build(&d, &ctx).err().unwrap().to_string();
        assert!(err.contains("unknown parameter 'knobb'"), "{err}");
        let err = PolicySpec::parse("stpm:knob=150").unwrap().build(&d, &ctx).err().unwrap().to_string();
        assert!(err.contains("between 0 and 100"), "{err}");
        let err = PolicySpec::parse("timeout:2parsecs").unwrap().build(&d, &ctx).err().unwrap().to_string();
        assert!(err.contains("unknown time unit"), "{err}");
        let err = PolicySpec::parse("timeout:standby=2s").unwrap().build(&d, &ctx).err().unwrap().to_string();
        assert!(err.contains("unknown mode 'standby'"), "{err}");
        for spec in ["timeout:standby=1s,standby=2s", "experts:n=25,n=30", "timeout:1s,2s"] {
            let err = PolicySpec::parse(spec).unwrap_err().to_string();
            assert!(err.contains("given twice"), "{spec}: {err}");
        }
    }

    #[test]
    fn every_family_builds_with_defaults_on_a_two_state_device() {
        let d = two_state();
        for f in families() {
            let p = PolicySpec::parse(f.example).unwrap().build(&d, &BuildContext::default());
            if f.name == "psm" {
                assert!(p.err().unwrap().to_string().contains("no low-power mode that serves"));
            } else if f.name == "epc" {
                assert!(p.err().unwrap().to_string().contains("no EPC timers"));
            } else if f.name == "apst" {
                assert!(p.err().unwrap().to_string().contains("not an NVMe drive"));
            } else {
                assert!(p.is_ok(), "{}: {:?}", f.name, p.err());
            }
        }
        // A policy that cannot act on a device is refused, never run as another: APST beyond
        // NVMe, EPC on a drive without it (timers given or not), PSM on a disk.
        let disk = crate::Device::from_toml(&std::fs::read_to_string(format!("{}/../../python/idlewise/catalog/hitachi-travelstar-5k320.toml", env!("CARGO_MANIFEST_DIR"))).unwrap(), "5k320").unwrap();
        for (spec, why) in [("apst", "not an NVMe drive"), ("apst:primary_timeout_ms=0", "an ATA disk, not an NVMe drive"), ("epc", "does not implement ATA Extended"), ("epc:standby=10min", "no EPC timers"), ("psm", "no low-power mode that serves")] {
            let err = PolicySpec::parse(spec).unwrap().build(&disk, &BuildContext::default()).err().unwrap_or_else(|| panic!("{spec} runs on a SATA disk")).to_string();
            assert!(err.contains(why), "{spec}: {err}");
        }
        let card = crate::policy::stpm_network::tests::cisco();
        for spec in ["psm", "stpm:knob=50", "always-on", "oracle", "breakeven"] {
            assert!(PolicySpec::parse(spec).unwrap().build(&card, &BuildContext::default()).is_ok(), "{spec}");
        }
    }
}

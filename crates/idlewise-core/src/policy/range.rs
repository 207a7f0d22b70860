//! A range in a policy spec, `START..STOP/STEP`, expanded into one spec per value: the one home
//! of the syntax, read by the command line, the Python API and the sweeps alike.
//!
//! `timeout:0s..60s/2s` gives 31 specs, `stpm:knob=0..100/10` 11. A value with a unit is a
//! duration (a bound without one takes the step's, else the other bound's) and is written in
//! seconds; one without is a plain number. One range a spec: several are several specs.

use crate::error::{Error, Result};
use crate::units::{parse_duration_s, trimmed_decimal};

/// More specs than this from one range is a slip of the step (a sweep of them would run for days).
const MOST_SPECS: u64 = 100_000;

/// One bound or the step of a range as written: the number and its unit (letters, maybe none).
#[derive(Debug, Clone, Copy)]
struct Written<'t> {
    number: &'t str,
    unit: &'t str,
}

/// A range found in a spec: its bounds and step, and where it lies.
#[derive(Debug)]
struct Found<'t> {
    start: Written<'t>,
    stop: Written<'t>,
    step: Written<'t>,
    at: std::ops::Range<usize>,
}

/// Every spec a spec stands for: itself when it holds no range, else one for each value of the
/// range, in increasing order.
pub fn expand_range(spec: &str) -> Result<Vec<String>> {
    let refused = |message: String| Error::PolicySpec { spec: spec.to_string(), message };
    let found = ranges(spec);
    let Some(range) = found.first() else {
        return Ok(vec![spec.to_string()]);
    };
    if found.len() > 1 {
        return Err(refused("only one range per spec is supported; give several --policy values".into()));
    }
    let (start, stop, step) = (range.start, range.stop, range.step);
    let with_units = [start.unit, stop.unit, step.unit].iter().any(|u| !u.is_empty());
    let [a, b, by] = if with_units {
        // A bound without a unit takes the step's, else the other bound's.
        let unit_of = |w: Written<'_>| -> String { [w.unit, step.unit, stop.unit, start.unit].into_iter().find(|u| !u.is_empty()).unwrap_or("").to_string() };
        let mut values = [0.0; 3];
        for (value, w) in values.iter_mut().zip([start, stop, step]) {
            *value = parse_duration_s(&format!("{}{}", w.number, unit_of(w))).map_err(refused)?;
        }
        values
    } else {
        [start, stop, step].map(|w| w.number.parse::<f64>().unwrap_or(f64::NAN))
    };
    if ![a, b, by].iter().all(|v| v.is_finite()) {
        return Err(refused("a range's START, STOP and STEP must be finite numbers".into()));
    }
    if by <= 0.0 || b < a {
        return Err(refused("a range needs START <= STOP and a positive STEP".into()));
    }
    // (The slack keeps a STOP that is a whole number of steps away from being lost to rounding.)
    let count = ((b - a) / by + 1e-9).floor() + 1.0;
    if count > MOST_SPECS as f64 {
        return Err(refused(format!("the range expands to {} specs; use a coarser step", crate::units::thousands(count as u64))));
    }
    let suffix = if with_units { "s" } else { "" };
    let (before, after) = (&spec[..range.at.start], &spec[range.at.end..]);
    // (Nine decimals: a range's values are written as the Python face always wrote them.)
    Ok((0..count as u64).map(|i| format!("{before}{}{suffix}{after}", trimmed_decimal(a + i as f64 * by, 9))).collect())
}

/// The ranges of a spec, left to right, apart. A range begins where a number does (not inside
/// another number), and a number is digits with an optional fraction, or a fraction alone.
fn ranges(spec: &str) -> Vec<Found<'_>> {
    let bytes = spec.as_bytes();
    let in_number = |c: u8| c.is_ascii_digit() || c == b'.';
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if in_number(bytes[i]) && (i == 0 || !in_number(bytes[i - 1])) {
            if let Some(range) = range_at(spec, i) {
                i = range.at.end;
                found.push(range);
                continue;
            }
        }
        i += 1;
    }
    found
}

/// The ends a number starting at `at` may have, longest first: a fraction's point may belong to
/// the `..` that follows instead (`0..5/1` reads 0, not `0.`).
fn number_ends(bytes: &[u8], at: usize) -> Vec<usize> {
    let digits_from = |from: usize| from + bytes[from.min(bytes.len())..].iter().take_while(|c| c.is_ascii_digit()).count();
    let whole = digits_from(at);
    if whole > at {
        let mut ends = Vec::with_capacity(2);
        if bytes.get(whole) == Some(&b'.') {
            ends.push(digits_from(whole + 1));
        }
        ends.push(whole);
        ends
    } else if bytes.get(at) == Some(&b'.') && digits_from(at + 1) > at + 1 {
        vec![digits_from(at + 1)]
    } else {
        Vec::new()
    }
}

/// A number and its unit (lowercase letters) from `at`, followed by `then` (none: anything).
fn written_at<'t>(spec: &'t str, at: usize, then: Option<&str>) -> Option<(Written<'t>, usize)> {
    let bytes = spec.as_bytes();
    number_ends(bytes, at).into_iter().find_map(|end| {
        let unit_end = end + bytes[end..].iter().take_while(|c| c.is_ascii_lowercase()).count();
        let next = unit_end + then.map_or(0, str::len);
        then.is_none_or(|t| spec[unit_end..].starts_with(t)).then(|| (Written { number: &spec[at..end], unit: &spec[end..unit_end] }, next))
    })
}

fn range_at(spec: &str, at: usize) -> Option<Found<'_>> {
    let (start, next) = written_at(spec, at, Some(".."))?;
    let (stop, next) = written_at(spec, next, Some("/"))?;
    let (step, end) = written_at(spec, next, None)?;
    Some(Found { start, stop, step, at: at..end })
}

#[cfg(test)]
mod tests {
    use super::expand_range;

    fn expanded(spec: &str) -> Vec<String> {
        expand_range(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
    }

    #[test]
    fn a_range_gives_one_spec_per_value_in_seconds_or_plain_numbers() {
        assert_eq!(expanded("timeout:0s..6s/2s"), ["timeout:0s", "timeout:2s", "timeout:4s", "timeout:6s"]);
        assert_eq!(expanded("stpm:knob=0..100/25"), ["stpm:knob=0", "stpm:knob=25", "stpm:knob=50", "stpm:knob=75", "stpm:knob=100"]);
        assert_eq!(expanded("timeout:standby=500ms..1.5s/500ms"), ["timeout:standby=0.5s", "timeout:standby=1s", "timeout:standby=1.5s"]);
        // A bound without a unit takes the step's.
        assert_eq!(expanded("timeout:0..1min/30s"), ["timeout:0s", "timeout:30s", "timeout:60s"]);
        assert_eq!(expanded("timeout:.5s..1.5s/.5s"), ["timeout:0.5s", "timeout:1s", "timeout:1.5s"]);
        // 0.6 s steps reach 60 s although 60/0.6 is 99.99999999999999 in binary.
        assert_eq!(expanded("timeout:0s..60s/0.6s").len(), 101);
        assert_eq!(expanded("timeout:0s..60s/0.6s")[100], "timeout:60s");
        assert_eq!(expanded("timeout:1s..99s/1s").len(), 99);
        // Text after the range is kept; a point after a whole number belongs to it.
        assert_eq!(expanded("timeout:standby=1..3s/1s,idle=2s"), ["timeout:standby=1s,idle=2s", "timeout:standby=2s,idle=2s", "timeout:standby=3s,idle=2s"]);
        assert_eq!(expanded("stpm:knob=1...3/1"), ["stpm:knob=1", "stpm:knob=2", "stpm:knob=3"]);
        assert_eq!(expanded("randomized:seed=0..2/1"), ["randomized:seed=0", "randomized:seed=1", "randomized:seed=2"]);
    }

    #[test]
    fn a_spec_without_a_range_is_itself() {
        for spec in ["breakeven", "timeout:2s", "timeout:2.5s", "hd-idle:10s", "timeout:..", "x..y/z", ""] {
            assert_eq!(expanded(spec), [spec]);
        }
        // Found by benchmarks/fuzz.py: a long run of digits once backtracked for minutes (a hang).
        let long = format!("timeout:{}", "9".repeat(5000));
        assert_eq!(expanded(&long), [long.clone()]);
    }

    #[test]
    fn a_bad_range_says_what_is_wrong() {
        let refused = |spec: &str| expand_range(spec).unwrap_err().to_string();
        assert_eq!(refused("timeout:5s..1s/1s"), "policy 'timeout:5s..1s/1s': a range needs START <= STOP and a positive STEP");
        assert!(refused("timeout:1s..5s/0s").contains("positive STEP"));
        assert!(refused(&format!("stpm:knob=0..{}/1", "9".repeat(400))).contains("must be finite numbers"));
        assert!(refused("timeout:0s..1s/1s,standby=0s..1s/1s").contains("only one range per spec"));
        assert_eq!(refused("timeout:0s..1000s/1ms"), "policy 'timeout:0s..1000s/1ms': the range expands to 1,000,001 specs; use a coarser step");
        assert!(refused("timeout:0parsecs..2parsecs/1parsecs").starts_with("policy 'timeout:0parsecs..2parsecs/1parsecs': "));
    }
}

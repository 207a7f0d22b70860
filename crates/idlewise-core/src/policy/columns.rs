//! What a result row says of its policy, read from the policy's canonical label: its family,
//! the one timeout of a single-timeout policy (`timeout_s`), the self-tuning knob (`knob`) and
//! every named parameter, a number where it reads as one. The one home of this reading: the
//! Python face, the results schema and the report take these columns from here and keep no
//! knowledge of families of their own.
//!
//! A label is read leniently, as a row's text, not checked as a spec: a policy written in Python
//! (`python:FILE.py:Class:key=value`) or a label from an older results file gives its columns too.

use crate::units::parse_duration_s;

/// A parameter's value in the results: a number where the text reads as one (plain, a
/// duration in seconds, a power in watts), otherwise the text itself (`off`, a path).
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    Number(f64),
    Text(String),
}

impl ParamValue {
    fn number(&self) -> Option<f64> {
        match self {
            ParamValue::Number(x) => Some(*x),
            ParamValue::Text(_) => None,
        }
    }
}

/// A row's policy columns.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyColumns {
    /// The text before the label's first colon.
    pub family: String,
    /// The bare value of a family whose bare value is its timeout (`timeout:2s`, `hd-idle:60s`).
    pub timeout_s: Option<f64>,
    /// The `knob` parameter (a self-tuning policy's 0–100 setting), as given.
    pub knob: Option<ParamValue>,
    /// Every `key=value` parameter in the order first given (a repeated key keeps its place and
    /// takes the later value).
    pub params: Vec<(String, ParamValue)>,
}

/// Families whose one bare value is a timeout: `timeout:2s` and `hd-idle:60s`.
const BARE_TIMEOUT_FAMILIES: [&str; 2] = ["timeout", "hd-idle"];

impl PolicyColumns {
    /// The columns of a canonical label.
    pub fn of_label(label: &str) -> PolicyColumns {
        let (family, rest) = label.split_once(':').unwrap_or((label, ""));
        let mut columns = PolicyColumns { family: family.to_string(), timeout_s: None, knob: None, params: Vec::new() };
        for item in rest.split(',').filter(|item| !item.is_empty()) {
            let Some((name, value)) = item.split_once('=') else {
                if let (true, ParamValue::Number(x)) = (BARE_TIMEOUT_FAMILIES.contains(&family), value_of(item)) {
                    columns.timeout_s = Some(x);
                }
                continue;
            };
            let value = value_of(value);
            if name == "knob" {
                columns.knob = Some(value.clone());
            }
            match columns.params.iter_mut().find(|(known, _)| known == name) {
                Some(slot) => slot.1 = value,
                None => columns.params.push((name.to_string(), value)),
            }
        }
        columns
    }

    /// The knob as a number, where it is one.
    pub fn knob_number(&self) -> Option<f64> {
        self.knob.as_ref().and_then(ParamValue::number)
    }
}

/// A parameter's text as a value: a number (`50`, `1e-3`, `inf`), watts (`1.44W`), a duration
/// in seconds (`2s`, `10min`), else the text.
pub fn value_of(text: &str) -> ParamValue {
    if let Some(x) = plain_number(text) {
        return ParamValue::Number(x);
    }
    if let Some(watts) = text.strip_suffix('W') {
        return plain_number(watts).map_or_else(|| ParamValue::Text(text.to_string()), ParamValue::Number);
    }
    parse_duration_s(text).map_or_else(|_| ParamValue::Text(text.to_string()), ParamValue::Number)
}

/// A number as a decimal literal reads: surrounding white space allowed, a sign, digits with
/// single underscores between them, a fraction, an exponent, or `inf`/`infinity`/`nan` in any
/// case (the literals a results file written by any earlier version may hold).
fn plain_number(text: &str) -> Option<f64> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if text.contains('_') {
        let bytes = text.as_bytes();
        let between_digits = bytes.iter().enumerate().all(|(i, &b)| {
            b != b'_' || (i > 0 && i + 1 < bytes.len() && bytes[i - 1].is_ascii_digit() && bytes[i + 1].is_ascii_digit())
        });
        return if between_digits { text.replace('_', "").parse().ok() } else { None };
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_single_timeout_and_a_knob_are_typed() {
        let c = PolicyColumns::of_label("timeout:2s");
        assert_eq!((c.family.as_str(), c.timeout_s, c.params.len()), ("timeout", Some(2.0), 0));
        let c = PolicyColumns::of_label("stpm:knob=50,base=1.44W");
        assert_eq!(c.knob_number(), Some(50.0));
        assert_eq!(c.params, vec![("knob".into(), ParamValue::Number(50.0)), ("base".into(), ParamValue::Number(1.44))]);
        let c = PolicyColumns::of_label("timeout:low-power-idle=0.5s,standby=10min");
        assert_eq!(c.timeout_s, None);
        assert_eq!(c.params[1], ("standby".into(), ParamValue::Number(600.0)));
        let c = PolicyColumns::of_label("epc:standby_z=off");
        assert_eq!(c.params, vec![("standby_z".into(), ParamValue::Text("off".into()))]);
    }

    #[test]
    fn a_repeated_key_keeps_its_place_and_takes_the_later_value() {
        let c = PolicyColumns::of_label("x:a=1,b=2,a=3");
        assert_eq!(c.params, vec![("a".into(), ParamValue::Number(3.0)), ("b".into(), ParamValue::Number(2.0))]);
    }

    #[test]
    fn numbers_read_as_literals_do() {
        assert_eq!(plain_number(" 1_000 "), Some(1000.0));
        assert_eq!(plain_number("1__0"), None);
        assert_eq!(plain_number("_1"), None);
        assert_eq!(plain_number("-Infinity"), Some(f64::NEG_INFINITY));
        assert!(plain_number("nan").unwrap().is_nan());
        assert_eq!(plain_number("1e3"), Some(1000.0));
        assert_eq!(plain_number(""), None);
    }
}

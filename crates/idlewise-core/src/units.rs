//! Durations with units, as users write them in policy specs: `500ms`, `2s`, `1.5min`, `1h`.
//! Parsing happens at the edge; everything inside the engine is in seconds.

/// Parses a duration such as `2s`, `500ms`, `250us`, `1.5min` or `1h` into seconds.
/// A bare number is rejected: units are part of the value.
pub fn parse_duration_s(text: &str) -> std::result::Result<f64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
        .ok_or_else(|| format!("'{text}' has no unit; write e.g. '2s', '500ms' or '1min'"))?;
    // `e` may start a unit-less exponent or be part of nothing; guard against "1e" style mistakes.
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a number followed by a unit (ms, s, min, h)"))?;
    let scale = match unit.trim() {
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "min" => 60.0,
        "h" => 3600.0,
        other => {
            return Err(format!("unknown time unit '{other}' in '{text}'; expected one of us, ms, s, min, h"))
        }
    };
    let seconds = value * scale;
    if !seconds.is_finite() || seconds < 0.0 {
        return Err(format!("'{text}' must be a finite, non-negative duration"));
    }
    Ok(seconds)
}

/// Formats seconds the way a user would write them back in a spec (`4s`, `500ms`, `2.5min`).
pub fn format_duration_s(seconds: f64) -> String {
    fn trim(v: f64) -> String {
        let s = format!("{v:.6}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        s.to_string()
    }
    if seconds == 0.0 {
        "0s".to_string()
    } else if seconds < 1.0 {
        format!("{}ms", trim(seconds * 1e3))
    } else if seconds >= 60.0 && (seconds / 60.0).fract() == 0.0 {
        format!("{}min", trim(seconds / 60.0))
    } else {
        format!("{}s", trim(seconds))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_unit() {
        assert_eq!(parse_duration_s("2s").unwrap(), 2.0);
        assert_eq!(parse_duration_s("500ms").unwrap(), 0.5);
        assert_eq!(parse_duration_s("250us").unwrap(), 250e-6);
        assert_eq!(parse_duration_s("1.5min").unwrap(), 90.0);
        assert_eq!(parse_duration_s("1h").unwrap(), 3600.0);
    }

    #[test]
    fn rejects_missing_or_unknown_units_and_negatives() {
        assert!(parse_duration_s("2").unwrap_err().contains("no unit"));
        assert!(parse_duration_s("2 parsecs").unwrap_err().contains("unknown time unit"));
        assert!(parse_duration_s("-1s").is_err());
        assert!(parse_duration_s("abcs").is_err());
    }

    #[test]
    fn formats_round_trip() {
        for s in ["4s", "500ms", "2min", "0s", "1.25s"] {
            assert_eq!(format_duration_s(parse_duration_s(s).unwrap()), s);
        }
    }
}

//! Durations, powers and sizes with units, as users write them in policy specs and options:
//! `500ms`, `2s`, `1.5min`, `1h`, `7d`; `1.44W`, `500mW`; `64MiB`, `100KB`, `inf`. Parsing happens
//! at the edge; everything inside the engine is in seconds, watts and bytes.

/// A plain decimal number in ASCII (`1.5`, `-2e3`): no `inf`, `nan`, `0x10` or `1_000`, which
/// Rust's float parser would accept or which mean something else elsewhere.
pub fn parse_plain_number(text: &str) -> Option<f64> {
    let b = text.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits_start = i;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
        i += 1;
    }
    let mantissa = &b[digits_start..i];
    if mantissa.is_empty() || mantissa.iter().filter(|&&c| c == b'.').count() > 1 || !mantissa.iter().any(u8::is_ascii_digit) {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        i += usize::from(matches!(b.get(i), Some(b'+' | b'-')));
        let exp_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    text.parse().ok()
}

/// Parses a power such as `1.44W`, `1440mW`, `1.44 W` or a bare `1.44` (watts).
pub fn parse_power_w(text: &str) -> std::result::Result<f64, String> {
    let t = text.trim();
    let (number, scale) = if let Some(n) = t.strip_suffix("mW") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix("kW") {
        (n, 1e3)
    } else if let Some(n) = t.strip_suffix('W') {
        (n, 1.0)
    } else {
        (t, 1.0)
    };
    let value = parse_plain_number(number.trim()).ok_or_else(|| format!("'{text}' is not a power; write e.g. '1.44W', '500mW' or 1.44"))?;
    let watts = value * scale;
    if !(watts.is_finite() && watts >= 0.0) {
        return Err(format!("'{text}' must be a finite, non-negative power"));
    }
    Ok(watts)
}

/// Parses a duration such as `2s`, `500ms`, `250us`, `1.5min`, `1h` or `7d` into seconds.
/// A bare number is rejected: units are part of the value.
pub fn parse_duration_s(text: &str) -> std::result::Result<f64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
        .ok_or_else(|| format!("'{text}' has no unit; write e.g. '2s', '500ms' or '1min'"))?;
    // `e` may start a unit-less exponent or be part of nothing; guard against "1e" style mistakes.
    let (number, unit) = text.split_at(split);
    let value = parse_plain_number(number)
        .ok_or_else(|| format!("'{text}' is not a number followed by a unit (ns, us, ms, s, min, h, d, w)"))?;
    let scale = match unit.trim() {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" | "sec" => 1.0,
        "min" => 60.0,
        "h" | "hr" => 3600.0,
        "d" | "day" | "days" => 86_400.0,
        "w" | "week" | "weeks" => 604_800.0,
        other => {
            return Err(format!("unknown time unit '{other}' in '{text}'; expected one of ns, us, ms, s, min, h, d, w"))
        }
    };
    let seconds = value * scale;
    if !seconds.is_finite() || seconds < 0.0 {
        return Err(format!("'{text}' must be a finite, non-negative duration"));
    }
    Ok(seconds)
}

/// Parses a size such as `64MiB`, `16 MiB`, `100KB`, `1.5GB` or `4096` (bytes) into bytes; `inf`
/// (an unbounded size) is `None`. Binary (KiB, MiB, GiB, TiB) and decimal (kB/KB, MB, GB, TB)
/// prefixes are both accepted, as storage papers use both; a fraction of a byte is an error.
pub fn parse_size_bytes(text: &str) -> std::result::Result<Option<u64>, String> {
    let t = text.trim();
    if matches!(t, "inf" | "infinite" | "unbounded") {
        return Ok(None);
    }
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '+')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value = parse_plain_number(number).ok_or_else(|| format!("'{text}' is not a size; write e.g. '64MiB', '100KB', '4096' (bytes) or 'inf'"))?;
    let scale: f64 = match unit.trim() {
        "" | "B" => 1.0,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "TiB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        other => return Err(format!("unknown size unit '{other}' in '{text}'; expected B, KiB, MiB, GiB, TiB, kB, MB, GB, TB, or 'inf'")),
    };
    let bytes = value * scale;
    if !(bytes.is_finite() && bytes >= 0.0 && bytes < 2f64.powi(63)) {
        return Err(format!("'{text}' must be a non-negative size below 2^63 bytes"));
    }
    if bytes.fract() != 0.0 {
        return Err(format!("'{text}' is not a whole number of bytes ({bytes} bytes)"));
    }
    Ok(Some(bytes as u64))
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
        assert_eq!(parse_duration_s("1d").unwrap(), 86_400.0);
        assert_eq!(parse_duration_s("2w").unwrap(), 1_209_600.0);
        assert!((parse_duration_s("100ns").unwrap() - 100e-9).abs() < 1e-20);
    }

    #[test]
    fn sizes_take_binary_or_decimal_prefixes() {
        assert_eq!(parse_size_bytes("64MiB").unwrap(), Some(64 << 20));
        assert_eq!(parse_size_bytes("16 MiB").unwrap(), Some(16 << 20));
        assert_eq!(parse_size_bytes("100KB").unwrap(), Some(100_000));
        assert_eq!(parse_size_bytes("100kB").unwrap(), Some(100_000));
        assert_eq!(parse_size_bytes("1.5GB").unwrap(), Some(1_500_000_000));
        assert_eq!(parse_size_bytes("4096").unwrap(), Some(4096));
        assert_eq!(parse_size_bytes("512B").unwrap(), Some(512));
        assert_eq!(parse_size_bytes("inf").unwrap(), None);
        for bad in ["", "MiB", "-1MiB", "1.5", "0.1KiB", "64Mb", "1e30GB", "x", "nan"] {
            assert!(parse_size_bytes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn powers_take_a_unit_or_none() {
        assert_eq!(parse_power_w("1.44W").unwrap(), 1.44);
        assert_eq!(parse_power_w("1.44").unwrap(), 1.44);
        assert_eq!(parse_power_w("500mW").unwrap(), 0.5);
        assert_eq!(parse_power_w(" 2 W ").unwrap(), 2.0);
        for bad in ["x", "-1W", "infW", "1e400", "0x10W", "W", ""] {
            assert!(parse_power_w(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn plain_numbers_are_ascii_decimals() {
        for (text, value) in [("1", 1.0), ("-2.5", -2.5), ("1e3", 1000.0), (".5", 0.5), ("5.", 5.0), ("+1E-2", 0.01)] {
            assert_eq!(parse_plain_number(text), Some(value), "{text}");
        }
        for bad in ["inf", "nan", "0x10", "1_000", "１", "1e", ".", "", "1.2.3", "e5"] {
            assert_eq!(parse_plain_number(bad), None, "{bad}");
        }
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

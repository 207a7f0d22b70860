//! Durations, powers and sizes with units, as users write them in policy specs and options:
//! `500ms`, `2s`, `1.5min`, `1h`, `7d`; `1.44W`, `500mW`; `64MiB`, `100KB`, `inf`. Parsing happens
//! at the edge; everything inside the engine is in seconds, watts and bytes.

/// A plain decimal number in ASCII (`1.5`, `-2e3`): no `inf`, `nan`, `0x10` or `1_000`, which
/// Rust's float parser would accept or which mean something else elsewhere.
pub fn parse_plain_number(text: &str) -> Option<f64> {
    parse_plain_number_bytes(text.as_bytes())
}

/// [`parse_plain_number`] on bytes (a trace file's field).
#[inline]
pub fn parse_plain_number_bytes(b: &[u8]) -> Option<f64> {
    // The common case first: digits, a point, digits, read eight at a time.
    let body = &b[usize::from(matches!(b.first(), Some(b'+' | b'-')))..];
    let (whole, fraction) = match body.iter().position(|&c| c == b'.') {
        Some(point) => (&body[..point], &body[point + 1..]),
        None => (body, &body[body.len()..]),
    };
    let digits = |part: &[u8]| if part.is_empty() { Some(0) } else { ascii_digits(part) };
    if let (Some(w), Some(f)) = (digits(whole), digits(fraction)) {
        if let Some(magnitude) = exact_decimal(w, whole.len(), f, fraction.len()) {
            return Some(if b[0] == b'-' { -magnitude } else { magnitude });
        }
    }
    parse_plain_number_general(b)
}

/// `whole.fraction`, given the digits' values and counts, when Clinger's fast path is exact: an
/// integer below 2^53 and a power of ten up to 10^22 are both exact doubles, so one correctly
/// rounded division gives the correctly rounded value — the same double Rust's parser returns
/// (both round correctly, so they agree bit for bit). None otherwise (no digits, more than 19,
/// or a mantissa of 2^53 or more).
#[inline]
pub fn exact_decimal(whole: u64, whole_digits: usize, fraction: u64, fraction_digits: usize) -> Option<f64> {
    // Nineteen digits cannot overflow the u64.
    if !(1..=19).contains(&(whole_digits + fraction_digits)) {
        return None;
    }
    let mantissa = whole * 10u64.pow(fraction_digits as u32) + fraction;
    (mantissa < 1 << 53).then(|| mantissa as f64 / POWERS_OF_TEN[fraction_digits])
}

/// The value of 1 to 19 ASCII digits, or None (empty, longer, or anything but `0`–`9`). Eight
/// digits are checked and summed at a time with a few multiplications (the technique of Lemire's
/// fast_float), since a trace's numbers are most of its bytes.
#[inline(always)]
pub fn ascii_digits(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 19 {
        return None;
    }
    let (mut value, mut rest) = (0u64, s);
    while rest.len() >= 8 {
        let word = u64::from_le_bytes(rest[..8].try_into().expect("eight bytes"));
        if !eight_digits(word) {
            return None;
        }
        value = value * 100_000_000 + eight_digits_value(word);
        rest = &rest[8..];
    }
    let mut bad = false;
    for &c in rest {
        let d = c.wrapping_sub(b'0');
        bad |= d > 9;
        value = value.wrapping_mul(10).wrapping_add(u64::from(d));
    }
    (!bad).then_some(value)
}

/// True when each of the word's eight bytes (little-endian) is an ASCII digit.
#[inline(always)]
fn eight_digits(word: u64) -> bool {
    // A digit is 0x30..=0x39: its high nibble is 3, and adding 6 leaves it 3.
    (word & 0xF0F0_F0F0_F0F0_F0F0) | ((word.wrapping_add(0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) >> 4) == 0x3333_3333_3333_3333
}

/// The number eight ASCII digits (first digit in the lowest byte) write.
#[inline(always)]
fn eight_digits_value(word: u64) -> u64 {
    let v = word - 0x3030_3030_3030_3030;
    let v = v * 10 + (v >> 8); // pairs of digits
    let low = (v & 0x0000_00FF_0000_00FF).wrapping_mul(100 + (1_000_000 << 32));
    let high = ((v >> 16) & 0x0000_00FF_0000_00FF).wrapping_mul(1 + (10_000 << 32));
    (low.wrapping_add(high) >> 32) & 0xFFFF_FFFF
}

const POWERS_OF_TEN: [f64; 23] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/// [`parse_plain_number_bytes`] for what its fast path leaves: exponents, long mantissas, and
/// the errors.
#[cold]
fn parse_plain_number_general(b: &[u8]) -> Option<f64> {
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits_start = i;
    let (mut digits, mut points) = (0u32, 0u32);
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
        points += u32::from(b[i] == b'.');
        digits += u32::from(b[i] != b'.');
        i += 1;
    }
    if i == digits_start || points > 1 || digits == 0 {
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
    // The grammar above admits ASCII only, so the bytes are UTF-8.
    std::str::from_utf8(b).ok()?.parse().ok()
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

/// `value` to `places` decimals, without trailing zeros or a trailing point (`0.5`, `30`, `0`):
/// how a number is written back into a spec or a label.
pub fn trimmed_decimal(value: f64, places: usize) -> String {
    let text = format!("{value:.places$}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A count with its thousands grouped (`44,519`), as every message of the Python face writes one.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Formats seconds the way a user would write them back in a spec (`4s`, `500ms`, `2.5min`,
/// `250us`), in a label of a few characters whatever the value: beyond 10^7 s (115 days) or
/// below a nanosecond, in seconds with an exponent (`1e12s`), never hundreds of digits.
pub fn format_duration_s(seconds: f64) -> String {
    let trim = |v: f64| trimmed_decimal(v, 6);
    if seconds == 0.0 {
        "0s".to_string()
    } else if !(1e-9..1e7).contains(&seconds) {
        format!("{seconds:e}s")
    } else if seconds < 1e-6 {
        format!("{}ns", trim(seconds * 1e9))
    } else if seconds < 1e-3 {
        format!("{}us", trim(seconds * 1e6))
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
    fn counts_are_grouped_by_thousands() {
        let shown: Vec<String> = [0, 7, 999, 1_000, 44_519, 1_000_000, u64::MAX].into_iter().map(thousands).collect();
        assert_eq!(shown, ["0", "7", "999", "1,000", "44,519", "1,000,000", "18,446,744,073,709,551,615"]);
    }

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
        for s in ["4s", "500ms", "2min", "0s", "1.25s", "250us", "5ns", "1e12s", "1e300s", "1e-12s", "330min"] {
            assert_eq!(format_duration_s(parse_duration_s(s).unwrap()), s);
        }
    }

    #[test]
    fn ascii_digits_read_what_rusts_parser_reads() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..100_000 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let len = (rng % 21) as usize;
            // Mostly digits, now and then a byte just outside them.
            let text: String = (0..len).map(|k| char::from(b"0123456789/:0123456789012345678901234567"[((rng >> (k * 3)) % 40) as usize])).collect();
            let want = if (1..=19).contains(&text.len()) && text.bytes().all(|c| c.is_ascii_digit()) { text.parse::<u64>().ok() } else { None };
            assert_eq!(ascii_digits(text.as_bytes()), want, "{text}");
        }
        assert_eq!(ascii_digits(b"9999999999999999999"), Some(9_999_999_999_999_999_999));
        assert_eq!(ascii_digits(b"12345678"), Some(12_345_678));
        assert_eq!(ascii_digits(b"1234567:"), None);
    }

    #[test]
    fn the_fast_decimal_path_agrees_with_rusts_parser_bit_for_bit() {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..200_000 {
            let digits = 1 + next() % 19;
            let mantissa = next() % 10u64.pow(digits as u32).max(1);
            let text = mantissa.to_string();
            let point = (next() % (text.len() as u64 + 1)) as usize;
            let sign = ["", "-", "+"][(next() % 3) as usize];
            let decimal = format!("{sign}{}.{}", &text[..point], &text[point..]);
            for t in [decimal.clone(), format!("{sign}{text}")] {
                let want: f64 = t.parse().unwrap();
                assert_eq!(parse_plain_number(&t).map(f64::to_bits), Some(want.to_bits()), "{t}");
            }
        }
        for t in ["0.1", "-0", "-0.0", "9007199254740993", "0.30000000000000004", "123456789012345678.9", "1e-7", ".5", "5."] {
            assert_eq!(parse_plain_number(t).map(f64::to_bits), Some(t.parse::<f64>().unwrap().to_bits()), "{t}");
        }
        for bad in ["", ".", "-", "1.2.3", "1e", "inf", "nan", "0x10", "1_0", "1 "] {
            assert_eq!(parse_plain_number(bad), None, "{bad}");
        }
    }
}

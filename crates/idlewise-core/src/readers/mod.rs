//! Text trace formats parsed in one pass over the file's bytes, with no per-record allocation.
//!
//! Every reader returns [`Columns`] or a [`ReadError`] naming the line (counted from 1, blank
//! lines included) and the field. Numbers are strict ASCII: `[+-]?[0-9]+` for integers and plain
//! decimals for reals, so `0x10`, `1_000`, full-width or Arabic-Indic digits, `inf` and `1e400`
//! are errors rather than silently read as something else; scaling sectors to bytes is checked
//! for overflow. Blank lines are not records and are passed over; a UTF-8 byte-order mark at the
//! start is ignored. Readers that skip records count them in [`Columns::skipped`].

mod blkparse;
mod csv;
mod formats;

pub use formats::FORMATS;

/// A parsed trace, column by column (time in seconds, sizes and offsets in bytes).
#[derive(Debug, Default, Clone)]
pub struct Columns {
    pub time_s: Vec<f64>,
    pub offset_bytes: Vec<i64>,
    pub size_bytes: Vec<i64>,
    pub is_write: Vec<u8>,
    /// Device (volume, disk) of each record, for multi-device formats; empty otherwise.
    pub stream: Vec<i64>,
    /// The 1-based file line of each record.
    pub line: Vec<u64>,
    /// What was skipped and why, with counts.
    pub skipped: Vec<(String, u64)>,
    /// Records (non-blank lines, header excepted) examined, skipped ones included.
    pub records_read: u64,
}

impl Columns {
    fn push(&mut self, line: u64, time_s: f64, offset_bytes: i64, size_bytes: i64, is_write: bool, stream: Option<i64>) {
        self.time_s.push(time_s);
        self.offset_bytes.push(offset_bytes);
        self.size_bytes.push(size_bytes);
        self.is_write.push(u8::from(is_write));
        if let Some(s) = stream {
            self.stream.push(s);
        }
        self.line.push(line);
    }

    fn skip(&mut self, why: &str) {
        match self.skipped.iter_mut().find(|(w, _)| w == why) {
            Some((_, n)) => *n += 1,
            None => self.skipped.push((why.to_string(), 1)),
        }
    }
}

/// A malformed input: where and what.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadError {
    /// 0 when the error is about the file as a whole.
    pub line: u64,
    pub field: Option<String>,
    pub message: String,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, &self.field) {
            (0, _) => write!(f, "{}", self.message),
            (n, Some(field)) => write!(f, "line {n}, field '{field}': {}", self.message),
            (n, None) => write!(f, "line {n}: {}", self.message),
        }
    }
}

pub type ReadResult<T> = std::result::Result<T, ReadError>;

fn whole_file(message: impl Into<String>) -> ReadError {
    ReadError { line: 0, field: None, message: message.into() }
}

/// Reads `bytes` as the named format.
pub fn read(format: &str, bytes: &[u8]) -> ReadResult<Columns> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.contains(&0) {
        return Err(whole_file(format!("this is a binary file, not a {format} text trace")));
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(whole_file("the file is empty"));
    }
    let columns = match format {
        "csv" => csv::read(bytes)?,
        "blkparse" => blkparse::read(bytes)?,
        other => formats::read(other, bytes)?,
    };
    if columns.time_s.is_empty() {
        return Err(whole_file(format!("no {format} records found in {} lines", columns.records_read)));
    }
    Ok(columns)
}

/// The non-blank lines of a file with their 1-based numbers, `\r\n` or `\n` ended.
fn lines(bytes: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    bytes.split(|&b| b == b'\n').enumerate().filter_map(|(i, line)| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        (!line.iter().all(u8::is_ascii_whitespace)).then_some((i as u64 + 1, line))
    })
}

fn trim(field: &[u8]) -> &[u8] {
    let start = field.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(field.len());
    let end = field.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(start, |e| e + 1);
    &field[start..end]
}

/// Shows a field in an error, shortened if long.
fn shown(field: &[u8]) -> String {
    let text = String::from_utf8_lossy(field);
    if text.chars().count() > 40 {
        format!("'{}…' ({} bytes)", text.chars().take(40).collect::<String>(), field.len())
    } else {
        format!("'{text}'")
    }
}

/// One field of one line, with what the line's errors need to say.
#[derive(Clone, Copy)]
struct Field<'a> {
    line: u64,
    name: &'static str,
    text: &'a [u8],
}

impl<'a> Field<'a> {
    fn error(&self, expected: &str) -> ReadError {
        ReadError { line: self.line, field: Some(self.name.to_string()), message: format!("expected {expected}, got {}", shown(self.text)) }
    }

    fn int(&self, expected: &str) -> ReadResult<i64> {
        let t = self.text;
        let digits = t.strip_prefix(b"-").or_else(|| t.strip_prefix(b"+")).unwrap_or(t);
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return Err(self.error(expected));
        }
        // ASCII digits only, so the text is valid UTF-8 and `parse` fails only on overflow.
        std::str::from_utf8(t).ok().and_then(|s| s.parse::<i64>().ok()).ok_or_else(|| self.error(&format!("{expected} within 64 bits")))
    }

    fn real(&self, expected: &str) -> ReadResult<f64> {
        std::str::from_utf8(self.text)
            .ok()
            .and_then(crate::units::parse_plain_number)
            .filter(|v| v.is_finite())
            .ok_or_else(|| self.error(&format!("{expected} (a finite decimal number)")))
    }

    /// An integer count of units (sectors) turned into bytes, checked for overflow.
    fn scaled(&self, expected: &str, unit_bytes: i64) -> ReadResult<i64> {
        let v = self.int(expected)?;
        v.checked_mul(unit_bytes).ok_or_else(|| ReadError {
            line: self.line,
            field: Some(self.name.to_string()),
            message: format!("{v} × {unit_bytes} bytes does not fit a 64-bit byte count"),
        })
    }

    fn one_of<const N: usize>(&self, choices: [(&str, bool); N], expected: &str) -> ReadResult<bool> {
        choices.iter().find(|(c, _)| c.as_bytes() == self.text).map(|&(_, v)| v).ok_or_else(|| self.error(expected))
    }
}

/// Times given as integers from an arbitrary epoch (FILETIME ticks, microseconds), made relative
/// to the earliest in exact integer arithmetic before scaling, so nothing overflows or rounds.
fn relative_times(raw: &[i64], seconds_per_unit: f64) -> Vec<f64> {
    let min = raw.iter().copied().min().unwrap_or(0);
    raw.iter().map(|&r| ((r as i128 - min as i128) as f64) * seconds_per_unit).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_numbers_count_blank_lines_and_crlf() {
        let got: Vec<(u64, &[u8])> = lines(b"a\r\n\n  \t\nb\n").collect();
        assert_eq!(got, vec![(1, &b"a"[..]), (4, &b"b"[..])]);
    }

    #[test]
    fn integers_are_strict_ascii() {
        let f = |t: &'static str| Field { line: 1, name: "x", text: t.as_bytes() }.int("an integer");
        assert_eq!(f("-12").unwrap(), -12);
        for bad in ["0x10", "1_000", "１２", "١٢", "12\u{a0}", "", "+", "1e3", "99999999999999999999"] {
            assert!(f(bad).is_err(), "{bad}");
        }
        let e = Field { line: 3, name: "blkno", text: b"9223372036854775807" }.scaled("sectors", 512).unwrap_err();
        assert!(e.to_string().contains("line 3, field 'blkno'") && e.message.contains("64-bit"), "{e}");
    }

    #[test]
    fn relative_times_do_not_overflow_near_the_ends_of_int64() {
        let t = relative_times(&[i64::MAX - 10, i64::MAX], 1.0);
        assert_eq!(t, vec![0.0, 10.0]);
        let t = relative_times(&[i64::MIN, 0], 1e-7);
        assert!((t[1] - 9.223372036854776e11).abs() < 1.0);
    }
}

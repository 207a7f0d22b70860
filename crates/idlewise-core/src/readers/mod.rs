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

    fn reserve(&mut self, more: usize) {
        self.time_s.reserve(more);
        self.offset_bytes.reserve(more);
        self.size_bytes.reserve(more);
        self.is_write.reserve(more);
        if !self.stream.is_empty() {
            self.stream.reserve(more);
        }
        self.line.reserve(more);
    }

    /// Appends `other`'s records (its skip counts are not taken).
    fn append(&mut self, mut other: Columns) {
        self.time_s.append(&mut other.time_s);
        self.offset_bytes.append(&mut other.offset_bytes);
        self.size_bytes.append(&mut other.size_bytes);
        self.is_write.append(&mut other.is_write);
        self.stream.append(&mut other.stream);
        self.line.append(&mut other.line);
    }

    /// Empties the record columns, keeping what was skipped and how many records were read.
    pub fn clear_records(&mut self) {
        self.time_s.clear();
        self.offset_bytes.clear();
        self.size_bytes.clear();
        self.is_write.clear();
        self.stream.clear();
        self.line.clear();
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

/// A format's parser, fed the file's non-blank lines in order.
trait LineFormat {
    /// One non-blank line (`number` counts from 1, blank lines included).
    fn line(&mut self, number: u64, text: &[u8], out: &mut Columns) -> ReadResult<()>;
    /// True if the format counts its records itself (a header is not one).
    fn counts_records(&self) -> bool {
        false
    }
    /// Read in chunks: the records parsed so far are about to be handed on.
    fn end_of_chunk(&mut self, _out: &mut Columns) {}
    /// After the last line.
    fn finish(&mut self, out: &mut Columns) -> ReadResult<()>;
}

fn parser<'f>(format: &'f str, chunked: bool) -> ReadResult<Box<dyn LineFormat + 'f>> {
    Ok(match format {
        "csv" => Box::<csv::SimpleCsv>::default(),
        "blkparse" => Box::<blkparse::Blkparse>::default(),
        other => Box::new(formats::Positional::new(other, chunked)?),
    })
}

/// Reads `bytes` as the named format.
pub fn read(format: &str, bytes: &[u8]) -> ReadResult<Columns> {
    let mut columns = Columns::default();
    read_chunks(format, bytes, Some(bytes.len() as u64), false, &mut columns, |_| Ok(()))?;
    Ok(columns)
}

/// Reads the file at `path` whole (in chunks, so its text is never all in memory).
pub fn read_file(format: &str, path: &std::path::Path) -> ReadResult<Columns> {
    let file = std::fs::File::open(path).map_err(|e| whole_file(format!("cannot read: {e}")))?;
    let size = file.metadata().ok().map(|m| m.len());
    let mut columns = Columns::default();
    read_chunks(format, file, size, false, &mut columns, |_| Ok(()))?;
    Ok(columns)
}

/// Reads the named format from `source` in chunks of about [`CHUNK_BYTES`], with memory bounded
/// by a chunk's (plus the longest line). After each chunk's records are parsed into `out`,
/// `chunk(out)` is called; `chunked` tells the parsers the records are handed on as they come
/// (a consumer that takes them then clears `out`, keeping `skipped` and `records_read`), so
/// whole-file choices are made on the first chunk (see the formats). Unchunked, `out` holds the
/// whole trace at the end. Errors name the line as when the file is read whole.
/// `size_hint`, the source's length in bytes when known, lets a whole read reserve its columns
/// once (from the first chunk's records per byte) instead of growing them.
pub fn read_chunks<R: std::io::Read>(
    format: &str,
    source: R,
    size_hint: Option<u64>,
    chunked: bool,
    out: &mut Columns,
    chunk: impl FnMut(&mut Columns) -> ReadResult<()>,
) -> ReadResult<()> {
    read_chunks_of(format, source, size_hint, chunked, CHUNK_BYTES, out, chunk)
}

fn read_chunks_of<R: std::io::Read>(
    format: &str,
    mut source: R,
    size_hint: Option<u64>,
    chunked: bool,
    chunk_bytes: usize,
    out: &mut Columns,
    mut chunk: impl FnMut(&mut Columns) -> ReadResult<()>,
) -> ReadResult<()> {
    let mut parser = parser(format, chunked)?;
    let counts = parser.counts_records();
    let mut buffer = vec![0u8; chunk_bytes];
    let mut reserved = chunked;
    let (mut filled, mut line_base, mut first, mut non_blank, mut at_end) = (0usize, 0u64, true, false, false);
    while !at_end {
        // Fill the buffer; a line longer than it grows it.
        if filled == buffer.len() {
            buffer.resize(buffer.len() * 2, 0);
        }
        let got = loop {
            match source.read(&mut buffer[filled..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(whole_file(format!("cannot read: {e}"))),
            }
        };
        at_end = got == 0;
        filled += got;
        if !at_end && filled < buffer.len() {
            continue; // fill the buffer before parsing, so chunks stay large
        }
        if first {
            if filled < 3 && !at_end {
                continue;
            }
            if buffer[..filled].starts_with(b"\xEF\xBB\xBF") {
                buffer.copy_within(3..filled, 0);
                filled -= 3;
            }
            first = false;
        }
        let data = &buffer[..filled];
        // Whole lines only, unless the file has ended.
        let whole = if at_end { data.len() } else { memchr::memrchr(b'\n', data).map_or(0, |i| i + 1) };
        if whole == 0 && !at_end {
            continue;
        }
        let (lines_part, rest_len) = (&data[..whole], data.len() - whole);
        if memchr::memchr(0, lines_part).is_some() {
            return Err(whole_file(format!("this is a binary file, not a {format} text trace")));
        }
        // One pass over the chunk's newlines (a SIMD search with its state kept across lines).
        let mut from = 0;
        let ends = memchr::memchr_iter(b'\n', lines_part).chain((at_end && lines_part.last() != Some(&b'\n') && !lines_part.is_empty()).then_some(lines_part.len()));
        for end in ends {
            line_base += 1;
            let text = &lines_part[from..end];
            from = end + 1;
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            non_blank = true;
            if !counts {
                out.records_read += 1;
            }
            parser.line(line_base, text, out)?;
        }
        if !reserved && !at_end {
            if let Some(total) = size_hint {
                // 2 % over the first chunk's density; pages never written are never mapped.
                let expected = (out.time_s.len() as f64 * total as f64 / whole as f64 * 1.02) as usize;
                out.reserve(expected.saturating_sub(out.time_s.len()));
            }
            reserved = true;
        }
        if chunked {
            parser.end_of_chunk(out);
        }
        chunk(out)?;
        // Keep the partial last line for the next chunk.
        let consumed = filled - rest_len;
        buffer.copy_within(consumed..filled, 0);
        filled = rest_len;
    }
    if !non_blank {
        return Err(whole_file("the file is empty"));
    }
    parser.finish(out)?;
    if out.time_s.is_empty() && !chunked {
        return Err(whole_file(format!("no {format} records found in {} lines", out.records_read)));
    }
    Ok(())
}

/// Bytes read from the file at a time (a chunk's records are a few times fewer bytes).
pub const CHUNK_BYTES: usize = 4 << 20;

fn trim(field: &[u8]) -> &[u8] {
    // Most fields have no surrounding blanks: two byte tests.
    match (field.first(), field.last()) {
        (Some(a), Some(z)) if !a.is_ascii_whitespace() && !z.is_ascii_whitespace() => return field,
        (None, _) => return field,
        _ => {}
    }
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
        let (negative, digits) = match t.first() {
            Some(b'-') => (true, &t[1..]),
            Some(b'+') => (false, &t[1..]),
            _ => (false, t),
        };
        if digits.is_empty() {
            return Err(self.error(expected));
        }
        // Up to 18 digits cannot overflow: the common case, without checked arithmetic.
        if digits.len() <= 18 {
            let mut value: i64 = 0;
            for &b in digits {
                let d = b.wrapping_sub(b'0');
                if d > 9 {
                    return Err(self.error(expected));
                }
                value = value * 10 + i64::from(d);
            }
            return Ok(if negative { -value } else { value });
        }
        // Strict ASCII digits accumulated with checked arithmetic: the range of i64 exactly.
        let mut magnitude: u64 = 0;
        let mut overflow = false;
        for &b in digits {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                return Err(self.error(expected));
            }
            match magnitude.checked_mul(10).and_then(|m| m.checked_add(u64::from(d))) {
                Some(m) => magnitude = m,
                None => overflow = true,
            }
        }
        let limit = if negative { 1u64 << 63 } else { i64::MAX as u64 };
        if overflow || magnitude > limit {
            return Err(self.error(&format!("{expected} within 64 bits")));
        }
        Ok(if negative { (magnitude as i64).wrapping_neg() } else { magnitude as i64 })
    }

    fn real(&self, expected: &str) -> ReadResult<f64> {
        crate::units::parse_plain_number_bytes(self.text)
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
        let c = read("disksim", b"0 1 2 3 1\r\n\n  \t\n1 1 2 3 1\n").unwrap();
        assert_eq!((c.line, c.records_read), (vec![1, 4], 2));
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

    /// Hands out a few bytes per read, to cut chunks and lines anywhere.
    struct Trickle<'a>(&'a [u8], usize);

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            self.1 = self.1 % 7 + 1;
            Ok(n)
        }
    }

    #[test]
    fn small_chunks_read_what_the_whole_file_reads() {
        let files: [(&str, &[u8]); 5] = [
            ("csv", b"\xEF\xBB\xBFop,time_s,size_bytes,offset_bytes\r\nW,0.5,4096,0\n\n\nr,1,512,\"8\"\nw,2.25,1,9\n"),
            ("disksim", b"0.5 1 10 8 1\n\n  \n12.25\t2  20 16 0\n13 2 20 16 0"),
            ("msr", b"128166372003061629,hm,0,Read,0,4096,1\n128166372003061639,hm,1,Write,512,4096,1\n"),
            ("tencent", b"1538323200,0,8,1,7\n1538323201.5,8,8,0,7\n"),
            ("blkparse", b"  8,0 3 1 0.0 697 D W 223490 + 8 [k]\n  8,0 3 2 0.1 697 Q W 223490 + 8 [k]\nCPU3 (8,0):\n  8,0 3 3 0.2 697 D R 1 + 8 [k]\n"),
        ];
        for (format, bytes) in files {
            let whole = read(format, bytes).unwrap();
            for chunk_bytes in [1, 2, 5, 16, 64] {
                for chunked in [false, true] {
                    let mut all = Columns::default();
                    let mut out = Columns::default();
                    read_chunks_of(format, Trickle(bytes, 3), None, chunked, chunk_bytes, &mut out, |c| {
                        if chunked {
                            all.append(c.clone());
                            c.clear_records();
                        }
                        Ok(())
                    })
                    .unwrap();
                    let got = if chunked { Columns { skipped: out.skipped.clone(), records_read: out.records_read, ..all } } else { out };
                    let same = format!("{:?}", (&got.time_s, &got.offset_bytes, &got.size_bytes, &got.is_write, &got.stream, &got.line, got.records_read));
                    let want = format!("{:?}", (&whole.time_s, &whole.offset_bytes, &whole.size_bytes, &whole.is_write, &whole.stream, &whole.line, whole.records_read));
                    // blkparse chooses its arrivals on the first chunk when chunked: with chunks
                    // this small that is the first D event, read whole the Q events.
                    if !(chunked && format == "blkparse") {
                        assert_eq!(same, want, "{format} in chunks of {chunk_bytes} (chunked: {chunked})");
                    }
                }
            }
            let e = read_chunks_of(format, Trickle(b"\n\n 1 2 x", 2), None, true, 4, &mut Columns::default(), |_| Ok(())).unwrap_err();
            assert_eq!(e.line, 3, "{format}: {e}");
        }
    }

    #[test]
    fn integers_match_rusts_parser_over_the_whole_range() {
        let f = |t: &str| Field { line: 1, name: "x", text: t.as_bytes() }.int("an integer").ok();
        for t in ["0", "-0", "+0", "9223372036854775807", "-9223372036854775808", "00012", "-00012", "1234567890123"] {
            assert_eq!(f(t), t.parse::<i64>().ok(), "{t}");
        }
        for t in ["9223372036854775808", "-9223372036854775809", "18446744073709551616", "99999999999999999999999"] {
            assert_eq!(f(t), None, "{t}");
            let e = Field { line: 1, name: "x", text: t.as_bytes() }.int("an integer").unwrap_err();
            assert!(e.message.contains("within 64 bits"), "{e}");
        }
    }

    #[test]
    fn relative_times_do_not_overflow_near_the_ends_of_int64() {
        let t = relative_times(&[i64::MAX - 10, i64::MAX], 1.0);
        assert_eq!(t, vec![0.0, 10.0]);
        let t = relative_times(&[i64::MIN, 0], 1e-7);
        assert!((t[1] - 9.223372036854776e11).abs() < 1.0);
    }
}

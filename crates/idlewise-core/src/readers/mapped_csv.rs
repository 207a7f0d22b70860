//! A CSV trace with its own header, read through a column mapping: which column holds the time,
//! the size, the offset (optional), the operation and the device (optional), each number in its
//! own unit. The format is named `mapped-csv:` followed by the mapping as JSON (see
//! [`MappedSpec`]); the Python face spells the mapping for users (`--columns time_ms=ts,...`)
//! and sniffs the header's delimiter, and this module reads the file in one pass over its
//! bytes, as the other text formats are read, with exact line numbers in its errors.
//!
//! The operation may be spelled `R`/`W`, `read`/`write`, `rd`/`wr` (any case) or as a 0/1 flag;
//! which spelling the file uses is decided by its first record, and for flags the mapping must
//! say which value is a write. Fields may be quoted (a quoted field may hold the delimiter).

use super::{trim, Columns, Field, Line, ReadError, ReadResult, Separator};

/// The prefix of a mapped CSV's format name; the mapping follows as JSON.
pub const PREFIX: &str = "mapped-csv:";

/// A column and the scale from its unit to seconds or bytes.
type Scaled<T> = (String, T);

/// What a mapping names, as the Python face resolves it from the user's keys.
#[derive(serde::Deserialize, Clone, Debug)]
#[serde(deny_unknown_fields)]
pub struct MappedSpec {
    /// The time column and seconds per unit (1e-3 for milliseconds).
    pub time: Scaled<f64>,
    /// The size column and bytes per unit (512 for sectors).
    pub size: Scaled<i64>,
    /// The offset column and bytes per unit; every request at offset 0 without one.
    pub offset: Option<Scaled<i64>>,
    pub op: String,
    /// The device column (one trace per value), if any.
    pub stream: Option<String>,
    /// For a 0/1 operation column, the value that means a write ("0" or "1").
    pub write_flag: Option<String>,
    /// One ASCII byte between fields.
    pub delimiter: String,
}

/// Where the mapped columns sit in a line, once the header is read.
#[derive(Clone, Copy)]
struct Positions {
    time: usize,
    size: usize,
    offset: Option<usize>,
    op: usize,
    stream: Option<usize>,
    /// The header's column count: every line must have as many fields.
    count: usize,
}

/// How the file spells its operations, from its first record.
#[derive(Clone, Copy, PartialEq)]
enum Ops {
    Words,
    /// 0/1 flags, and the byte meaning a write.
    Flags(u8),
}

/// The mapped CSV's parser: the first non-blank line is the header, the rest records.
#[derive(Clone)]
pub(super) struct MappedCsv {
    spec: MappedSpec,
    delimiter: u8,
    positions: Option<Positions>,
    ops: Option<Ops>,
    /// Field bounds of a line split the slow way (quotes, or more columns than the fast path
    /// keeps), kept from line to line so the split allocates once.
    bounds: Vec<(usize, usize)>,
}

/// Columns a line's fast split keeps; a wider header takes the slow split.
const FAST_FIELDS: usize = 32;

impl MappedCsv {
    pub(super) fn new(json: &str) -> ReadResult<Self> {
        let spec: MappedSpec = serde_json::from_str(json).map_err(|e| super::whole_file(format!("a mapped CSV's mapping is not valid: {e}")))?;
        let delimiter = match spec.delimiter.as_bytes() {
            &[b] if b.is_ascii() && b != b'"' && b != b'\n' && b != b'\r' => b,
            _ => return Err(super::whole_file(format!("a mapped CSV's delimiter must be one ASCII character, got {:?}", spec.delimiter))),
        };
        if !matches!(spec.write_flag.as_deref(), None | Some("0" | "1")) {
            return Err(super::whole_file(format!("the write flag must be 0 or 1, got {:?}", spec.write_flag.unwrap_or_default())));
        }
        if !(spec.time.1.is_finite() && spec.time.1 > 0.0) || spec.size.1 < 1 || spec.offset.as_ref().is_some_and(|o| o.1 < 1) {
            return Err(super::whole_file("a mapped CSV's units must be positive"));
        }
        Ok(MappedCsv { spec, delimiter, positions: None, ops: None, bounds: Vec::new() })
    }

    fn header(&self, line: u64, text: &[u8]) -> ReadResult<Positions> {
        let mut bounds = Vec::new();
        split_quoted(text, self.delimiter, &mut bounds);
        let names: Vec<String> = bounds.iter().map(|&(s, e)| String::from_utf8_lossy(unquote(&text[s..e])).into_owned()).collect();
        let shown_header = String::from_utf8_lossy(trim(text));
        let find = |column: &str| -> ReadResult<usize> {
            let mut at = names.iter().enumerate().filter(|(_, n)| *n == column).map(|(i, _)| i);
            match (at.next(), at.next()) {
                (Some(i), None) => Ok(i),
                (Some(_), Some(_)) => Err(ReadError { line, field: None, message: format!("the header names the column '{column}' twice") }),
                (None, _) => Err(ReadError { line, field: None, message: format!("no column named '{column}' (the header is '{shown_header}')") }),
            }
        };
        let spec = &self.spec;
        Ok(Positions {
            time: find(&spec.time.0)?,
            size: find(&spec.size.0)?,
            offset: spec.offset.as_ref().map(|o| find(&o.0)).transpose()?,
            op: find(&spec.op)?,
            stream: spec.stream.as_deref().map(find).transpose()?,
            count: names.len(),
        })
    }

    /// How the file spells its operations, from its first record's.
    fn ops_of(&self, first: &[u8]) -> ReadResult<Ops> {
        if !matches!(first, b"0" | b"1") {
            return Ok(Ops::Words);
        }
        match self.spec.write_flag.as_deref() {
            Some(flag) => Ok(Ops::Flags(flag.as_bytes()[0])),
            None => Err(super::whole_file(format!(
                "column '{}' holds 0/1 flags; say which value is a write with --write-flag 1 (or --write-flag 0; Python: write_flag='1')",
                self.spec.op
            ))),
        }
    }
}

/// A field without the blanks around it or the quotes around that.
fn unquote(field: &[u8]) -> &[u8] {
    let f = trim(field);
    if f.len() >= 2 && f[0] == b'"' && f[f.len() - 1] == b'"' {
        &f[1..f.len() - 1]
    } else {
        f
    }
}

/// The bounds of `text`'s fields, cut at `delimiter` outside double quotes (a doubled quote
/// inside quotes is a quote, as RFC 4180 writes one).
fn split_quoted(text: &[u8], delimiter: u8, bounds: &mut Vec<(usize, usize)>) {
    bounds.clear();
    let (mut from, mut quoted) = (0, false);
    for (i, &b) in text.iter().enumerate() {
        if b == b'"' {
            quoted = !quoted;
        } else if b == delimiter && !quoted {
            bounds.push((from, i));
            from = i + 1;
        }
    }
    bounds.push((from, text.len()));
}

/// A whole number of units, non-negative and below 2^53 (a count a double holds exactly, as
/// the trace's columns and their statistics need), times `unit` bytes.
fn whole_number(field: Field, unit: i64) -> ReadResult<i64> {
    if !field.text.first().is_some_and(u8::is_ascii_digit) {
        return Err(field.error("a whole non-negative number"));
    }
    let too_large = || {
        let scaled = if unit == 1 { String::new() } else { format!(" × {unit} bytes") };
        ReadError {
            line: field.line,
            field: Some(field.name.to_string()),
            message: format!("{}{scaled} is too large for a byte count", String::from_utf8_lossy(field.text)),
        }
    };
    let value = field.int("a whole non-negative number").map_err(|e| if e.message.contains("within 64 bits") { too_large() } else { e })?;
    if value >= 1 << 53 {
        return Err(too_large());
    }
    value.checked_mul(unit).filter(|&v| v < 1 << 53).ok_or_else(too_large)
}

impl super::LineFormat for MappedCsv {
    fn separator(&self) -> Separator {
        Separator::Byte(self.delimiter)
    }

    #[inline]
    fn line(&mut self, line: u64, text: Line<'_>, c: &mut Columns) -> ReadResult<()> {
        let Some(at) = self.positions else {
            self.positions = Some(self.header(line, text.text())?);
            return Ok(());
        };
        c.records_read += 1;
        let mut parts = [&b""[..]; FAST_FIELDS];
        let raw = text.text();
        let fast = at.count <= FAST_FIELDS && memchr::memchr(b'"', raw).is_none();
        let count = if fast {
            text.fields(&mut parts)
        } else {
            split_quoted(raw, self.delimiter, &mut self.bounds);
            self.bounds.len()
        };
        if count != at.count {
            return Err(ReadError { line, field: None, message: format!("expected {} fields, as the header has, got {count}", at.count) });
        }
        let bounds = &self.bounds;
        let part = |i: usize| unquote(if fast { parts[i] } else { &raw[bounds[i].0..bounds[i].1] });
        let field_at = |i: usize, name| Field { line, name, text: part(i) };
        let spec = &self.spec;
        let time = field_at(at.time, &spec.time.0);
        if !time.text.first().is_some_and(|&b| b.is_ascii_digit() || b == b'.') {
            return Err(time.error("a non-negative number"));
        }
        let time_s = time.real("a non-negative number").map_err(|_| time.error("a non-negative number"))? * spec.time.1;
        let size = whole_number(field_at(at.size, &spec.size.0), spec.size.1)?;
        let offset = match (&spec.offset, at.offset) {
            (Some((name, unit)), Some(i)) => whole_number(field_at(i, name), *unit)?,
            _ => 0,
        };
        let op = field_at(at.op, &spec.op);
        let ops = match self.ops {
            Some(ops) => ops,
            None => {
                let decided = self.ops_of(op.text)?;
                self.ops = Some(decided);
                decided
            }
        };
        let write = match ops {
            Ops::Flags(flag) => match op.text {
                [b @ (b'0' | b'1')] => *b == flag,
                _ => return Err(op.error("a 0/1 flag, as the lines before")),
            },
            // Compared without case, in place: no copy of the word per record.
            Ops::Words => match op.text {
                t if [&b"r"[..], b"read", b"rd"].iter().any(|w| t.eq_ignore_ascii_case(w)) => false,
                t if [&b"w"[..], b"write", b"wr"].iter().any(|w| t.eq_ignore_ascii_case(w)) => true,
                b"0" | b"1" => return Err(op.error("R/W or read/write, as the lines before")),
                _ => return Err(op.error("R/W, read/write or a 0/1 flag")),
            },
        };
        let stream = match (&spec.stream, at.stream) {
            (Some(name), Some(i)) => Some(whole_number(field_at(i, name), 1)?),
            _ => None,
        };
        c.push(line, time_s, offset, size, write, stream);
        Ok(())
    }

    fn counts_records(&self) -> bool {
        true
    }

    fn fork(&self) -> Option<Self> {
        (self.positions.is_some() && self.ops.is_some()).then(|| self.clone())
    }

    fn finish(&mut self, c: &mut Columns) -> ReadResult<()> {
        if c.records_read == 0 {
            return Err(super::whole_file("no records after the header"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::read;

    fn spec(extra: &str) -> String {
        format!(r#"mapped-csv:{{"time": ["ts", 0.001], "size": ["len", 512], "offset": null, "op": "rw", "stream": null, "write_flag": null, "delimiter": ","{extra}}}"#)
    }

    #[test]
    fn columns_units_and_words_with_exact_lines() {
        let c = read(&spec(""), b"host,ts,len,rw\n\nh,1500,8,Read\nh,\"2500.5\",1, WR \n").unwrap();
        assert_eq!((c.time_s.clone(), c.size_bytes.clone(), c.is_write.clone()), (vec![1.5, 2.5005], vec![4096, 512], vec![0, 1]));
        assert_eq!((c.line.iter().collect::<Vec<_>>(), c.records_read, c.offset_bytes.clone()), (vec![3, 4], 2, vec![0, 0]));
    }

    #[test]
    fn a_quoted_field_may_hold_the_delimiter() {
        let c = read(&spec(""), b"note,ts,len,rw\n\"a, b\",1,1,r\n\"c \"\"d\"\", e\",2,1,w\n").unwrap();
        assert_eq!((c.time_s.clone(), c.is_write.clone()), (vec![0.001, 0.002], vec![0, 1]));
    }

    #[test]
    fn the_first_record_decides_how_operations_are_spelled() {
        let s = spec("").replace(r#""write_flag": null"#, r#""write_flag": "0""#);
        assert_eq!(read(&s, b"ts,len,rw\n1,1,0\n2,1,1\n").unwrap().is_write, vec![1, 0]);
        let e = read(&s, b"ts,len,rw\n1,1,0\n2,1,R\n").unwrap_err();
        assert_eq!(e.to_string(), "line 3, field 'rw': expected a 0/1 flag, as the lines before, got 'R'");
        let e = read(&spec(""), b"ts,len,rw\n1,1,1\n").unwrap_err();
        assert!(e.message.contains("holds 0/1 flags; say which value is a write"), "{e}");
        let e = read(&spec(""), b"ts,len,rw\n1,1,W\n2,1,1\n").unwrap_err();
        assert_eq!(e.to_string(), "line 3, field 'rw': expected R/W or read/write, as the lines before, got '1'");
    }

    #[test]
    fn errors_name_the_line_and_column() {
        let cases: [(&[u8], &str); 6] = [
            (b"ts,len,rw\n1,-1,R\n", "line 2, field 'len': expected a whole non-negative number, got '-1'"),
            (b"ts,len,rw\n+1,1,R\n", "line 2, field 'ts': expected a non-negative number, got '+1'"),
            (b"ts,len,rw\n1,1\n", "line 2: expected 3 fields, as the header has, got 2"),
            (b"ts,len,rw\n1,17592186044416,R\n", "line 2, field 'len': 17592186044416 × 512 bytes is too large for a byte count"),
            (b"ts,size,rw\n1,1,R\n", "line 1: no column named 'len' (the header is 'ts,size,rw')"),
            (b"ts,len,len,rw\n", "line 1: the header names the column 'len' twice"),
        ];
        for (text, want) in cases {
            assert_eq!(read(&spec(""), text).unwrap_err().to_string(), want);
        }
        assert_eq!(read(&spec(""), b"ts,len,rw\n").unwrap_err().to_string(), "no records after the header");
        assert!(read("mapped-csv:{\"time\": 1}", b"x\n").unwrap_err().message.contains("mapping is not valid"));
    }

    #[test]
    fn a_wide_header_and_another_delimiter() {
        let names: Vec<String> = (0..40).map(|i| format!("c{i}")).collect();
        let mut text = names.join("|") + "\n";
        text += &(0..40).map(|i| i.to_string()).collect::<Vec<_>>().join("|");
        let s = format!(
            r#"mapped-csv:{{"time": ["c35", 1.0], "size": ["c39", 1], "offset": ["c2", 512], "op": "c1", "stream": "c38", "write_flag": "1", "delimiter": "|"}}"#
        );
        let c = read(&s, text.as_bytes()).unwrap();
        assert_eq!((c.time_s[0], c.size_bytes[0], c.offset_bytes[0], c.is_write[0], c.stream[0]), (35.0, 39, 1024, 1, 38));
    }
}

//! The headerless line formats: one record per line, fields by position.
//!
//! | format | fields | units |
//! |---|---|---|
//! | `disksim` | `arrival_ms devno blkno bcount flags` (white space) | ms; 512-byte sectors; flags bit 0 = read |
//! | `spc-ascii` | `arrival_ns devno lsn size_sectors op[ ...]` (white space) | ns; sectors; op 1 = read, 0 = write |
//! | `spc` | `ASU,LBA,Size,Opcode,Timestamp[,...]` | sectors; bytes; r/w; seconds |
//! | `msr` | `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime` | FILETIME 100 ns ticks; Read/Write; bytes |
//! | `alibaba` | `device_id,opcode,offset,length,timestamp` | R/W; bytes; microseconds |
//! | `tencent` | `Timestamp,Offset,Size,IOType,VolumeID` | seconds; sectors; 0 = read, 1 = write |
//!
//! Trailing fields are ignored where the format says so (SPC, SPC ASCII); elsewhere a line
//! must have exactly the format's fields.

use super::{relative_times, trim, Columns, Field, ReadError, ReadResult};

const SECTOR: i64 = 512;

/// The formats this module reads, with their field names.
pub const FORMATS: [(&str, &[&str]); 6] = [
    ("disksim", &["arrival_ms", "devno", "blkno", "bcount", "flags"]),
    ("spc-ascii", &["arrival_ns", "devno", "lsn", "size_sectors", "op"]),
    ("spc", &["asu", "lba", "size", "opcode", "timestamp"]),
    ("msr", &["timestamp", "hostname", "disk", "type", "offset", "size", "response"]),
    ("alibaba", &["device_id", "opcode", "offset", "length", "timestamp_us"]),
    ("tencent", &["timestamp", "offset", "size", "iotype", "volume"]),
];

/// A positional format's parser, fed one line at a time.
pub(super) struct Positional<'f> {
    format: &'f str,
    names: &'static [&'static str],
    whitespace: bool,
    extra_allowed: bool,
    /// Integer times from an epoch, made relative to the earliest once the file is read.
    raw_times: Vec<i64>,
    /// Streamed: times are made relative to the first record's as they come (a streamed trace
    /// must be in order, so the first is the earliest; the same numbers as reading it whole).
    streaming: bool,
    origin: Option<i64>,
    origin_s: Option<f64>,
}

/// Fields kept per line; the formats have at most seven (and SPC's trailing ones are ignored).
const MAX_FIELDS: usize = 8;

impl<'f> Positional<'f> {
    pub(super) fn new(format: &'f str, streaming: bool) -> ReadResult<Self> {
        let Some(&(_, names)) = FORMATS.iter().find(|(f, _)| *f == format) else {
            return Err(super::whole_file(format!("unknown text format '{format}'")));
        };
        Ok(Positional {
            format,
            names,
            whitespace: matches!(format, "disksim" | "spc-ascii"),
            extra_allowed: matches!(format, "spc" | "spc-ascii"),
            raw_times: Vec::new(),
            streaming,
            origin: None,
            origin_s: None,
        })
    }

    /// An integer time from an epoch: kept raw (whole file) or made relative now (streamed).
    fn epoch_time(&mut self, field: Field, raw: i64, seconds_per_unit: f64) -> ReadResult<f64> {
        if !self.streaming {
            self.raw_times.push(raw);
            return Ok(0.0);
        }
        let origin = *self.origin.get_or_insert(raw);
        if raw < origin {
            return Err(out_of_order(field));
        }
        Ok(((raw as i128 - origin as i128) as f64) * seconds_per_unit)
    }
}

/// A streamed record earlier than the first: the trace is not in time order.
fn out_of_order(field: Field) -> ReadError {
    ReadError {
        line: field.line,
        field: Some(field.name.to_string()),
        message: "earlier than the first record; a trace read in chunks must be in time order (read it whole and sort it)".into(),
    }
}

impl super::LineFormat for Positional<'_> {
    fn line(&mut self, line: u64, text: &[u8], c: &mut Columns) -> ReadResult<()> {
        // The first fields on the stack (no allocation per line); the rest only counted.
        let mut parts: [&[u8]; MAX_FIELDS] = [&[]; MAX_FIELDS];
        let mut count = 0;
        let mut keep = |p| {
            if count < MAX_FIELDS {
                parts[count] = p;
            }
            count += 1;
        };
        if self.whitespace {
            for p in text.split(|&b| b == b' ' || b == b'\t').filter(|p| !p.is_empty()) {
                keep(p);
            }
        } else {
            // Fields are short: a plain scan beats a SIMD search's set-up.
            let mut from = 0;
            for (i, &b) in text.iter().enumerate() {
                if b == b',' {
                    keep(trim(&text[from..i]));
                    from = i + 1;
                }
            }
            keep(trim(&text[from..]));
        }
        self.record(line, &parts[..count.min(MAX_FIELDS)], count, c)
    }

    fn finish(&mut self, c: &mut Columns) -> ReadResult<()> {
        if self.streaming {
            return Ok(());
        }
        match self.format {
            "msr" => c.time_s = relative_times(&self.raw_times, 1e-7),
            "alibaba" => c.time_s = relative_times(&self.raw_times, 1e-6),
            "tencent" => {
                // Seconds since an epoch: relative to the first, as the published traces are used.
                let min = c.time_s.iter().copied().fold(f64::INFINITY, f64::min);
                c.time_s.iter_mut().for_each(|t| *t -= min);
            }
            _ => {}
        }
        Ok(())
    }
}

impl Positional<'_> {
    fn record(&mut self, line: u64, parts: &[&[u8]], count: usize, c: &mut Columns) -> ReadResult<()> {
        let (format, names) = (self.format, self.names);
        if count < names.len() || (!self.extra_allowed && count != names.len()) {
            return Err(ReadError {
                line,
                field: None,
                message: format!("expected {} fields ({}) for the {format} format, got {count}", names.len(), names.join(" ")),
            });
        }
        let f = |i: usize| Field { line, name: names[i], text: parts[i] };
        match format {
            "disksim" => {
                let t = f(0).real("an arrival time in milliseconds")?;
                let dev = f(1).int("a device number")?;
                let offset = f(2).scaled("a block number (512-byte sectors)", SECTOR)?;
                let size = f(3).scaled("a size in 512-byte sectors", SECTOR)?;
                let flags = f(4).int("integer flags (bit 0 = read)")?;
                c.push(line, t * 1e-3, offset, size, flags & 1 == 0, Some(dev));
            }
            "spc-ascii" => {
                let ns = f(0).int("an arrival time in nanoseconds")?;
                let dev = f(1).int("a device number")?;
                let offset = f(2).scaled("a sector number (512-byte sectors)", SECTOR)?;
                let size = f(3).scaled("a size in 512-byte sectors", SECTOR)?;
                let read = f(4).one_of([("1", true), ("0", false)], "1 (read) or 0 (write)")?;
                c.push(line, ns as f64 * 1e-9, offset, size, !read, Some(dev));
            }
            "spc" => {
                let asu = f(0).int("an application storage unit number")?;
                let offset = f(1).scaled("a logical block address (512-byte sectors)", SECTOR)?;
                let size = f(2).int("a size in bytes")?;
                let write = f(3).one_of([("r", false), ("R", false), ("w", true), ("W", true)], "'r' or 'w'")?;
                let t = f(4).real("a timestamp in seconds")?;
                c.push(line, t, offset, size, write, Some(asu));
            }
            "msr" => {
                let raw = f(0).int("a FILETIME timestamp (100 ns ticks)")?;
                let disk = f(2).int("a disk number")?;
                let write = f(3).one_of([("Read", false), ("Write", true)], "'Read' or 'Write'")?;
                let offset = f(4).int("a byte offset")?;
                let size = f(5).int("a size in bytes")?;
                f(6).int("a response time in 100 ns ticks")?;
                let t = self.epoch_time(f(0), raw, 1e-7)?;
                c.push(line, t, offset, size, write, Some(disk));
            }
            "alibaba" => {
                let dev = f(0).int("a device id")?;
                let write = f(1).one_of([("R", false), ("W", true)], "'R' or 'W'")?;
                let offset = f(2).int("a byte offset")?;
                let size = f(3).int("a length in bytes")?;
                let raw = f(4).int("a timestamp in microseconds")?;
                let t = self.epoch_time(f(4), raw, 1e-6)?;
                c.push(line, t, offset, size, write, Some(dev));
            }
            "tencent" => {
                let mut t = f(0).real("a timestamp in seconds")?;
                let offset = f(1).scaled("an offset in 512-byte sectors", SECTOR)?;
                let size = f(2).scaled("a size in 512-byte sectors", SECTOR)?;
                let write = f(3).one_of([("0", false), ("1", true)], "0 (read) or 1 (write)")?;
                let volume = f(4).int("a volume id")?;
                if self.streaming {
                    let origin = *self.origin_s.get_or_insert(t);
                    if t < origin {
                        return Err(out_of_order(f(0)));
                    }
                    t -= origin;
                }
                c.push(line, t, offset, size, write, Some(volume));
            }
            _ => unreachable!("format checked in Positional::new"),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::read as read_format;

    #[test]
    fn disksim_reads_sectors_as_bytes_and_names_bad_lines() {
        let c = read_format("disksim", b"0.5 1 10 8 1\n\n  \n12.25\t2  20 16 0\n").unwrap();
        assert_eq!(c.time_s, vec![0.0005, 0.01225]);
        assert_eq!(c.offset_bytes, vec![5120, 10240]);
        assert_eq!(c.size_bytes, vec![4096, 8192]);
        assert_eq!(c.is_write, vec![0, 1]);
        assert_eq!((c.stream.clone(), c.line.clone()), (vec![1, 2], vec![1, 4]));
        let e = read_format("disksim", b"0 1 10 8 1\n\n1 1 0x10 8 1\n").unwrap_err();
        assert_eq!(e.to_string(), "line 3, field 'blkno': expected a block number (512-byte sectors), got '0x10'");
        let e = read_format("disksim", b"0 1 99999999999999999999 8 1\n").unwrap_err();
        assert!(e.to_string().contains("within 64 bits"), "{e}");
        let e = read_format("disksim", b"0 1 18014398509481984 8 1\n").unwrap_err();
        assert!(e.message.contains("does not fit"), "{e}");
    }

    #[test]
    fn spc_ignores_trailing_fields_and_others_do_not() {
        let c = read_format("spc-ascii", b"100 0 1 1 1\n200 0 1 1 0 extra more\n").unwrap();
        assert_eq!(c.is_write, vec![0, 1]);
        let c = read_format("spc", b"0,20941264,8192,W,0.551706,x\n").unwrap();
        assert_eq!((c.offset_bytes[0], c.size_bytes[0], c.is_write[0]), (20941264 * 512, 8192, 1));
        assert!(read_format("alibaba", b"1,R,0,4096,10,extra\n").is_err());
    }

    #[test]
    fn epochs_near_the_ends_of_int64_are_made_relative_exactly() {
        let c = read_format("msr", b"9223372036854775000,hm,0,Read,0,4096,1\n9223372036854775807,hm,0,Write,0,4096,1\n").unwrap();
        assert_eq!(c.time_s, vec![0.0, 807e-7]);
        let c = read_format("alibaba", b"1,R,0,4096,-9223372036854775808\n1,W,0,4096,-9223372036854775800\n").unwrap();
        assert_eq!(c.time_s, vec![0.0, 8e-6]);
    }

    #[test]
    fn non_finite_and_odd_numbers_are_errors() {
        for bad in [&b"inf 0 1 8 0\n"[..], b"1e400 0 1 8 0\n", b"nan 0 1 8 0\n"] {
            assert!(read_format("disksim", bad).is_err());
        }
        let e = read_format("tencent", b"1,0,8,2,1\n").unwrap_err();
        assert!(e.to_string().contains("field 'iotype'"), "{e}");
        assert!(read_format("tencent", b"\xEF\xBB\xBF").is_err());
        assert!(read_format("msr", b"\xEF\xBB\xBF\n").unwrap_err().message.contains("empty"));
    }
}

//! Text trace formats parsed in one pass over the file's bytes, with no per-record allocation.
//!
//! Every reader returns [`Columns`] or a [`ReadError`] naming the line (counted from 1, blank
//! lines included) and the field. Numbers are strict ASCII: `[+-]?[0-9]+` for integers and plain
//! decimals for reals, so `0x10`, `1_000`, full-width or Arabic-Indic digits, `inf` and `1e400`
//! are errors rather than silently read as something else; scaling sectors to bytes is checked
//! for overflow. Blank lines are not records and are passed over; a UTF-8 byte-order mark at the
//! start is ignored. Readers that skip records count them in [`Columns::skipped`].

mod blkparse;
mod bytemap;
mod csv;
pub mod detect;
mod formats;
pub mod input;
mod mapped_csv;

use bytemap::{ByteMap, Line, Separator};

pub mod table;
pub use table::{trace_format, Reading, TraceFormat, TRACE_FORMATS};
pub use mapped_csv::PREFIX as MAPPED_CSV;

/// How errors and reports name a format: a mapped CSV is a CSV (its mapping is the caller's to
/// show), the others by their names.
pub fn format_name(format: &str) -> &str {
    if format.starts_with(MAPPED_CSV) {
        "csv"
    } else {
        format
    }
}

use std::sync::atomic::AtomicU64;

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
    pub line: LineNumbers,
    /// What was skipped and why, with counts.
    pub skipped: Vec<(String, u64)>,
    /// Records (non-blank lines, header excepted) examined, skipped ones included.
    pub records_read: u64,
    /// When each record was originally wanted, for a trace a transform issued early; empty
    /// otherwise (readers never fill it).
    pub original_s: Vec<f64>,
    /// How long each record kept the real device busy, where a recording says; empty otherwise
    /// (`TraceView::observed_service_s`).
    pub service_s: Vec<f64>,
    /// Each record's line where the records are not in line order (biosnoop's output, put in
    /// arrival order): errors name it. Empty otherwise, where `line` says.
    pub positions: Vec<u64>,
}

impl Columns {
    /// Records from columns held elsewhere (a Parquet file's record batch), numbered from
    /// `first_position` (1-based) for errors. `stream` is empty for a single-device trace.
    pub fn from_records(time_s: &[f64], offset_bytes: &[i64], size_bytes: &[i64], is_write: &[u8], stream: &[i64], first_position: u64) -> Columns {
        let mut c = Columns::default();
        c.refill_from_records(time_s, offset_bytes, size_bytes, is_write, stream, first_position);
        c
    }

    /// These columns holding the given records instead (as [`Columns::from_records`]), in the
    /// room they already have: a caller fed batch after batch copies each into the same memory,
    /// not into fresh pages the system must map and clear each time (100 timeouts over a
    /// 100M-record Parquet file: 64–72K minor page faults and 0.8 s of system time, against
    /// 460–650K and 2.4–3.2 s with fresh columns per batch).
    pub fn refill_from_records(&mut self, time_s: &[f64], offset_bytes: &[i64], size_bytes: &[i64], is_write: &[u8], stream: &[i64], first_position: u64) {
        fn refill<T: Copy>(column: &mut Vec<T>, from: &[T]) {
            column.clear();
            column.extend_from_slice(from);
        }
        refill(&mut self.time_s, time_s);
        refill(&mut self.offset_bytes, offset_bytes);
        refill(&mut self.size_bytes, size_bytes);
        refill(&mut self.is_write, is_write);
        refill(&mut self.stream, stream);
        self.original_s.clear();
        self.service_s.clear();
        self.positions.clear();
        self.skipped.clear();
        self.records_read = 0;
        let before = first_position.saturating_sub(1);
        self.line.steps.clear();
        self.line.long_steps.clear();
        (self.line.base, self.line.last) = (before, before);
        for i in 0..time_s.len() as u64 {
            self.line.push(first_position + i);
        }
    }

    #[inline(always)]
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

    /// Room for `more` records, once, for a whole file (in huge pages where the system lets a
    /// program ask: filling fresh 4 KiB pages was an eighth of a read).
    fn reserve(&mut self, more: usize) {
        self.time_s.reserve(more);
        self.offset_bytes.reserve(more);
        self.size_bytes.reserve(more);
        self.is_write.reserve(more);
        if !self.stream.is_empty() {
            self.stream.reserve(more);
        }
        self.line.reserve(more);
        prefer_huge_pages(&self.time_s);
        prefer_huge_pages(&self.offset_bytes);
        prefer_huge_pages(&self.size_bytes);
        prefer_huge_pages(&self.stream);
    }

    /// Appends `other`'s records (its skip counts are not taken).
    fn append(&mut self, other: Columns) {
        self.append_shifted(other, 0);
    }

    /// Appends `other`'s records, their lines `line_shift` on.
    fn append_shifted(&mut self, mut other: Columns, line_shift: u64) {
        self.time_s.append(&mut other.time_s);
        self.offset_bytes.append(&mut other.offset_bytes);
        self.size_bytes.append(&mut other.size_bytes);
        self.is_write.append(&mut other.is_write);
        self.stream.append(&mut other.stream);
        self.line.append_shifted(&other.line, line_shift);
    }

    /// Takes `other`'s records, their lines `line_shift` on, and adds its skip counts (reasons
    /// in order of first appearance) and the records it read.
    fn absorb(&mut self, other: Columns, line_shift: u64) {
        for (why, n) in &other.skipped {
            match self.skipped.iter_mut().find(|(w, _)| w == why) {
                Some((_, total)) => *total += n,
                None => self.skipped.push((why.clone(), *n)),
            }
        }
        self.records_read += other.records_read;
        self.append_shifted(other, line_shift);
    }

    /// Moves the records out (to a consumer on another thread), leaving the columns as
    /// [`Columns::clear_records`] does.
    pub fn take_records(&mut self) -> Columns {
        let line = self.line.clone_empty();
        Columns {
            time_s: std::mem::take(&mut self.time_s),
            offset_bytes: std::mem::take(&mut self.offset_bytes),
            size_bytes: std::mem::take(&mut self.size_bytes),
            is_write: std::mem::take(&mut self.is_write),
            stream: std::mem::take(&mut self.stream),
            line: std::mem::replace(&mut self.line, line),
            skipped: Vec::new(),
            records_read: 0,
            original_s: std::mem::take(&mut self.original_s),
            service_s: std::mem::take(&mut self.service_s),
            positions: std::mem::take(&mut self.positions),
        }
    }

    /// Empties the record columns, keeping what was skipped and how many records were read.
    pub fn clear_records(&mut self) {
        self.time_s.clear();
        self.offset_bytes.clear();
        self.size_bytes.clear();
        self.is_write.clear();
        self.stream.clear();
        self.line.clear();
        self.positions.clear();
    }

    fn skip(&mut self, why: &str) {
        match self.skipped.iter_mut().find(|(w, _)| w == why) {
            Some((_, n)) => *n += 1,
            None => self.skipped.push((why.to_string(), 1)),
        }
    }
}

/// Asks Linux to back the 2 MiB-aligned part of `column`'s allocation with huge pages when it
/// is touched (transparent huge pages in `madvise` mode, the default of most distributions;
/// nothing changes where they are `always` or `never`). One fault then maps 2 MiB instead of
/// 4 KiB. Advice only: what the memory holds is not changed.
fn prefer_huge_pages<T>(column: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE_PAGE: usize = 2 << 20;
        let start = column.as_ptr() as usize;
        let end = start + column.capacity() * std::mem::size_of::<T>();
        let (from, to) = (start.next_multiple_of(HUGE_PAGE), end / HUGE_PAGE * HUGE_PAGE);
        if to > from {
            // SAFETY: the range lies within the vector's own allocation, and MADV_HUGEPAGE is
            // advice about how to back it, which neither moves nor changes its contents.
            unsafe { libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE) };
        }
    }
}

/// The 1-based file line of each record, kept as the step from the record before in one byte
/// (steps of 255 lines or more are kept apart): only an error message reads a line number, and
/// eight bytes a record for it would be a third of an in-memory trace.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct LineNumbers {
    /// The line before the first record's (0 for a whole file; a chunk's starts at the last line
    /// of the chunk before).
    base: u64,
    steps: Vec<u8>,
    /// (record, step) for the steps of [`LONG_STEP`] lines or more, in record order.
    long_steps: Vec<(u64, u64)>,
    last: u64,
}

/// A step byte saying the step is in [`LineNumbers::long_steps`].
const LONG_STEP: u8 = u8::MAX;

impl LineNumbers {
    /// Appends the next record's line (not before the last one's).
    pub fn push(&mut self, line: u64) {
        let step = line - self.last;
        if step < u64::from(LONG_STEP) {
            self.steps.push(step as u8);
        } else {
            self.long_steps.push((self.steps.len() as u64, step));
            self.steps.push(LONG_STEP);
        }
        self.last = line;
    }

    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The last record's line.
    pub fn last(&self) -> Option<u64> {
        (!self.steps.is_empty()).then_some(self.last)
    }

    /// Every record's line, in order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        let mut long = self.long_steps.iter();
        self.steps.iter().scan(self.base, move |line, &step| {
            *line += if step == LONG_STEP { long.next().expect("a long step for each marker").1 } else { u64::from(step) };
            Some(*line)
        })
    }

    /// Record `index`'s line (a walk from the start: for error messages).
    pub fn get(&self, index: usize) -> u64 {
        self.iter().nth(index).expect("a record index within the trace")
    }

    /// The encoding, for the binding: the line before the first record, each record's step from
    /// the one before (255: see the long steps), and (record, step) for the long steps.
    pub fn into_parts(self) -> (u64, Vec<u8>, Vec<(u64, u64)>) {
        (self.base, self.steps, self.long_steps)
    }

    fn reserve(&mut self, more: usize) {
        self.steps.reserve(more);
    }

    /// No records, the next stepping from the last line seen (as after [`LineNumbers::clear`]).
    fn clone_empty(&self) -> LineNumbers {
        LineNumbers { base: self.last, steps: Vec::new(), long_steps: Vec::new(), last: self.last }
    }

    /// Forgets the records, so the next one steps from the last line seen.
    fn clear(&mut self) {
        self.base = self.last;
        self.steps.clear();
        self.long_steps.clear();
    }

    /// Appends `other`'s lines, each `shift` lines on (records of a chunk numbered from its
    /// start). Only the first record's step changes: the rest are copied as they are.
    fn append_shifted(&mut self, other: &LineNumbers, shift: u64) {
        let Some(first) = other.iter().next() else { return };
        self.push(first + shift);
        let first_index = self.steps.len() as u64 - 1;
        self.steps.extend_from_slice(&other.steps[1..]);
        self.long_steps.extend(other.long_steps.iter().filter(|&&(i, _)| i > 0).map(|&(i, step)| (first_index + i, step)));
        self.last = other.last + shift;
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
    /// What separates the fields of a line.
    fn separator(&self) -> Separator;
    /// One non-blank line (`number` counts from 1, blank lines included).
    fn line(&mut self, number: u64, line: Line<'_>, out: &mut Columns) -> ReadResult<()>;
    /// True if the format counts its records itself (a header is not one).
    fn counts_records(&self) -> bool {
        false
    }
    /// Read in chunks: the records parsed so far are about to be handed on.
    fn end_of_chunk(&mut self, _out: &mut Columns) {}
    /// A copy to parse any later chunk with, once what the later chunks need from the first
    /// is known (None until then, and always for a format whose lines depend on the ones
    /// before them).
    fn fork(&self) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }
    /// After the last line.
    fn finish(&mut self, out: &mut Columns) -> ReadResult<()>;
}


/// Threads a whole read parses with: the machine's cores (at most 8, past which the reading
/// thread cannot keep them fed).
pub fn parse_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(8)
}

/// Reads `bytes` as the named format.
pub fn read(format: &str, bytes: &[u8]) -> ReadResult<Columns> {
    let mut columns = Columns::default();
    let source = InMemory { bytes, chunk_bytes: CHUNK_BYTES };
    read_from(format, source, Some(bytes.len() as u64), false, parse_threads(), &mut columns, |_| Ok(()))?;
    Ok(columns)
}

/// Reads the file at `path` whole (in chunks, so its text is never all in memory).
pub fn read_file(format: &str, path: &std::path::Path) -> ReadResult<Columns> {
    read_file_counted(format, path, None)
}

/// [`read_file`], adding the bytes read so far to `progress` (another thread draws a bar).
pub fn read_file_counted(format: &str, path: &std::path::Path, progress: Option<std::sync::Arc<AtomicU64>>) -> ReadResult<Columns> {
    read_file_with(format, path, parse_threads(), progress)
}

/// [`read_file_counted`] with `threads` parsers.
pub fn read_file_with(format: &str, path: &std::path::Path, threads: usize, progress: Option<std::sync::Arc<AtomicU64>>) -> ReadResult<Columns> {
    let input = input::open(path, progress).map_err(|e| whole_file(format!("cannot read: {e}")))?;
    let mut columns = Columns::default();
    read_chunks(format, input.reader, input.size_hint, false, threads, &mut columns, |_| Ok(()))?;
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
    threads: usize,
    out: &mut Columns,
    chunk: impl FnMut(&mut Columns) -> ReadResult<()>,
) -> ReadResult<()> {
    read_chunks_of(format, source, size_hint, chunked, CHUNK_BYTES, threads, out, chunk)
}

#[allow(clippy::too_many_arguments)]
fn read_chunks_of<R: std::io::Read>(
    format: &str,
    source: R,
    size_hint: Option<u64>,
    chunked: bool,
    chunk_bytes: usize,
    threads: usize,
    out: &mut Columns,
    chunk: impl FnMut(&mut Columns) -> ReadResult<()>,
) -> ReadResult<()> {
    read_from(format, Buffered::new(source, chunk_bytes), size_hint, chunked, threads, out, chunk)
}

fn read_from(
    format: &str,
    source: impl Source,
    size_hint: Option<u64>,
    chunked: bool,
    threads: usize,
    out: &mut Columns,
    chunk: impl FnMut(&mut Columns) -> ReadResult<()>,
) -> ReadResult<()> {
    // One copy of the loop per format, so each line's parse is inlined into it.
    match format {
        "csv" => read_with(csv::SimpleCsv::default(), format, source, size_hint, chunked, threads, out, chunk),
        "blkparse" => read_with(blkparse::Blkparse::default(), format, source, size_hint, chunked, threads, out, chunk),
        mapped if mapped.starts_with(MAPPED_CSV) => {
            let parser = mapped_csv::MappedCsv::new(&mapped[MAPPED_CSV.len()..])?;
            read_with(parser, format_name(format), source, size_hint, chunked, threads, out, chunk)
        }
        other => read_with(formats::Positional::new(other, chunked)?, format, source, size_hint, chunked, threads, out, chunk),
    }
}

/// Where a reader's text comes from, a chunk of lines at a time.
trait Source {
    /// The next chunk: whole lines, but for the file's last line, which may lack its newline.
    /// None at the end.
    fn next_chunk(&mut self) -> ReadResult<Option<&[u8]>>;
}

/// The longest line any reader takes: no trace format's line comes near it (a biosnoop or MSR
/// line is under 200 bytes), and a file that holds one is not a trace. Refused as soon as the
/// line passes it, so a small compressed file of one huge line costs its limit, not its line.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// A [`ReadError`]'s line while the source cannot number it: the line after the lines of every
/// chunk handed on so far (the reader numbers it once those are parsed).
const LINE_AFTER_CHUNKS: u64 = u64::MAX;

/// The error of a line longer than [`MAX_LINE_BYTES`], numbered by the reader.
fn line_too_long() -> ReadError {
    ReadError {
        line: LINE_AFTER_CHUNKS,
        field: None,
        message: format!("a line longer than {} bytes (1 MiB): not a line of a trace", MAX_LINE_BYTES),
    }
}

/// `e` with a line the source could not number ([`LINE_AFTER_CHUNKS`]) numbered: the line after
/// the `lines` of the chunks before it.
fn numbered(mut e: ReadError, lines: u64) -> ReadError {
    if e.line == LINE_AFTER_CHUNKS {
        e.line = lines + 1;
    }
    e
}

/// Text read through [`std::io::Read`] into a buffer of `chunk_bytes` (grown for a longer line,
/// up to [`MAX_LINE_BYTES`]).
struct Buffered<R> {
    source: R,
    buffer: Vec<u8>,
    filled: usize,
    /// Bytes handed on as the last chunk (moved out of the buffer on the next call).
    handed_on: usize,
    at_end: bool,
}

impl<R: std::io::Read> Buffered<R> {
    fn new(source: R, chunk_bytes: usize) -> Self {
        Buffered { source, buffer: vec![0; chunk_bytes.max(1)], filled: 0, handed_on: 0, at_end: false }
    }
}

impl<R: std::io::Read> Source for Buffered<R> {
    fn next_chunk(&mut self) -> ReadResult<Option<&[u8]>> {
        // Keep the partial last line for this chunk.
        self.buffer.copy_within(self.handed_on..self.filled, 0);
        self.filled -= self.handed_on;
        self.handed_on = 0;
        loop {
            if self.at_end {
                self.handed_on = self.filled;
                return Ok((self.filled > 0).then(|| &self.buffer[..self.filled]));
            }
            if self.filled == self.buffer.len() {
                // Full, with no line's end in it (whole lines were handed on): a line so long.
                if self.filled > MAX_LINE_BYTES {
                    return Err(line_too_long());
                }
                self.buffer.resize((self.buffer.len() * 2).min(MAX_LINE_BYTES + 1).max(self.buffer.len() + 1), 0);
            }
            let got = match self.source.read(&mut self.buffer[self.filled..]) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(whole_file(format!("cannot read: {e}"))),
            };
            self.at_end = got == 0;
            self.filled += got;
            // Parse full buffers only, so chunks stay large.
            if self.at_end || self.filled < self.buffer.len() {
                continue;
            }
            if let Some(newline) = memchr::memrchr(b'\n', &self.buffer[..self.filled]) {
                self.handed_on = newline + 1;
                return Ok(Some(&self.buffer[..self.handed_on]));
            }
        }
    }
}

/// Text already in memory, handed on in place in chunks of about `chunk_bytes`. (Mapping a file into memory to read it so was slower here
/// than reading it into a buffer: the page faults cost more than the copy.)
struct InMemory<'a> {
    bytes: &'a [u8],
    chunk_bytes: usize,
}

impl Source for InMemory<'_> {
    fn next_chunk(&mut self) -> ReadResult<Option<&[u8]>> {
        if self.bytes.is_empty() {
            return Ok(None);
        }
        let mut end = self.chunk_bytes.max(1).min(self.bytes.len());
        if end < self.bytes.len() {
            end = match memchr::memrchr(b'\n', &self.bytes[..end]) {
                Some(newline) => newline + 1,
                None => memchr::memchr(b'\n', &self.bytes[end..]).map_or(self.bytes.len(), |newline| end + newline + 1),
            };
        }
        if end > MAX_LINE_BYTES && memchr::memchr(b'\n', &self.bytes[..(MAX_LINE_BYTES + 1).min(self.bytes.len())]).is_none() {
            return Err(line_too_long());
        }
        let (chunk, rest) = self.bytes.split_at(end);
        self.bytes = rest;
        Ok(Some(chunk))
    }
}

#[allow(clippy::too_many_arguments)]
fn read_with<P: LineFormat + Clone + Send>(
    mut parser: P,
    format: &str,
    mut source: impl Source,
    size_hint: Option<u64>,
    chunked: bool,
    threads: usize,
    out: &mut Columns,
    mut chunk: impl FnMut(&mut Columns) -> ReadResult<()>,
) -> ReadResult<()> {
    let mut map = ByteMap::default();
    let (mut line, mut first, mut non_blank) = (0u64, true, false);
    // Chunk by chunk until the parser has what the later chunks need from the first (a header,
    // an origin of time); then, with more than one thread, the rest in parallel.
    while let Some(mut lines) = source.next_chunk().map_err(|e| numbered(e, line))? {
        if first {
            lines = lines.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(lines);
        }
        let (count, any) = parse_chunk(&mut parser, format, lines, &mut map, line, out)?;
        (line, non_blank) = (line + count, non_blank || any);
        if first && !chunked {
            if let Some(total) = size_hint.filter(|&total| total > lines.len() as u64) {
                // 2 % over the first chunk's density; pages never written are never mapped.
                let expected = (out.time_s.len() as f64 * total as f64 / lines.len() as f64 * 1.02) as usize;
                out.reserve(expected.saturating_sub(out.time_s.len()));
            }
        }
        first = false;
        if chunked {
            parser.end_of_chunk(out);
        }
        chunk(out)?;
        if let Some(settled) = parser.fork().filter(|_| threads > 1) {
            non_blank |= read_rest_in_parallel(&settled, format, &mut source, threads, line, out, &mut chunk)?;
            break;
        }
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

/// Parses one chunk's lines into `out`, numbering them on from `line_before`. Returns how many
/// lines the chunk has, and whether any is not blank.
#[inline(always)]
fn parse_chunk<P: LineFormat>(parser: &mut P, format: &str, lines: &[u8], map: &mut ByteMap, line_before: u64, out: &mut Columns) -> ReadResult<(u64, bool)> {
    let (counts, separator) = (parser.counts_records(), parser.separator());
    if map.map(lines, separator) {
        return Err(whole_file(format!("this is a binary file, not a {format} text trace")));
    }
    // Each line as the newlines bitmap cuts the chunk, and a last line without one.
    let (mut line, mut from, mut non_blank) = (line_before, 0, false);
    let unterminated = (lines.last().is_some_and(|&b| b != b'\n')).then_some(lines.len());
    let ends = map.newlines.iter().enumerate().flat_map(|(w, &bits)| SetBits(bits).map(move |b| w * 64 + b)).chain(unterminated);
    for end in ends {
        line += 1;
        let start = std::mem::replace(&mut from, end + 1);
        let end = if end > start && lines[end - 1] == b'\r' { end - 1 } else { end };
        if lines[start..end].iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        non_blank = true;
        if !counts {
            out.records_read += 1;
        }
        parser.line(line, Line::new(lines, map, separator, start, end), out)?;
    }
    Ok((line - line_before, non_blank))
}

/// The rest of `source` parsed by `threads` workers, each chunk by a copy of the `settled`
/// parser with its lines numbered from the chunk's start; in file order, the chunks' lines are
/// moved on by the lines before them (`line` before the first) and their records reach `out`
/// and `chunk`. So the records, their lines, what is skipped and the first error are those of a
/// read chunk by chunk. Memory stays bounded: at most two chunks per worker wait to be parsed,
/// and the parsed wait only for the ones before them. Returns whether any line was not blank.
fn read_rest_in_parallel<P: LineFormat + Clone + Send>(
    settled: &P,
    format: &str,
    source: &mut impl Source,
    threads: usize,
    mut line: u64,
    out: &mut Columns,
    chunk: &mut impl FnMut(&mut Columns) -> ReadResult<()>,
) -> ReadResult<bool> {
    use std::sync::{mpsc, Mutex};
    /// A chunk's number, its records, lines and whether any was not blank (or its error,
    /// numbered from the chunk's start), and its text's buffer to use again.
    type Parsed = (u64, ReadResult<(Columns, u64, bool)>, Vec<u8>);
    let (jobs, queue) = mpsc::sync_channel::<(u64, Vec<u8>)>(2 * threads);
    let queue = Mutex::new(queue);
    let (done, parsed) = mpsc::channel::<Parsed>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (done, queue, settled) = (done.clone(), &queue, settled.clone());
            scope.spawn(move || {
                let mut map = ByteMap::default();
                loop {
                    let job = queue.lock().map_err(|_| ()).and_then(|q| q.recv().map_err(|_| ()));
                    let Ok((sequence, bytes)) = job else { break };
                    let (mut parser, mut columns) = (settled.clone(), Columns::default());
                    let result = parse_chunk(&mut parser, format, &bytes, &mut map, 0, &mut columns).map(|(lines, any)| (columns, lines, any));
                    if done.send((sequence, result, bytes)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done);
        let mut in_order = || -> ReadResult<bool> {
            let mut waiting = std::collections::BTreeMap::new();
            let mut spare: Vec<Vec<u8>> = Vec::new();
            let (mut sent, mut next, mut read_all, mut non_blank) = (0u64, 0u64, false, false);
            let mut unnumbered: Option<ReadError> = None;
            let take = |(sequence, result, bytes): Parsed, waiting: &mut std::collections::BTreeMap<_, _>, spare: &mut Vec<Vec<u8>>| {
                waiting.insert(sequence, result);
                spare.push(bytes);
            };
            loop {
                while let Ok(p) = parsed.try_recv() {
                    take(p, &mut waiting, &mut spare);
                }
                while let Some(result) = waiting.remove(&next) {
                    let (columns, lines, any) = result.map_err(|mut e: ReadError| {
                        e.line += if e.line > 0 { line } else { 0 };
                        e
                    })?;
                    non_blank |= any;
                    out.absorb(columns, line);
                    chunk(out)?;
                    (line, next) = (line + lines, next + 1);
                }
                if read_all && next == sent {
                    return match unnumbered.take() {
                        Some(e) => Err(numbered(e, line)),
                        None => Ok(non_blank),
                    };
                }
                if read_all {
                    let p = parsed.recv().map_err(|_| whole_file("a reading thread stopped"))?;
                    take(p, &mut waiting, &mut spare);
                    continue;
                }
                let next_chunk = match source.next_chunk() {
                    // Numbered once the chunks before it are parsed.
                    Err(e) if e.line == LINE_AFTER_CHUNKS => {
                        unnumbered = Some(e);
                        None
                    }
                    other => other?,
                };
                match next_chunk {
                    Some(lines) => {
                        let mut bytes = spare.pop().unwrap_or_default();
                        bytes.clear();
                        bytes.extend_from_slice(lines);
                        jobs.send((sent, bytes)).map_err(|_| whole_file("the reading threads stopped"))?;
                        sent += 1;
                    }
                    None => read_all = true,
                }
            }
        };
        let result = in_order();
        drop(jobs);
        result
    })
}

/// The positions of a word's set bits, lowest first.
struct SetBits(u64);

impl Iterator for SetBits {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        (self.0 != 0).then(|| {
            let at = self.0.trailing_zeros() as usize;
            self.0 &= self.0 - 1;
            at
        })
    }
}

/// Bytes read from the file at a time: a chunk and its bitmaps stay in a core's 2 MiB second-level
/// cache between the passes over it (4 MiB chunks read 3–5 % slower).
pub const CHUNK_BYTES: usize = 512 << 10;

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

/// A Linux `major,minor` device as one stream number (blkparse, FIU, diskstats), encoded as
/// glibc's `makedev` encodes a `dev_t`: `(minor & 0xff) | (major & 0xfff) << 8 | (minor & !0xff)
/// << 12 | (major & !0xfff) << 32`. Distinct devices get distinct numbers (`major·256 + minor`
/// made `8,256` and `9,0` one device), and a device below major 4096 and minor 256, every
/// disk in practice, keeps `major·256 + minor`. A negative part, a major of 2^31 or more, or a
/// minor of 2^32 or more is an error naming its field.
fn device_number(major: i64, minor: i64, major_field: Field, minor_field: Field) -> ReadResult<i64> {
    if !(0..1 << 31).contains(&major) {
        return Err(major_field.error("a device major number from 0 to 2^31 - 1"));
    }
    if !(0..1 << 32).contains(&minor) {
        return Err(minor_field.error("a device minor number from 0 to 2^32 - 1"));
    }
    Ok(makedev(major, minor))
}

/// glibc's `makedev` of a major below 2^31 and a minor below 2^32 (see [`device_number`]).
pub const fn makedev(major: i64, minor: i64) -> i64 {
    (minor & 0xff) | (major & 0xfff) << 8 | (minor & !0xff) << 12 | (major & !0xfff) << 32
}

/// Shows a field in an error, shortened if long, its control characters escaped (`\u{1b}`): a
/// field is echoed to a terminal, where an escape sequence would act rather than show.
fn shown(field: &[u8]) -> String {
    let text = String::from_utf8_lossy(field);
    let printable = |s: &str| s.chars().flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] }).collect::<String>();
    if text.chars().count() > 40 {
        format!("'{}…' ({} bytes)", printable(&text.chars().take(40).collect::<String>()), field.len())
    } else {
        format!("'{}'", printable(&text))
    }
}

/// One field of one line, with what the line's errors need to say.
#[derive(Clone, Copy)]
struct Field<'a> {
    line: u64,
    name: &'a str,
    text: &'a [u8],
}

impl<'a> Field<'a> {
    fn error(&self, expected: &str) -> ReadError {
        ReadError { line: self.line, field: Some(self.name.to_string()), message: format!("expected {expected}, got {}", shown(self.text)) }
    }

    /// A device's number (a DiskSim devno, an SPC ASU, an MSR disk, a volume id): a whole
    /// number, never negative in any format, so every reader accepts the same devices.
    #[inline(always)]
    fn device(&self, expected: &str) -> ReadResult<i64> {
        let number = self.int(expected)?;
        if number < 0 {
            return Err(self.error(&format!("{expected} (0 or more)")));
        }
        Ok(number)
    }

    #[inline(always)]
    fn int(&self, expected: &str) -> ReadResult<i64> {
        let t = self.text;
        let (negative, digits) = match t.first() {
            Some(b'-') => (true, &t[1..]),
            Some(b'+') => (false, &t[1..]),
            _ => (false, t),
        };
        // Up to 18 digits cannot overflow an i64: the common case, inlined, eight digits at a time.
        if digits.len() <= 18 {
            if let Some(value) = crate::units::ascii_digits(digits) {
                return Ok(if negative { -(value as i64) } else { value as i64 });
            }
        }
        self.long_int(negative, digits, expected)
    }

    /// Strict ASCII digits accumulated with checked arithmetic: the range of i64 exactly.
    #[cold]
    #[inline(never)]
    fn long_int(&self, negative: bool, digits: &[u8], expected: &str) -> ReadResult<i64> {
        if digits.is_empty() {
            return Err(self.error(expected));
        }
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
            return Err(self.error(&format!("{expected} within 64 bits (from -2^63 to 2^63 - 1)")));
        }
        Ok(if negative { (magnitude as i64).wrapping_neg() } else { magnitude as i64 })
    }

    #[inline]
    fn real(&self, expected: &str) -> ReadResult<f64> {
        crate::units::parse_plain_number_bytes(self.text)
            .filter(|v| v.is_finite())
            .ok_or_else(|| self.error(&format!("{expected} (a finite decimal number)")))
    }

    /// An integer count of units (sectors) turned into bytes, checked for overflow.
    #[inline(always)]
    fn scaled(&self, expected: &str, unit_bytes: i64) -> ReadResult<i64> {
        let v = self.int(expected)?;
        v.checked_mul(unit_bytes).ok_or_else(|| ReadError {
            line: self.line,
            field: Some(self.name.to_string()),
            message: format!("{v} × {unit_bytes} bytes does not fit a 64-bit byte count"),
        })
    }

    #[inline(always)]
    fn one_of<const N: usize>(&self, choices: [(&str, bool); N], expected: &str) -> ReadResult<bool> {
        // Byte by byte: the choices are a few bytes long, and a slice comparison calls memcmp.
        let same = |c: &str| c.len() == self.text.len() && c.bytes().zip(self.text).all(|(a, &b)| a == b);
        for (choice, value) in choices {
            if same(choice) {
                return Ok(value);
            }
        }
        Err(self.error(expected))
    }
}

/// Times given as integers from an arbitrary epoch (FILETIME ticks, microseconds), held as the
/// i64's bits in `time_s`, made relative to the earliest in place, in exact integer arithmetic
/// before scaling, so nothing overflows or rounds.
fn relative_times(time_s: &mut [f64], seconds_per_unit: f64) {
    let raw = |t: f64| t.to_bits() as i64;
    let min = time_s.iter().map(|&t| raw(t)).min().unwrap_or(0);
    // An i64 difference converts to the same float as the i128 one; i128 only when it overflows.
    time_s.iter_mut().for_each(|t| {
        let ticks = raw(*t).checked_sub(min).map_or_else(|| (raw(*t) as i128 - min as i128) as f64, |d| d as f64);
        *t = ticks * seconds_per_unit;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_numbers_count_blank_lines_and_crlf() {
        let c = read("disksim", b"0 1 2 3 1\r\n\n  \t\n1 1 2 3 1\n").unwrap();
        assert_eq!((c.line.iter().collect::<Vec<_>>(), c.records_read), (vec![1, 4], 2));
    }

    #[test]
    fn line_numbers_keep_long_steps_and_continue_across_chunks() {
        let lines = [1, 2, 257, 258, 300, 1_000_000_000_000, 1_000_000_000_001];
        let mut l = LineNumbers::default();
        lines.iter().for_each(|&n| l.push(n));
        assert_eq!(l.iter().collect::<Vec<_>>(), lines);
        assert_eq!((l.get(2), l.get(5), l.last(), l.long_steps.len()), (257, 1_000_000_000_000, Some(1_000_000_000_001), 2));
        l.clear();
        assert_eq!((l.is_empty(), l.last()), (true, None));
        l.push(1_000_000_000_003);
        assert_eq!(l.iter().collect::<Vec<_>>(), vec![1_000_000_000_003]);
        assert_eq!(l.into_parts().1, vec![2]);
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

    /// `head`, then the byte `fill` for ever: a compressed file of one endless line.
    struct Endless<'a>(&'a [u8], u8);

    impl std::io::Read for Endless<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.len().min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            buf[n..].fill(self.1);
            Ok(buf.len())
        }
    }

    /// A line past the limit is refused once the limit is passed (an endless line ends the
    /// read, it does not fill memory), naming the line after the last whole one: first, and
    /// after chunks of good lines read on one thread and on several.
    #[test]
    fn a_line_past_the_limit_is_refused_naming_it_in_bounded_memory() {
        let mut head = b"time_s,offset_bytes,size_bytes,op\n".to_vec();
        let first = head.clone();
        for i in 0..100_000 {
            head.extend_from_slice(format!("{i},0,4096,R\n").as_bytes());
        }
        for (bytes, line) in [(&b""[..], 1u64), (&first[..], 2), (&head[..], 100_002)] {
            for threads in [1, 3] {
                for chunked in [false, true] {
                    let mut out = Columns::default();
                    let e = read_chunks_of("csv", Endless(bytes, b'7'), None, chunked, CHUNK_BYTES, threads, &mut out, |_| Ok(())).unwrap_err();
                    assert_eq!(e.line, line, "{threads} threads, chunked {chunked}: {e}");
                    assert!(e.message.contains("longer than 1048576 bytes"), "{e}");
                }
            }
        }
        // In memory as well, whatever follows the line.
        let mut long = head.clone();
        long.extend(std::iter::repeat(b'1').take(MAX_LINE_BYTES + 10));
        long.extend_from_slice(b"\n1,0,4096,R\n");
        let e = read("csv", &long).unwrap_err();
        assert_eq!((e.line, e.message.contains("1 MiB")), (100_002, true), "{e}");
        // A line of the limit itself is read (a header long enough to be refused as a header).
        let mut at_limit = b"time_s,offset_bytes,size_bytes,op,".to_vec();
        at_limit.extend(std::iter::repeat(b'x').take(MAX_LINE_BYTES - at_limit.len()));
        at_limit.extend_from_slice(b"\n0,0,4096,R\n");
        assert!(!read("csv", &at_limit).unwrap_err().message.contains("1 MiB"));
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
            for (chunk_bytes, threads) in [1, 2, 5, 16, 64].into_iter().flat_map(|c| [(c, 1), (c, 3)]) {
                for chunked in [false, true] {
                    let mut all = Columns::default();
                    let mut out = Columns::default();
                    read_chunks_of(format, Trickle(bytes, 3), None, chunked, chunk_bytes, threads, &mut out, |c| {
                        if chunked {
                            all.append(c.take_records());
                        }
                        Ok(())
                    })
                    .unwrap();
                    let got = if chunked { Columns { skipped: out.skipped.clone(), records_read: out.records_read, ..all } } else { out };
                    let same = format!("{:?}", (&got.time_s, &got.offset_bytes, &got.size_bytes, &got.is_write, &got.stream, got.line.iter().collect::<Vec<_>>(), got.records_read));
                    let want = format!("{:?}", (&whole.time_s, &whole.offset_bytes, &whole.size_bytes, &whole.is_write, &whole.stream, whole.line.iter().collect::<Vec<_>>(), whole.records_read));
                    // blkparse chooses its arrivals on the first chunk when chunked: with chunks
                    // this small that is the first D event, read whole the Q events.
                    if !(chunked && format == "blkparse") {
                        assert_eq!(same, want, "{format} in chunks of {chunk_bytes}, {threads} threads (chunked: {chunked})");
                    }
                }
            }
            let e = read_chunks_of(format, Trickle(b"\n\n 1 2 x", 2), None, true, 4, 2, &mut Columns::default(), |_| Ok(())).unwrap_err();
            assert_eq!(e.line, 3, "{format}: {e}");
        }
    }

    /// Everything a read yields, or its error, as text to compare.
    fn outcome(format: &str, bytes: &[u8], chunk_bytes: usize, threads: usize, chunked: bool) -> String {
        let (mut all, mut out) = (Columns::default(), Columns::default());
        let read = read_chunks_of(format, bytes, Some(bytes.len() as u64), chunked, chunk_bytes, threads, &mut out, |c| {
            if chunked {
                all.append(c.take_records());
            }
            Ok(())
        });
        let got = if chunked { all } else { out.clone() };
        match read {
            Err(e) => format!("error {e}"),
            Ok(()) => format!(
                "{:?}",
                (&got.time_s, &got.offset_bytes, &got.size_bytes, &got.is_write, &got.stream, got.line.iter().collect::<Vec<_>>(), &out.skipped, out.records_read)
            ),
        }
    }

    #[test]
    fn parallel_reads_equal_sequential_reads_records_lines_skips_and_first_error() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        let (mut errors, mut files) = (0, 0);
        for round in 0..40 {
            let mapped = r#"mapped-csv:{"time": ["ts", 1e-6], "size": ["len", 512], "offset": ["lba", 512], "op": "rw", "stream": "v", "write_flag": null, "delimiter": ";"}"#;
            for format in ["csv", "disksim", "spc-ascii", "spc", "msr", "alibaba", "tencent", "fiu", mapped] {
                let mut text = match format {
                    "csv" => b"time_s,offset_bytes,size_bytes,op\n".to_vec(),
                    _ if format == mapped => b"note;v;ts;rw;lba;len\n".to_vec(),
                    _ => Vec::new(),
                };
                for i in 0..400u64 {
                    let t = i * 10 + next(10);
                    let line = match format {
                        "csv" => format!("{}.5,{},4096,{}", t, next(1 << 20) * 512, ["R", "W"][next(2) as usize]),
                        "disksim" => format!("{t}.25 {} {} 8 {}", next(3), next(1 << 20), next(2)),
                        "spc-ascii" => format!("{} {} {} 8 {}", t * 1000, next(3), next(1 << 20), next(2)),
                        "spc" => format!("{},{},4096,{},{t}.5", next(3), next(1 << 20), ["r", "w"][next(2) as usize]),
                        "msr" => format!("{},hm,{},{},{},4096,7", 128166372003061629 + t, next(3), ["Read", "Write"][next(2) as usize], next(1 << 20) * 512),
                        "alibaba" => format!("{},{},{},4096,{}", next(3), ["R", "W"][next(2) as usize], next(1 << 20) * 512, 1_577_808_000_000_000 + t),
                        "tencent" => format!("{}.5,{},8,{},{}", 1_538_323_200 + t, next(1 << 20), next(2), next(3)),
                        _ if format == mapped => format!("\"a;{}\";{};{t}.5;{};{};8", next(9), next(3), ["R", "write", "rd"][next(3) as usize], next(1 << 20)),
                        _ => format!("{} 42 p {} 8 {} 8 {} ab", 89_966_527_181_059 + t, next(1 << 20), ["R", "W"][next(2) as usize], next(3)),
                    };
                    text.extend_from_slice(line.as_bytes());
                    text.extend_from_slice([&b"\n"[..], b"\r\n", b"\n\n", b"\n  \n"][next(4) as usize]);
                    // Now and then a bad line (in a third of the rounds): the first must be named.
                    if round % 3 == 0 && next(150) == 0 {
                        text.extend_from_slice(b"1 x 2 y\n");
                    }
                }
                let sequential = outcome(format, &text, 1 << 20, 1, false);
                errors += usize::from(sequential.starts_with("error"));
                files += 1;
                for (chunk_bytes, threads, chunked) in [(7, 2, false), (64, 3, true), (300, 2, true), (300, 4, false), (4096, 2, false)] {
                    let parallel = outcome(format, &text, chunk_bytes, threads, chunked);
                    let differ = parallel.bytes().zip(sequential.bytes()).position(|(a, b)| a != b).unwrap_or(parallel.len().min(sequential.len()));
                    assert!(
                        parallel == sequential,
                        "{format}, round {round}: chunks of {chunk_bytes}, {threads} threads, chunked {chunked}: from byte {differ}, {:?} against {:?}",
                        &parallel[differ.saturating_sub(40)..(differ + 80).min(parallel.len())],
                        &sequential[differ.saturating_sub(40)..(differ + 80).min(sequential.len())]
                    );
                }
            }
        }
        // Both kinds of file were read: a third of the rounds have bad lines, most of them one.
        assert!((files * 3 / 16..=files * 11 / 32).contains(&errors), "{errors} of {files} files had an error");
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
        let bits = |raw: &[i64]| raw.iter().map(|&r| f64::from_bits(r as u64)).collect::<Vec<_>>();
        let mut t = bits(&[i64::MAX - 10, i64::MAX]);
        relative_times(&mut t, 1.0);
        assert_eq!(t, vec![0.0, 10.0]);
        let mut t = bits(&[i64::MIN, 0]);
        relative_times(&mut t, 1e-7);
        assert!((t[1] - 9.223372036854776e11).abs() < 1.0);
    }
}

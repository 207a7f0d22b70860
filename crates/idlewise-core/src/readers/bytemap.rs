//! Where a chunk's newlines and field separators are, as bitmaps of 64 bytes a word, found in
//! one pass with SIMD compares (the technique of simdjson and simdcsv).
//!
//! A reader used to find each line's end with one scan and then each field's end with a second
//! scan of the line, eight bytes at a time; the second scan and its unpredictable branches were
//! most of a line's parse. Here one pass classifies every byte of the chunk (≈6 GB/s), and lines
//! and fields are walked as set bits. Bit `i % 64` of word `i / 64` is byte `i`.

/// Which bytes separate fields.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Separator {
    /// One byte: a comma, or a mapped CSV's own delimiter (semicolon, tab, bar).
    Byte(u8),
    /// Spaces and tabs (runs of them make one separator).
    Blank,
}

/// A chunk's bitmaps, kept from chunk to chunk so their memory is allocated once.
#[derive(Default)]
pub(super) struct ByteMap {
    pub(super) newlines: Vec<u64>,
    pub(super) separators: Vec<u64>,
    /// ASCII digits, for a parser that checks fields it does not read (see [`Line::all_digits`]).
    digits: Vec<u64>,
}

impl ByteMap {
    /// Maps `bytes`; true if any byte is NUL (a binary file). Both bitmaps get a zero word past
    /// the end, so a line ending at the chunk's end can look one word on.
    pub(super) fn map(&mut self, bytes: &[u8], separator: Separator) -> bool {
        self.newlines.clear();
        self.separators.clear();
        self.digits.clear();
        let words = bytes.len() / 64 + 2;
        self.newlines.reserve(words);
        self.separators.reserve(words);
        self.digits.reserve(words);
        let mut nul = 0u64;
        let mut push = |m: Masks| {
            self.newlines.push(m.newline);
            self.separators.push(m.separator);
            self.digits.push(m.digit);
            nul |= m.nul;
        };
        let mut blocks = bytes.chunks_exact(64);
        for block in &mut blocks {
            push(block_masks(block.try_into().expect("64 bytes"), separator));
        }
        let tail = blocks.remainder();
        if !tail.is_empty() {
            // Padding with a byte of no class: the tail's masks have no bits past its end.
            let mut block = [b'x'; 64];
            block[..tail.len()].copy_from_slice(tail);
            push(block_masks(&block, separator));
        }
        push(Masks { newline: 0, separator: 0, digit: 0, nul: 0 });
        nul != 0
    }
}

struct Masks {
    newline: u64,
    separator: u64,
    digit: u64,
    nul: u64,
}

/// The classes of 64 bytes, sixteen at a time with SSE2 (part of every x86-64 processor).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn block_masks(block: &[u8; 64], separator: Separator) -> Masks {
    use std::arch::x86_64::*;
    let (mut newline, mut sep, mut digit, mut nul) = (0u64, 0u64, 0u64, 0u64);
    for (k, sixteen) in block.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is in the x86-64 baseline, and the unaligned load reads the sixteen bytes
        // of `sixteen`, which are in bounds.
        let (n, s, d, z) = unsafe {
            let v = _mm_loadu_si128(sixteen.as_ptr().cast::<__m128i>());
            let eq = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
            let s = match separator {
                Separator::Byte(b) => eq(b),
                Separator::Blank => _mm_or_si128(eq(b' '), eq(b'\t')),
            };
            // A digit: byte - '0' (wrapping) is at most 9, i.e. unchanged by min(·, 9).
            let less_zero = _mm_sub_epi8(v, _mm_set1_epi8(b'0' as i8));
            let d = _mm_cmpeq_epi8(_mm_min_epu8(less_zero, _mm_set1_epi8(9)), less_zero);
            (_mm_movemask_epi8(eq(b'\n')), _mm_movemask_epi8(s), _mm_movemask_epi8(d), _mm_movemask_epi8(eq(0)))
        };
        let shift = 16 * k;
        newline |= u64::from(n as u16) << shift;
        sep |= u64::from(s as u16) << shift;
        digit |= u64::from(d as u16) << shift;
        nul |= u64::from(z as u16) << shift;
    }
    Masks { newline, separator: sep, digit, nul }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn block_masks(block: &[u8; 64], separator: Separator) -> Masks {
    portable_block_masks(block, separator)
}

/// The same classes eight bytes at a time in plain integer arithmetic, for other processors.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn portable_block_masks(block: &[u8; 64], separator: Separator) -> Masks {
    let (mut newline, mut sep, mut nul) = (0u64, 0u64, 0u64);
    let digit = block.iter().enumerate().filter(|(_, b)| b.is_ascii_digit()).fold(0u64, |m, (i, _)| m | 1 << i);
    for (k, eight) in block.chunks_exact(8).enumerate() {
        let word = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
        let s = match separator {
            Separator::Byte(b) => bytes_equal(word, b),
            Separator::Blank => bytes_equal(word, b' ') | bytes_equal(word, b'\t'),
        };
        let shift = 8 * k;
        newline |= u64::from(high_bits(bytes_equal(word, b'\n'))) << shift;
        sep |= u64::from(high_bits(s)) << shift;
        nul |= u64::from(high_bits(bytes_equal(word, 0))) << shift;
    }
    Masks { newline, separator: sep, digit, nul }
}

/// Where a word's bytes equal `byte`: the high bit of each such byte set, exactly (no carries
/// between bytes).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn bytes_equal(word: u64, byte: u8) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let x = word ^ (u64::from(byte) * 0x0101_0101_0101_0101);
    !((x & LOW7).wrapping_add(LOW7) | x | LOW7)
}

/// The high bit of each of a word's bytes, gathered into one byte (byte 0's in bit 0).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn high_bits(word: u64) -> u8 {
    (((word >> 7) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

/// One line of a mapped chunk: its text and where its fields are.
#[derive(Clone, Copy)]
pub(super) struct Line<'a> {
    chunk: &'a [u8],
    separators: &'a [u64],
    digits: &'a [u64],
    start: usize,
    end: usize,
    blank_separated: bool,
}

impl<'a> Line<'a> {
    /// Bytes `start..end` of a chunk mapped into `map` with `separator`.
    pub(super) fn new(chunk: &'a [u8], map: &'a ByteMap, separator: Separator, start: usize, end: usize) -> Line<'a> {
        Line { chunk, separators: &map.separators, digits: &map.digits, start, end, blank_separated: separator == Separator::Blank }
    }

    /// True if every byte from `first`'s start to `last`'s end (fields of this line, `last`
    /// not before `first`) is an ASCII digit or a separator, but for the one at `except` (an
    /// index into `first`..`last`'s span, or None): with the fields between, a few word
    /// operations on the bitmaps, for fields a parser checks but does not read.
    #[inline(always)]
    pub(super) fn digits_between(&self, first: &[u8], last: &[u8], except: Option<usize>) -> bool {
        let start = first.as_ptr() as usize - self.chunk.as_ptr() as usize;
        let end = last.as_ptr() as usize - self.chunk.as_ptr() as usize + last.len();
        if end <= start || end > self.chunk.len() {
            return false;
        }
        let allowed = |w: usize| {
            let mut bits = self.digits[w] | self.separators[w];
            if let Some(i) = except.map(|i| start + i).filter(|i| i / 64 == w) {
                bits |= 1 << (i % 64);
            }
            bits
        };
        let (mut word, last_word) = (start / 64, (end - 1) / 64);
        let mut from = start % 64;
        while word < last_word {
            if allowed(word) >> from != u64::MAX >> from {
                return false;
            }
            (word, from) = (word + 1, 0);
        }
        let bits = end - last_word * 64 - from;
        let wanted = (u64::MAX >> (64 - bits)) << from;
        allowed(word) & wanted == wanted
    }

    pub(super) fn text(&self) -> &'a [u8] {
        &self.chunk[self.start..self.end]
    }

    /// Splits the line into fields at its separator byte (empty fields kept) or at runs of spaces and tabs
    /// (no empty fields). The first `N` fields go to `parts`; all are counted, and the count is
    /// returned.
    #[inline(always)]
    pub(super) fn fields<const N: usize>(&self, parts: &mut [&'a [u8]; N]) -> usize {
        let (mut count, mut from) = (0, self.start);
        let mut field = |start: usize, end: usize, count: &mut usize| {
            if self.blank_separated && start == end {
                return;
            }
            if *count < N {
                parts[*count] = &self.chunk[start..end];
            }
            *count += 1;
        };
        let mut word = self.start / 64;
        let mut bits = self.separators[word] & (u64::MAX << (self.start % 64));
        'words: loop {
            while bits == 0 {
                word += 1;
                if word * 64 >= self.end {
                    break 'words;
                }
                bits = self.separators[word];
            }
            let at = word * 64 + bits.trailing_zeros() as usize;
            if at >= self.end {
                break;
            }
            field(from, at, &mut count);
            from = at + 1;
            bits &= bits - 1;
        }
        field(from, self.end, &mut count);
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn fields_split_as_the_standard_library_splits() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut map = ByteMap::default();
        for _ in 0..20_000 {
            let len = (xorshift(&mut rng) % 200) as usize;
            let text: Vec<u8> = (0..len).map(|_| b"1a,, \t,9\xff\n0123456789"[(xorshift(&mut rng) % 20) as usize]).collect();
            for separator in [Separator::Byte(b','), Separator::Byte(b'\t'), Separator::Blank] {
                map.map(&text, separator);
                // Every line, as the newlines bitmap cuts them.
                let mut starts = vec![0];
                for (w, &bits) in map.newlines.iter().enumerate() {
                    (0..64).filter(|b| bits >> b & 1 == 1).for_each(|b| starts.push(w * 64 + b + 1));
                }
                let want_lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
                assert_eq!(starts.len(), want_lines.len(), "{text:?}");
                for (k, want_line) in want_lines.iter().enumerate() {
                    let end = starts[k] + want_line.len();
                    let line = Line::new(&text, &map, separator, starts[k], end);
                    assert_eq!(line.text(), *want_line);
                    let want: Vec<&[u8]> = match separator {
                        Separator::Blank => want_line.split(|&b| b == b' ' || b == b'\t').filter(|p| !p.is_empty()).collect(),
                        Separator::Byte(d) => want_line.split(|&b| b == d).collect(),
                    };
                    let mut parts = [&b""[..]; 4];
                    let count = line.fields(&mut parts);
                    assert_eq!(count, want.len(), "{want_line:?}");
                    assert_eq!(&parts[..count.min(4)], &want[..count.min(4)], "{want_line:?}");
                    for (i, first) in parts[..count.min(4)].iter().enumerate() {
                        for last in &parts[i..count.min(4)] {
                            let span_start = first.as_ptr() as usize - text.as_ptr() as usize;
                            let span = &text[span_start..last.as_ptr() as usize - text.as_ptr() as usize + last.len()];
                            let seps: &[u8] = match separator {
                                Separator::Blank => b" \t",
                                Separator::Byte(d) => &[d],
                            };
                            let ok = |except: Option<usize>| {
                                !span.is_empty() && span.iter().enumerate().all(|(k, b)| Some(k) == except || b.is_ascii_digit() || seps.contains(b))
                            };
                            assert_eq!(line.digits_between(first, last, None), ok(None), "{span:?}");
                            let except = span.len() / 2;
                            assert_eq!(line.digits_between(first, last, Some(except)), ok(Some(except)), "{span:?} but {except}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_portable_masks_are_the_simd_masks() {
        let mut rng = 7u64;
        for _ in 0..5_000 {
            let block: [u8; 64] = std::array::from_fn(|_| b"\n\t ,|\x00a9\xff"[(xorshift(&mut rng) % 9) as usize]);
            for separator in [Separator::Byte(b','), Separator::Byte(b'|'), Separator::Blank] {
                let (a, b) = (block_masks(&block, separator), portable_block_masks(&block, separator));
                assert_eq!((a.newline, a.separator, a.digit, a.nul), (b.newline, b.separator, b.digit, b.nul));
                let want = |f: &dyn Fn(u8) -> bool| block.iter().enumerate().filter(|(_, &c)| f(c)).fold(0u64, |m, (i, _)| m | 1 << i);
                assert_eq!(a.newline, want(&|c| c == b'\n'));
                assert_eq!(a.nul, want(&|c| c == 0));
                assert_eq!(a.digit, want(&|c: u8| c.is_ascii_digit()));
                let sep = match separator {
                    Separator::Byte(d) => want(&|c| c == d),
                    Separator::Blank => want(&|c| c == b' ' || c == b'\t'),
                };
                assert_eq!(a.separator, sep);
            }
        }
    }
}

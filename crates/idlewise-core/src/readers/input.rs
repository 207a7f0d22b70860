//! Opening a trace as the field publishes it: plain, or compressed with gzip, zstd, bzip2 or xz
//! (MSR Cambridge and SNIA ship `.csv.gz`, others `.zst`, `.bz2`, `.xz`), recognised by its
//! magic bytes whatever the file is called; from a file, a named pipe or standard input (`-`).
//! The bytes read to recognise the compression are handed on first, so a pipe loses nothing.
//! Decompression streams: memory stays a decoder's window, however large the trace.

use std::fs::File;
use std::io::{self, Cursor, Read};
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// How a trace's bytes are compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
    Bzip2,
    Xz,
}

/// The longest magic number recognised (xz's).
pub const MAGIC_BYTES: usize = 6;

impl Compression {
    /// The compression whose magic number `head` starts with (RFC 1952, RFC 8878, bzip2's
    /// `BZh` and a block size digit, the xz file format).
    pub fn of(head: &[u8]) -> Compression {
        match head {
            [0x1f, 0x8b, ..] => Compression::Gzip,
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Compression::Zstd,
            [b'B', b'Z', b'h', b'1'..=b'9', ..] => Compression::Bzip2,
            [0xfd, b'7', b'z', b'X', b'Z', 0x00, ..] => Compression::Xz,
            _ => Compression::None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "plain",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
        }
    }
}

/// An opened trace: its bytes as the formats read them (decompressed), and what is known of it.
pub struct Input {
    pub reader: Box<dyn Read + Send>,
    /// The length of the bytes `reader` gives, where known before reading: a plain regular file's.
    pub size_hint: Option<u64>,
    pub compression: Compression,
}

/// Opens `path` (`-`: standard input) and recognises its compression. `progress`, when given,
/// is advanced by the bytes read from the file itself (compressed, as its size on disk counts
/// them), and a read fails once it says stop.
pub fn open(path: &Path, progress: Option<Arc<AtomicU64>>) -> io::Result<Input> {
    let (mut source, size): (Box<dyn Read + Send>, Option<u64>) = if path.as_os_str() == "-" {
        (Box::new(io::stdin()), None)
    } else {
        let file = File::open(path)?;
        let metadata = file.metadata()?;
        if metadata.is_dir() {
            return Err(io::Error::other("a directory, not a trace file"));
        }
        (Box::new(file), metadata.is_file().then_some(metadata.len()))
    };
    if let Some(progress) = progress {
        source = Box::new(Counted { inner: source, progress });
    }
    let mut head = [0u8; MAGIC_BYTES];
    let peeked = read_up_to(&mut source, &mut head)?;
    let compression = Compression::of(&head[..peeked]);
    // The peeked bytes first, then the rest: nothing read to recognise the input is lost.
    let raw = Cursor::new(head[..peeked].to_vec()).chain(source);
    let reader: Box<dyn Read + Send> = match compression {
        Compression::None => return Ok(Input { reader: Box::new(raw), size_hint: size, compression }),
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(raw)),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(raw)?),
        Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(raw)),
        Compression::Xz => Box::new(liblzma::read::XzDecoder::new_multi_decoder(raw)),
    };
    let decompressed = Decompressed { inner: reader, compression };
    Ok(Input { reader: Box::new(Prefetched::spawn(decompressed)), size_hint: None, compression })
}

/// Bytes decompressed a block ahead on a thread of their own, so decompressing overlaps parsing
/// (a zstd trace read 1.8x slower than `zstdcat` with the two in turn on one thread).
struct Prefetched {
    blocks: std::sync::mpsc::Receiver<io::Result<Vec<u8>>>,
    block: Vec<u8>,
    at: usize,
    done: bool,
}

/// Bytes a decompressed block holds, and blocks waiting at most: memory stays ~4 MiB.
const BLOCK_BYTES: usize = 1 << 20;
const BLOCKS_AHEAD: usize = 3;

impl Prefetched {
    fn spawn(mut source: Decompressed) -> Self {
        let (sender, blocks) = std::sync::mpsc::sync_channel(BLOCKS_AHEAD);
        std::thread::spawn(move || loop {
            let mut block = vec![0u8; BLOCK_BYTES];
            let filled = match read_up_to(&mut source, &mut block) {
                Ok(n) => n,
                Err(e) => {
                    let _ = sender.send(Err(e));
                    return;
                }
            };
            block.truncate(filled);
            // The reader gone (it stopped early, or failed): stop decompressing.
            if sender.send(Ok(block)).is_err() || filled == 0 {
                return;
            }
        });
        Prefetched { blocks, block: Vec::new(), at: 0, done: false }
    }
}

impl Read for Prefetched {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.block.len() {
            if self.done {
                return Ok(0);
            }
            match self.blocks.recv() {
                Ok(Ok(block)) => {
                    self.done = block.is_empty();
                    (self.block, self.at) = (block, 0);
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => return Err(io::Error::other("the decompressing thread stopped")),
            }
        }
        let n = buf.len().min(self.block.len() - self.at);
        buf[..n].copy_from_slice(&self.block[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Reads until `buf` is full or the input ends (a pipe may hand over fewer bytes a call).
fn read_up_to(source: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match source.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// A decoder whose errors say what was being decompressed: "gzip data: corrupt deflate stream",
/// "the gzip data ends early (a truncated file?)".
struct Decompressed {
    inner: Box<dyn Read + Send>,
    compression: Compression,
}

impl Read for Decompressed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            let name = self.compression.name();
            match e.kind() {
                io::ErrorKind::UnexpectedEof => io::Error::new(e.kind(), format!("the {name} data ends early (a truncated file?)")),
                io::ErrorKind::Interrupted => e,
                _ if e.to_string() == STOPPED => e,
                _ => io::Error::new(e.kind(), format!("{name} data: {e}")),
            }
        })
    }
}

const STOPPED: &str = "stopped on request";

/// A reader that counts the bytes it hands on (one atomic add per read call: a chunk's worth).
struct Counted<R> {
    inner: R,
    progress: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if !crate::progress::advance(Some(&self.progress), n as u64) {
            // Not `Interrupted`, which readers retry.
            return Err(io::Error::other(STOPPED));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn compressed(kind: Compression, data: &[u8]) -> Vec<u8> {
        match kind {
            Compression::None => data.to_vec(),
            Compression::Gzip => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(data).unwrap();
                e.finish().unwrap()
            }
            Compression::Zstd => zstd::stream::encode_all(data, 1).unwrap(),
            Compression::Bzip2 => {
                let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
                e.write_all(data).unwrap();
                e.finish().unwrap()
            }
            Compression::Xz => {
                let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
                e.write_all(data).unwrap();
                e.finish().unwrap()
            }
        }
    }

    const ALL: [Compression; 5] = [Compression::None, Compression::Gzip, Compression::Zstd, Compression::Bzip2, Compression::Xz];

    #[test]
    fn every_compression_is_recognised_and_gives_the_bytes_back() {
        let data: Vec<u8> = (0..300_000u32).flat_map(|i| format!("{i},0,4096,R\n").into_bytes()).collect();
        let dir = std::env::temp_dir().join(format!("idlewise-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for kind in ALL {
            // The name says nothing: the magic bytes decide.
            let path = dir.join(format!("trace-{}.txt", kind.name()));
            let bytes = compressed(kind, &data);
            assert_eq!(Compression::of(&bytes), kind);
            // Two members (as `cat a.gz b.gz` makes) read as one stream.
            let mut twice = bytes.clone();
            twice.extend_from_slice(&compressed(kind, &data));
            std::fs::write(&path, &twice).unwrap();
            let mut input = open(&path, None).unwrap();
            assert_eq!(input.compression, kind);
            let mut got = Vec::new();
            input.reader.read_to_end(&mut got).unwrap();
            assert_eq!(got.len(), data.len() * 2, "{}", kind.name());
            assert!(got[..data.len()] == data[..] && got[data.len()..] == data[..], "{}", kind.name());
            // Cut short, a compressed file is an error, never fewer records without a word.
            if kind != Compression::None {
                std::fs::write(&path, &bytes[..bytes.len() * 2 / 3]).unwrap();
                let mut input = open(&path, None).unwrap();
                let e = input.reader.read_to_end(&mut Vec::new()).unwrap_err();
                assert!(e.to_string().contains(kind.name()), "{}: {e}", kind.name());
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn inputs_shorter_than_a_magic_number_are_plain() {
        assert_eq!(Compression::of(b""), Compression::None);
        assert_eq!(Compression::of(b"\x1f"), Compression::None);
        assert_eq!(Compression::of(b"BZh0"), Compression::None);
        assert_eq!(Compression::of(b"1,2,3\n"), Compression::None);
    }
}

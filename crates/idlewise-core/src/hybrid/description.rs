//! A hybrid disk described in TOML by naming its parts, so a user can model the seed's emulated
//! disk or a shipping SSHD without writing a new device model:
//!
//! ```toml
//! name = "seed003-e7k100-ultra-ii"
//! disk = "hitachi-travelstar-e7k100"   # a catalog name or a device TOML path
//! flash = "sandisk-ultra-ii-cf"
//! nvcache = "64MiB"                    # or "inf"
//! dram = "16MiB"
//! flush_when = "full"                  # optional defaults for a run
//! flush_algorithm = 4
//! policy = "experts"
//! ```
//!
//! The parts are resolved by the caller (the catalog lives with the Python package); this module
//! checks everything else.

use serde::Deserialize;

use super::engine::FlushWhen;
use super::flush::FlushAlgorithm;
use crate::error::{toml_location, Error, Result};
use crate::units::parse_size_bytes;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HybridFile {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    source: String,
    #[serde(default)]
    assumptions: Vec<String>,
    disk: String,
    flash: String,
    nvcache: String,
    dram: String,
    flush_when: Option<String>,
    flush_algorithm: Option<u32>,
    policy: Option<String>,
}

/// A checked hybrid description. `disk` and `flash` are as written (names or paths).
#[derive(Debug, Clone, PartialEq)]
pub struct HybridDescription {
    pub name: String,
    pub description: String,
    pub source: String,
    pub assumptions: Vec<String>,
    pub disk: String,
    pub flash: String,
    /// `None`: unbounded.
    pub nvcache_bytes: Option<u64>,
    pub dram_bytes: u64,
    pub flush_when: Option<FlushWhen>,
    pub flush_algorithm: Option<FlushAlgorithm>,
    pub policy: Option<String>,
}

impl HybridDescription {
    pub fn from_toml(text: &str, origin: &str) -> Result<HybridDescription> {
        let file: HybridFile = toml::from_str(text).map_err(|e| Error::hybrid(origin, toml_location(text, &e), e.message()))?;
        let nonempty = |field: &str, value: &str| -> Result<()> {
            if value.trim().is_empty() {
                return Err(Error::hybrid(origin, field, "must not be empty"));
            }
            Ok(())
        };
        nonempty("name", &file.name)?;
        nonempty("disk", &file.disk)?;
        nonempty("flash", &file.flash)?;
        let size = |field: &str, text: &str| parse_size_bytes(text).map_err(|m| Error::hybrid(origin, field, m));
        let nvcache_bytes = size("nvcache", &file.nvcache)?;
        let dram_bytes = size("dram", &file.dram)?.ok_or_else(|| Error::hybrid(origin, "dram", "the DRAM buffer must have a size; 'inf' is for the NVCache only"))?;
        let flush_when = file
            .flush_when
            .as_deref()
            .map(|w| FlushWhen::parse(w).map_err(|m| Error::hybrid(origin, "flush_when", m)))
            .transpose()?;
        let flush_algorithm = file
            .flush_algorithm
            .map(|n| FlushAlgorithm::from_number(n).map_err(|m| Error::hybrid(origin, "flush_algorithm", m)))
            .transpose()?;
        Ok(HybridDescription {
            name: file.name,
            description: file.description,
            source: file.source,
            assumptions: file.assumptions,
            disk: file.disk,
            flash: file.flash,
            nvcache_bytes,
            dram_bytes,
            flush_when,
            flush_algorithm,
            policy: file.policy,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = "name = \"x\"\ndisk = \"d\"\nflash = \"f\"\nnvcache = \"64MiB\"\ndram = \"16MiB\"\nflush_when = \"full\"\nflush_algorithm = 4\n";

    #[test]
    fn reads_sizes_and_defaults() {
        let d = HybridDescription::from_toml(SEED, "t").unwrap();
        assert_eq!(d.nvcache_bytes, Some(64 << 20));
        assert_eq!(d.dram_bytes, 16 << 20);
        assert_eq!(d.flush_when, Some(FlushWhen::Full));
        assert_eq!(d.flush_algorithm, Some(FlushAlgorithm::SortedMerged));
        let inf = HybridDescription::from_toml(&SEED.replace("\"64MiB\"", "\"inf\""), "t").unwrap();
        assert_eq!(inf.nvcache_bytes, None);
    }

    #[test]
    fn errors_name_the_field() {
        for (edit, field) in [
            (("flush_algorithm = 4", "flush_algorithm = 5"), "flush_algorithm"),
            (("\"16MiB\"", "\"inf\""), "dram"),
            (("\"64MiB\"", "\"64Mb\""), "nvcache"),
            (("flush_when = \"full\"", "flush_when = \"never\""), "flush_when"),
            (("disk = \"d\"", "disk = \" \""), "disk"),
            (("name = \"x\"", "name = \"x\"\nnvcach = 1"), "line 2"),
        ] {
            let err = HybridDescription::from_toml(&SEED.replace(edit.0, edit.1), "t.toml").unwrap_err().to_string();
            assert!(err.starts_with(&format!("hybrid description t.toml: {field}")), "{err}");
        }
    }
}

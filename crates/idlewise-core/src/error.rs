//! One error type for the engine. Every variant names what was wrong and where, so that the
//! Python layer can point at a file, line or field without guessing.

use thiserror::Error;

pub type Result<T> = std::result::Result<T, Error>;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// A device description is malformed or physically impossible.
    #[error("device {source_name}: {field}: {message}")]
    Device { source_name: String, field: String, message: String },

    /// A policy spec string could not be understood or does not fit the device.
    #[error("policy '{spec}': {message}")]
    PolicySpec { spec: String, message: String },

    /// A trace record is invalid. `index` is the 0-based record position in the columns.
    #[error("record {index}, field '{field}': {message}")]
    TraceRecord { index: usize, field: &'static str, message: String },

    /// A trace as a whole is unusable (empty, columns of different lengths, ...).
    #[error("trace: {0}")]
    Trace(String),

    /// A hybrid disk description (its disk, flash and sizes) is malformed.
    #[error("hybrid description {source_name}: {field}: {message}")]
    Hybrid { source_name: String, field: String, message: String },

    /// A trace file could not be read: the message names the line and field.
    #[error("{0}")]
    Read(String),

    /// A run option is out of range.
    #[error("option '{option}': {message}")]
    Option { option: String, message: String },

    /// The one who drew the progress bar asked the run to stop (`progress::STOP`).
    #[error("stopped on request")]
    Stopped,
}

impl Error {
    pub(crate) fn device(source_name: &str, field: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Device { source_name: source_name.to_string(), field: field.into(), message: message.into() }
    }
    pub(crate) fn hybrid(source_name: &str, field: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Hybrid { source_name: source_name.to_string(), field: field.into(), message: message.into() }
    }
    pub(crate) fn spec(spec: &str, message: impl Into<String>) -> Self {
        Error::PolicySpec { spec: spec.to_string(), message: message.into() }
    }
}

/// Where a TOML parse error is, as a user finds it in the file: `line N`, or `document`.
pub(crate) fn toml_location(text: &str, e: &toml::de::Error) -> String {
    e.span()
        .map(|span| format!("line {}", text[..span.start.min(text.len())].matches('\n').count() + 1))
        .unwrap_or_else(|| "document".to_string())
}

/// The known name closest to a mistyped one, where one is close enough to be what was meant:
/// within two edits, or a third of the word's length for long names (`timout` → `timeout`,
/// `hitachi-travelstar-5k32` → `hitachi-travelstar-5k320`). Errors append it as "did you mean".
pub fn closest<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = 2.max(word.chars().count() / 3);
    known
        .into_iter()
        .map(|name| (edit_distance(&word.to_lowercase(), &name.to_lowercase()), name))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, name)| name)
}

/// " (did you mean 'X'?)" for the closest known name, or nothing.
pub fn did_you_mean<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, known).map_or(String::new(), |name| format!(" (did you mean '{name}'?)"))
}

/// Levenshtein distance, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            current[j + 1] = (previous[j] + usize::from(ca != cb)).min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod closest_tests {
    use super::*;

    #[test]
    fn near_misses_are_suggested_and_far_ones_are_not() {
        let families = ["always-on", "timeout", "hd-idle", "stpm", "experts", "oracle"];
        assert_eq!(closest("timout", families), Some("timeout"));
        assert_eq!(closest("Oracle", families), Some("oracle"));
        assert_eq!(closest("stmp", families), Some("stpm"));
        assert_eq!(closest("banana", families), None);
        assert_eq!(closest("hitachi-travelstar-5k32", ["hitachi-travelstar-5k320", "hitachi-microdrive-1gb"]), Some("hitachi-travelstar-5k320"));
        assert_eq!(did_you_mean("knb", ["knob", "base"]), " (did you mean 'knob'?)");
        assert_eq!(did_you_mean("zzz", ["knob", "base"]), "");
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}

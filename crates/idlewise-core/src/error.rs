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

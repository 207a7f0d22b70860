//! How many cases a property test draws, and from which seed: one home for every property test
//! of the workspace (`tests/common/mod.rs` builds proptest's configuration from it).
//!
//! A run of the test suite draws the same cases every time (a fixed seed), so a landing never
//! hinges on luck; `tools/deep-check` scales the counts (`IDLEWISE_PROPERTY_SCALE`) and draws
//! fresh seeds (proptest's own `PROPTEST_RNG_SEED`), persisting whatever fails.

/// The seed every property test draws from, unless `PROPTEST_RNG_SEED` names another.
pub const PROPERTY_SEED: u64 = 0x1D1E_3715_E000_0060;

/// `ci_cases` scaled by `IDLEWISE_PROPERTY_SCALE` (a positive whole number; 1 when unset).
/// Each call is one property test starting: where `IDLEWISE_PROPERTY_TALLY` names a file, its
/// count is appended there (the deep check adds them up for its report).
pub fn property_cases(ci_cases: u32) -> u32 {
    let cases = ci_cases.saturating_mul(property_scale());
    if let Some(tally) = std::env::var_os("IDLEWISE_PROPERTY_TALLY") {
        use std::io::Write;
        // One write of the whole line: tests run on several threads, and O_APPEND keeps a
        // single write whole, not several.
        let line = format!("rust {cases}\n");
        let appended = std::fs::OpenOptions::new().create(true).append(true).open(&tally).and_then(|mut f| f.write_all(line.as_bytes()));
        appended.unwrap_or_else(|e| panic!("IDLEWISE_PROPERTY_TALLY {tally:?}: {e}"));
    }
    cases
}

/// `IDLEWISE_PROPERTY_SCALE`, or 1. A value that is not a positive whole number stops the run:
/// a deep check that silently ran the CI's counts would report what it did not do.
pub fn property_scale() -> u32 {
    match std::env::var("IDLEWISE_PROPERTY_SCALE") {
        Err(_) => 1,
        Ok(text) => match text.trim().parse::<u32>() {
            Ok(scale) if scale > 0 => scale,
            _ => panic!("IDLEWISE_PROPERTY_SCALE must be a positive whole number, got {text:?}"),
        },
    }
}

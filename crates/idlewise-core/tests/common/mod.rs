//! What the integration tests share: proptest's configuration (fixed seed, case counts scaled
//! by the deep check, failures persisted beside each test file).

use proptest::test_runner::{Config, FileFailurePersistence, RngSeed};

/// `cases` cases (scaled by `IDLEWISE_PROPERTY_SCALE`) drawn from the fixed seed, unless
/// `PROPTEST_RNG_SEED` names another (proptest reads its variables after this); failures
/// persisted in `<test file>.proptest-regressions`, replayed first by every run.
#[allow(dead_code)] // (each test file uses what it needs)
pub fn config(cases: u32) -> Config {
    Config {
        cases: idlewise_core::testing::property_cases(cases),
        rng_seed: RngSeed::Fixed(idlewise_core::testing::PROPERTY_SEED),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..Config::default()
    }
}

//! Helpers shared by the integration tests.

use proptest::test_runner::{Config, RngAlgorithm, RngSeed};

/// A property-test configuration that runs the same `cases` every time and
/// writes nothing: a fixed RNG seed (so `cargo test` cannot fail one run in
/// forty) and no failure persistence (so a failure never dirties the tree;
/// a failing case is turned into a named `#[test]` instead).
pub fn deterministic(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(0x5EED_5C17),
        ..Config::default()
    }
}

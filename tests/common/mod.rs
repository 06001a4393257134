//! Helpers shared by the integration tests. Each test crate uses some of
//! them, so the others are dead code there.
#![allow(dead_code)]

use proptest::test_runner::{Config, RngAlgorithm, RngSeed};
use ratatui::backend::TestBackend;
use ratatui::{Frame, Terminal};

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

/// What `draw` puts on a `width` × `height` test terminal, one line per row.
pub fn screen_text(width: u16, height: u16, draw: impl FnOnce(&mut Frame<'_>)) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(draw).unwrap();
    let buffer = terminal.backend().buffer();
    let area = buffer.area;
    let mut out = String::new();
    for y in 0..area.height {
        for x in 0..area.width {
            out.push_str(buffer[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

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

/// A shipped creature by its built-in name, parsed from the text built into
/// the binary.
pub fn shipped_creature(name: &str) -> skitter::creature::CreatureSpec {
    let built_in = skitter::config::CREATURES
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no shipped creature {name}"));
    skitter::config::parse_creature(built_in.name, built_in.text).unwrap()
}

/// A shipped terrain by its built-in name.
pub fn shipped_terrain(name: &str) -> skitter::terrain::TerrainSpec {
    let built_in = skitter::config::TERRAINS
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no shipped terrain {name}"));
    skitter::config::parse_terrain(built_in.name, built_in.text).unwrap()
}

/// The shipped terrains with no walls: open noise ground, where every
/// creature (climber or not) must walk the quality drive at speed. The
/// solid terrains (wall, overhang, canyon) have scenario tests of their own.
pub const OPEN_GROUND: [&str; 4] = ["hills", "flat", "dunes", "rough"];

/// One creature's headless run on `terrain` driven by `script`, one thread:
/// its summary.
pub fn drive(
    creature: skitter::creature::CreatureSpec,
    terrain: skitter::terrain::TerrainSpec,
    script: &str,
) -> skitter::sim::Summary {
    let run = skitter::headless::HeadlessRun {
        creature,
        terrain,
        solver: None,
        length: None,
        script: Some(skitter::config::parse_script("drive", script).unwrap()),
        count: 1,
        scene: None,
        threads: 1,
    };
    skitter::headless::run(&run, None).unwrap()
}

/// A world of one `creature` on `terrain`, driven forward at full throttle.
pub fn walking_world(
    creature: skitter::creature::CreatureSpec,
    terrain: skitter::terrain::TerrainSpec,
) -> skitter::sim::World {
    let field = std::sync::Arc::new(skitter::terrain::Heightfield::generate(&terrain));
    let mut world = skitter::sim::World::new(field, creature, 1);
    world
        .apply(skitter::sim::Command::Drive {
            forward: 1.0,
            turn: 0.0,
        })
        .unwrap();
    world
}

/// Each error of `err` (itself, then its further ones) as its line and
/// field: where a file's errors point, in the order they are reported.
pub fn error_places(err: &skitter::config::ConfigError) -> Vec<(Option<usize>, String)> {
    err.all()
        .map(|e| (e.line, e.field.clone().unwrap_or_default()))
        .collect()
}

/// A fresh directory `skitter-{name}-{pid}` in the system's temp folder,
/// for files a test writes (the process id keeps parallel runs apart).
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("skitter-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

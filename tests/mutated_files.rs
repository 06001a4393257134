//! Trust in `check`: randomly mutated shipped files are either refused with a
//! located message (by `check` and by the runner alike, since both use one
//! loader) or they run 5 s sanely. Deterministic: a fixed RNG seed and case
//! count, and nothing is persisted.

use std::sync::OnceLock;

use proptest::prelude::*;
use std::cell::Cell;

use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use skitter::config::{
    CREATURES, ConfigError, TERRAINS, check_file_with_warnings, parse_creature_with_warnings,
    parse_terrain,
};
use skitter::creature::CreatureSpec;
use skitter::headless::{self, HeadlessRun, RunLength};
use skitter::sim::Summary;
use skitter::terrain::TerrainSpec;

/// How a file is broken: a number made extreme, a value of the wrong type, a
/// line deleted or duplicated, or bad characters inserted.
#[derive(Debug, Clone)]
enum Mutation {
    Number { which: usize, value: String },
    Scale { which: usize, factor: f64 },
    Retype { which: usize, value: String },
    DeleteLine(usize),
    DuplicateLine(usize),
    Insert { at: usize, text: String },
}

fn extreme_number() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("0".to_string()),
        Just("-1".to_string()),
        Just("1e-8".to_string()),
        Just("1e-30".to_string()),
        Just("1e8".to_string()),
        Just("1e30".to_string()),
        Just("3.4e38".to_string()),
        Just("nan".to_string()),
        Just("inf".to_string()),
        Just("-inf".to_string()),
        Just("-0.0".to_string()),
        Just("9223372036854775807".to_string()),
        (-3.0f64..3.0).prop_map(|e| format!("{}", 10f64.powf(e))),
        (-50.0f64..50.0).prop_map(|v| format!("{v:.3}")),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), extreme_number()).prop_map(|(which, value)| Mutation::Number { which, value }),
        4 => (any::<usize>(), 0.5f64..2.0).prop_map(|(which, factor)| Mutation::Scale { which, factor }),
        1 => (any::<usize>(), prop_oneof![
            Just("\"x\"".to_string()),
            Just("true".to_string()),
            Just("[]".to_string()),
            Just("[1.0]".to_string()),
            Just("{}".to_string()),
        ]).prop_map(|(which, value)| Mutation::Retype { which, value }),
        1 => any::<usize>().prop_map(Mutation::DeleteLine),
        1 => any::<usize>().prop_map(Mutation::DuplicateLine),
        1 => (any::<usize>(), prop_oneof![
            Just("\u{1b}]0;pwned\u{7}".to_string()),
            Just("\u{0}".to_string()),
            Just("]]".to_string()),
            Just("=".to_string()),
            Just("é".to_string()),
        ]).prop_map(|(at, text)| Mutation::Insert { at, text }),
    ]
}

/// Byte ranges of the numbers in a TOML text (outside comments).
fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let code = line.split('#').next().unwrap_or("");
        let bytes = code.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let starts = bytes[i].is_ascii_digit()
                || (bytes[i] == b'-' && i + 1 < bytes.len() && bytes[i + 1].is_ascii_digit());
            let inside_word =
                i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
            if starts && !inside_word && code[..i].contains('=') {
                let start = i;
                i += 1;
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || b".-+_".contains(&bytes[i]))
                {
                    i += 1;
                }
                spans.push((offset + start, offset + i));
            } else {
                i += 1;
            }
        }
        offset += line.len();
    }
    spans
}

/// Byte ranges of the values after `=` (whole value to the end of the line or comment).
fn value_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let code = line.split('#').next().unwrap_or("").trim_end();
        if let Some(eq) = code.find('=') {
            spans.push((offset + eq + 1, offset + code.len()));
        }
        offset += line.len();
    }
    spans
}

fn apply(text: &str, mutation: &Mutation) -> String {
    let replace = |spans: Vec<(usize, usize)>, which: usize, value: &str| {
        if spans.is_empty() {
            return text.to_string();
        }
        let (a, b) = spans[which % spans.len()];
        format!("{}{}{}", &text[..a], value, &text[b..])
    };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    match mutation {
        Mutation::Number { which, value } => replace(number_spans(text), *which, value),
        Mutation::Scale { which, factor } => {
            let spans = number_spans(text);
            if spans.is_empty() {
                return text.to_string();
            }
            let (a, b) = spans[which % spans.len()];
            match text[a..b].parse::<f64>() {
                // Integers stay integers (seeds, octaves, iteration counts).
                Ok(v) if !text[a..b].contains(['.', 'e']) => {
                    replace(spans, *which, &format!("{}", (v * factor).round() as i64))
                }
                Ok(v) => replace(spans, *which, &format!("{:.4}", v * factor)),
                Err(_) => text.to_string(),
            }
        }
        Mutation::Retype { which, value } => {
            replace(value_spans(text), *which, &format!(" {value}"))
        }
        Mutation::DeleteLine(k) => {
            let k = k % lines.len();
            lines
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != k)
                .map(|(_, l)| *l)
                .collect()
        }
        Mutation::DuplicateLine(k) => {
            let k = k % lines.len();
            let mut out: Vec<&str> = lines.clone();
            out.insert(k, lines[k]);
            out.concat()
        }
        Mutation::Insert { at, text: inserted } => {
            let mut at = at % (text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            format!("{}{}{}", &text[..at], inserted, &text[at..])
        }
    }
}

/// Where the mutated files are written for `check`: one directory per test run.
fn scratch_dir() -> &'static std::path::Path {
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("skitter-mutated-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

/// A refusal must say where: the file, and a line or at least the field.
fn assert_located(err: &ConfigError, name: &str) {
    assert_eq!(err.file, name, "{err}");
    assert!(
        err.line.is_some() || err.field.is_some(),
        "unlocated: {err}"
    );
    assert!(!err.message.is_empty(), "{err}");
}

/// `check` (through a real file) must agree with the parser the runner uses.
fn check_agrees(name: &str, text: &str, parsed_ok: bool) {
    let path = scratch_dir().join(name);
    std::fs::write(&path, text).unwrap();
    let checked = check_file_with_warnings(&path.to_string_lossy());
    assert_eq!(
        checked.is_ok(),
        parsed_ok,
        "check and the runner disagree on:\n{text}\n{checked:?}"
    );
}

/// Five seconds of walking must be sane: no NaN, every figure finite, bones
/// kept, feet planted, the body above the ground.
fn assert_sane(summary: &Summary, text: &str) {
    let figures = [
        summary.foot_slip_max,
        summary.foot_gap_max,
        summary.penetration_max,
        summary.ik_error_max,
        summary.bone_error_max,
        summary.body_height_min,
        summary.tilt_error_max_deg,
    ];
    assert_eq!(summary.nan_count, 0, "{summary:?}\n{text}");
    assert!(figures.iter().all(|f| f.is_finite()), "{summary:?}\n{text}");
    assert!(
        summary.distance.is_finite() && summary.displacement.is_finite(),
        "{summary:?}"
    );
    assert!(summary.bone_error_max <= 1e-4, "{summary:?}\n{text}");
    assert!(summary.foot_slip_max <= 5e-3, "{summary:?}\n{text}");
    assert!(summary.body_height_min > 0.0, "{summary:?}\n{text}");
}

fn run_five_seconds(creature: CreatureSpec, terrain: TerrainSpec) -> Summary {
    let run = HeadlessRun {
        creature,
        terrain,
        solver: None,
        length: Some(RunLength::Seconds(5.0)),
        script: None,
        count: 1,
        scene: None,
        threads: 1,
    };
    headless::run(&run, None).expect("a validated creature runs")
}

/// The RNG seed is fixed so every run tests the same files; setting
/// `SKITTER_FUZZ_SEED` shifts it for an exploratory run (a failure found that
/// way belongs in a named test).
fn runner(cases: u32, seed: u8) -> TestRunner {
    let shift = std::env::var("SKITTER_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse::<u8>().ok())
        .unwrap_or(0);
    let seed = seed.wrapping_add(shift);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]),
    )
}

fn hills() -> TerrainSpec {
    parse_terrain("hills", TERRAINS[0].text).unwrap()
}

/// Cases per creature file; with five files this is the case count CI runs.
const CREATURE_CASES: u32 = 300;
/// Cases per terrain file.
const TERRAIN_CASES: u32 = 150;

#[test]
fn mutated_creature_files_are_refused_with_a_location_or_walk_sanely() {
    let (refused, walked) = (Cell::new(0u32), Cell::new(0u32));
    for (k, built_in) in CREATURES.iter().enumerate() {
        let name = format!("{}-mutated.toml", built_in.name);
        runner(CREATURE_CASES, k as u8 + 1)
            .run(&prop::collection::vec(mutation(), 1..=3), |mutations| {
                let text = mutations
                    .iter()
                    .fold(built_in.text.to_string(), |t, m| apply(&t, m));
                let parsed = parse_creature_with_warnings(&name, &text);
                check_agrees(&name, &text, parsed.is_ok());
                match parsed {
                    Err(err) => {
                        assert_located(&err, &name);
                        refused.set(refused.get() + 1);
                    }
                    Ok((creature, _)) => {
                        assert_sane(&run_five_seconds(creature, hills()), &text);
                        walked.set(walked.get() + 1);
                    }
                }
                Ok(())
            })
            .unwrap();
    }
    // Both outcomes must be exercised, or the property proves nothing.
    let (refused, walked) = (refused.get(), walked.get());
    eprintln!("creature files: {refused} refused with a location, {walked} walked sanely");
    assert!(
        refused >= 20 && walked >= 20,
        "refused {refused}, walked {walked}"
    );
}

#[test]
fn mutated_terrain_files_are_refused_with_a_location_or_carry_the_spider_sanely() {
    let spider = skitter::config::default_creature();
    let (refused, walked) = (Cell::new(0u32), Cell::new(0u32));
    for (k, built_in) in TERRAINS.iter().enumerate() {
        let name = format!("{}-mutated.toml", built_in.name);
        runner(TERRAIN_CASES, k as u8 + 101)
            .run(&prop::collection::vec(mutation(), 1..=2), |mutations| {
                let text = mutations
                    .iter()
                    .fold(built_in.text.to_string(), |t, m| apply(&t, m));
                let parsed = parse_terrain(&name, &text);
                check_agrees(&name, &text, parsed.is_ok());
                match parsed {
                    Err(err) => {
                        assert_located(&err, &name);
                        refused.set(refused.get() + 1);
                    }
                    Ok(terrain) => {
                        assert_sane(&run_five_seconds(spider.clone(), terrain), &text);
                        walked.set(walked.get() + 1);
                    }
                }
                Ok(())
            })
            .unwrap();
    }
    // Both outcomes must be exercised, or the property proves nothing.
    let (refused, walked) = (refused.get(), walked.get());
    eprintln!("terrain files: {refused} refused with a location, {walked} walked sanely");
    assert!(
        refused >= 20 && walked >= 20,
        "refused {refused}, walked {walked}"
    );
}

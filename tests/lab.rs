//! `skitter lab`: every experiment's rows have the promised fields and sane
//! values, the headline claims hold, and the output is deterministic apart
//! from timings. No test here judges a timing.

use std::process::Command;

use serde_json::Value;
use skitter::ik::SolverKind;
use skitter::lab::{self, Options, Row, Table};

fn options(cases: usize) -> Options {
    Options {
        seed: 3,
        cases: Some(cases),
        repeats: 1,
    }
}

/// The table's rows as JSON objects, each checked to carry `fields`.
fn rows<R: Row>(table: &Table<R>, fields: &[&str]) -> Vec<Value> {
    let parsed: Value = serde_json::from_str(&table.json()).unwrap();
    let rows = parsed.as_array().expect("a JSON array").clone();
    assert!(!rows.is_empty());
    for row in &rows {
        for field in fields {
            assert!(row.get(field).is_some(), "row {row} lacks {field}");
        }
    }
    rows
}

fn num(row: &Value, field: &str) -> f64 {
    row[field]
        .as_f64()
        .unwrap_or_else(|| panic!("{field} in {row}"))
}

fn find<'a>(rows: &'a [Value], pairs: &[(&str, Value)]) -> &'a Value {
    rows.iter()
        .find(|r| pairs.iter().all(|(k, v)| r[*k] == *v))
        .unwrap_or_else(|| panic!("no row with {pairs:?}"))
}

/// The Markdown with every timing cell blanked: what must not change between runs.
fn without_timings<R: Row>(table: &Table<R>, timing_columns: &[&str]) -> String {
    let timing: Vec<usize> = R::COLUMNS
        .iter()
        .enumerate()
        .filter(|(_, c)| timing_columns.contains(c))
        .map(|(i, _)| i)
        .collect();
    table
        .rows
        .iter()
        .map(|r| {
            r.cells()
                .into_iter()
                .enumerate()
                .map(|(i, c)| {
                    if timing.contains(&i) {
                        String::new()
                    } else {
                        c
                    }
                })
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn solvers_table_covers_every_solver_and_fabrik_leads() {
    let table = lab::solvers::run(&options(40)).unwrap();
    let rows = rows(
        &table,
        &[
            "solver",
            "set",
            "mean_iterations",
            "max_iterations",
            "success",
            "median_us",
            "p99_us",
            "us_per_iteration",
        ],
    );
    // Two-bone cannot pose ten bones; every other solver has both sets.
    let expected: Vec<SolverKind> = SolverKind::ALL
        .into_iter()
        .filter(|k| *k != SolverKind::TwoBone)
        .collect();
    assert_eq!(rows.len(), 2 * expected.len());
    for kind in &expected {
        for set in ["reachable", "unreachable"] {
            let row = find(
                &rows,
                &[("solver", kind.name().into()), ("set", set.into())],
            );
            let success = num(row, "success");
            assert!((0.0..=1.0).contains(&success), "{row}");
            assert!(num(row, "median_us") <= num(row, "p99_us"), "{row}");
            assert!(
                num(row, "mean_iterations") <= num(row, "max_iterations"),
                "{row}"
            );
            assert!(num(row, "max_iterations") <= 10_000.0, "{row}");
            assert!(num(row, "us_per_iteration") > 0.0, "{row}");
        }
    }
    let fabrik = find(
        &rows,
        &[("solver", "fabrik".into()), ("set", "reachable".into())],
    );
    assert_eq!(num(fabrik, "success"), 1.0);
    assert!(num(fabrik, "mean_iterations") <= 12.0, "{fabrik}");
    assert_eq!(num(fabrik, "report_iterations"), 15.461);
    let unreachable = find(
        &rows,
        &[("solver", "fabrik".into()), ("set", "unreachable".into())],
    );
    assert_eq!(num(unreachable, "max_iterations"), 1.0);
    assert_eq!(num(unreachable, "success"), 1.0);
    // The report has no gradient-descent figures.
    let gradient = find(
        &rows,
        &[("solver", "gradient".into()), ("set", "reachable".into())],
    );
    assert!(gradient["report_iterations"].is_null());
}

#[test]
fn constrained_fabrik_keeps_every_limit_and_reaches_its_targets() {
    let table = lab::constraints::run(&options(100)).unwrap();
    let rows = rows(
        &table,
        &[
            "solver",
            "constrained",
            "mean_iterations",
            "median_us",
            "success",
            "violations",
        ],
    );
    assert_eq!(rows.len(), 4);
    for solver in ["fabrik", "ccd"] {
        let limited = find(
            &rows,
            &[("solver", solver.into()), ("constrained", true.into())],
        );
        assert_eq!(num(limited, "violations"), 0.0, "{limited}");
        let free = find(
            &rows,
            &[("solver", solver.into()), ("constrained", false.into())],
        );
        // The cones matter: free solves bend past them.
        assert!(num(free, "violations") > 0.0, "{free}");
        assert_eq!(num(free, "success"), 1.0, "{free}");
    }
    let fabrik = find(
        &rows,
        &[("solver", "fabrik".into()), ("constrained", true.into())],
    );
    assert!(num(fabrik, "success") >= 0.99, "{fabrik}");
}

#[test]
fn tracking_is_deterministic_and_fabrik_tracks_closely() {
    let a = lab::track::run(&options(300)).unwrap();
    let b = lab::track::run(&options(300)).unwrap();
    assert_eq!(a.markdown(), b.markdown(), "no timings here: identical");
    let rows = rows(
        &a,
        &[
            "solver",
            "error_mean",
            "iterations_mean",
            "joint_jump_max",
            "reversals",
        ],
    );
    assert_eq!(rows.len(), 5);
    for row in &rows {
        assert!(num(row, "error_mean").is_finite() && num(row, "error_mean") >= 0.0);
        assert!(num(row, "iterations_mean") <= 100.0, "{row}");
        // A 900 mm chain whose target moves a few centimetres per step.
        assert!(num(row, "joint_jump_max") < 450.0, "{row}");
    }
    let fabrik = find(&rows, &[("solver", "fabrik".into())]);
    // Well under the 0.09 mm tolerance on average.
    assert!(num(fabrik, "error_mean") < 0.09, "{fabrik}");
}

#[test]
fn baked_spider_floats_on_hills_and_the_ik_spider_does_not() {
    let table = lab::baked::run(&options(1)).unwrap();
    let rows = rows(
        &table,
        &[
            "terrain", "mode", "gap_mean", "gap_max", "slip_max", "step_us",
        ],
    );
    assert_eq!(rows.len(), 2 * skitter::config::TERRAINS.len());
    let hills_baked = find(
        &rows,
        &[("terrain", "hills".into()), ("mode", "baked".into())],
    );
    let hills_ik = find(&rows, &[("terrain", "hills".into()), ("mode", "ik".into())]);
    assert!(num(hills_baked, "gap_max") > 0.01, "{hills_baked}");
    assert!(num(hills_ik, "gap_max") <= 0.01, "{hills_ik}");
    // On the ground it was recorded on, the clip is the IK walk.
    let flat_baked = find(
        &rows,
        &[("terrain", "flat".into()), ("mode", "baked".into())],
    );
    assert!(num(flat_baked, "gap_max") <= 0.01, "{flat_baked}");
    assert!(num(flat_baked, "slip_max") <= 0.01, "{flat_baked}");
    for row in &rows {
        assert!(num(row, "gap_mean") <= num(row, "gap_max"), "{row}");
        assert!(num(row, "step_us") > 0.0, "{row}");
    }
    let timings = ["µs/step"];
    let again = lab::baked::run(&options(1)).unwrap();
    assert_eq!(
        without_timings(&table, &timings),
        without_timings(&again, &timings)
    );
}

#[test]
fn recorded_clip_is_one_cycle_with_every_leg_planted_some_time() {
    let clip = lab::baked::record("spider").unwrap();
    assert!(clip.frames.len() > 10, "{}", clip.frames.len());
    assert!((clip.speed - 0.9).abs() < 0.05, "speed {}", clip.speed);
    assert!(
        (clip.ride_height - 0.32).abs() < 0.03,
        "{}",
        clip.ride_height
    );
    for leg in 0..clip.frames[0].legs.len() {
        assert!(clip.frames.iter().any(|f| f.planted[leg]));
        assert!(clip.frames.iter().any(|f| !f.planted[leg]));
    }
}

#[test]
fn the_arm_presses_buttons_without_breaking_its_elbow() {
    let table = lab::reach::run(&options(6)).unwrap();
    let rows = rows(
        &table,
        &["solver", "buttons", "hit", "time_mean", "joint_jump_max"],
    );
    assert_eq!(rows.len(), 5, "every solver but two-bone");
    for row in &rows {
        assert_eq!(num(row, "buttons"), 6.0);
        assert!(num(row, "hit") <= 6.0);
        // Joint limits hold in every frame for every solver.
        assert!(num(row, "limit_violation_max") <= 0.01, "{row}");
        if num(row, "hit") > 0.0 {
            // The target takes 0.5 s to arrive; no arrival can beat it by much.
            let time = num(row, "time_mean");
            assert!((0.3..=0.5).contains(&time), "{row}");
        }
    }
    let ccd = find(&rows, &[("solver", "ccd".into())]);
    assert_eq!(num(ccd, "hit"), 6.0, "{ccd}");
}

#[test]
fn buttons_lie_on_the_wall_within_reach() {
    let arm = lab::reach::arm().unwrap();
    let buttons = lab::reach::buttons(9, 50, arm.reach());
    assert_eq!(buttons.len(), 50);
    for b in buttons {
        assert_eq!(b.x, lab::reach::WALL_X);
        assert!(b.length() <= 0.9 * arm.reach());
    }
    assert!(
        arm.limit_violation() < 1e-6,
        "the rest pose keeps its limits"
    );
}

#[test]
fn bad_options_are_refused() {
    let zero = Options {
        cases: Some(0),
        ..Options::default()
    };
    let err = lab::track::run(&zero).unwrap_err();
    assert_eq!(err.to_string(), "--cases: must be from 1 to 1000000, got 0");
    let no_repeats = Options {
        repeats: 0,
        ..Options::default()
    };
    assert!(lab::solvers::run(&no_repeats).is_err());
}

fn skitter(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_skitter"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn cli_prints_markdown_or_json_and_refuses_bad_options_with_exit_2() {
    let out = skitter(&["lab", "track", "--cases", "50", "--seed", "4"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("### Tracking"), "{text}");
    assert!(text.contains("| solver | error mean (mm) |"), "{text}");
    let out = skitter(&["lab", "reach", "--json", "--cases", "2"]);
    assert!(out.status.success());
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 5);
    let out = skitter(&["lab", "solvers", "--cases", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--cases: must be from 1"), "{err}");
}

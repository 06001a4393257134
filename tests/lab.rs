//! `skitter lab`: every experiment's rows have the promised fields and sane
//! values, the headline claims hold, and the output is deterministic apart
//! from timings. No test here judges a timing.

use std::process::Command;

use serde_json::Value;
use skitter::ik::SolverKind;
use skitter::lab::{self, Options, Row, Table};

fn options(cases: usize) -> Options {
    Options {
        seed: Some(3),
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
    // Every terrain without walls (the clip replays heights).
    assert_eq!(rows.len(), 2 * 4);
    assert!(
        rows.iter().all(|r| num(r, "walks") == 1.0),
        "--cases sets the walks"
    );
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
    let table = lab::reach::run(&options(6), None).unwrap();
    let rows = rows(
        &table,
        &[
            "solver",
            "buttons",
            "reachable",
            "hit",
            "time_mean",
            "joint_jump_max",
        ],
    );
    assert_eq!(rows.len(), 5, "every solver but two-bone");
    for row in &rows {
        assert_eq!(num(row, "buttons"), 6.0);
        // Seeded buttons lie within 90% of the reach and the limits allow them.
        assert_eq!(num(row, "reachable"), 6.0, "{row}");
        assert!(num(row, "hit") <= num(row, "reachable"));
        // Joint limits hold in every frame for every solver.
        assert!(num(row, "limit_violation_max") <= 0.01, "{row}");
        if num(row, "hit") > 0.0 {
            // The target takes 0.5 s to arrive; no arrival can beat it by much.
            let time = num(row, "time_mean");
            assert!((0.3..=0.5).contains(&time), "{row}");
        }
    }
    for solver in ["fabrik", "ccd", "dls"] {
        let row = find(&rows, &[("solver", solver.into())]);
        assert_eq!(num(row, "hit"), 6.0, "{row}");
    }
}

#[test]
fn constrained_fabrik_presses_every_reachable_button() {
    // The default run (seed 1, 12 buttons) and a longer one: before FABRIK
    // placed the hinged elbow with both its bones in view it pressed 6 of
    // the 12 and 17 of these 40, crawling a few millimetres a frame.
    for (seed, count) in [(1, 12), (5, 40)] {
        let arm = lab::reach::arm().unwrap();
        let buttons = lab::reach::buttons(seed, count, arm.reach());
        let row = lab::reach::press(SolverKind::Fabrik, &arm, &buttons);
        assert_eq!(row.hit, count, "seed {seed}: {row:?}");
        assert!(row.limit_violation_max <= 0.01, "{row:?}");
    }
}

#[test]
fn a_presser_runs_frame_by_frame_and_ends_after_the_last_button() {
    let arm = lab::reach::arm().unwrap();
    let buttons = lab::reach::buttons(2, 2, arm.reach());
    let mut presser = lab::reach::Presser::new(SolverKind::Ccd, &arm, buttons.clone());
    let frames: Vec<_> = std::iter::from_fn(|| presser.step()).collect();
    // Two presses of 0.5 s out and 0.5 s back at 60 frames a second.
    assert_eq!(frames.len(), 2 * 60);
    assert!(presser.finished());
    assert_eq!(frames[29].target, buttons[0], "out in 30 frames");
    assert_eq!(frames[59].target, arm.end(), "and back to ready");
    assert_eq!(frames[60].button, 1);
    assert_eq!(frames.iter().filter(|f| f.arrived.is_some()).count(), 2);
    presser.restart();
    assert!(!presser.finished());
    assert_eq!(presser.current_button(), 0);
    assert!(
        presser
            .posing_mut()
            .set_solver(SolverKind::TwoBone)
            .is_err(),
        "two-bone cannot pose three bones"
    );
    assert_eq!(presser.posing().kind(), SolverKind::Ccd);
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

/// A file in the test's own temporary directory.
fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("skitter-lab-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn reach_presses_the_buttons_of_a_file_and_counts_those_out_of_reach() {
    let path = temp_file(
        "three.toml",
        "[[buttons]]\ny = 0.1\nz = -0.2\n\n[[buttons]]\ny = 0.3\nz = 0.25\n\n\
         # 0.9 m across: beyond the arm's 0.66 m reach\n[[buttons]]\ny = 0.0\nz = 0.9\n",
    );
    let out = skitter(&[
        "lab",
        "reach",
        "--json",
        "--buttons",
        path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    for row in rows.as_array().unwrap() {
        assert_eq!(num(row, "buttons"), 3.0);
        assert_eq!(num(row, "reachable"), 2.0, "{row}");
        assert!(num(row, "hit") <= 2.0, "{row}");
    }
    let fabrik = find(rows.as_array().unwrap(), &[("solver", "fabrik".into())]);
    assert_eq!(num(fabrik, "hit"), 2.0, "{fabrik}");
}

#[test]
fn bad_button_files_and_flags_that_do_not_apply_exit_2_with_the_place() {
    let bad = temp_file("bad.toml", "[[buttons]]\ny = 0.1\nz = 20\n");
    let out = skitter(&["lab", "reach", "--buttons", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.toml:3:5: buttons[0].z: must be a number from -2 to 2"),
        "{err}"
    );
    let good = temp_file("one.toml", "[[buttons]]\ny = 0.1\nz = 0\n");
    for flag in ["--seed", "--cases"] {
        let out = skitter(&[
            "lab",
            "reach",
            "--buttons",
            good.to_str().unwrap(),
            flag,
            "3",
        ]);
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("{flag}: does not go with --buttons")),
            "{err}"
        );
    }
    let out = skitter(&["lab", "reach", "--buttons", "/no/such/buttons.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/buttons.toml: cannot read"));
}

#[test]
fn baked_walks_follow_the_seed_and_the_case_count() {
    let run = |seed: u64, cases: usize| {
        let table = lab::baked::run(&Options {
            seed: Some(seed),
            cases: Some(cases),
            repeats: 1,
        })
        .unwrap();
        let hills = table
            .rows
            .iter()
            .find(|r| r.terrain == "hills" && r.mode == "baked")
            .unwrap()
            .clone();
        (table, hills)
    };
    let (a, hills_a) = run(4, 2);
    let (b, hills_b) = run(4, 2);
    let (_, hills_c) = run(5, 2);
    assert_eq!(hills_a.walks, 2);
    assert_eq!(
        (hills_a.gap_mean, hills_a.gap_max),
        (hills_b.gap_mean, hills_b.gap_max)
    );
    assert_ne!(
        hills_a.gap_mean, hills_c.gap_mean,
        "another seed walks elsewhere"
    );
    assert!(a.title.contains("seed 4, 2 walks"), "{}", a.title);
    let timings = ["µs/step"];
    assert_eq!(without_timings(&a, &timings), without_timings(&b, &timings));
    // Every seeded start lies inside the terrains' generated extent.
    for (at, heading) in lab::baked::starts(9, 50) {
        assert!(at.abs().max_element() <= lab::baked::START_RANGE, "{at}");
        assert!((0.0..std::f32::consts::TAU).contains(&heading));
    }
    let err = lab::baked::run(&Options {
        cases: Some(0),
        ..Options::default()
    })
    .unwrap_err();
    assert_eq!(err.to_string(), "--cases: must be from 1 to 1000, got 0");
}

#[test]
fn the_lab_screen_refuses_what_it_cannot_show_with_exit_2() {
    let cases: &[(&[&str], &str)] = &[
        (&["lab"], "name an experiment"),
        (&["lab", "solvers", "--tui"], "`lab solvers` is a table"),
        (
            &["lab", "constraints", "--tui"],
            "`lab constraints` is a table",
        ),
        (&["lab", "--tui", "--json"], "--json does not go with --tui"),
        (
            &["lab", "track", "--tui", "--cases", "5"],
            "--cases does not go with --tui",
        ),
        (
            &["lab", "--tui", "--repeats", "2"],
            "--repeats does not go with --tui",
        ),
        (
            &["lab", "--tui", "--solver", "two-bone"],
            "--solver two-bone cannot pose",
        ),
        (
            &["lab", "track", "--solver", "ccd"],
            "--solver goes with --tui",
        ),
        (
            &["lab", "baked", "--tui", "--seed", "2"],
            "`lab baked --tui` opens the viewer",
        ),
    ];
    for (args, message) in cases {
        let out = skitter(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
    }
    let bad = temp_file("tui-bad.toml", "[[buttons]]\nz = 0\n");
    let out = skitter(&["lab", "reach", "--tui", "--buttons", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing field `y`"));
    // A drive script drives the IK creature; the baked spider plays a clip.
    let out = skitter(&["run", "--baked", "--drive", "forward 1s"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_lab_screen_needs_a_terminal_and_says_where_the_tables_are() {
    // Under the test harness stdout is a pipe, not a terminal.
    for args in [&["lab", "--tui"][..], &["lab", "reach", "--tui"]] {
        let out = skitter(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("needs an interactive terminal"), "{err}");
        assert!(err.contains("skitter lab EXPERIMENT"), "{err}");
    }
}

//! The real `skitter` binary: exit codes, JSON output, error messages.

use std::process::{Command, Output};

fn skitter(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skitter"))
        .args(args)
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn headless_prints_a_summary_with_every_field() {
    let out = skitter(&["headless", "--steps", "240", "--terrain", "flat"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for field in [
        "creature",
        "terrain",
        "solver",
        "steps",
        "dt",
        "distance",
        "displacement",
        "foot_steps",
        "gait_violations",
        "max_lifted_seen",
        "foot_slip_max",
        "foot_gap_max",
        "penetration_max",
        "ik_error_max",
        "ik_error_p99",
        "ik_iterations_mean",
        "bone_error_max",
        "body_height_min",
        "body_height_mean",
        "tilt_error_max_deg",
        "nan_count",
        "wall_seconds",
        "step_micros_mean",
    ] {
        assert!(summary.get(field).is_some(), "missing {field} in {summary}");
    }
    assert_eq!(summary["creature"], "spider");
    assert_eq!(summary["terrain"], "flat");
    assert_eq!(summary["steps"], 240);
    assert_eq!(summary["gait_violations"], 0);
    assert!(summary["distance"].as_f64().unwrap() > 1.0);
}

#[test]
fn headless_takes_files_scripts_counts_and_traces() {
    let dir = std::env::temp_dir().join(format!("skitter-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("drive.txt");
    std::fs::write(&script, "# a short walk\nforward 1s\nforward+left 0.5s\n").unwrap();
    let trace = dir.join("trace.jsonl");
    let out = skitter(&[
        "headless",
        "--creature",
        "creatures/hexapod.toml",
        "--terrain",
        "terrain/dunes.toml",
        "--script",
        script.to_str().unwrap(),
        "--count",
        "3",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["count"], 3);
    assert_eq!(summary["steps"], 180);
    assert_eq!(
        std::fs::read_to_string(&trace).unwrap().lines().count(),
        180
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_exits_2_with_a_located_message() {
    let dir = std::env::temp_dir().join(format!("skitter-cli-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        std::fs::read_to_string("creatures/spider.toml")
            .unwrap()
            .replace("speed = 0.9", "speed = -0.9"),
    )
    .unwrap();
    let bad = bad.to_str().unwrap();

    let out = skitter(&["headless", "--creature", bad]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!(
            "error: {bad}:9:9: body.speed: must be a positive number"
        )),
        "{}",
        stderr(&out)
    );

    let out = skitter(&["check", "creatures/spider.toml", bad]);
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("ok    creatures/spider.toml: creature \"spider\""),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("error {bad}:9:9: body.speed")),
        "{stdout}"
    );

    for args in [
        &["headless", "--creature", "nope"][..],
        &["headless", "--solver", "two-bone"],
        &["run", "--solver", "two-bone"],
        &["run", "--terrain", "nowhere.toml"],
        &["headless", "--drive", "forward 2s, jump"],
        &["headless", "--solver", "jacobian"],
        &["headless", "--seconds", "-1"],
        &["headless", "--count", "0"],
        &["check"],
    ] {
        let out = skitter(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{args:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_accepts_every_shipped_file() {
    let mut args = vec!["check".to_string()];
    for dir in ["creatures", "terrain"] {
        for entry in std::fs::read_dir(dir).unwrap() {
            args.push(entry.unwrap().path().to_string_lossy().into_owned());
        }
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = skitter(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().count(),
        args.len() - 1
    );
}

#[test]
fn list_names_the_built_ins() {
    let out = skitter(&["list"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for name in [
        "spider", "biped", "hexapod", "strider", "octopod", "hills", "flat", "dunes", "rough",
    ] {
        assert!(text.contains(name), "{name} missing from {text}");
    }
}

#[test]
fn the_viewer_without_a_terminal_points_to_headless() {
    let out = Command::new(env!("CARGO_BIN_EXE_skitter"))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("use `skitter headless`"),
        "{}",
        stderr(&out)
    );
}

/// A fresh directory for one test's files.
fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("skitter-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `steps` of the JSON summary `skitter headless ARGS` prints.
fn headless_steps(args: &[&str]) -> u64 {
    let mut all = vec!["headless", "--terrain", "flat", "--creature", "strider"];
    all.extend_from_slice(args);
    let out = skitter(&all);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    summary["steps"].as_u64().unwrap()
}

#[test]
fn scripted_time_is_summed_exactly_and_check_agrees() {
    let dir = temp_dir("exact");
    let script = dir.join("short-items.txt");
    std::fs::write(&script, ["forward 4ms"; 1000].join("\n")).unwrap();
    let script = script.to_str().unwrap();
    let out = skitter(&["check", script]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("ok    {script}: drive script: 1000 items, 4 s, 480 steps of 1/120 s\n")
    );
    assert_eq!(headless_steps(&["--script", script]), 480);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn seconds_caps_scripts_and_steps() {
    // Without a script: --seconds is the length.
    assert_eq!(headless_steps(&["--seconds", "0.5"]), 60);
    // A script longer than --seconds stops there; a shorter one ends the run.
    assert_eq!(
        headless_steps(&["--drive", "forward 5s", "--seconds", "2"]),
        240
    );
    assert_eq!(
        headless_steps(&["--drive", "forward 1s", "--seconds", "3"]),
        120
    );
    // --steps runs that many steps, script or not, unless --seconds is less.
    assert_eq!(
        headless_steps(&["--drive", "forward 5s", "--steps", "50"]),
        50
    );
    assert_eq!(
        headless_steps(&["--drive", "forward 0.1s", "--steps", "50"]),
        50
    );
    assert_eq!(headless_steps(&["--steps", "600", "--seconds", "2"]), 240);
    assert_eq!(headless_steps(&["--steps", "60", "--seconds", "2"]), 60);
}

#[test]
fn range_messages_state_the_accepted_range() {
    for seconds in ["0", "-1", "1000001", "NaN", "inf"] {
        let out = skitter(&["headless", "--seconds", seconds]);
        assert_eq!(out.status.code(), Some(2), "{seconds}");
        assert!(
            stderr(&out).contains(&format!(
                "--seconds must be more than 0 and at most 1000000, got {}",
                seconds.parse::<f64>().unwrap()
            )),
            "{seconds}: {}",
            stderr(&out)
        );
    }
    // The largest accepted value is accepted (here capped by --steps).
    assert_eq!(headless_steps(&["--seconds", "1000000", "--steps", "3"]), 3);
    let out = skitter(&["headless", "--drive", "forward 86401s"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("from 0 to 86400 s"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        headless_steps(&["--drive", "forward 86400s", "--steps", "2"]),
        2
    );
    let out = skitter(&["headless", "--count", "100001"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("1..=100000"), "{}", stderr(&out));
}

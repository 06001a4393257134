//! The real `skitter` binary: exit codes, JSON output, error messages.

use std::process::{Command, Output};

mod common;

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
        "seed",
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
        "footless_seconds_max",
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
            "error: {bad}:10:9: body.speed: must be a positive number"
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
        stdout.contains(&format!("error {bad}:10:9: body.speed")),
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
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), args.len() - 1);
    // Each creature's line says which surfaces it walks on.
    for line in stdout.lines().filter(|l| l.contains(": creature ")) {
        let climber = ["spider", "octopod"]
            .iter()
            .any(|c| line.contains(&format!("\"{c}\"")));
        let says = if climber {
            "climbs walls and ceilings"
        } else {
            "walks on ground up to 50°"
        };
        assert!(line.ends_with(says), "{line}");
    }
}

#[test]
fn list_names_the_built_ins() {
    let out = skitter(&["list"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for name in [
        "spider",
        "biped",
        "hexapod",
        "strider",
        "octopod",
        "centipede",
        "hills",
        "flat",
        "dunes",
        "rough",
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
    common::temp_dir(&format!("cli-{name}"))
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

/// A script's `solver` that a creature's legs cannot use is refused at its
/// item, for a script file and an inline one alike: it was refused with
/// no file, line or column.
#[test]
fn a_script_solver_the_legs_cannot_use_is_refused_at_its_item() {
    let script = temp_dir("solver").join("two-bone.txt");
    std::fs::write(&script, "forward 2s\nsolver two-bone\nforward 1s\n").unwrap();
    let script = script.to_str().unwrap();
    let runs = [
        (
            vec!["headless", "-c", "hexapod", "--script", script],
            format!("{script}:2:1"),
        ),
        (
            vec![
                "headless",
                "-c",
                "hexapod",
                "--drive",
                "forward 1s, solver two-bone",
            ],
            "--drive:1:13".to_string(),
        ),
    ];
    for (args, place) in runs {
        let out = skitter(&args);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!(
                "{place}: solver: the script asks for two-bone, but leg `front_left` of hexapod"
            )),
            "{}",
            stderr(&out)
        );
    }
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
    // One item of no time: `check` warns that headless would refuse it.
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, "forward 0s\n").unwrap();
    let empty = empty.to_str().unwrap();
    let out = skitter(&["check", empty]);
    assert!(out.status.success(), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with(&format!("warning {empty}: the script runs no steps"))
            && stdout.ends_with(&format!(
                "ok    {empty}: drive script: 1 item, 0 s, 0 steps of 1/120 s\n"
            )),
        "{stdout}"
    );
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
    for seconds in ["0", "-1", "1e-9", "0.004", "1000001", "NaN", "inf"] {
        let out = skitter(&["headless", "--seconds", seconds]);
        assert_eq!(out.status.code(), Some(2), "{seconds}");
        assert!(
            stderr(&out).contains(&format!(
                "--seconds must be at least 0.0042 (one 1/120 s step, rounded) and at most \
                 1000000, got {}",
                seconds.parse::<f64>().unwrap()
            )),
            "{seconds}: {}",
            stderr(&out)
        );
    }
    // The largest accepted value is accepted (here capped by --steps).
    assert_eq!(headless_steps(&["--seconds", "1000000", "--steps", "3"]), 3);
    // As no seconds, no steps: a run of none has no figures (its summary
    // read a clearance of 0.0, touching).
    for steps in ["0", "120000001"] {
        let out = skitter(&["headless", "--steps", steps]);
        assert_eq!(out.status.code(), Some(2), "{steps}");
        assert!(
            stderr(&out).contains("is not in 1..=120000000"),
            "{}",
            stderr(&out)
        );
    }
    assert_eq!(headless_steps(&["--steps", "1"]), 1);
    // Nor a script that ends before its first step (it printed a summary
    // of 0 steps, its clearances 0.0).
    for script in ["forward 0s", "reset", "forward 0.0001ms"] {
        let out = skitter(&["headless", "--drive", script]);
        assert_eq!(out.status.code(), Some(2), "{script}");
        assert!(stderr(&out).contains("runs no steps"), "{}", stderr(&out));
        let out = skitter(&["headless", "--drive", script, "--seconds", "1"]);
        assert_eq!(out.status.code(), Some(2), "{script} within 1 s");
    }
    assert_eq!(
        headless_steps(&["--drive", "forward 0s", "--steps", "3"]),
        3
    );
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

/// `skitter ARGS` with its stdout the write end of a pipe whose read end is
/// already closed: every write fails with a broken pipe, at once.
#[cfg(unix)]
fn skitter_into_closed_pipe(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_skitter"))
        .args(args)
        .stdout(writer)
        .output()
        .unwrap()
}

#[cfg(unix)]
#[test]
fn a_closed_pipe_exits_1_with_one_line_and_no_panic() {
    for args in [
        &["list"][..],
        &["check", "creatures/spider.toml"],
        &["headless", "--steps", "5"],
    ] {
        let out = skitter_into_closed_pipe(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert_eq!(
            stderr(&out),
            "error: cannot write to standard output: Broken pipe (os error 32)\n",
            "{args:?}"
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_exits_1_with_one_line_and_no_panic() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_skitter"))
        .arg("list")
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: cannot write to standard output: No space left on device (os error 28)\n"
    );
}

#[test]
fn echoed_input_cannot_drive_the_terminal() {
    let dir = temp_dir("escape");
    let evil = dir.join("evil.toml");
    std::fs::write(
        &evil,
        std::fs::read_to_string("creatures/spider.toml")
            .unwrap()
            .replace("\"back_right\"]", "\"\\u001b]0;pwned\\u0007\"]"),
    )
    .unwrap();
    let evil = evil.to_str().unwrap();
    let out = skitter(&["headless", "--creature", evil]);
    assert_eq!(out.status.code(), Some(2));
    let message = stderr(&out);
    assert!(
        !message.contains('\u{1b}') && !message.contains('\u{7}'),
        "{message:?}"
    );
    assert!(
        message.contains("unknown leg `\\u{1b}]0;pwned\\u{7}`"),
        "{message}"
    );
    // One line: the input's escapes never break it.
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(
        message.lines().all(|l| l.starts_with("error: ")),
        "{message}"
    );
    // `check` prints on stdout, escaped the same way.
    let out = skitter(&["check", evil]);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(text.contains("\\u{1b}]0;pwned\\u{7}"), "{text}");
    // A long unknown built-in name is cut to 80 characters and `…`.
    let long = format!("\u{1b}[2J{}", "x".repeat(200));
    let out = skitter(&["headless", "--creature", &long]);
    assert_eq!(out.status.code(), Some(2));
    let message = stderr(&out);
    assert!(
        message.starts_with(&format!("error: \\u{{1b}}[2J{}…: ", "x".repeat(71))),
        "{message}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn trace_never_overwrites_an_input_file() {
    let dir = temp_dir("trace-inputs");
    let creature = dir.join("mine.toml");
    std::fs::copy("creatures/spider.toml", &creature).unwrap();
    let script = dir.join("drive.txt");
    std::fs::write(&script, "forward 0.1s").unwrap();
    let creature = creature.to_str().unwrap();
    let script_path = script.to_str().unwrap();
    // The same file by another spelling is still the same file, and so
    // is a hard link to it (no spelling resolves one: a trace written to
    // it turned the creature file into JSON lines).
    let other_spelling = format!(
        "{}/../{}/mine.toml",
        dir.display(),
        dir.file_name().unwrap().to_str().unwrap()
    );
    let hard_link = dir.join("linked.toml");
    std::fs::hard_link(creature, &hard_link).unwrap();
    for (trace, what) in [
        (creature, "creature"),
        (other_spelling.as_str(), "creature"),
        (hard_link.to_str().unwrap(), "creature"),
        ("terrain/flat.toml", "terrain"),
        (script_path, "script"),
    ] {
        let before = std::fs::read(trace).unwrap();
        let out = skitter(&[
            "headless",
            "--creature",
            creature,
            "--terrain",
            "terrain/flat.toml",
            "--script",
            script_path,
            "--trace",
            trace,
        ]);
        assert_eq!(out.status.code(), Some(2), "{trace}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("--trace {trace} is the {what} file")),
            "{}",
            stderr(&out)
        );
        assert_eq!(std::fs::read(trace).unwrap(), before, "{trace} was touched");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A scene's creature, terrain and script files were not guarded: a
/// trace named after one turned it into JSON lines (and `run --record`
/// into an asciicast).
#[test]
fn trace_never_overwrites_a_file_a_scene_reads() {
    let dir = temp_dir("trace-scene-inputs");
    std::fs::copy("creatures/spider.toml", dir.join("mine.toml")).unwrap();
    std::fs::copy("terrain/flat.toml", dir.join("ground.toml")).unwrap();
    std::fs::write(dir.join("go.txt"), "forward 0.1s").unwrap();
    std::fs::write(
        dir.join("s.toml"),
        "terrain = \"ground.toml\"\n[[creatures]]\ncreature = \"mine.toml\"\nscript = \"go.txt\"\n",
    )
    .unwrap();
    let scene = dir.join("s.toml");
    for name in ["mine.toml", "ground.toml", "go.txt"] {
        let trace = dir.join(name);
        let before = std::fs::read(&trace).unwrap();
        let out = skitter(&[
            "headless",
            "--scene",
            scene.to_str().unwrap(),
            "--trace",
            trace.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("is the scene's file"),
            "{}",
            stderr(&out)
        );
        assert_eq!(std::fs::read(&trace).unwrap(), before, "{name} was touched");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--trace notes.toml` replaced any file not among the run's inputs, a
/// creature file of the repository included; an earlier trace is
/// replaced, so running a command again needs no cleaning up.
#[test]
fn trace_replaces_an_earlier_trace_but_no_other_file() {
    let dir = temp_dir("trace-others");
    let trace = dir.join("run.jsonl");
    let trace = trace.to_str().unwrap();
    let run = |steps: &str, trace: &str| skitter(&["headless", "--steps", steps, "--trace", trace]);
    assert_eq!(run("3", trace).status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(trace).unwrap().lines().count(), 3);
    assert_eq!(run("2", trace).status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(trace).unwrap().lines().count(), 2);
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    assert_eq!(run("1", empty.to_str().unwrap()).status.code(), Some(0));
    // A device is written to, not read to check: reading it waited for
    // input for good.
    let out = run("2", "/dev/stdout");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.starts_with("{\"step\":1,\"t\":"), "{printed}");
    for (name, text) in [
        ("victim.toml", "name = \"mine\"\n"),
        ("notes.txt", "{\"version\": 2} is a cast, not a trace\n"),
        ("short.jsonl", "{"),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let path = path.to_str().unwrap();
        let out = run("1", path);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!(
                "--trace {path} already exists and is not a skitter trace"
            )),
            "{}",
            stderr(&out)
        );
        assert_eq!(
            std::fs::read_to_string(path).unwrap(),
            text,
            "{name} was touched"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn trace_every_writes_every_nth_step() {
    let dir = temp_dir("trace-every");
    let trace = dir.join("trace.jsonl");
    let out = skitter(&[
        "headless",
        "--terrain",
        "flat",
        "--steps",
        "100",
        "--trace-every",
        "30",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let steps: Vec<u64> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["step"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(steps, vec![30, 60, 90]);
    let out = skitter(&[
        "headless",
        "--trace-every",
        "0",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    // Without a trace there is nothing to thin: refused, not ignored.
    let out = skitter(&["headless", "--steps", "10", "--trace-every", "5"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--trace <TRACE>"), "{}", stderr(&out));
    // More steps apart than the run has: the run is good, the trace
    // empty, and it says so.
    let out = skitter(&[
        "headless",
        "--terrain",
        "flat",
        "--steps",
        "10",
        "--trace-every",
        "100",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&trace).unwrap(), "");
    assert!(
        stderr(&out).contains("is empty: --trace-every 100 is more than the run's 10 steps"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn strict_exits_3_naming_the_broken_limit_and_still_prints_the_summary() {
    let dir = temp_dir("strict");
    // One CCD iteration per solve: the feet cannot keep up with the ground.
    let sloppy = dir.join("sloppy.toml");
    std::fs::write(
        &sloppy,
        std::fs::read_to_string("creatures/spider.toml")
            .unwrap()
            .replace("kind = \"fabrik\"", "kind = \"ccd\"")
            .replace("max_iterations = 32", "max_iterations = 1"),
    )
    .unwrap();
    let sloppy = sloppy.to_str().unwrap();
    let args = [
        "headless",
        "--creature",
        sloppy,
        "--terrain",
        "flat",
        "--seconds",
        "3",
    ];
    let out = skitter(&args);
    assert!(out.status.success(), "without --strict: {}", stderr(&out));
    let mut strict = args.to_vec();
    strict.push("--strict");
    let out = skitter(&strict);
    assert_eq!(out.status.code(), Some(3));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let slip = summary["foot_slip_max"].as_f64().unwrap();
    assert!(
        slip > f64::from(skitter::headless::FOOT_SLIP_LIMIT),
        "{summary}"
    );
    let message = stderr(&out);
    assert!(
        message.starts_with("error: the run went bad: foot_slip_max "),
        "{message}"
    );
    assert!(message.contains("over the limit of 0.001 m"), "{message}");
    assert_eq!(message.lines().count(), 1);
    // A good run passes --strict.
    let out = skitter(&[
        "headless",
        "--terrain",
        "flat",
        "--seconds",
        "3",
        "--strict",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_prints_every_error_of_a_file_and_exits_2() {
    let dir = temp_dir("all-errors");
    let broken = dir.join("broken.toml");
    std::fs::write(
        &broken,
        std::fs::read_to_string("creatures/spider.toml")
            .unwrap()
            .replace("speed = 0.9 ", "speed = -0.9")
            .replace("kind = \"fabrik\"", "kind = \"fabrick\""),
    )
    .unwrap();
    let broken = broken.to_str().unwrap();
    let out = skitter(&["check", broken, "creatures/hexapod.toml"]);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<_> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].starts_with(&format!("error {broken}:10:9: body.speed: ")),
        "{text}"
    );
    assert!(
        lines[1].starts_with(&format!("error {broken}:18:8: solver.kind: ")),
        "{text}"
    );
    assert!(
        lines[2].starts_with("ok    creatures/hexapod.toml"),
        "{text}"
    );
    // The loaders behind `headless` and the viewer report the same, one line each.
    let out = skitter(&["headless", "--creature", broken]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out).lines().count(), 2, "{}", stderr(&out));
}

#[test]
fn new_creature_writes_a_file_that_checks_and_never_overwrites() {
    let dir = temp_dir("new-creature");
    let path = dir.join("beetle.toml");
    let _ = std::fs::remove_file(&path);
    let path = path.to_str().unwrap();
    let out = skitter(&["new", "creature", "beetle", "--legs", "6", "--out", path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = std::fs::read_to_string(path).unwrap();
    assert!(written.contains("name = \"beetle\""), "{written}");
    let out = skitter(&["check", path]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 1, "no warnings: {text}");
    assert!(text.starts_with("ok "), "{text}");
    // A second run refuses, and leaves the file as it was.
    std::fs::write(path, "mine").unwrap();
    let out = skitter(&["new", "creature", "beetle", "--legs", "4", "--out", path]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("already exists"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(path).unwrap(), "mine");
    // Impossible combinations are bad input.
    let other = dir.join("odd.toml");
    let out = skitter(&[
        "new",
        "creature",
        "odd",
        "--legs",
        "5",
        "--gait",
        "trot",
        "--out",
        other.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("a trot cannot be laid out on 5 legs"),
        "{}",
        stderr(&out)
    );
    assert!(!other.exists());
}

#[test]
fn seed_overrides_the_terrain_files_on_every_command() {
    // headless: the same seed gives the same run, another seed another ground.
    let run = |seed: Option<&str>| {
        let mut args = vec!["headless", "--steps", "240", "-c", "spider", "-t", "hills"];
        if let Some(seed) = seed {
            args.extend(["--seed", seed]);
        }
        let out = skitter(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        summary["body_height_mean"].as_f64().unwrap()
    };
    // hills ships seed 7: --seed 7 is the file's own ground.
    assert_eq!(run(None), run(Some("7")));
    assert_ne!(run(None), run(Some("8")));
    // check: the terrain is checked (and reported) with the seed given.
    let out = skitter(&["check", "--seed", "12345", "terrain/hills.toml"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("seed 12345"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = skitter(&["check", "--seed", "-1", "terrain/hills.toml"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn check_reads_scenes_and_list_shows_terrain_descriptions() {
    let out = skitter(&["check", "scenes/zoo.toml", "scenes/swarm.toml"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<_> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "ok    scenes/zoo.toml: scene \"zoo\": 6 creatures (1 spider, 1 biped, 1 hexapod, \
             1 strider, 1 octopod, 1 centipede) on terrain \"hills\", seed 7",
            "ok    scenes/swarm.toml: scene \"swarm\": 1000 creatures (1000 spider) on terrain \
             \"hills\", seed 7",
        ]
    );
    // A scene's mistakes are the scene's, located, not a terrain's.
    let dir = temp_dir("check-scene");
    let broken = dir.join("broken.toml");
    std::fs::write(
        &broken,
        "terrain = \"hills\"\n[[creatures]]\ncreature = \"spider\"\nat = [1.0, 2.0, 90.0]\n",
    )
    .unwrap();
    let broken = broken.to_str().unwrap();
    let out = skitter(&["check", broken]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!(
            "error {broken}:4:6: creatures[0].at: invalid length 3, expected an array of two \
             numbers [x, z] in metres"
        )
    );

    let out = skitter(&["list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("schema"), "{text}");
    assert!(
        text.contains("  hills      Rolling hills: fractal Brownian motion"),
        "{text}"
    );
}

//! Many creatures: stepping on any number of threads gives the same figures
//! and poses to the bit; scene files load, and refuse what they cannot hold
//! with located errors; creatures walk round each other.

mod common;

use std::path::PathBuf;
use std::process::Command as Process;
use std::sync::Arc;

use common::{shipped_creature as creature, shipped_terrain as terrain};
use glam::Vec2;
use skitter::config::{CREATURES, load_scene, parse_scene};
use skitter::headless::{self, HeadlessRun, RunLength};
use skitter::ik::SolverKind;
use skitter::sim::{Command, Spawn, StepFigures, World};
use skitter::terrain::Heightfield;

/// The summary as JSON without the fields that time the run.
fn figures(summary: &skitter::sim::Summary) -> serde_json::Value {
    let mut json = serde_json::to_value(summary).unwrap();
    fn strip(value: &mut serde_json::Value) {
        if let Some(map) = value.as_object_mut() {
            for timing in ["wall_seconds", "step_micros_mean", "realtime_factor"] {
                map.remove(timing);
            }
            if let Some(kinds) = map.get_mut("kinds").and_then(|k| k.as_array_mut()) {
                kinds.iter_mut().for_each(strip);
            }
        }
    }
    strip(&mut json);
    json
}

/// Every joint of every creature, as bits: equal only if equal to the bit.
fn pose_bits(world: &World) -> Vec<u32> {
    world
        .creatures()
        .iter()
        .flat_map(|c| {
            let body = c.body.position.to_array().into_iter();
            let joints = c
                .legs
                .iter()
                .flat_map(|leg| leg.chain.joints().iter().flat_map(|j| j.to_array()));
            body.chain(joints).map(f32::to_bits).collect::<Vec<_>>()
        })
        .collect()
}

/// Three kinds, 75 creatures (several chunks each, the last ones partial),
/// on rough ground, walking and turning.
fn mixed_world(threads: usize) -> World {
    let ground = Arc::new(Heightfield::generate(&terrain("rough")));
    let spawns = vec![
        Spawn::grid(creature("spider"), 40, Vec2::new(0.0, 0.0), 0.3),
        Spawn::grid(creature("hexapod"), 33, Vec2::new(0.0, 60.0), -1.0),
        Spawn::grid(creature("biped"), 2, Vec2::new(-30.0, 0.0), 2.0),
    ];
    World::from_spawns(ground, spawns)
        .with_threads(threads)
        .unwrap()
}

#[test]
fn every_solver_gives_the_same_poses_on_any_thread_count() {
    // Solvers are shared by the creatures a thread steps (they hold only
    // scratch space): no solve may read what the solve before it, of
    // another creature, left behind, or the poses would depend on which
    // creatures a thread happened to step.
    for kind in SolverKind::ALL {
        let world = |threads: usize| {
            let ground = Arc::new(Heightfield::generate(&terrain("rough")));
            let mut world = World::from_spawns(
                ground,
                vec![Spawn::grid(creature("spider"), 70, Vec2::ZERO, 0.5)],
            )
            .with_threads(threads)
            .unwrap();
            // Two-bone refuses the spider's three-bone legs: they keep FABRIK.
            let _ = world.apply(Command::SetSolver(kind));
            world
                .apply(Command::Drive {
                    forward: 1.0,
                    turn: 0.4,
                })
                .unwrap();
            world
        };
        let (mut one, mut two) = (world(1), world(2));
        for step in 0..90 {
            one.step();
            two.step();
            assert_eq!(pose_bits(&one), pose_bits(&two), "{kind:?}, step {step}");
        }
        assert!(one.summary(1.0).displacement > 0.1, "{kind:?}");
    }
}

#[test]
fn any_thread_count_gives_the_same_poses_and_figures_to_the_bit() {
    let mut one = mixed_world(1);
    let mut three = mixed_world(3);
    assert_eq!((one.threads(), three.threads()), (1, 3));
    for world in [&mut one, &mut three] {
        world.follow(41);
    }
    for step in 0..240 {
        let command = if step == 120 {
            Command::Drive {
                forward: 1.0,
                turn: 0.7,
            }
        } else if step == 0 {
            Command::Drive {
                forward: 1.0,
                turn: 0.0,
            }
        } else {
            one.step();
            three.step();
            continue;
        };
        one.apply(command).unwrap();
        three.apply(command).unwrap();
        one.step();
        three.step();
        assert_eq!(pose_bits(&one), pose_bits(&three), "step {step}");
    }
    assert_eq!(pose_bits(&one), pose_bits(&three));
    assert_eq!(one.metrics(), three.metrics());
    let (a, b) = (figures(&one.summary(1.0)), figures(&three.summary(2.0)));
    assert_eq!(a, b);
    // The figures are real: the creatures walked, and each kind reports its own.
    let summary = one.summary(1.0);
    assert_eq!(summary.count, 75);
    assert_eq!(summary.kinds.len(), 3);
    assert_eq!(
        summary.kinds.iter().map(|k| k.count).collect::<Vec<_>>(),
        vec![40, 33, 2]
    );
    assert!(
        summary.kinds.iter().all(|k| k.displacement > 0.5),
        "{summary:?}"
    );
    assert_eq!(summary.kinds[1].creature, "hexapod");
    // Spiders and hexapods use FABRIK, bipeds gradient descent: both are named.
    assert_eq!(summary.solver, "fabrik, gradient");
    // Figures over all are the kinds' combined: counts add, maxima are the largest.
    assert_eq!(
        summary.foot_steps,
        summary.kinds.iter().map(|k| k.foot_steps).sum::<u64>()
    );
    assert_eq!(
        summary.foot_slip_max,
        summary
            .kinds
            .iter()
            .map(|k| k.foot_slip_max)
            .fold(0.0, f32::max)
    );
    // The live figures follow creature 41 (a hexapod): its own legs'.
    assert_eq!(one.kind_of(41), 1);
    let own = StepFigures::of(&one.creatures()[41]);
    let last = one.metrics().last;
    assert_eq!(
        (
            last.ik_iterations_mean,
            last.ik_error_max,
            last.foot_slip_max
        ),
        (own.ik_iterations_mean, own.ik_error_max, own.foot_slip_max)
    );
    let live = one.live_figures().expect("the world has creatures");
    assert_eq!(live.legs, own);
    assert!(live.body_height > 0.1 && live.body_height < 0.5, "{live:?}");
}

#[test]
fn headless_summaries_match_for_one_thread_and_many() {
    let run = |threads| {
        let spec = HeadlessRun {
            creature: creature("octopod"),
            terrain: terrain("dunes"),
            solver: None,
            length: Some(RunLength::Steps(150)),
            script: None,
            count: 70,
            scene: None,
            threads,
        };
        figures(&headless::run(&spec, None).unwrap())
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(4));
    assert_eq!(one["count"], 70);
}

fn shipped(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("scenes")
        .join(name)
}

#[test]
fn shipped_scenes_load_with_their_kinds_and_counts() {
    let zoo = load_scene(shipped("zoo.toml").to_str().unwrap()).unwrap();
    assert_eq!(zoo.name, "zoo");
    let names: Vec<&str> = zoo.kinds.iter().map(|k| k.creature.name.as_str()).collect();
    assert_eq!(
        names,
        CREATURES.iter().map(|b| b.name).collect::<Vec<_>>(),
        "one of each shipped creature"
    );
    assert!(
        zoo.kinds
            .iter()
            .all(|k| k.spots.len() == 1 && k.script.is_some())
    );
    let swarm = load_scene(shipped("swarm.toml").to_str().unwrap()).unwrap();
    assert_eq!(swarm.creature_count(), 1000);
    assert_eq!(swarm.kinds.len(), 1);
    // Spread over the area, 2.5 m apart, centred on the origin.
    let spots = &swarm.kinds[0].spots;
    let (min, max) = spots.iter().fold(
        (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
        |(lo, hi), (p, _)| (lo.min(*p), hi.max(*p)),
    );
    assert!(
        (min.x + 48.75).abs() < 1e-3 && (max.x - 48.75).abs() < 1e-3,
        "{min} {max}"
    );
    assert!(
        (min.y + 30.0).abs() < 1e-3 && (max.y - 30.0).abs() < 1e-3,
        "{min} {max}"
    );
}

#[test]
fn the_zoo_walks_cleanly_kind_by_kind() {
    let scene = load_scene(shipped("zoo.toml").to_str().unwrap()).unwrap();
    let run = HeadlessRun {
        creature: scene.kinds[0].creature.clone(),
        terrain: scene.terrain.clone(),
        solver: None,
        length: Some(RunLength::Seconds(12.0)),
        script: None,
        count: 1,
        scene: Some(scene),
        threads: 2,
    };
    let summary = headless::run(&run, None).unwrap();
    assert_eq!(summary.scene.as_deref(), Some("zoo"));
    assert_eq!(summary.count, 6);
    assert!(
        headless::quality_breaches(&summary).is_empty(),
        "{summary:?}"
    );
    assert!(
        headless::motion_breaches(&summary).is_empty(),
        "{summary:?}"
    );
    for kind in &summary.kinds {
        // Each walks at its own speed: more than half of it over 12 s.
        assert!(
            kind.displacement > 0.5 * 12.0 * f64::from(kind.speed),
            "{} went {} m at {} m/s",
            kind.creature,
            kind.displacement,
            kind.speed
        );
    }
}

/// Parses `text` as a scene file named `name` in the system's temp folder.
fn scene_error(text: &str) -> String {
    let path = std::env::temp_dir().join("skitter-scene-test.toml");
    parse_scene(path.to_str().unwrap(), text)
        .unwrap_err()
        .to_string()
}

#[test]
fn bad_scenes_are_refused_with_the_place_and_what_would_do() {
    let cases: &[(&str, &[&str])] = &[
        ("", &["no creatures", "[[creatures]]"]),
        ("creatures = []\n", &[":1:", "at least one"]),
        (
            "[[creatures]]\ncreature = \"spyder\"\n",
            &[
                ":2:12:",
                "creatures[0].creature",
                "spyder",
                "built-in creatures: spider",
            ],
        ),
        (
            "terrain = \"moon\"\n[[creatures]]\ncreature = \"spider\"\n",
            &[":1:11:", "terrain", "moon"],
        ),
        (
            "[[creatures]]\ncreature = \"spider\"\ncount = 0\n",
            &[":3:9:", "creatures[0].count", "from 1 to 100000"],
        ),
        (
            "[[creatures]]\ncreature = \"spider\"\n[[creatures]]\ncreature = \"biped\"\nheading = \"north\"\n",
            &[":5:11:", "creatures[1].heading", "expected a number"],
        ),
        (
            "[[creatures]]\ncreature = \"spider\"\nheading = 1e300\n",
            &[":3:11:", "creatures[0].heading", "-360 to 360", "got 1e300"],
        ),
        (
            // Past what TOML reads as a number: no range was given at all.
            "[[creatures]]\ncreature = \"spider\"\nheading = 1e400\n",
            &[
                ":3:11:",
                "creatures[0].heading",
                "overflowed",
                "no field's value",
            ],
        ),
        (
            "[[creatures]]\ncreature = \"spider\"\npositions = [[0.0, 0.0, 90.0]]\n",
            &[":3:", "positions", "invalid length 3", "two numbers [x, z]"],
        ),
        (
            // At what places them, not at the creature's name.
            "[[creatures]]\ncreature = \"spider\"\npositions = [[0.0, 0.0], [0.5, 0.0]]\n",
            &[
                ":3:13:",
                "creatures[0].positions",
                "closer than their feet allow",
            ],
        ),
        (
            "[[creatures]]\ncreature = \"spider\"\n[[creatures]]\ncreature = \"biped\"\nat = [0.3, 0.0]\n",
            &[
                ":5:6:",
                "creatures[1].at",
                "creatures[0]",
                "closer than their feet allow",
            ],
        ),
        (
            "[[creatures]]\ncreature = \"spider\"\ncount = 100\narea = [5.0, 5.0]\n",
            &[":4:8:", "creatures[0].area", "need", "at least"],
        ),
        (
            "[[creatures]]\ncreature = \"spider\"\ncount = 2\npositions = [[0.0, 0.0]]\n",
            &["creatures[0].positions", "without `count`"],
        ),
        (
            "[[creatures]]\ncreature = \"spider\"\ndrive = \"forward 1s\"\nscript = \"a.txt\"\n",
            &["creatures[0].drive", "not both"],
        ),
        // An inline script's item is located in the scene file, once: at
        // the item itself.
        (
            "[[creatures]]\ncreature = \"spider\"\ndrive = \"forwad 1s\"\n",
            &[":3:10:", "creatures[0].drive: unknown item", "forwad"],
        ),
        (
            "[[creatures]]\ncreature = \"spider\"\ndrive = \"forward 1s, left soon\"\n",
            &[":3:27:", "creatures[0].drive: bad duration \"soon\""],
        ),
        (
            "[[creatures]]\ncreature = \"hexapod\"\nsolver = \"two-bone\"\n",
            &[":3:10:", "creatures[0].solver: the scene asks for two-bone"],
        ),
        // A solver a drive script cannot use: at its item, the field named
        // once.
        (
            "[[creatures]]\ncreature = \"spider\"\ndrive = \"forward 2s, solver two-bone\"\n",
            &[":3:22:", "creatures[0].drive: the script asks for two-bone"],
        ),
        // Too wide to stand in: the message gives the bound.
        (
            "[[creatures]]\ncreature = \"spider\"\ncount = 4\narea = [1e12, 1e12]\n",
            &[":4:8:", "creatures[0].area", "at most 1000000"],
        ),
        (
            "[[creatures]]\ncreature = \"spider\"\nheading = 1000\n",
            &[":3:11:", "creatures[0].heading", "-360 to 360"],
        ),
        (
            "[[creatures]]\ncreature = \"spider\"\nat = [1e9, 0]\n",
            &[":3:6:", "creatures[0].at", "[x, z]"],
        ),
        (
            "[[creatures]]\ncreature = \"spider\"\ncolour = \"red\"\n",
            &[":3:1:", "unknown field `colour`"],
        ),
        (
            "[[creatures]]\ncreature = \"spider\"\ncount = 60000\n[[creatures]]\ncreature = \"spider\"\ncount = 60000\nat = [5000, 0]\n",
            &[":6:9:", "creatures[1].count", "at most 100000"],
        ),
    ];
    for (text, wanted) in cases {
        let message = scene_error(text);
        assert!(message.contains("skitter-scene-test.toml"), "{message}");
        for part in *wanted {
            assert!(
                message.contains(part),
                "{text:?}: {message:?} lacks {part:?}"
            );
        }
    }
}

/// A scene's first bad key hid the rest (an entry's unknown `colour` hid
/// an unknown top-level `seed`): every one is reported, each in its place.
/// `text`'s errors, as (line, field) in the order reported.
fn assert_error_places(text: &str, wanted: &[(usize, &str)]) {
    let err = parse_scene("scene.toml", text).unwrap_err();
    let wanted: Vec<(Option<usize>, String)> = wanted
        .iter()
        .map(|(line, field)| (Some(*line), field.to_string()))
        .collect();
    assert_eq!(common::error_places(&err), wanted, "{err}");
}

#[test]
fn every_bad_key_of_a_scene_is_reported_at_once() {
    assert_error_places(
        "name = 3\nterrain = \"hills\"\nseed = 3\n\
         [[creatures]]\ncreature = \"spider\"\ncolour = \"red\"\n\
         [[creatures]]\ncreature = 4\n",
        &[
            (1, "name"),
            (3, "seed"),
            (6, "creatures[0].colour"),
            (8, "creatures[1].creature"),
        ],
    );
    // A bad place and a bad heading of one kind, in file order (the
    // heading alone was reported, though it comes later).
    assert_error_places(
        "terrain = \"flat\"\n[[creatures]]\ncreature = \"spider\"\n\
         at = [nan, 0.0]\nheading = inf\n",
        &[(4, "creatures[0].at"), (5, "creatures[0].heading")],
    );
}

#[test]
fn files_a_scene_names_are_found_beside_it() {
    let dir = std::env::temp_dir().join(format!("skitter-scene-dir-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("mine")).unwrap();
    let spider = CREATURES[0]
        .text
        .replace("name = \"spider\"", "name = \"mine\"");
    std::fs::write(dir.join("mine/walker.toml"), spider).unwrap();
    std::fs::write(dir.join("walk.txt"), "forward 2s, left 1s\n").unwrap();
    std::fs::write(
        dir.join("scene.toml"),
        "terrain = \"flat\"\n[[creatures]]\ncreature = \"mine/walker.toml\"\nscript = \"walk.txt\"\n",
    )
    .unwrap();
    let scene = load_scene(dir.join("scene.toml").to_str().unwrap()).unwrap();
    assert_eq!(scene.name, "scene");
    assert_eq!(scene.terrain.name, "flat");
    assert_eq!(scene.kinds[0].creature.name, "mine");
    assert_eq!(scene.kinds[0].script.as_ref().unwrap().total_seconds(), 3.0);
    // What a viewer watches besides the scene: the files it read (the
    // built-in terrain is not one).
    assert_eq!(
        scene.files,
        vec![dir.join("mine/walker.toml"), dir.join("walk.txt")]
    );
    std::fs::write(
        dir.join("missing.toml"),
        "[[creatures]]\ncreature = \"spider\"\nscript = \"nowhere.txt\"\n",
    )
    .unwrap();
    let err = load_scene(dir.join("missing.toml").to_str().unwrap()).unwrap_err();
    assert!(err.to_string().contains("nowhere.txt"), "{err}");
    assert_eq!(err.line, Some(3), "{err}");
    // A file with no place to point at is one line, not a second error
    // that reads as one about a file named `spidr`.
    std::fs::write(
        dir.join("typo.toml"),
        "[[creatures]]\ncreature = \"spidr\"\n",
    )
    .unwrap();
    let err = load_scene(dir.join("typo.toml").to_str().unwrap()).unwrap_err();
    let shown = err.to_string();
    assert_eq!(shown.lines().count(), 1, "{shown}");
    assert!(
        shown.contains(":2:12: creatures[0].creature: cannot use \"spidr\": no such file"),
        "{shown}"
    );
    // A named file's several errors, each with its place, each on a line
    // of its own after the scene's (they showed as a literal `\n`, then
    // joined onto one line that was cut at 400 characters).
    std::fs::write(dir.join("two.toml"), "sed = 1\nsizes = 2\n").unwrap();
    std::fs::write(
        dir.join("bad.toml"),
        "terrain = \"two.toml\"\n[[creatures]]\ncreature = \"spider\"\n",
    )
    .unwrap();
    let err = load_scene(dir.join("bad.toml").to_str().unwrap()).unwrap_err();
    let text = err.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].ends_with("which has these 3 errors:")
            && lines[1].contains("two.toml:1:1: name: missing field `name`")
            && lines[2].ends_with("two.toml:1:1: sed: unknown field `sed`, expected one of `name`, `seed`, `size`, `resolution`, `noise`, `shapes`")
            && lines[3].contains("two.toml:2:1: sizes: unknown field")
            && !text.contains("\\n"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn creatures_walking_at_each_other_pass_without_meeting() {
    // Two spiders 6 m apart walk straight at each other for 15 s.
    let ground = Arc::new(Heightfield::generate(&terrain("flat")));
    let spider = creature("spider");
    // Two bodies cannot touch while their centres are further apart than
    // the body's diagonal across the ground.
    let body = spider.body.size;
    let diagonal = Vec2::new(body.x, body.z).length();
    let spawns = vec![
        Spawn {
            spec: spider.clone(),
            spots: vec![(Vec2::new(0.0, 0.0), 0.0)],
        },
        Spawn {
            spec: spider,
            spots: vec![(Vec2::new(6.0, 0.1), std::f32::consts::PI)],
        },
    ];
    let mut world = World::from_spawns(ground, spawns);
    world
        .apply(Command::Drive {
            forward: 1.0,
            turn: 0.0,
        })
        .unwrap();
    let mut closest = f32::MAX;
    for _ in 0..1800 {
        world.step();
        let [a, b] = [0, 1].map(|i| {
            let c = &world.creatures()[i];
            let [x, _, z] = c.to_world_f64(world.terrain().spacing(), c.body.position);
            Vec2::new(x as f32, z as f32)
        });
        closest = closest.min(a.distance(b));
    }
    // Their bodies never met, they kept most of a footprint apart, and
    // both got past: each is beyond where the other started.
    assert!(
        closest > diagonal,
        "closest {closest} m, body diagonal {diagonal} m"
    );
    assert!(closest > 0.8 * footprint_of_spider(), "closest {closest} m");
    let ends: Vec<f32> = world
        .creatures()
        .iter()
        .map(|c| c.to_world_f64(world.terrain().spacing(), c.body.position)[0] as f32)
        .collect();
    assert!(ends[0] > 6.0 && ends[1] < 0.0, "ends {ends:?}");
    let summary = world.summary(1.0);
    assert!(
        headless::motion_breaches(&summary).is_empty(),
        "{summary:?}"
    );
    assert_eq!(summary.leg_crossings, 0);
}

fn footprint_of_spider() -> f32 {
    creature("spider").footprint_radius()
}

fn skitter(args: &[&str]) -> std::process::Output {
    Process::new(env!("CARGO_BIN_EXE_skitter"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

/// The JSON summary of a run of the binary that must succeed.
fn summary_of_run(args: &[&str]) -> serde_json::Value {
    let out = skitter(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_cli_runs_scenes_and_refuses_what_does_not_go_with_them() {
    let json = summary_of_run(&[
        "headless",
        "--scene",
        "scenes/zoo.toml",
        "--steps",
        "20",
        "--threads",
        "2",
    ]);
    assert_eq!(json["scene"], "zoo");
    assert_eq!(json["count"], 6);
    assert_eq!(json["kinds"].as_array().unwrap().len(), 6);
    assert!(json["realtime_factor"].as_f64().unwrap() > 0.0);
    // `--solver` is every leg's, a kind's own `solver` included, as in the
    // viewer (headless had kept the kind's).
    let dir = common::temp_dir("scene-solver");
    let scene = dir.join("s.toml");
    std::fs::write(
        &scene,
        "[[creatures]]\ncreature = \"spider\"\nsolver = \"ccd\"\n\
         [[creatures]]\ncreature = \"hexapod\"\nat = [0.0, 10.0]\n",
    )
    .unwrap();
    let scene = scene.to_str().unwrap();
    let solvers = |extra: &[&str]| {
        let mut args = vec!["headless", "--scene", scene, "--steps", "2"];
        args.extend(extra);
        let json = summary_of_run(&args);
        let kinds: Vec<String> = json["kinds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["solver"].as_str().unwrap().to_owned())
            .collect();
        (json["solver"].as_str().unwrap().to_owned(), kinds)
    };
    assert_eq!(
        solvers(&[]),
        ("ccd, fabrik".into(), vec!["ccd".into(), "fabrik".into()])
    );
    assert_eq!(
        solvers(&["--solver", "dls"]),
        ("dls".into(), vec!["dls".into(), "dls".into()])
    );
    std::fs::remove_dir_all(&dir).unwrap();

    for args in [
        &["headless", "--scene", "scenes/zoo.toml", "--count", "3"][..],
        &[
            "headless",
            "--scene",
            "scenes/zoo.toml",
            "--creature",
            "biped",
        ][..],
        &["headless", "--threads", "0"][..],
        &["headless", "--scene", "scenes/nowhere.toml"][..],
        // The baked clip is one creature alone.
        &["run", "--scene", "scenes/zoo.toml", "--baked"][..],
    ] {
        let out = skitter(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
    let out = skitter(&["headless", "--scene", "scenes/nowhere.toml"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("scenes/nowhere.toml"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_ring_walking_into_its_centre_does_not_pile_up() {
    // Eight spiders on a 4 m circle, all facing its centre, walk for 15 s.
    let ground = Arc::new(Heightfield::generate(&terrain("hills")));
    let spider = creature("spider");
    let body = spider.body.size;
    let diagonal = Vec2::new(body.x, body.z).length();
    let spots = (0..8)
        .map(|i| {
            let angle = i as f32 * std::f32::consts::TAU / 8.0;
            // Heading is counter-clockwise from +x seen from above (toward -z).
            let at = Vec2::new(angle.cos(), -angle.sin()) * 4.0;
            (at, angle + std::f32::consts::PI)
        })
        .collect();
    let mut world = World::from_spawns(
        ground,
        vec![Spawn {
            spec: spider,
            spots,
        }],
    )
    .with_threads(2)
    .unwrap();
    world
        .apply(Command::Drive {
            forward: 1.0,
            turn: 0.0,
        })
        .unwrap();
    let spacing = world.terrain().spacing();
    let mut closest = f32::MAX;
    let mut first_step_closer = None;
    for step in 0..1800 {
        world.step();
        let places: Vec<Vec2> = world
            .creatures()
            .iter()
            .map(|c| {
                let [x, _, z] = c.to_world_f64(spacing, c.body.position);
                Vec2::new(x as f32, z as f32)
            })
            .collect();
        for (i, a) in places.iter().enumerate() {
            for b in &places[i + 1..] {
                closest = closest.min(a.distance(*b));
            }
        }
        if step == 60 && first_step_closer.is_none() {
            // They do set off toward the centre.
            first_step_closer = Some(places.iter().all(|p| p.length() < 4.0));
        }
    }
    assert_eq!(first_step_closer, Some(true));
    assert!(
        closest > diagonal,
        "closest {closest} m, body diagonal {diagonal} m"
    );
    let summary = world.summary(1.0);
    assert_eq!(summary.nan_count, 0);
    assert!(
        headless::quality_breaches(&summary).is_empty(),
        "{summary:?}"
    );
}

#[test]
fn creatures_spread_wider_than_the_terrain_cache_do_not_evict_each_others_ground() {
    // Nine spiders exactly one cache window apart: each one's ground maps
    // to the same slots as the others'.
    let ground = Arc::new(Heightfield::generate(&terrain("hills")));
    let side_before = ground.cache_side();
    let window = side_before as f32 * ground.chunk_metres();
    let spots = (0..9)
        .map(|i| (Vec2::new((i % 3) as f32, (i / 3) as f32) * window, 0.0))
        .collect();
    let mut world = World::from_spawns(
        ground,
        vec![Spawn {
            spec: creature("spider"),
            spots,
        }],
    );
    world.step();
    let generated = world.terrain().chunks_generated();
    for _ in 0..30 {
        world.step();
    }
    // Standing still, nobody needs new ground: nothing was generated again.
    assert_eq!(world.terrain().chunks_generated(), generated);
    assert!(world.terrain().cache_side() > side_before);
    assert!(!world.terrain().crowded());
}

#[test]
fn building_a_world_samples_each_piece_of_ground_once() {
    // 400 spiders on a grid wider than the terrain cache starts out,
    // centred on the origin so that the ground the fresh terrain cached
    // there is ground they need: spawned one by one into the small cache,
    // they evicted each other's ground and sampled it again (10 000
    // spiders took twice as long to build, 100 000 four times).
    let ground = Arc::new(Heightfield::generate(&terrain("hills")));
    let side_before = ground.cache_side();
    let window = side_before as f32 * ground.chunk_metres();
    let spots = (0..400)
        .map(|i| {
            let cell = Vec2::new((i % 20) as f32, (i / 20) as f32) - 9.5;
            (cell * (0.2 * window), 0.0)
        })
        .collect();
    let world = World::from_spawns(
        ground,
        vec![Spawn {
            spec: creature("spider"),
            spots,
        }],
    );
    let field = world.terrain();
    assert!(
        field.cache_side() > side_before,
        "the spawns spread past the first cache"
    );
    assert_eq!(field.chunks_generated(), field.cached_chunks() as u64);
}

/// `check` tells a scene from a terrain by its `[[creatures]]`, and a
/// scene that names its terrain but lists no creature yet was checked as
/// a terrain file: "unknown field `terrain`" and "missing field `name`".
/// Its `terrain` key makes it a scene, refused for its missing creatures.
#[test]
fn check_takes_a_file_naming_a_terrain_for_a_scene() {
    let dir = common::temp_dir("scene-kind");
    let path = dir.join("started.toml");
    std::fs::write(&path, "terrain = \"hills\"\n").unwrap();
    let err = skitter::config::check_file(path.to_str().unwrap())
        .unwrap_err()
        .to_string();
    assert!(err.contains("no creatures"), "{err}");
    assert!(!err.contains("unknown field"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `check` on a scene listing one creature twice told the two apart by
/// nothing (`1 spider (spider), 1 spider (spider)`): by their entries now.
#[test]
fn check_tells_apart_two_kinds_of_one_creature() {
    let dir = common::temp_dir("scene-twice");
    let path = dir.join("twice.toml");
    std::fs::write(
        &path,
        "[[creatures]]\ncreature = \"spider\"\n[[creatures]]\ncreature = \"biped\"\n\
         at = [0.0, 5.0]\n[[creatures]]\ncreature = \"spider\"\nat = [0.0, 10.0]\n",
    )
    .unwrap();
    let checked = skitter::config::check_file(path.to_str().unwrap())
        .unwrap()
        .to_string();
    assert!(
        checked.contains("3 creatures (1 spider (creatures[0]), 1 biped, 1 spider (creatures[2]))"),
        "{checked}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `check` on a scene gives the warnings of the creature files it reads,
/// each under its own name: a scene of a creature whose feet rest off the
/// ground passed with no word of it.
#[test]
fn checking_a_scene_gives_its_creature_files_warnings() {
    let dir = common::temp_dir("scene-warnings");
    let lifted =
        CREATURES[0]
            .text
            .replacen("rest = [0.5, -0.32, -0.5]", "rest = [0.5, -0.1, -0.5]", 1);
    assert_ne!(
        lifted, CREATURES[0].text,
        "test setup: the spider's rest changed"
    );
    std::fs::write(dir.join("lifted.toml"), &lifted).unwrap();
    let scene = dir.join("scene.toml");
    std::fs::write(
        &scene,
        "terrain = \"flat\"\n[[creatures]]\ncreature = \"lifted.toml\"\ncount = 2\n",
    )
    .unwrap();
    let (checked, warnings) =
        skitter::config::check_file_with_warnings(&scene.to_string_lossy()).unwrap();
    assert!(matches!(checked, skitter::config::Checked::Scene(_)));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].0.file.ends_with("lifted.toml"),
        "{:?}",
        warnings[0]
    );
    assert_eq!(warnings[0].0.field.as_deref(), Some("legs[0].rest"));
}

/// A scene naming a broken creature file gives that file's errors each on
/// its own line, in its own place: joined onto the scene's one line, a
/// long path's errors were cut off after two.
#[test]
fn a_broken_creature_a_scene_names_is_refused_with_each_of_its_errors() {
    let dir = common::temp_dir("scene-broken-creature");
    let broken = CREATURES[2].text.replace("bones = [", "bones = [-");
    let errors = broken.matches("bones = [-").count();
    assert!(errors >= 3, "test setup: the hexapod's bones are broken");
    std::fs::write(dir.join("broken.toml"), &broken).unwrap();
    let scene = dir.join("scene.toml");
    let text = "[[creatures]]\ncreature = \"broken.toml\"\n";
    let err = parse_scene(scene.to_str().unwrap(), text).unwrap_err();
    assert_eq!(err.count(), 1 + errors, "{err}");
    assert_eq!(err.line, Some(2), "{err}");
    assert_eq!(err.field.as_deref(), Some("creatures[0].creature"), "{err}");
    assert!(
        err.message.contains(&format!("these {errors} errors")),
        "{err}"
    );
    for nested in err.all().skip(1) {
        assert!(nested.file.ends_with("broken.toml"), "{nested}");
        assert!(nested.line.is_some(), "{nested}");
    }
}

/// Two kinds whose files give the same `name` (two copies of a template)
/// are told apart in `check`'s line by what the scene names them by: it
/// read "1 c6, 1 c6".
#[test]
fn kinds_of_one_name_are_told_apart_by_their_files() {
    let dir = common::temp_dir("scene-same-name");
    for file in ["a.toml", "b.toml"] {
        std::fs::write(dir.join(file), CREATURES[0].text).unwrap();
    }
    let scene = dir.join("scene.toml");
    std::fs::write(
        &scene,
        "terrain = \"flat\"\n[[creatures]]\ncreature = \"a.toml\"\n\
         [[creatures]]\ncreature = \"b.toml\"\nat = [0.0, 5.0]\n\
         [[creatures]]\ncreature = \"biped\"\nat = [0.0, -5.0]\n",
    )
    .unwrap();
    let (checked, _) = skitter::config::check_file_with_warnings(&scene.to_string_lossy()).unwrap();
    let line = checked.to_string();
    assert!(
        line.contains("(1 spider (a.toml), 1 spider (b.toml), 1 biped)"),
        "{line}"
    );
    // The summary's kinds say which file each came from.
    let json = summary_of_run(&[
        "headless",
        "--scene",
        &scene.to_string_lossy(),
        "--steps",
        "5",
    ]);
    let kinds: Vec<(&str, &str)> = json["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["creature"].as_str().unwrap(),
                k["source"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("spider", "a.toml"),
            ("spider", "b.toml"),
            ("biped", "biped")
        ]
    );
}

/// A scene of one kind still lists it in `kinds` (a script reading every
/// scene's kinds must not break on the swarm), with the whole scene's
/// figures; and every summary names the terrain's seed.
#[test]
fn a_scene_of_one_kind_lists_it_and_summaries_name_the_seed() {
    let json = summary_of_run(&[
        "headless",
        "--scene",
        "scenes/swarm.toml",
        "--steps",
        "3",
        "--seed",
        "11",
    ]);
    assert_eq!(json["seed"], 11);
    let kinds = json["kinds"].as_array().unwrap();
    assert_eq!(kinds.len(), 1);
    let kind = &kinds[0];
    assert_eq!(kind["source"], "spider");
    assert!(kind.get("scene").is_none(), "{kind}");
    for field in ["count", "foot_steps", "foot_slip_max", "distance", "seed"] {
        assert_eq!(kind[field], json[field], "{field}");
    }
    // Not a scene: no kinds.
    let json = summary_of_run(&["headless", "--steps", "3"]);
    assert!(json.get("kinds").is_none(), "{json}");
    assert_eq!(json["seed"], 7);
}

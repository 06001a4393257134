//! Natural motion: every shipped creature on every shipped terrain, at its
//! speed and at three times it, keeps the body smooth, the feet soft and
//! bounded, the gait stable and the legs clear of each other; wave gaits
//! step in their listed order; crawls keep the body over their feet; stops
//! and starts are smooth.

mod common;

use common::{drive, shipped_creature as built_in_creature, shipped_terrain as terrain};
use skitter::config::{CREATURES, TERRAINS, parse_creature};
use skitter::creature::{CreatureSpec, LegPhase};
use skitter::headless::{motion_breaches, quality_breaches};
use skitter::sim::{Summary, World};

/// The README's 60 s drive: forward, a left turn, forward, a right turn, forward.
const QUALITY_DRIVE: &str =
    "forward 20s, forward+left 1.5s, forward 18.5s, forward+right 1.5s, forward 18.5s";

/// Every figure of both kinds of limits, for every shipped creature on every
/// shipped terrain, with `speed` scaled by `factor` in the creature file.
fn every_pair_moves_naturally(factor: f32) {
    let mut failures = Vec::new();
    for c in CREATURES {
        let text = scale_speed(c.text, factor);
        let spec = parse_creature(c.name, &text).unwrap();
        for t in TERRAINS
            .iter()
            .filter(|t| common::OPEN_GROUND.contains(&t.name))
        {
            let s = drive(spec.clone(), terrain(t.name), QUALITY_DRIVE);
            for breach in quality_breaches(&s).into_iter().chain(motion_breaches(&s)) {
                failures.push(format!("{} ×{factor} on {}: {breach}", c.name, t.name));
            }
            // Walking at least half the commanded speed for the driven time.
            let wanted = 0.5 * f64::from(s.speed) * 57.0;
            if s.displacement < wanted {
                failures.push(format!(
                    "{} ×{factor} on {}: moved {:.1} m, wanted {wanted:.1}",
                    c.name, t.name, s.displacement
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The creature file with its `[body] speed` multiplied by `factor`.
fn scale_speed(text: &str, factor: f32) -> String {
    let mut out = String::new();
    let mut done = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if !done && trimmed.starts_with("speed") {
            let value: f32 = trimmed
                .split('=')
                .nth(1)
                .and_then(|v| v.split('#').next())
                .and_then(|v| v.trim().parse().ok())
                .expect("a speed value");
            out.push_str(&format!("speed = {}\n", value * factor));
            done = true;
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    assert!(done, "no speed line");
    out
}

#[test]
fn shipped_creatures_move_naturally_on_shipped_terrains() {
    every_pair_moves_naturally(1.0);
}

#[test]
fn shipped_creatures_move_naturally_at_triple_speed() {
    every_pair_moves_naturally(3.0);
}

/// One `spec` on the built-in terrain `terrain_name`, driven forward.
fn walking_world(spec: CreatureSpec, terrain_name: &str) -> World {
    common::walking_world(spec, terrain(terrain_name))
}

/// The order groups lift off in, over a run: one entry per lift-off.
fn lift_off_groups(world: &mut World, steps: usize) -> Vec<usize> {
    let spec = world.spec().clone();
    let mut grounded: Vec<bool> = world.creatures()[0]
        .legs
        .iter()
        .map(|l| l.is_grounded())
        .collect();
    let mut order = Vec::new();
    for _ in 0..steps {
        world.step();
        for (i, leg) in world.creatures()[0].legs.iter().enumerate() {
            if grounded[i] && matches!(leg.phase, LegPhase::Swinging { .. }) {
                let group = spec.legs[i].group;
                if order.last() != Some(&group) {
                    order.push(group);
                }
            }
            grounded[i] = leg.is_grounded();
        }
    }
    order
}

#[test]
fn a_listed_wave_steps_in_its_listed_order() {
    let spec = built_in_creature("centipede");
    let groups = spec.gait.groups.len();
    assert_eq!(groups, 6);
    let mut world = walking_world(spec, "hills");
    let order = lift_off_groups(&mut world, 1200);
    assert!(order.len() > 3 * groups, "{order:?}");
    for pair in order.windows(2) {
        assert_eq!(pair[1], (pair[0] + 1) % groups, "out of order: {order:?}");
    }
}

#[test]
fn urgency_order_is_the_default_and_listed_order_changes_the_sequence() {
    let text = CREATURES
        .iter()
        .find(|b| b.name == "centipede")
        .unwrap()
        .text;
    let reactive = parse_creature("c", &text.replace("order = \"listed\"", "")).unwrap();
    let mut world = walking_world(reactive, "flat");
    let order = lift_off_groups(&mut world, 1200);
    let groups = 6;
    assert!(
        order
            .windows(2)
            .any(|pair| pair[1] != (pair[0] + 1) % groups),
        "the reactive order happened to be the listed one: {order:?}"
    );
}

/// A four-legged crawl written as a new user would: one leg at a time, so
/// three feet always stand and the body must lean over them before a step.
const CRAWLER: &str = r#"
name = "crawler"
[body]
size = [0.4, 0.12, 0.3]
height = 0.25
speed = 0.4
turn_rate = 40
[gait]
step_threshold = 0.14
step_height = 0.08
step_duration = 0.25
lead = 0.1
max_lifted = 1
order = "listed"
stability_margin = 0.03
groups = [["back_left"], ["front_left"], ["back_right"], ["front_right"]]
[[legs]]
name = "front_left"
mirror = "front_right"
mount = [0.15, 0.0, -0.1]
rest = [0.4, -0.25, -0.4]
bones = [0.25, 0.3, 0.3]
pole = [0.3, 0.5, -0.5]
[[legs]]
name = "back_left"
mirror = "back_right"
mount = [-0.15, 0.0, -0.1]
rest = [-0.4, -0.25, -0.4]
bones = [0.25, 0.3, 0.3]
pole = [-0.3, 0.5, -0.5]
"#;

#[test]
fn a_crawl_keeps_its_body_over_the_feet_that_stand() {
    let spec = parse_creature("crawler.toml", CRAWLER).unwrap();
    assert!(spec.statically_stable());
    for t in ["flat", "hills", "rough"] {
        let s = drive(spec.clone(), terrain(t), QUALITY_DRIVE);
        assert!(s.unstable_fraction <= 0.01, "{t}: {s:?}");
        assert!(
            s.stability_margin_min.is_some_and(|m| m >= 0.0),
            "{t}: {s:?}"
        );
        assert!(quality_breaches(&s).is_empty(), "{t}: {s:?}");
        // Smooth too: the body once stopped a lean dead at the limit of a
        // foot's reach (17 m/s² on rough).
        assert!(motion_breaches(&s).is_empty(), "{t}: {s:?}");
        // A crawl leans over the next step's feet while the foot before it
        // swings, so it keeps most of its speed; it once stopped to lean
        // before every step and covered only 37% of it.
        assert!(
            s.displacement > 0.55 * f64::from(s.speed) * 57.0,
            "{t}: {s:?}"
        );
    }
}

/// Five legs, as a new user might write them: two diagonal pairs and a tail
/// leg on the centre line, in three groups.
const PENTAPOD: &str = r#"
name = "pentapod"
[body]
size = [0.6, 0.14, 0.3]
height = 0.3
speed = 0.25
turn_rate = 45
[gait]
step_threshold = 0.16
step_height = 0.1
step_duration = 0.22
lead = 0.1
max_lifted = 2
groups = [["front_left", "back_right"], ["front_right", "back_left"], ["tail"]]
[[legs]]
name = "front_left"
mirror = "front_right"
mount = [0.25, 0.0, -0.12]
rest = [0.55, -0.3, -0.45]
bones = [0.25, 0.3, 0.3]
pole = [0.45, 0.5, -0.5]
[[legs]]
name = "back_left"
mirror = "back_right"
mount = [-0.2, 0.0, -0.12]
rest = [-0.45, -0.3, -0.45]
bones = [0.25, 0.3, 0.3]
pole = [-0.4, 0.5, -0.5]
[[legs]]
name = "tail"
mount = [-0.3, 0.0, 0.0]
rest = [-0.75, -0.3, 0.0]
bones = [0.3, 0.35]
pole = [-0.5, 0.5, 0.0]
"#;

#[test]
fn an_odd_legged_creature_walks_and_stays_over_its_feet() {
    // Once, its body leaned back over the feet that would stay down as fast
    // as it walked forward, and it never moved (0.2 m in 60 s).
    // Faster, leaning ahead for its next step once threw its body forward
    // when a lean toward its tail was released (55 m/s²).
    let fast = PENTAPOD.replace("speed = 0.25", "speed = 0.7");
    for (text, t) in [
        (PENTAPOD, "flat"),
        (PENTAPOD, "hills"),
        (PENTAPOD, "rough"),
        (&fast, "flat"),
    ] {
        let spec = parse_creature("pentapod.toml", text).unwrap();
        let s = drive(spec, terrain(t), QUALITY_DRIVE);
        assert!(quality_breaches(&s).is_empty(), "{t}: {s:?}");
        assert!(motion_breaches(&s).is_empty(), "{t}: {s:?}");
        assert!(s.unstable_fraction <= 0.01, "{t}: {s:?}");
        assert_eq!(s.leg_crossings + s.leg_body_intersections, 0, "{t}: {s:?}");
        assert!(
            s.displacement > 0.5 * f64::from(s.speed) * 57.0,
            "{t}: {s:?}"
        );
    }
}

#[test]
fn without_the_shift_a_crawl_would_tip() {
    // The same crawl with no margin asked and no time to shift (a swing
    // the moment a foot is off): the centre leaves the support polygon more
    // often, which is what the shift prevents.
    let careful = drive(
        parse_creature("crawler.toml", CRAWLER).unwrap(),
        terrain("flat"),
        QUALITY_DRIVE,
    );
    let margin = |s: &Summary| s.stability_margin_min.unwrap();
    let careless = drive(
        parse_creature(
            "crawler.toml",
            &CRAWLER.replace("stability_margin = 0.03", "stability_margin = 0.0"),
        )
        .unwrap(),
        terrain("flat"),
        QUALITY_DRIVE,
    );
    assert!(
        margin(&careful) > margin(&careless),
        "{careful:?}\n{careless:?}"
    );
}

#[test]
fn stopping_and_starting_are_smooth() {
    for c in ["spider", "hexapod", "biped"] {
        let s = drive(
            built_in_creature(c),
            terrain("hills"),
            "forward 3s, stop 0.1s, forward 0.2s, stop 2s, back 2s, forward 1s, stop 1s",
        );
        assert!(
            motion_breaches(&s).is_empty(),
            "{c}: {:?}\n{s:?}",
            motion_breaches(&s)
        );
        assert!(quality_breaches(&s).is_empty(), "{c}: {s:?}");
    }
}

#[test]
fn speed_changes_no_faster_than_the_body_accelerates() {
    let spec = built_in_creature("spider");
    let limit = spec.body.acceleration;
    let mut world = walking_world(spec, "flat");
    let dt = world.dt();
    let mut previous = 0.0f32;
    for step in 0..240 {
        world.step();
        let speed = world.creatures()[0].body.velocity.length();
        assert!(
            (speed - previous).abs() <= limit * dt * 1.001 + 1e-6,
            "step {step}: {previous} -> {speed}"
        );
        previous = speed;
    }
    assert!(previous > 0.8, "reached {previous}");
}

#[test]
fn step_threshold_sets_the_stride_at_walking_speed() {
    let text = CREATURES.iter().find(|b| b.name == "spider").unwrap().text;
    let steps = |threshold: &str| {
        let spec = parse_creature(
            "spider",
            &text.replace(
                "step_threshold = 0.18",
                &format!("step_threshold = {threshold}"),
            ),
        )
        .unwrap();
        drive(spec, terrain("flat"), "forward 20s").foot_steps
    };
    let (short, default, long) = (steps("0.1"), steps("0.18"), steps("0.24"));
    assert!(
        short > default && default > long,
        "{short} {default} {long}"
    );
}

#[test]
fn a_biped_has_double_support_and_sways_toward_its_stance_foot() {
    let mut world = walking_world(built_in_creature("biped"), "flat");
    // Let it reach its walking speed first.
    for _ in 0..240 {
        world.step();
    }
    let (mut double, mut single, mut toward, mut away) = (0, 0, 0, 0);
    let mut swings_without_a_pause = 0;
    let mut last_swinger: Option<usize> = None;
    let mut paused = true;
    for _ in 0..1200 {
        world.step();
        let creature = &world.creatures()[0];
        let swinging: Vec<usize> = (0..2)
            .filter(|&i| !creature.legs[i].is_grounded())
            .collect();
        match swinging.as_slice() {
            [] => {
                double += 1;
                paused = true;
            }
            [leg] => {
                single += 1;
                if last_swinger != Some(*leg) || paused {
                    if !paused {
                        swings_without_a_pause += 1;
                    }
                    last_swinger = Some(*leg);
                    paused = false;
                }
                // Late in the swing the body stands over the stance foot's
                // side of its path (the sway spring lags early in it).
                if let LegPhase::Swinging { progress, .. } = creature.legs[*leg].phase
                    && progress > 0.6
                {
                    let stance = &creature.legs[1 - leg];
                    let right = creature.body.right();
                    let body_side = creature.body.position.dot(right);
                    let foot_side = stance.foot.dot(right);
                    let mid = 0.5 * (foot_side + creature.legs[*leg].foot.dot(right));
                    if (body_side - mid) * (foot_side - mid) > 0.0 {
                        toward += 1;
                    } else {
                        away += 1;
                    }
                }
            }
            _ => panic!("both feet in the air"),
        }
    }
    assert_eq!(
        swings_without_a_pause, 0,
        "a swing began as the other ended"
    );
    let share = f64::from(double) / f64::from(double + single);
    assert!((0.05..0.5).contains(&share), "double support {share:.3}");
    assert!(toward > 4 * away, "toward {toward}, away {away}");
}

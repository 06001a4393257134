//! Bad input: every kind of broken creature, terrain and script file gets an
//! error naming the file, line, column, field and what would be valid.

use skitter::config::{
    CREATURES, Checked, ConfigError, TERRAINS, check_file, load_creature, parse_creature,
    parse_terrain,
};

fn spider_text() -> &'static str {
    CREATURES[0].text
}

/// The spider file with `from` replaced by `to` (which must occur).
fn spider_with(from: &str, to: &str) -> String {
    assert!(
        spider_text().contains(from),
        "test setup: {from:?} not in spider.toml"
    );
    spider_text().replacen(from, to, 1)
}

fn creature_error(text: &str) -> ConfigError {
    parse_creature("creatures/broken.toml", text).unwrap_err()
}

/// Line (1-based) of the first occurrence of `needle` in `text`.
fn line_of(text: &str, needle: &str) -> usize {
    text[..text.find(needle).unwrap()].matches('\n').count() + 1
}

#[track_caller]
fn assert_error(err: &ConfigError, line: usize, field: &str, fragments: &[&str]) {
    assert_eq!(err.file, "creatures/broken.toml", "{err}");
    assert_eq!(err.line, Some(line), "{err}");
    assert!(err.column.is_some(), "{err}");
    assert_eq!(err.field.as_deref(), Some(field), "{err}");
    for fragment in fragments {
        assert!(err.message.contains(fragment), "{err}\nmissing: {fragment}");
    }
    let shown = err.to_string();
    assert!(
        shown.starts_with(&format!("creatures/broken.toml:{line}:")),
        "{shown}"
    );
}

#[test]
fn every_shipped_file_is_valid() {
    for b in CREATURES {
        let c = parse_creature(b.name, b.text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.name, b.name);
        assert!(c.legs.iter().all(|l| l.group < c.gait.groups.len()));
    }
    for b in TERRAINS {
        let t = parse_terrain(b.name, b.text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.name, b.name);
    }
    let eight = CREATURES
        .iter()
        .filter(|b| parse_creature(b.name, b.text).unwrap().legs.len() == 8)
        .count();
    assert_eq!(eight, 1, "one shipped creature has 8 legs");
}

#[test]
fn mirror_reflects_a_leg_to_the_other_side() {
    let spider = parse_creature("spider", spider_text()).unwrap();
    let names: Vec<_> = spider.legs.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        names,
        ["front_left", "front_right", "back_left", "back_right"]
    );
    let (left, right) = (&spider.legs[0], &spider.legs[1]);
    assert_eq!(
        right.mount,
        glam::Vec3::new(left.mount.x, left.mount.y, -left.mount.z)
    );
    assert_eq!(right.rest.z, -left.rest.z);
    assert_eq!(right.pole.unwrap().z, -left.pole.unwrap().z);
    // Diagonals: front_left with back_right.
    assert_eq!(spider.legs[0].group, spider.legs[3].group);
    assert_ne!(spider.legs[0].group, spider.legs[1].group);
}

#[test]
fn toml_syntax_error() {
    let text = spider_with("height = 0.32", "height = = 0.32");
    let err = creature_error(&text);
    assert_error(&err, line_of(&text, "height = ="), "body.height", &[]);
}

#[test]
fn unknown_field_lists_the_valid_ones() {
    let text = spider_with("speed = 0.9", "sped = 0.9");
    let err = creature_error(&text);
    assert_error(
        &err,
        line_of(&text, "sped"),
        "body.sped",
        &["unknown field `sped`", "speed"],
    );
}

#[test]
fn wrong_type() {
    let text = spider_with("speed = 0.9", "speed = \"fast\"");
    let err = creature_error(&text);
    assert_error(
        &err,
        line_of(&text, "\"fast\""),
        "body.speed",
        &["invalid type", "f32"],
    );
}

#[test]
fn missing_field() {
    let text = spider_with("turn_rate = 60", "");
    let err = creature_error(&text);
    assert!(err.message.contains("missing field `turn_rate`"), "{err}");
    assert!(err.line.is_some(), "{err}");
}

#[test]
fn negative_and_zero_lengths() {
    let text = spider_with("bones = [0.28, 0.34, 0.34]", "bones = [0.28, -0.34, 0.34]");
    let err = creature_error(&text);
    assert_error(
        &err,
        line_of(&text, "-0.34"),
        "legs[0].bones[1]",
        &["positive", "-0.34"],
    );
    let text = spider_with("height = 0.32", "height = 0.0");
    let err = creature_error(&text);
    assert_error(
        &err,
        line_of(&text, "height = 0.0"),
        "body.height",
        &["positive number", "metres"],
    );
    let text = spider_with("step_duration = 0.2", "step_duration = -1");
    let err = creature_error(&text);
    assert_error(
        &err,
        line_of(&text, "step_duration"),
        "gait.step_duration",
        &["positive"],
    );
}

#[test]
fn gait_group_naming_an_unknown_leg() {
    let text = spider_with(
        "[\"front_left\", \"back_right\"]",
        "[\"front_left\", \"back_rihgt\"]",
    );
    let err = creature_error(&text);
    assert_error(
        &err,
        line_of(&text, "back_rihgt"),
        "gait.groups[0]",
        &[
            "unknown leg `back_rihgt`",
            "legs are: front_left, front_right",
        ],
    );
}

#[test]
fn leg_listed_in_two_groups() {
    let text = spider_with(
        "[\"front_right\", \"back_left\"]",
        "[\"front_right\", \"front_left\"]",
    );
    let err = creature_error(&text);
    assert_error(
        &err,
        line_of(&text, "[\"front_right\", \"front_left\"]"),
        "gait.groups[1]",
        &["already in gait group 0"],
    );
    let text = spider_with("[\"front_right\", \"back_left\"]", "[\"front_right\"]");
    let err = creature_error(&text);
    assert!(
        err.message.contains("leg `back_left` is in no gait group"),
        "{err}"
    );
}

#[test]
fn rest_out_of_reach() {
    let text = spider_with("rest = [0.5, -0.32, -0.5]", "rest = [1.5, -0.32, -0.5]");
    let err = creature_error(&text);
    assert_error(
        &err,
        line_of(&text, "rest = [1.5"),
        "legs[0].rest",
        &["reaches 0.960 m", "lengthen the bones"],
    );
}

#[test]
fn unknown_solver() {
    let text = spider_with("kind = \"fabrik\"", "kind = \"jacobian\"");
    let err = creature_error(&text);
    assert_error(
        &err,
        line_of(&text, "jacobian"),
        "solver.kind",
        &["valid solvers are: fabrik, gradient, two-bone, ccd"],
    );
}

#[test]
fn two_bone_on_a_three_bone_leg() {
    let text = spider_with("kind = \"fabrik\"", "kind = \"two-bone\"");
    let err = creature_error(&text);
    assert!(
        err.message
            .contains("two-bone solver needs exactly 2 bones, leg `front_left` has 3"),
        "{err}"
    );
    let text = spider_with(
        "pole = [0.4, 0.6, -0.6]",
        "pole = [0.4, 0.6, -0.6]\nsolver = \"two-bone\"",
    );
    let err = creature_error(&text);
    assert_error(
        &err,
        line_of(&text, "solver = \"two-bone\""),
        "legs[0].solver",
        &["use fabrik, gradient or ccd"],
    );
}

#[test]
fn nan_and_infinity() {
    let text = spider_with("speed = 0.9", "speed = nan");
    let err = creature_error(&text);
    assert_error(
        &err,
        line_of(&text, "nan"),
        "body.speed",
        &["positive number", "NaN"],
    );
    let text = spider_with("mount = [0.18, 0.0, -0.14]", "mount = [0.18, inf, -0.14]");
    let err = creature_error(&text);
    assert_error(&err, line_of(&text, "inf"), "legs[0].mount", &["finite"]);
}

#[test]
fn duplicate_leg_names_and_too_few_legs() {
    let text = spider_with("mirror = \"back_right\"", "mirror = \"front_right\"");
    let err = creature_error(&text);
    assert!(
        err.message
            .contains("leg name `front_right` is already used by legs[0]"),
        "{err}"
    );
    let one_leg = "name = \"x\"\n[body]\nsize=[1.0,1.0,1.0]\nheight=0.5\nspeed=1.0\nturn_rate=10\norientation=\"ground\"\n[gait]\nstep_threshold=0.1\nstep_height=0.1\nstep_duration=0.2\n[[legs]]\nname=\"a\"\nmount=[0.0,0.0,0.0]\nrest=[0.0,-0.5,0.2]\nbones=[0.4,0.4]\n";
    let err = creature_error(one_leg);
    assert!(err.message.contains("at least 2 legs"), "{err}");
}

#[test]
fn feet_orientation_needs_three_legs() {
    let biped = CREATURES.iter().find(|b| b.name == "biped").unwrap().text;
    let text = biped.replacen("orientation = \"ground\"", "orientation = \"feet\"", 1);
    let err = parse_creature("creatures/broken.toml", &text).unwrap_err();
    assert_error(
        &err,
        line_of(&text, "orientation = \"feet\""),
        "body.orientation",
        &["use `ground`"],
    );
}

#[test]
fn terrain_errors() {
    let hills = TERRAINS[0].text;
    let err = parse_terrain(
        "terrain/t.toml",
        &hills.replacen("octaves = 4", "octaves = 40", 1),
    )
    .unwrap_err();
    assert_eq!(err.field.as_deref(), Some("noise.octaves"));
    assert!(err.message.contains("from 1 to 16, got 40"), "{err}");
    let err = parse_terrain(
        "terrain/t.toml",
        &hills.replacen("fractal = \"fbm\"", "fractal = \"fractal\"", 1),
    )
    .unwrap_err();
    assert!(
        err.message
            .contains("valid: \"fbm\", \"ridged\", \"billow\", \"flat\""),
        "{err}"
    );
    let err = parse_terrain(
        "terrain/t.toml",
        &hills.replacen("resolution = 0.5", "resolution = 0.02", 1),
    )
    .unwrap_err();
    assert!(err.message.contains("grid points"), "{err}");
    let err = parse_terrain(
        "terrain/t.toml",
        &hills.replacen("seed = 7", "seed = -7", 1),
    )
    .unwrap_err();
    assert_eq!(err.field.as_deref(), Some("seed"));
    assert_eq!(err.line, Some(3));
}

#[test]
fn check_file_detects_kinds_and_reports_unreadable_files() {
    let dir = std::env::temp_dir().join(format!("skitter-config-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    std::fs::write(path("drive.txt"), "forward 2s, left 1s").unwrap();
    std::fs::write(path("neither.toml"), "x = 1").unwrap();
    std::fs::write(path("binary.toml"), [0xffu8, 0xfe, 0x00]).unwrap();
    assert!(matches!(
        check_file(&path("drive.txt")),
        Ok(Checked::Script(_))
    ));
    let err = check_file(&path("neither.toml")).unwrap_err();
    assert!(
        err.message.contains("cannot tell what this file is"),
        "{err}"
    );
    let err = check_file(&path("binary.toml")).unwrap_err();
    assert!(err.message.contains("cannot read"), "{err}");
    let err = check_file(&path("missing.toml")).unwrap_err();
    assert!(err.message.contains("cannot read"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unknown_creature_name_lists_the_built_ins() {
    let err = load_creature("spidr").unwrap_err();
    assert_eq!(
        err.to_string(),
        "spidr: no such file, and not a built-in creature; built-in creatures: spider, biped, hexapod, strider, octopod"
    );
    let spec = load_creature("HEXAPOD").unwrap();
    assert_eq!(spec.legs.len(), 6);
}

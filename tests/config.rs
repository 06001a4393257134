//! Bad input: every kind of broken creature, terrain and script file gets an
//! error naming the file, line, column, field and what would be valid.

mod common;

use skitter::config::{
    CREATURES, Checked, ConfigError, PACE_WARNING_SHARE, TERRAINS, check_file,
    check_file_with_warnings, load_creature, parse_creature, parse_creature_with_warnings,
    parse_terrain, parse_terrain_with_warnings,
};

fn spider_text() -> &'static str {
    CREATURES[0].text
}

fn biped_text() -> &'static str {
    CREATURES
        .iter()
        .find(|c| c.name == "biped")
        .expect("the biped is shipped")
        .text
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
        let (c, warnings) =
            parse_creature_with_warnings(b.name, b.text).unwrap_or_else(|e| panic!("{e}"));
        assert!(warnings.is_empty(), "{}: {warnings:?}", b.name);
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

/// `[legs]` for one leg among `[[legs]]` said only "duplicate key", at the
/// next `[[legs]]`.
#[test]
fn a_table_header_for_a_list_entry_says_to_double_its_brackets() {
    let text = spider_with("[[legs]]", "[legs]");
    let err = creature_error(&text);
    let single = line_of(&text, "[legs]");
    assert!(err.line > Some(single), "{err}");
    assert!(
        err.message.contains(&format!(
            "`[legs]` on line {single} names one table, but `[[legs]]` makes `legs` a list"
        )),
        "{err}"
    );
    let err = creature_error("name = \"x\"\n[body]\nspeed = 1\n[body]\nheight = 1\n");
    assert_eq!(err.line, Some(4), "{err}");
    assert!(err.message.contains("start each with `[[body]]`"), "{err}");
}

/// A field missing from a table is reported at the table's header; the
/// hint about writing a table twice was added to it too, and told a user
/// who had forgotten `height` to start `[[body]]` entries.
#[test]
fn a_missing_field_is_not_taken_for_a_table_written_twice() {
    let err = creature_error("name = \"x\"\n[body]\nsize = [0.5, 0.1, 0.3]\n");
    let shown = err.to_string();
    assert!(
        shown.contains("broken.toml:2:1: body: missing field `height`"),
        "{err}"
    );
    assert!(!shown.contains("[[body]]"), "{err}");
}

/// A top-level key left out had no line or column, and said only that
/// "every file of this kind" needs it; an empty file did not say which
/// kind it was taken for.
#[test]
fn a_missing_top_level_key_is_placed_at_the_start_and_names_the_kind() {
    let text = spider_with("name = \"spider\"", "");
    let text = text.replacen("[gait]", "[gaits]", 1);
    let err = creature_error(&text);
    assert_eq!((err.line, err.column), (Some(1), Some(1)), "{err}");
    assert_eq!(err.field.as_deref(), Some("name"), "{err}");
    assert!(
        err.message
            .contains("every creature file needs one, e.g. `name = "),
        "{err}"
    );
    let shown = err.to_string();
    assert!(shown.contains("creatures/broken.toml:1:1: gait: missing field `gait`; every creature file needs a [gait] table"), "{shown}");
    assert!(shown.contains("unknown field `gaits`"), "{shown}");
    let err = parse_terrain("empty.toml", "").unwrap_err();
    assert_eq!((err.line, err.column), (Some(1), Some(1)), "{err}");
    assert!(err.message.contains("every terrain file needs it"), "{err}");
    assert!(
        err.message
            .contains("`check` reads a file as a terrain when"),
        "{err}"
    );
}

/// `groups = []` was taken for "each leg alone", what leaving the key out
/// says, and a warning then told the user to use fewer groups.
#[test]
fn an_empty_list_of_gait_groups_is_refused() {
    let text = spider_with("groups = [", "groups = [] # [");
    let err = creature_error(&text);
    assert_error(
        &err,
        line_of(&text, "groups = []"),
        "gait.groups",
        &[
            "an empty list names no group",
            "(front_left, front_right, back_left, back_right) in exactly one",
            "leave `groups` out",
        ],
    );
}

/// `[legs]` written for `[[legs]]` gave the header's error, which says
/// what to write, and then "duplicate key" for every key under it.
#[test]
fn a_table_written_twice_is_one_error_not_one_a_key() {
    let text = "name = \"x\"\n[body]\nsize = [0.5, 0.2, 0.3]\nheight = 0.3\n[body]\nsize = [1, 1, 1]\nheight = 2\nspeed = 1\n[gait]\nstep_height = 0.1\n[gait] # the slow gait\nstep_height = 1\nlead = 1\n";
    let err = creature_error(text);
    let errors: Vec<String> = err.to_string().lines().map(str::to_owned).collect();
    assert_eq!(errors.len(), 2, "{err}");
    assert!(errors[0].starts_with("creatures/broken.toml:5:"), "{err}");
    assert!(
        errors[0].contains("start each with `[[body]]`; the 2 duplicate-key errors"),
        "{err}"
    );
    assert!(errors[1].starts_with("creatures/broken.toml:11:"), "{err}");
    assert!(
        errors[1].contains("[[gait]]`; the duplicate-key error of the key under it follows"),
        "{err}"
    );
}

/// A mite of 8 cm legs, as a new user wrote it: its front hips stand 4 cm
/// apart, and a centimetre's gap said its front legs crossed.
const MITE: &str = r#"name = "mite"
description = "tiny fast one"

[body]
size = [0.06, 0.02, 0.04]
height = 0.04
speed = 2.0
turn_rate = 180

[gait]
step_threshold = 0.02
step_height = 0.012
step_duration = 0.05
lead = 0.01
stability_margin = 0.005
groups = [["fl", "br", "ml2"], ["fr", "bl", "ml"]]

[[legs]]
name = "fl"
mirror = "fr"
mount = [0.03, 0, -0.02]
rest = [0.065, -0.04, -0.055]
bones = [0.03, 0.05]

[[legs]]
name = "ml"
mirror = "ml2"
mount = [0.0, 0, -0.02]
rest = [0.0, -0.04, -0.07]
bones = [0.03, 0.05]

[[legs]]
name = "bl"
mirror = "br"
mount = [-0.03, 0, -0.02]
rest = [-0.065, -0.04, -0.055]
bones = [0.03, 0.05]
"#;

#[test]
fn a_small_creature_s_legs_cross_only_nearer_than_a_fiftieth_of_their_reach() {
    for shipped in CREATURES {
        let spec = parse_creature(shipped.name, shipped.text).unwrap();
        assert!(
            spec.leg_gaps()
                .iter()
                .all(|g| *g == skitter::creature::LEG_GAP),
            "{}",
            shipped.name
        );
    }
    let mite = parse_creature("mite.toml", MITE).unwrap();
    assert!(
        mite.leg_gaps().iter().all(|g| (g - 0.0016).abs() < 1e-6),
        "{:?}",
        mite.leg_gaps()
    );
    let dir = common::temp_dir("config-mite");
    let path = dir.join("mite.toml");
    std::fs::write(&path, MITE).unwrap();
    let (_, warnings) = check_file_with_warnings(&path.to_string_lossy()).unwrap();
    assert!(
        warnings
            .iter()
            .all(|w| !w.0.message.contains("of each other")),
        "{warnings:?}"
    );
    // What it does warn of says the speed it means.
    assert!(
        warnings
            .iter()
            .any(|w| w.0.message.contains("at the 0.74 m/s it is asked, a swing")),
        "{warnings:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
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
        &["invalid type", "expected a number"],
    );
    assert!(!err.to_string().contains("f32"), "{err}");
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
        &["from 0.02 to 10", "got -1"],
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

/// A rest foot off the ground the body rides over is a warning at the rest
/// point, once for a leg and its mirror: it pointed at the `[[legs]]`
/// header, twice, and a foot 22 cm up (a quarter of the reach) passed.
#[test]
fn a_rest_foot_off_the_ground_is_warned_once_at_its_rest_point() {
    let text = spider_with("rest = [0.5, -0.32, -0.5]", "rest = [0.5, -0.1, -0.5]");
    let (_, warnings) = parse_creature_with_warnings("creatures/up.toml", &text).unwrap();
    let rest: Vec<_> = warnings
        .iter()
        .filter(|w| w.0.message.contains("rest.y is -0.1 m"))
        .collect();
    assert_eq!(rest.len(), 1, "{warnings:?}");
    let warning = &rest[0].0;
    assert_eq!(warning.field.as_deref(), Some("legs[0].rest"), "{warning}");
    assert_eq!(
        warning.line,
        Some(line_of(&text, "rest = [0.5, -0.1")),
        "{warning}"
    );
    assert_eq!(warning.column, Some(8), "{warning}");
    // A few centimetres off is a choice, not a slip.
    let text = spider_with("rest = [0.5, -0.32, -0.5]", "rest = [0.5, -0.28, -0.5]");
    let (_, warnings) = parse_creature_with_warnings("creatures/up.toml", &text).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
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
        &["use any other solver for it (fabrik, gradient, ccd, jacobian-transpose or dls)"],
    );
    // Once, not again for its mirror at the same place.
    assert_eq!(err.count(), 1, "{err}");
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
    // Past f32's range, the number as written, not `inf`.
    let text = spider_with("speed = 0.9", "speed = 1e300");
    let err = creature_error(&text);
    assert_error(
        &err,
        line_of(&text, "1e300"),
        "body.speed",
        &["positive number", "got 1e300, too large"],
    );
    let text = spider_with("mount = [0.18, 0.0, -0.14]", "mount = [0.18, inf, -0.14]");
    let err = creature_error(&text);
    assert_error(&err, line_of(&text, "inf"), "legs[0].mount", &["finite"]);
}

/// A swing of a nanosecond is a jump and one of years never walks: both
/// were accepted (`walks at 0.00 m/s`).
#[test]
fn swings_are_from_a_fiftieth_of_a_second_to_ten_seconds() {
    for (from, to, field) in [
        (
            "step_duration = 0.2       # seconds",
            "step_duration = 1e-9",
            "gait.step_duration",
        ),
        (
            "step_duration = 0.2       # seconds",
            "step_duration = 1e9",
            "gait.step_duration",
        ),
        (
            "step_duration = 0.2       # seconds",
            "step_duration = 0.25\nmin_step_duration = 0.001",
            "gait.min_step_duration",
        ),
    ] {
        let text = spider_with(from, to);
        let err = creature_error(&text);
        let value = to.rsplit(" = ").next().unwrap();
        assert_error(
            &err,
            line_of(&text, &format!("= {value}")),
            field,
            &["from 0.02 to 10 (seconds)"],
        );
    }
    assert!(
        parse_creature(
            "edge.toml",
            &spider_with(
                "step_duration = 0.2       # seconds",
                "step_duration = 0.02"
            )
        )
        .is_ok()
    );
}

#[test]
fn duplicate_leg_names_and_too_few_legs() {
    let text = spider_with("mirror = \"back_right\"", "mirror = \"front_right\"");
    let err = creature_error(&text);
    assert!(
        err.all().any(|e| e
            .message
            .contains("leg name `front_right` is already used by legs[0]")),
        "{err}"
    );
    let one_leg = "name = \"x\"\n[body]\nsize=[1.0,1.0,1.0]\nheight=0.5\nspeed=1.0\nturn_rate=10\norientation=\"ground\"\n[gait]\nstep_threshold=0.1\nstep_height=0.1\nstep_duration=0.2\n[[legs]]\nname=\"a\"\nmount=[0.0,0.0,0.0]\nrest=[0.0,-0.5,0.2]\nbones=[0.4,0.4]\n";
    let err = creature_error(one_leg);
    assert!(err.message.contains("at least 2 legs"), "{err}");
}

/// A table's field written at the top level (above its header, or with the
/// header left out) is unknown there; the error says which table has it.
#[test]
fn a_field_written_outside_its_table_is_pointed_to_its_table() {
    let biped = biped_text();
    let text = biped.replacen("[body]", "step_height = 0.1\n[body]", 1);
    let err = creature_error(&text);
    assert_error(
        &err,
        line_of(&text, "step_height = 0.1\n[body]"),
        "step_height",
        &["unknown field `step_height`", "a field of [gait]"],
    );
    let text = biped.replacen("[body]", "bones = [0.3, 0.3]\n[body]", 1);
    let err = creature_error(&text);
    assert!(err.message.contains("a field of [[legs]]"), "{err}");
    let err = parse_terrain("t.toml", "name = \"t\"\noffset = [1.0, 2.0]\n").unwrap_err();
    assert!(
        err.message
            .ends_with("`offset` is a field of [noise]: write it under that header"),
        "{err}"
    );
    // A key no table has gets no such pointer.
    let err = parse_terrain("t.toml", "name = \"t\"\nbogus = 1\n").unwrap_err();
    assert!(err.message.ends_with("`noise`, `shapes`"), "{err}");
}

/// A point or a size is exactly its numbers: an array one longer was read
/// as its first elements, the rest dropped without a word.
#[test]
fn arrays_of_the_wrong_length_are_refused_at_the_array() {
    let biped = biped_text();
    for (written, with_extra, field) in [
        (
            "mount = [0.0, -0.1, -0.13]",
            "mount = [0.0, -0.1, -0.13, 7.0]",
            "legs[0].mount",
        ),
        (
            "pole = [0.6, -0.35, -0.15]",
            "pole = [0.6, -0.35, -0.15, 0.0, 1.0]",
            "legs[0].pole",
        ),
        ("size = [0.3, 0.4, 0.36]", "size = [0.3, 0.4]", "body.size"),
    ] {
        let text = biped.replacen(written, with_extra, 1);
        let err = creature_error(&text);
        assert_error(
            &err,
            line_of(&text, with_extra),
            field,
            &["invalid length", "expected an array of 3 numbers"],
        );
    }
    let flat = "name = \"f\"\nsize = [40.0, 40.0, 1.0]\n[noise]\nfractal = \"flat\"\n";
    let err = parse_terrain("t.toml", flat).unwrap_err();
    assert_eq!(err.field.as_deref(), Some("size"), "{err}");
    assert_eq!(err.line, Some(2), "{err}");
    assert!(
        err.message
            .contains("invalid length 3, expected an array of 2 numbers"),
        "{err}"
    );
}

#[test]
fn feet_orientation_needs_three_legs() {
    let biped = biped_text();
    let text = biped.replacen("orientation = \"ground\"", "orientation = \"feet\"", 1);
    let err = creature_error(&text);
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
        &hills.replacen("resolution = 0.5", "resolution = 0.01", 1),
    )
    .unwrap_err();
    assert!(err.message.contains("from 0.02 to 10 metres"), "{err}");
    let err = parse_terrain(
        "terrain/t.toml",
        &hills.replacen("seed = 7", "seed = -7", 1),
    )
    .unwrap_err();
    assert_eq!(err.field.as_deref(), Some("seed"));
    assert_eq!(err.line, Some(4));
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
    // No creature table: read as a terrain, exactly as `headless -t` would,
    // so the checker and the runner agree on it.
    let err = check_file(&path("neither.toml")).unwrap_err();
    assert!(err.to_string().contains("unknown field `x`"), "{err}");
    assert!(
        err.message
            .contains("`check` reads a file as a terrain when"),
        "{err}"
    );
    assert_eq!((err.line, err.column), (Some(1), Some(1)));
    let err = check_file(&path("binary.toml")).unwrap_err();
    assert!(err.message.contains("not UTF-8"), "{err}");
    let err = check_file(&path("missing.toml")).unwrap_err();
    assert!(err.message.contains("cannot read"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unknown_creature_name_lists_the_built_ins() {
    let err = load_creature("spidr").unwrap_err();
    assert_eq!(
        err.to_string(),
        "spidr: no such file, and not a built-in creature; built-in creatures: spider, biped, hexapod, strider, octopod, centipede"
    );
    let spec = load_creature("HEXAPOD").unwrap();
    assert_eq!(spec.legs.len(), 6);
}

// What the simulation needs, not only "positive and finite": each of these
// files was accepted once and then panicked, hovered or slipped.

#[test]
fn a_bone_too_short_to_represent_is_refused_not_a_panic() {
    let text = spider_with("bones = [0.28, 0.34, 0.34]", "bones = [0.28, 0.34, 1e-8]");
    let err = creature_error(&text);
    assert_error(
        &err,
        line_of(&text, "bones = [0.28, 0.34, 1e-8]"),
        "legs[0].bones[2]",
        &["too short", "0.0001"],
    );
}

#[test]
fn a_ride_height_the_legs_cannot_reach_is_refused() {
    let text = spider_with("height = 0.32 ", "height = 1.5 ");
    let err = creature_error(&text);
    assert_error(
        &err,
        line_of(&text, "height = 1.5"),
        "body.height",
        &["hover", "at most"],
    );
}

#[test]
fn a_tolerance_coarse_against_the_bones_is_refused() {
    let text = spider_with("tolerance = 1e-4", "tolerance = 0.3");
    let err = creature_error(&text);
    assert_error(
        &err,
        line_of(&text, "tolerance = 0.3"),
        "solver.tolerance",
        &["shortest bone", "at most"],
    );
}

#[test]
fn a_pole_far_beyond_the_leg_is_refused() {
    let text = spider_with("pole = [0.4, 0.6, -0.6]", "pole = [4e4, 6e4, -6e4]");
    let err = creature_error(&text);
    assert_error(
        &err,
        line_of(&text, "pole = [4e4"),
        "legs[0].pole",
        &["within 10 reaches"],
    );
}

#[test]
fn steps_and_leads_out_of_proportion_to_the_legs_are_refused() {
    let text = spider_with("step_height = 0.12", "step_height = 0.9");
    assert_error(
        &creature_error(&text),
        line_of(&text, "step_height = 0.9"),
        "gait.step_height",
        &["at most 0.480"],
    );
    let text = spider_with("lead = 0.2 ", "lead = 2.0 ");
    assert_error(
        &creature_error(&text),
        line_of(&text, "lead = 2.0"),
        "gait.lead",
        &["lead at most"],
    );
}

#[test]
fn leg_and_bone_counts_are_capped() {
    let legs: String = (0..65)
        .map(|i| format!("[[legs]]\nname = \"l{i}\"\nmount = [0.0, 0.0, -0.1]\nrest = [0.3, -0.32, -0.4]\nbones = [0.3, 0.3]\n"))
        .collect();
    let head = spider_text().split("[[legs]]").next().unwrap().replace(
        "groups = [[\"front_left\", \"back_right\"], [\"front_right\", \"back_left\"]]\n",
        "",
    );
    let err = creature_error(&format!("{head}{legs}"));
    assert_eq!(err.field.as_deref(), Some("legs"), "{err}");
    assert!(err.message.contains("at most 64 legs"), "{err}");

    let bones = format!("bones = [{}]", vec!["0.03"; 33].join(", "));
    let text = spider_with("bones = [0.28, 0.34, 0.34]", &bones);
    assert_error(
        &creature_error(&text),
        line_of(&text, "bones = [0.03"),
        "legs[0].bones",
        &["at most 32 bones"],
    );
}

#[test]
fn a_speed_the_gait_cannot_carry_is_a_warning_with_the_cap() {
    let text = spider_with("speed = 0.9 ", "speed = 10 ").replacen("lead = 0.2 ", "lead = 0.12", 1);
    let (spec, warnings) = parse_creature_with_warnings("creatures/fast.toml", &text).unwrap();
    assert!(
        spec.walk_speed() < 4.0 && spec.walk_speed() == spec.speed_cap(),
        "{}",
        spec.walk_speed()
    );
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let shown = warnings[0].to_string();
    let line = line_of(&text, "speed = 10");
    assert!(
        shown.starts_with(&format!(
            "warning creatures/fast.toml:{line}:9: body.speed: the gait can carry at most 1.103 m/s (set by swinging feet staying under 4.5 m/s while the gait's 1 other turn(s) swing)"
        )),
        "{shown}"
    );
    // Two turns are the fewest: nothing but a lower speed raises it.
    assert!(shown.ends_with("Lower the speed"), "{shown}");
}

/// A hip outside the body box is warned of, once for a mirrored pair, at
/// the mount's line: the box is what keeps out of walls, so such a hip and
/// its first bone can pass into them. A hip on the box's face is not.
#[test]
fn a_hip_outside_the_body_box_is_a_warning_at_its_mount() {
    let text = spider_with("mount = [0.18, 0.0, -0.14]", "mount = [0.18, 0.0, -0.3]");
    let (_, warnings) = parse_creature_with_warnings("creatures/wide.toml", &text).unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let shown = warnings[0].to_string();
    let line = line_of(&text, "mount = [0.18, 0.0, -0.3]");
    assert!(
        shown.starts_with(&format!(
            "warning creatures/wide.toml:{line}:9: legs[0].mount: leg `front_left`'s hip is 0.120 m \
             outside the body box (0.500 × 0.160 × 0.360 m)"
        )),
        "{shown}"
    );
    assert!(shown.contains("widen body.size"), "{shown}");
    // On the box's side face (its half width, 0.18 m): no warning.
    let flush = spider_with("mount = [0.18, 0.0, -0.14]", "mount = [0.18, 0.0, -0.18]");
    let (_, warnings) = parse_creature_with_warnings("creatures/flush.toml", &flush).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
}

/// The advice a capped speed's warning gives raises the cap: with three
/// groups taking turns the swinging feet set it, and two groups (more
/// feet in the air at once) carry more. (It used to say to shorten
/// min_step_duration, which leaves that cap where it is.)
#[test]
fn the_advice_for_a_capped_speed_raises_the_cap() {
    let three = spider_with("speed = 0.9 ", "speed = 3 ")
        .replacen("lead = 0.2 ", "lead = 0.05", 1)
        .replacen(
            "groups = [[\"front_left\", \"back_right\"], [\"front_right\", \"back_left\"]]",
            "groups = [[\"front_left\"], [\"back_right\"], [\"front_right\", \"back_left\"]]",
            1,
        );
    let (spec, warnings) = parse_creature_with_warnings("three.toml", &three).unwrap();
    assert_eq!(spec.gait.groups.len(), 3, "{three}");
    let shown = warnings
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(shown.contains("2 other turn(s)"), "{shown}");
    assert!(shown.contains("Use fewer gait groups"), "{shown}");
    // Its one-leg groups lift alone whatever max_lifted says: a larger
    // one would change nothing, and is not suggested.
    assert!(!shown.contains("max_lifted"), "{shown}");
    let capped = spec.speed_cap();
    // The cap as a person writes it (two decimals, up or down) is no speed
    // over the cap: 0.53 against 0.5299 was warned to walk at 0.530.
    for written in [capped + 0.004, capped - 0.004] {
        let at_cap = three.replacen("speed = 3 ", &format!("speed = {written:.2} "), 1);
        let (_, warnings) = parse_creature_with_warnings("three.toml", &at_cap).unwrap();
        assert!(
            !warnings.iter().any(|w| w.0.message.contains("at most")),
            "{written}: {warnings:?}"
        );
    }
    let two = three.replacen(
        "groups = [[\"front_left\"], [\"back_right\"], [\"front_right\", \"back_left\"]]",
        "groups = [[\"front_left\", \"back_right\"], [\"front_right\", \"back_left\"]]",
        1,
    );
    let (spec, _) = parse_creature_with_warnings("two.toml", &two).unwrap();
    assert!(
        spec.speed_cap() > 1.3 * capped,
        "{} against {capped}",
        spec.speed_cap()
    );
}

#[test]
fn feet_that_may_cross_are_a_warning() {
    // Hind legs moved right behind the front ones: a stride is longer than the gap.
    let text = spider_with("rest = [-0.5, -0.32, -0.5]", "rest = [0.4, -0.32, -0.5]");
    let (_, warnings) = parse_creature_with_warnings("creatures/crowded.toml", &text).unwrap();
    assert!(
        warnings.iter().any(|w| w.0.message.contains("may cross")),
        "{warnings:?}"
    );
}

/// `max_lifted = 1` with the spider's pairs: each pair lifts in two
/// turns, four a cycle, and `check` said 0.90 m/s (the cap of two turns)
/// for a creature that walked 0.39 m/s.
#[test]
fn a_group_larger_than_max_lifted_lifts_in_parts_and_slows_the_gait() {
    let pairs = parse_creature("creatures/spider.toml", spider_text()).unwrap();
    let text = spider_with("max_lifted = 2", "max_lifted = 1");
    let (one_at_a_time, warnings) =
        parse_creature_with_warnings("creatures/one.toml", &text).unwrap();
    assert_eq!((pairs.turns(), one_at_a_time.turns()), (2, 4));
    assert!(
        one_at_a_time.speed_cap() < 0.6 * pairs.speed_cap(),
        "{} against {}",
        one_at_a_time.speed_cap(),
        pairs.speed_cap()
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.0.field.as_deref() == Some("body.speed")),
        "its 0.9 m/s is over the cap: {warnings:?}"
    );
}

#[test]
fn terrain_settings_that_make_nan_heights_are_refused() {
    let text = "name = \"t\"\n[noise]\nfractal = \"fbm\"\npersistence = 0.0\n";
    let err = parse_terrain("terrain/t.toml", text).unwrap_err();
    assert_eq!(
        (err.line, err.field.as_deref()),
        (Some(4), Some("noise")),
        "{err}"
    );
    assert!(err.message.contains("NaN"), "{err}");
}

#[test]
fn endless_and_huge_inputs_end_in_a_clear_error() {
    let started = std::time::Instant::now();
    let err = check_file("/dev/zero").unwrap_err();
    assert!(err.message.contains("larger than 1024 KiB"), "{err}");
    assert!(started.elapsed().as_secs_f32() < 1.0);
}

// Found by the mutated-file property test (tests/mutated_files.rs) at other
// seeds; each walked with centimetres of slip or sank before it was refused.

#[test]
fn mirrored_feet_on_one_spot_are_refused() {
    let text = spider_with("rest = [-0.5, -0.32, -0.5]", "rest = [-0.5, -0.32, 1e-8]");
    let err = creature_error(&text);
    assert_eq!(err.field.as_deref(), Some("legs[1].mirror.rest"), "{err}");
    assert!(err.message.contains("cannot stand on one spot"), "{err}");
}

#[test]
fn a_stride_through_the_hollow_of_a_long_outer_bone_is_refused() {
    let strider = CREATURES.iter().find(|b| b.name == "strider").unwrap().text;
    let text = strider.replacen("bones = [0.5, 0.6]", "bones = [0.5, 1.1175]", 1);
    assert_ne!(text, strider, "test setup: strider bones changed");
    let err = creature_error(&text);
    assert!(err.message.contains("cannot fold closer than"), "{err}");
}

#[test]
fn a_body_its_feet_cannot_carry_is_refused() {
    let text = spider_with("size = [0.5, 0.16, 0.36]", "size = [1e8, 0.16, 0.36]");
    assert_error(
        &creature_error(&text),
        line_of(&text, "size = [1e8"),
        "body.size",
        &["cannot stand on feet"],
    );
    let text = spider_with("size = [0.5, 0.16, 0.36]", "size = [0.5, 0.7, 0.36]");
    assert_error(
        &creature_error(&text),
        line_of(&text, "size = [0.5, 0.7"),
        "body.size",
        &["sit in the ground"],
    );
}

#[test]
fn noise_finer_than_the_grid_and_cliffs_are_refused() {
    let rough = TERRAINS.iter().find(|b| b.name == "rough").unwrap().text;
    let err = parse_terrain(
        "t.toml",
        &rough.replacen("frequency = 0.1", "frequency = 5.854", 1),
    )
    .unwrap_err();
    assert_eq!(err.field.as_deref(), Some("noise.frequency"), "{err}");
    assert!(err.message.contains("at most 1 cycles per metre"), "{err}");
    let dunes = TERRAINS.iter().find(|b| b.name == "dunes").unwrap().text;
    let err = parse_terrain(
        "t.toml",
        &dunes.replacen("amplitude = 1.2", "amplitude = 780", 1),
    )
    .unwrap_err();
    assert_eq!(err.field.as_deref(), Some("noise.amplitude"), "{err}");
    assert!(err.message.contains("median slope"), "{err}");
}

/// `noise.offset` slides the ground under the spawn: where a file gives
/// one it is used as written, any finite pair of metres within ±1e6, and
/// anything else is refused at the field with what is valid.
#[test]
fn a_noise_offset_is_used_as_written_and_refused_out_of_range() {
    let ridged = "name = \"r\"\n[noise]\nfractal = \"ridged\"\nfrequency = 0.04\n";
    let default = parse_terrain("r.toml", ridged).unwrap();
    // A third of the first octave's 25 m wavelength, along both axes.
    for axis in default.noise.offset {
        assert!(
            (axis - 25.0 / 3.0).abs() < 1e-9,
            "{:?}",
            default.noise.offset
        );
    }
    // `check` says where the noise is read, which the file does not.
    let line = Checked::Terrain(default.clone()).to_string();
    assert!(
        line.ends_with(", seed 0, noise offset [8.33, 8.33] m"),
        "{line}"
    );
    let hills = TERRAINS.iter().find(|b| b.name == "hills").unwrap().text;
    let hills = parse_terrain("h.toml", hills).unwrap();
    assert_eq!(hills.noise.offset, [0.0, 0.0]);
    let line = Checked::Terrain(hills).to_string();
    assert!(line.ends_with("0.5 m grid, seed 7"), "{line}");
    let given = parse_terrain("r.toml", &format!("{ridged}offset = [12.5, -3]\n")).unwrap();
    assert_eq!(given.noise.offset, [12.5, -3.0]);
    let err = parse_terrain("r.toml", &format!("{ridged}offset = [2e6, 0.0]\n")).unwrap_err();
    assert_eq!(err.field.as_deref(), Some("noise.offset"), "{err}");
    assert_eq!((err.line, err.column), (Some(5), Some(10)), "{err}");
    assert!(
        err.message
            .contains("each within ±1000000, got [2000000, 0]"),
        "{err}"
    );
    // On flat ground there is nothing to slide: said, not refused.
    let flat = "name = \"f\"\n[noise]\nfractal = \"flat\"\noffset = [3.0, 4.0]\n";
    let (_, warnings) = parse_terrain_with_warnings("f.toml", flat).unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].0.field.as_deref(), Some("noise.offset"));
    assert_eq!(warnings[0].0.line, Some(4));
    assert!(
        warnings[0].0.message.contains("changes nothing"),
        "{}",
        warnings[0]
    );
    for short_or_long in ["[1.0]", "[1.0, 2.0, 3.0]"] {
        let text = format!("{ridged}offset = {short_or_long}\n");
        let err = parse_terrain("r.toml", &text).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("noise.offset"), "{err}");
        assert_eq!(err.line, Some(5), "{err}");
        assert!(
            err.message.contains("expected an array of 2 numbers"),
            "{err}"
        );
    }
}

/// Steep ridged noise is legal, but walkers stall on it (feet hung 0.3 m off
/// crests at amplitude 6 m): a located warning says so and what would do.
#[test]
fn steep_terrain_is_a_warning_and_shipped_terrains_are_not() {
    let text = "name = \"steep\"\nseed = 11\n[noise]\nfractal = \"ridged\"\nfrequency = 0.05\namplitude = 6.0\noctaves = 5\n";
    let (_, warnings) = parse_terrain_with_warnings("terrain/steep.toml", text).unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let shown = warnings[0].to_string();
    assert!(shown.starts_with("warning terrain/steep.toml:6:13: noise.amplitude: a tenth of this terrain is steeper than"), "{shown}");
    for b in TERRAINS {
        let (_, warnings) = parse_terrain_with_warnings(b.name, b.text).unwrap();
        assert!(warnings.is_empty(), "{}: {warnings:?}", b.name);
    }
}

/// A wrong number of joint entries hid the entries' own errors (a hinge
/// whose min is above its max, a cone of 200°): each needed a run of
/// `check` of its own.
#[test]
fn every_joint_error_is_reported_with_a_wrong_count() {
    let text = spider_with_joints("[{ hinge = { min = 10, max = 5 } }, { cone = 200 }, {}]");
    let err = creature_error(&text);
    let fields: Vec<_> = err
        .all()
        .map(|e| e.field.clone().unwrap_or_default())
        .collect();
    assert_eq!(
        fields,
        vec![
            "legs[0].joints",
            "legs[0].joints[0].hinge.min",
            "legs[0].joints[1].cone"
        ],
        "{err}"
    );
}

/// The spider with `joints` added to its front leg (and so its mirror).
fn spider_with_joints(joints: &str) -> String {
    spider_with(
        "pole = [0.4, 0.6, -0.6]   # knees bend up and out, toward this point",
        &format!("pole = [0.4, 0.6, -0.6]\njoints = {joints}"),
    )
}

#[test]
fn joint_limits_parse_in_degrees_and_mirror() {
    use skitter::ik::JointLimit;
    let text = spider_with_joints("[{ hinge = { min = -10, max = 150 } }, { cone = 100 }]");
    let spec = parse_creature("creatures/broken.toml", &text).unwrap_or_else(|e| panic!("{e}"));
    let front = &spec.legs[0];
    let mirror = &spec.legs[1];
    assert_eq!(front.joints.len(), 2);
    let JointLimit::Hinge { axis, min, max } = front.joints[0] else {
        panic!("{:?}", front.joints[0]);
    };
    assert!((min.to_degrees() + 10.0).abs() < 1e-4 && (max.to_degrees() - 150.0).abs() < 1e-4);
    assert!(
        (axis.length() - 1.0).abs() < 1e-5,
        "the rest bend's unit normal"
    );
    assert_eq!(
        front.joints[1],
        JointLimit::Cone {
            max: 100f32.to_radians()
        }
    );
    // The mirrored leg's hinge axis is reflected as an axial vector.
    let JointLimit::Hinge { axis: m, .. } = mirror.joints[0] else {
        panic!("{:?}", mirror.joints[0]);
    };
    assert!(
        (m - glam::Vec3::new(-axis.x, -axis.y, axis.z)).length() < 1e-6,
        "{m} vs {axis}"
    );
    // Legs without `joints` stay free, and the limited rest poses keep their limits.
    assert!(spec.legs[2].joints.is_empty());
    for leg in &spec.legs {
        let chain = skitter::creature::rest_chain(leg);
        assert!(chain.limit_violation() < 1e-3, "{}", leg.name);
    }
    // `{}` is a free joint.
    let free = spider_with_joints("[{}, { cone = 90 }]");
    let spec = parse_creature("creatures/broken.toml", &free).unwrap();
    assert_eq!(spec.legs[0].joints[0], JointLimit::Free);
}

#[test]
fn bad_joint_limits_are_located() {
    let cases: [(&str, &str, &[&str]); 7] = [
        (
            "[{ hinge = { min = 10, max = -150 } }, { cone = 90 }]",
            "legs[0].joints[0].hinge.min",
            &["min (10°) is above max (-150°)"],
        ),
        (
            "[{ cone = 90 }]",
            "legs[0].joints",
            &["3 bones, so 2 joints", "lists 1"],
        ),
        (
            "[{ cone = 200 }, {}]",
            "legs[0].joints[0].cone",
            &["0 to 180, got 200"],
        ),
        (
            "[{ hinge = { min = -10, max = 190 } }, {}]",
            "legs[0].joints[0].hinge.max",
            &["-180 to 180, got 190"],
        ),
        (
            "[{ hinge = { min = 0, max = 90 }, cone = 30 }, {}]",
            "legs[0].joints[0]",
            &["either a hinge or a cone"],
        ),
        (
            // The rest knee bends about 89°: a hinge that stops at 30° cannot hold it.
            "[{ hinge = { min = -10, max = 30 } }, {}]",
            "legs[0].joints[0]",
            &["rest pose", "outside this limit"],
        ),
        (
            // An axis in the wrong plane leaves the rest pose out of the hinge.
            "[{ hinge = { axis = [0, 1, 0], min = -170, max = 170 } }, {}]",
            "legs[0].joints[0]",
            &["rest pose", "hinge axis"],
        ),
    ];
    for (joints, field, fragments) in cases {
        let text = spider_with_joints(joints);
        let err = creature_error(&text);
        let line = line_of(&text, "joints = ");
        assert_error(&err, line, field, fragments);
    }
    // An unknown key inside a joint is refused by name.
    let text = spider_with_joints("[{ ball = 30 }, {}]");
    let err = creature_error(&text);
    assert!(err.message.contains("ball"), "{err}");
    assert_eq!(err.line, Some(line_of(&text, "joints = ")), "{err}");
}

/// Each error's `(line, field)`, in the order reported.
fn located(err: &ConfigError) -> Vec<(usize, String)> {
    err.all()
        .map(|e| (e.line.unwrap_or(0), e.field.clone().unwrap_or_default()))
        .collect()
}

#[test]
fn every_error_in_a_creature_file_is_reported_in_file_order() {
    let text = spider_text()
        .replace("speed = 0.9 ", "speed = -0.9")
        .replace("max_tilt_rate = 120", "max_tilt_rate = \"fast\"")
        .replace("kind = \"fabrik\"", "kind = \"fabrick\"")
        .replace("step_duration = 0.2 ", "step_duration = 0   ")
        .replacen(
            "bones = [0.28, 0.34, 0.34]",
            "bones = [0.28, -0.34, 0.34]",
            1,
        )
        .replace(
            "pole = [-0.4, 0.6, -0.6]",
            "pole = [-0.4, 0.6, -0.6]\ncolour = 3",
        );
    let err = creature_error(&text);
    assert_eq!(
        located(&err),
        vec![
            (line_of(&text, "speed = -0.9"), "body.speed".to_string()),
            (line_of(&text, "max_tilt_rate"), "body.max_tilt_rate".into()),
            (line_of(&text, "fabrick"), "solver.kind".into()),
            (
                line_of(&text, "step_duration = 0 "),
                "gait.step_duration".into()
            ),
            (line_of(&text, "-0.34"), "legs[0].bones[1]".into()),
            (line_of(&text, "colour"), "legs[1].colour".into()),
        ],
        "{err}"
    );
    assert_eq!(err.count(), 6);
    // Shown one per line, each located.
    let shown = err.to_string();
    assert_eq!(shown.lines().count(), 6, "{shown}");
    assert!(
        shown
            .lines()
            .all(|l| l.starts_with("creatures/broken.toml:")),
        "{shown}"
    );
    assert!(shown.contains("unknown field `colour`"), "{shown}");
    assert!(shown.contains("invalid type: string \"fast\""), "{shown}");
}

#[test]
fn several_syntax_errors_are_all_reported() {
    let text = spider_with("height = 0.32", "height = = 0.32")
        .replace("turn_rate = 60", "turn_rate = 60 60");
    let err = creature_error(&text);
    let lines: Vec<_> = err.all().filter_map(|e| e.line).collect();
    assert!(lines.contains(&line_of(&text, "height = =")), "{err}");
    assert!(lines.contains(&line_of(&text, "60 60")), "{err}");
}

/// One `]` left out: the parser reads the lines after it as more of the
/// array and reported dozens of errors, the first on the next line under
/// the next key. It is one error, at the bracket left open, under its own
/// key, saying where to close it; an error before it is still reported.
#[test]
fn an_array_left_open_is_one_error_at_its_bracket() {
    let text = spider_with("mount = [0.18, 0.0, -0.14]", "mount = [0.18, 0.0, -0.14");
    let err = creature_error(&text);
    let opener = line_of(&text, "mount = [0.18, 0.0, -0.14");
    assert_error(
        &err,
        opener,
        "legs[0].mount",
        &["never closed", "add `]` before line", "`rest = "],
    );
    assert_eq!(err.column, Some(9), "{err}");
    assert_eq!(err.all().count(), 1, "{err}");
    assert!(
        err.message
            .contains("syntax errors the lines after it gave"),
        "{err}"
    );

    // The last value before a table header, and a real error before it.
    let text = spider_with("height = 0.32", "height = = 0.32").replacen(
        "pole = [0.4, 0.6, -0.6]",
        "pole = [0.4, 0.6, -0.6",
        1,
    );
    let err = creature_error(&text);
    let errors: Vec<_> = err.all().collect();
    let (open, before) = errors.split_last().expect("errors");
    assert!(!before.is_empty(), "{err}");
    let height = line_of(&text, "height = =");
    assert!(before.iter().all(|e| e.line == Some(height)), "{err}");
    assert_eq!(open.field.as_deref(), Some("legs[0].pole"), "{err}");
    assert!(open.message.contains("before line"), "{err}");
    assert!(open.message.contains("`[[legs]]`"), "{err}");

    // An inline table too, in a terrain file.
    let text = TERRAINS[0]
        .text
        .replacen("[noise]", "extra = { a = 1\n[noise]", 1);
    let err = parse_terrain("terrain/broken.toml", &text).unwrap_err();
    assert!(err.message.contains("opens an inline table"), "{err}");
    assert_eq!(err.line, Some(line_of(&text, "extra = {")), "{err}");
}

/// Arrays over several lines, brackets and `#` in strings, and keys in a
/// multi-line inline table are no open bracket: a real error after them
/// is reported where it is.
#[test]
fn brackets_in_strings_and_arrays_over_lines_are_not_taken_for_one_left_open() {
    let text = spider_with(
        "bones = [0.28, 0.34, 0.34]",
        "bones = [\n  0.28, # [ first\n  0.34,\n  0.34,\n]\nnote = \"a [ b # c\"\nother = { x = 1,\n  y = 2 }",
    )
    .replacen("turn_rate = 60", "turn_rate = 60 60", 1);
    let err = creature_error(&text);
    assert_eq!(err.line, Some(line_of(&text, "60 60")), "{err}");
    assert!(
        !err.all().any(|e| e.message.contains("never closed")),
        "{err}"
    );
}

#[test]
fn every_error_in_a_terrain_file_is_reported() {
    let text = TERRAINS[0]
        .text
        .replace("seed = 7", "seed = -7")
        .replace("resolution = 0.5", "resolution = 50.0")
        .replace("fractal = \"fbm\"", "fractal = \"fmb\"")
        .replace("octaves = 4", "octaves = 40");
    let err = parse_terrain("terrain/broken.toml", &text).unwrap_err();
    let fields: Vec<_> = err.all().filter_map(|e| e.field.clone()).collect();
    assert_eq!(
        fields,
        ["seed", "resolution", "noise.fractal", "noise.octaves"],
        "{err}"
    );
    assert!(err.all().all(|e| e.line.is_some() && e.column.is_some()));
}

/// A frequency too fine for the grid is reported with the noise section's
/// other errors: it came a round after a bad amplitude.
#[test]
fn a_frequency_too_fine_for_the_grid_comes_with_the_other_noise_errors() {
    let text = "name = \"bad\"\nresolution = 0.5\n[noise]\nfrequency = 5.0\namplitude = 1e6\n";
    let err = parse_terrain("terrain/bad.toml", text).unwrap_err();
    let found: Vec<_> = err.all().map(|e| (e.line, e.field.clone())).collect();
    assert_eq!(
        found,
        [
            (Some(4), Some("noise.frequency".to_string())),
            (Some(5), Some("noise.amplitude".to_string()))
        ],
        "{err}"
    );
    assert!(err.message.contains("at most 1 cycles per metre"), "{err}");
}

#[test]
fn every_bad_item_of_a_script_is_reported() {
    let err = skitter::config::parse_script(
        "drive.txt",
        "forward 5s, sideways 2s\nleft -1s\nsolver nope, forward 1s",
    )
    .unwrap_err();
    let at: Vec<_> = err.all().map(|e| (e.line, e.column)).collect();
    // Each at what is wrong: the unknown item, the bad duration (past its
    // item's direction), the unknown solver's name (it was at `solver`).
    assert_eq!(
        at,
        [(Some(1), Some(13)), (Some(2), Some(6)), (Some(3), Some(8))],
        "{err}"
    );
}

#[test]
fn every_shipped_script_parses() {
    let mut seen = 0;
    for entry in std::fs::read_dir("scripts").unwrap() {
        let path = entry.unwrap().path();
        let path = path.to_str().unwrap();
        let checked = check_file(path).unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(checked, Checked::Script(_)), "{path}");
        seen += 1;
    }
    assert!(seen >= 2, "scripts/ ships the README's drive scripts");
    // The Quality table's drive lasts 60 s.
    let Checked::Script(drive) = check_file("scripts/drive.txt").unwrap() else {
        panic!("scripts/drive.txt is a script");
    };
    assert_eq!(drive.total_seconds(), 60.0);
}

/// A four-legged walker, every length `scale` times the one in the
/// long-legged walker the climbing tests use (its underside rides 0.501 m
/// up at scale 1).
fn walker_scaled(scale: f32) -> String {
    let s = |v: f32| v * scale;
    format!(
        "name = \"small\"\n[body]\nsize = [{}, {}, {}]\nheight = {}\nspeed = {}\nturn_rate = 50\n\
         [gait]\nstep_threshold = {}\nstep_height = {}\nstep_duration = 0.2\nlead = 0.1\n\
         max_lifted = 2\ngroups = [[\"left_1\", \"right_2\"], [\"right_1\", \"left_2\"]]\n\
         [[legs]]\nname = \"left_1\"\nmirror = \"right_1\"\nmount = [{}, 0.0, {}]\n\
         rest = [{}, {}, {}]\nbones = [{}, {}]\npole = [{}, {}, {}]\n\
         [[legs]]\nname = \"left_2\"\nmirror = \"right_2\"\nmount = [{}, 0.0, {}]\n\
         rest = [{}, {}, {}]\nbones = [{}, {}]\npole = [{}, {}, {}]\n",
        s(0.67),
        s(0.15),
        s(0.35),
        s(0.576),
        s(0.91),
        s(0.18),
        s(0.12),
        s(0.25),
        s(-0.16),
        s(0.432),
        s(-0.576),
        s(-1.008),
        s(0.812),
        s(0.916),
        s(0.432),
        s(1.044),
        s(-1.206),
        s(-0.25),
        s(-0.16),
        s(-0.432),
        s(-0.576),
        s(-1.008),
        s(0.812),
        s(0.916),
        s(-0.432),
        s(1.044),
        s(-1.206),
    )
}

/// A creature so small that the ground guard's clearance under its body
/// is more than it rides over the ground: `check` passed a template
/// scaled to a 1.4 cm ride height, which was lifted off its feet at once
/// and glided 30 s with every leg hanging. It is refused at its height;
/// one a little larger stands and walks.
#[test]
fn a_body_riding_lower_than_its_clearance_is_refused_at_its_height() {
    let text = walker_scaled(0.022);
    let err = creature_error(&text);
    let refusal = err
        .all()
        .find(|e| e.message.contains("lifted off its feet"))
        .unwrap_or_else(|| panic!("{err}"));
    assert_eq!(refusal.field.as_deref(), Some("body.height"), "{err}");
    assert_eq!(refusal.line, Some(line_of(&text, "height =")), "{err}");
    assert!(refusal.message.contains("at least 0.0137 m"), "{err}");

    let text = walker_scaled(0.03);
    let spec = parse_creature("small.toml", &text).unwrap_or_else(|e| panic!("{e}"));
    let run = skitter::headless::HeadlessRun {
        creature: spec,
        terrain: skitter::config::load_terrain("flat").unwrap(),
        solver: None,
        length: Some(skitter::headless::RunLength::Seconds(5.0)),
        script: None,
        count: 1,
        scene: None,
        threads: 1,
    };
    let s = skitter::headless::run(&run, None).unwrap();
    assert!(s.footless_seconds_max < 0.1, "{}", s.footless_seconds_max);
    assert!(s.foot_steps > 20, "{}", s.foot_steps);
}

/// A tripod whose feet stand close in under its long body: a template's
/// legs scaled to 0.55 and the body and speed left as they were.
const HUDDLED_TRIPOD: &str = r#"name = "huddled"
[body]
size = [1.05, 0.15, 0.35]
height = 0.176
speed = 0.91
turn_rate = 50

[gait]
step_threshold = 0.18
step_height = 0.12
step_duration = 0.2
lead = 0.1
max_lifted = 3
groups = [["left_1", "right_2", "left_3"], ["right_1", "left_2", "right_3"]]

[[legs]]
name = "left_1"
mirror = "right_1"
mount = [0.209, 0.0, -0.077]
rest = [0.264, -0.176, -0.308]
bones = [0.248, 0.280]
pole = [0.264, 0.319, -0.369]

[[legs]]
name = "left_2"
mirror = "right_2"
mount = [0.0, 0.0, -0.077]
rest = [0.0, -0.176, -0.308]
bones = [0.248, 0.280]
pole = [0.0, 0.319, -0.369]

[[legs]]
name = "left_3"
mirror = "right_3"
mount = [-0.209, 0.0, -0.077]
rest = [-0.264, -0.176, -0.308]
bones = [0.248, 0.280]
pole = [-0.264, 0.319, -0.369]
"#;

/// `check` said the huddled tripod "walks at 0.91 m/s" and warned of
/// nothing; it walks at about a third of that, each group's lift waiting
/// for the body to lean over the feet that stay down. `check` now walks
/// every creature on flat ground and says so at `body.speed`, with what it
/// measured, why, what to change, and a slower speed it keeps up: which
/// it does. The shipped creatures walk at their speed and earn no such
/// warning.
#[test]
fn a_creature_well_short_of_its_speed_on_flat_ground_is_warned_at_its_speed() {
    let dir = common::temp_dir("pace");
    let warning = pace_warning(&dir.join("huddled.toml"), HUDDLED_TRIPOD)
        .unwrap_or_else(|| panic!("no pace warning"));
    assert_eq!(warning.field.as_deref(), Some("body.speed"), "{warning}");
    assert_eq!(
        warning.line,
        Some(line_of(HUDDLED_TRIPOD, "speed =")),
        "{warning}"
    );
    assert_eq!(warning.column, Some(9), "{warning}");
    assert!(
        warning.message.contains("waits for the body to lean"),
        "{warning}"
    );
    // "walks 0.35 m/s, 38% of its 0.91": the figure is the measured one.
    let share: f32 = between(&warning.message, "m/s, ", "%").parse().unwrap();
    assert!((20.0..50.0).contains(&share), "{warning}");
    // "at speed = 0.34 it keeps up": and it does.
    let kept: f32 = between(&warning.message, "at speed = ", " ")
        .parse()
        .unwrap();
    assert!(kept < 0.91 && kept > 0.2, "{warning}");
    let slower = HUDDLED_TRIPOD.replace("speed = 0.91", &format!("speed = {kept}"));
    assert_eq!(pace_warning(&dir.join("slower.toml"), &slower), None);

    for creature in CREATURES {
        let spec = parse_creature(creature.name, creature.text).unwrap();
        let flat = skitter::terrain::Heightfield::generate(&common::shipped_terrain("flat"));
        let pace = skitter::sim::flat_ground_pace(&spec, std::sync::Arc::new(flat));
        assert!(
            pace.share() >= PACE_WARNING_SHARE,
            "{}: {pace:?}",
            creature.name
        );
        assert_eq!(pace.crossing, None, "{}", creature.name);
    }
}

/// Legs that touch as the creature walks are a warning from the same walk
/// on flat ground, at the rest point of the one behind: the stride rule
/// (`step_threshold` under 0.7 of the gap between feet) went silent for a
/// stride that still let them cross, twice as often. The huddled tripod's
/// middle and back legs touch a third of the time; spread apart, they do
/// not.
#[test]
fn legs_that_touch_as_the_creature_walks_are_a_warning() {
    let dir = common::temp_dir("crossing");
    let touching = |text: &str, name: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let (_, warnings) =
            check_file_with_warnings(&path.to_string_lossy()).unwrap_or_else(|e| panic!("{e}"));
        warnings
            .into_iter()
            .map(|w| w.0)
            .filter(|w| w.message.contains("come within 10.0 mm of each other"))
            .collect::<Vec<_>>()
    };
    let found = touching(HUDDLED_TRIPOD, "huddled.toml");
    assert_eq!(found.len(), 1, "{found:?}");
    let warning = &found[0];
    assert!(
        warning.message.contains("legs `left_2` and `left_3`"),
        "{warning}"
    );
    assert_eq!(warning.field.as_deref(), Some("legs[2].rest"), "{warning}");
    assert_eq!(
        warning.line,
        Some(line_of(HUDDLED_TRIPOD, "rest = [-0.264")),
        "{warning}"
    );
    let share: f32 = between(&warning.message, "for ", "%").parse().unwrap();
    assert!((10.0..60.0).contains(&share), "{warning}");
    let apart = HUDDLED_TRIPOD
        .replace(
            "rest = [0.264, -0.176, -0.308]",
            "rest = [0.45, -0.176, -0.308]",
        )
        .replace(
            "rest = [-0.264, -0.176, -0.308]",
            "rest = [-0.45, -0.176, -0.308]",
        )
        .replace(
            "mount = [0.209, 0.0, -0.077]",
            "mount = [0.35, 0.0, -0.077]",
        )
        .replace(
            "mount = [-0.209, 0.0, -0.077]",
            "mount = [-0.35, 0.0, -0.077]",
        );
    assert_eq!(touching(&apart, "apart.toml"), Vec::new());
}

/// A hexapod whose groups are its two sides lifts three feet of one side
/// and stands on the other three, on a line: no lean puts its body over
/// them, and it walked at 13% of its speed while `check` said to spread
/// its feet (which made it slower). The warning names the group, and
/// suggests no speed (what keeps up is a crawl a tenth of the one asked).
#[test]
fn a_group_that_leaves_no_stance_to_lean_over_is_named() {
    let tripod = skitter::config::CreatureTemplate {
        name: "sides".to_string(),
        legs: 6,
        bones: 3,
        gait: skitter::config::TemplateGait::Tripod,
    }
    .render()
    .unwrap();
    let sides = tripod
        .replace(
            r#"["left_1", "right_2", "left_3"]"#,
            r#"["left_1", "left_2", "left_3"]"#,
        )
        .replace(
            r#"["right_1", "left_2", "right_3"]"#,
            r#"["right_1", "right_2", "right_3"]"#,
        );
    assert_ne!(sides, tripod, "test setup: the template's groups changed");
    let warning = pace_warning(&common::temp_dir("pace").join("sides.toml"), &sides)
        .unwrap_or_else(|| panic!("no pace warning"));
    assert!(
        warning.message.contains(
            "lifting group 0 (`left_1`, `left_2`, `left_3`) leaves the other feet on a line"
        ),
        "{warning}"
    );
    assert!(warning.message.contains("Regroup"), "{warning}");
    assert!(!warning.message.contains("at speed ="), "{warning}");
}

/// A stability margin that takes much of the room the feet leave is named
/// with the wait it causes: the template's tripod with a 0.1 m margin
/// walked at 26% and was told only to shorten its swing or spread its feet.
#[test]
fn a_stability_margin_that_takes_the_stance_s_room_is_named() {
    let tripod = skitter::config::CreatureTemplate {
        name: "margin".to_string(),
        legs: 6,
        bones: 3,
        gait: skitter::config::TemplateGait::Tripod,
    }
    .render()
    .unwrap();
    let wide = tripod.replacen("[gait]\n", "[gait]\nstability_margin = 0.1\n", 1);
    assert_ne!(wide, tripod, "test setup: the margin was set");
    let warning = pace_warning(&common::temp_dir("margin").join("margin.toml"), &wide)
        .unwrap_or_else(|| panic!("no pace warning"));
    assert!(
        warning.message.contains("waits for the body to lean"),
        "{warning}"
    );
    assert!(
        warning
            .message
            .contains("lower stability_margin (now 0.1 m of the"),
        "{warning}"
    );
    // The template's own margin is no cause: it walks at its speed.
    assert_eq!(
        pace_warning(&common::temp_dir("margin").join("tripod.toml"), &tripod),
        None
    );
}

/// The pace warning `check` gives the creature `text`, written to `path`.
fn pace_warning(path: &std::path::Path, text: &str) -> Option<ConfigError> {
    std::fs::write(path, text).unwrap();
    let (checked, warnings) =
        check_file_with_warnings(&path.to_string_lossy()).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(checked, Checked::Creature(_)));
    let mut pace = warnings
        .into_iter()
        .filter(|w| w.0.message.contains("at full throttle it walks"));
    let first = pace.next().map(|w| w.0);
    assert!(pace.next().is_none(), "one pace warning at most");
    first
}

/// The text of `message` between `from` and the next `to`.
fn between<'a>(message: &'a str, from: &str, to: &str) -> &'a str {
    let rest = &message[message
        .find(from)
        .unwrap_or_else(|| panic!("{from:?} in {message}"))
        + from.len()..];
    &rest[..rest.find(to).unwrap_or(rest.len())]
}

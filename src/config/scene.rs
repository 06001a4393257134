//! Scene files: one terrain and several kinds of creature, each with a
//! count and where they start, and optionally their own drive script.
//!
//! ```toml
//! name = "zoo"              # optional: the file's name without .toml
//! terrain = "hills"         # a built-in terrain, or a file (relative to this one)
//!
//! [[creatures]]
//! creature = "spider"       # a built-in creature, or a file (relative to this one)
//! count = 4                 # default 1
//! at = [0.0, 0.0]           # centre of where they start: x, z in metres
//! area = [12.0, 12.0]       # optional: spread over this x by z rectangle
//! heading = 90.0            # degrees counter-clockwise from +x, seen from above
//! solver = "ccd"            # optional: overrides the creature file's
//! drive = "forward 5s, left 2s, forward 10s"   # optional, or script = "walk.txt"
//!
//! [[creatures]]
//! creature = "biped"
//! positions = [[5.0, 0.0], [5.0, 3.0]]        # instead of count, at and area
//! ```

use std::path::Path;

use glam::Vec2;
use schemars::JsonSchema;
use serde::Deserialize;
use toml::Spanned;

use super::error::{ConfigError, Errors, Source};
use super::fields::{Check, Document};
use super::{Script, parse_script};
use crate::creature::CreatureSpec;
use crate::ik::SolverKind;
use crate::terrain::TerrainSpec;

/// Most creatures one scene may hold, over all its kinds.
pub const MAX_SCENE_CREATURES: usize = 100_000;
/// Farthest a creature may start from the world's origin, metres.
pub const MAX_SCENE_OFFSET: f64 = 1.0e6;

/// A loaded scene: everything a world needs to start.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    /// The scene's name (its file's stem unless it says otherwise).
    pub name: String,
    /// The ground.
    pub terrain: TerrainSpec,
    /// The kinds of creature, in file order.
    pub kinds: Vec<SceneKind>,
    /// The files it read besides its own (terrain, creature and script
    /// files; built-in names are not files), in the order it read them,
    /// each once: what a viewer watches for saves.
    pub files: Vec<std::path::PathBuf>,
}

/// One `[[creatures]]` entry of a scene.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneKind {
    /// What they are.
    pub creature: CreatureSpec,
    /// Where each starts: world (x, z), and heading in radians (0 = +X,
    /// counter-clockwise seen from above).
    pub spots: Vec<(Vec2, f32)>,
    /// Solver for every leg, overriding the creature file's.
    pub solver: Option<SolverKind>,
    /// Their own drive script, if any.
    pub script: Option<Script>,
    /// The creature as the scene names it (a built-in name or a file), to
    /// tell apart two kinds whose files give the same `name`.
    pub source: String,
}

impl Scene {
    /// Creatures over every kind.
    pub fn creature_count(&self) -> usize {
        self.kinds.iter().map(|k| k.spots.len()).sum()
    }
}

/// A scene file: what `skitter schema scene` describes and the loader reads.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "skitter scene",
    description = "A skitter scene file: one terrain and several kinds of creature, each with a count, where they start and optionally a drive script."
)]
pub(super) struct SceneFile {
    /// Display name. Default: the file's name without .toml.
    #[schemars(with = "Option<String>")]
    name: Option<Spanned<String>>,
    /// A built-in terrain's name, or a terrain file (relative to this one). Default "hills".
    #[schemars(with = "Option<String>")]
    terrain: Option<Spanned<String>>,
    /// The kinds of creature, each a `[[creatures]]` table.
    #[schemars(with = "Option<Vec<KindEntry>>")]
    creatures: Option<Spanned<Vec<KindEntry>>>,
}

/// Two numbers, `[x, z]`: exactly two. (An array of three read into
/// `[f64; 2]` drops the third in silence; a user writing
/// `[x, z, heading]` must hear that the heading is not read there.)
#[derive(Debug, Clone, Copy)]
pub(super) struct Pair(pub [f64; 2]);

impl<'de> Deserialize<'de> for Pair {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PairVisitor;
        impl<'de> serde::de::Visitor<'de> for PairVisitor {
            type Value = Pair;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array of two numbers [x, z] in metres")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Pair, A::Error> {
                super::fields::exactly(seq, &self).map(Pair)
            }
        }
        deserializer.deserialize_seq(PairVisitor)
    }
}

/// `[[creatures]]`: one kind of creature, how many and where they start.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct KindEntry {
    /// A built-in creature's name, or a creature file (relative to this one).
    #[schemars(with = "String")]
    creature: Spanned<String>,
    /// How many. Default 1.
    #[schemars(with = "Option<u32>")]
    count: Option<Spanned<i64>>,
    /// Centre of where they start, `[x, z]` in metres. Default `[0, 0]`.
    #[schemars(with = "Option<[f64; 2]>")]
    at: Option<Spanned<Pair>>,
    /// Spread them over this `[x, z]` rectangle, metres. Default: a grid just wide enough.
    #[schemars(with = "Option<[f64; 2]>")]
    area: Option<Spanned<Pair>>,
    /// Where each starts, `[x, z]` in metres: instead of `count`, `at` and `area`.
    #[schemars(with = "Option<Vec<[f64; 2]>>")]
    positions: Option<Spanned<Vec<Pair>>>,
    /// Which way they face: degrees counter-clockwise from +x, seen from above. Default 0.
    #[schemars(with = "Option<f64>")]
    heading: Option<Spanned<f64>>,
    /// Solver for this kind's legs, overriding the creature file's.
    #[schemars(with = "Option<super::creature::SolverName>")]
    solver: Option<Spanned<String>>,
    /// An inline drive script, e.g. "forward 5s, left 2s, forward 10s".
    #[schemars(with = "Option<String>")]
    drive: Option<Spanned<String>>,
    /// A drive script file (relative to this one), instead of `drive`.
    #[schemars(with = "Option<String>")]
    script: Option<Spanned<String>>,
}

/// Reads and parses a scene file; the creature, terrain and script files it
/// names are read relative to it.
pub fn load_scene(path: &str) -> Result<Scene, ConfigError> {
    let text = super::read_file(path)?;
    parse_scene(path, &text)
}

/// Parses and validates a scene. `name` is the file's path: the files the
/// scene names are resolved relative to its directory.
pub fn parse_scene(name: &str, text: &str) -> Result<Scene, ConfigError> {
    let src = Source::new(name, text);
    // Read key by key, so one run reports every unknown key and bad type
    // (a bad `[[creatures]]` entry no longer hides an unknown key above it).
    let mut doc = Document::parse(&src)?;
    let mut errors = Errors::default();
    let file = SceneFile {
        name: doc.optional(&src, "name", &mut errors).flatten(),
        terrain: doc.optional(&src, "terrain", &mut errors).flatten(),
        creatures: doc
            .optional_array::<KindEntry>(&src, "creatures", &mut errors)
            .map(|(span, entries)| {
                let entries = entries.into_iter().flatten().map(Spanned::into_inner);
                Spanned::new(span, entries.collect())
            }),
    };
    doc.refuse_unknown(&src, super::SchemaKind::Scene, &mut errors);
    errors.finish()?;
    let check = Check::new(&src);
    let base = Path::new(name).parent().unwrap_or(Path::new(""));
    // A name in the scene is a built-in unless it looks like a path; a path
    // is relative to the scene file, wherever skitter runs from.
    let resolve = |arg: &str| -> String {
        let joined = base.join(arg);
        let path_like = arg.contains('/') || arg.contains('\\') || arg.contains('.');
        if Path::new(arg).is_absolute() {
            arg.to_string()
        } else if joined.is_file() || path_like {
            joined.to_string_lossy().into_owned()
        } else {
            arg.to_string()
        }
    };
    // The file's own errors follow, each on its own line with its place:
    // joined onto this one, a long path's were cut off after two.
    let referenced = |value: &Spanned<String>, field: &str, error: ConfigError| {
        // One error with no place in the file (there is none, or it could
        // not be read): one line, at the scene's name of it. On a line of
        // its own it read as an error about a file of that name.
        if error.count() == 1 && error.line.is_none() {
            return check.at(
                value,
                field,
                format!("cannot use {:?}: {}", value.get_ref(), error.message),
            );
        }
        let mut head = check.at(
            value,
            field,
            match error.count() {
                1 => format!("cannot use {:?}, which has this error:", value.get_ref()),
                n => format!(
                    "cannot use {:?}, which has these {n} errors:",
                    value.get_ref()
                ),
            },
        );
        head.more = error.all().cloned().collect();
        head
    };

    let mut files: Vec<std::path::PathBuf> = Vec::new();
    let mut read = |path: &str| {
        let path = std::path::PathBuf::from(path);
        if super::is_path(&path.to_string_lossy()) && !files.contains(&path) {
            files.push(path);
        }
    };
    let terrain = match &file.terrain {
        Some(value) => super::load_terrain(&resolve(value.get_ref()))
            .inspect(|_| read(&resolve(value.get_ref())))
            .map_err(|e| referenced(value, "terrain", e))?,
        None => super::default_terrain(),
    };
    let scene_name = match &file.name {
        Some(value) if value.get_ref().trim().is_empty() => {
            return Err(check.at(value, "name", "must not be empty"));
        }
        Some(value) => value.get_ref().clone(),
        None => Path::new(name)
            .file_stem()
            .map_or_else(|| name.to_string(), |s| s.to_string_lossy().into_owned()),
    };
    let Some(entries) = &file.creatures else {
        return Err(src.error(
            None,
            "creatures",
            "no creatures: list each kind as a [[creatures]] table with at least \
             `creature = \"spider\"` (a built-in name or a file)",
        ));
    };
    if entries.get_ref().is_empty() {
        return Err(check.at(entries, "creatures", "must list at least one kind"));
    }

    let mut kinds = Vec::with_capacity(entries.get_ref().len());
    let mut total = 0usize;
    for (i, entry) in entries.get_ref().iter().enumerate() {
        let field = |key: &str| format!("creatures[{i}].{key}");
        let creature = super::load_creature(&resolve(entry.creature.get_ref()))
            .inspect(|_| read(&resolve(entry.creature.get_ref())))
            .map_err(|e| referenced(&entry.creature, &field("creature"), e))?;
        // A bad heading and a bad place are both reported (in file order):
        // the places are worked out facing +x meanwhile.
        let heading_checked = match &entry.heading {
            Some(value) => check.number_in(value, -360.0, 360.0, &field("heading"), "degrees"),
            None => Ok(0.0),
        };
        let heading = (*heading_checked.as_ref().unwrap_or(&0.0) as f32).to_radians();
        let point = |value: [f64; 2], span: std::ops::Range<usize>, key: &str| {
            if value
                .iter()
                .all(|v| v.is_finite() && v.abs() <= MAX_SCENE_OFFSET)
            {
                Ok(Vec2::new(value[0] as f32, value[1] as f32))
            } else {
                Err(src.error(
                    Some(span),
                    field(key),
                    format!(
                        "must be two numbers [x, z] in metres, each within ±{MAX_SCENE_OFFSET}, got {value:?}"
                    ),
                ))
            }
        };
        let footprint = 2.0 * creature.footprint_radius();
        let spots = (|| -> Result<Vec<(Vec2, f32)>, ConfigError> {
            Ok(if let Some(positions) = &entry.positions {
                for (key, present) in [
                    ("count", entry.count.is_some()),
                    ("at", entry.at.is_some()),
                    ("area", entry.area.is_some()),
                ] {
                    if present {
                        return Err(check.at(
                            positions,
                            field("positions"),
                            format!("lists where each creature starts, so it goes without `{key}`"),
                        ));
                    }
                }
                if positions.get_ref().is_empty() {
                    return Err(check.at(
                        positions,
                        field("positions"),
                        "must list at least one [x, z]",
                    ));
                }
                positions
                    .get_ref()
                    .iter()
                    .map(|p| point(p.0, positions.span(), "positions").map(|at| (at, heading)))
                    .collect::<Result<_, _>>()?
            } else {
                let count = match &entry.count {
                    Some(value) => {
                        check.int_in(value, 1, MAX_SCENE_CREATURES as i64, &field("count"))?
                            as usize
                    }
                    None => 1,
                };
                let centre = match &entry.at {
                    Some(value) => point(value.get_ref().0, value.span(), "at")?,
                    None => Vec2::ZERO,
                };
                match &entry.area {
                    None => grid(count, centre, tight_spacing(&creature), heading),
                    Some(value) => {
                        let [w, d] = value.get_ref().0;
                        if !(w.is_finite()
                            && d.is_finite()
                            && w > 0.0
                            && d > 0.0
                            && w.max(d) <= MAX_SCENE_OFFSET)
                        {
                            return Err(check.at(
                                value,
                                field("area"),
                                format!(
                                    "must be two positive numbers [x, z] in metres, each at most \
                                 {MAX_SCENE_OFFSET}, got {}",
                                    super::fields::Numbers(&[w, d])
                                ),
                            ));
                        }
                        let (columns, rows) = grid_shape(count, w / d);
                        let (dx, dz) = (w / columns as f64, d / rows as f64);
                        if dx.min(dz) < f64::from(footprint) {
                            let side = f64::from(footprint) * (count as f64).sqrt().ceil();
                            return Err(check.at(
                            value,
                            field("area"),
                            format!(
                                "{count} creatures of {:?} need {footprint:.2} m each way so their \
                                 feet do not overlap; [{w}, {d}] gives {:.2} m: make it at least \
                                 [{side:.1}, {side:.1}] or lower count",
                                creature.name,
                                dx.min(dz)
                            ),
                        ));
                        }
                        (0..count)
                            .map(|n| {
                                let cell = Vec2::new(
                                    ((n % columns) as f64 + 0.5 - columns as f64 * 0.5) as f32
                                        * dx as f32,
                                    ((n / columns) as f64 + 0.5 - rows as f64 * 0.5) as f32
                                        * dz as f32,
                                );
                                (centre + cell, heading)
                            })
                            .collect()
                    }
                }
            })
        })();
        let spots = match (heading_checked, spots) {
            (Ok(_), Ok(spots)) => spots,
            (heading, spots) => {
                let errors = [heading.err(), spots.err()].into_iter().flatten().collect();
                // At least one of the two failed: this never gives `None`.
                return Err(ConfigError::combine(errors).expect("an error"));
            }
        };
        total += spots.len();
        if total > MAX_SCENE_CREATURES {
            // At what sets how many: `count`, else `positions`.
            let (span, what) = match (&entry.count, &entry.positions) {
                (Some(count), _) => (count.span(), "count"),
                (None, Some(positions)) => (positions.span(), "positions"),
                (None, None) => (entry.creature.span(), "count"),
            };
            return Err(check.src.error(
                Some(span),
                field(what),
                format!(
                    "the scene would hold {total} creatures; at most {MAX_SCENE_CREATURES}: \
                     lower this kind's or another's count"
                ),
            ));
        }
        let solver = match &entry.solver {
            Some(value) => {
                let kind = value
                    .get_ref()
                    .parse::<SolverKind>()
                    .map_err(|e| check.at(value, field("solver"), e.to_string()))?;
                creature
                    .check_solver(kind, "the scene")
                    .map_err(|message| check.at(value, field("solver"), message))?;
                Some(kind)
            }
            None => None,
        };
        let script = match (&entry.drive, &entry.script) {
            (Some(drive), Some(_)) => {
                return Err(check.at(
                    drive,
                    field("drive"),
                    "give a drive script inline (`drive`) or as a file (`script`), not both",
                ));
            }
            (Some(drive), None) => Some(
                parse_script(&field("drive"), drive.get_ref())
                    .map_err(|e| inline_script_errors(&check, drive, &field("drive"), e))?,
            ),
            (None, Some(path)) => {
                let file = resolve(path.get_ref());
                read(&file);
                let text =
                    super::read_file(&file).map_err(|e| referenced(path, &field("script"), e))?;
                Some(
                    parse_script(&file, &text)
                        .map_err(|e| referenced(path, &field("script"), e))?,
                )
            }
            (None, None) => None,
        };
        // A solver the script switches to is refused at its item.
        for (kind, (line, column)) in script.iter().flat_map(Script::solver_items) {
            let Err(message) = creature.check_solver(kind, "the script") else {
                continue;
            };
            let at_item = |file: String| ConfigError {
                line: Some(line),
                column: Some(column),
                ..ConfigError::whole_file(file, message.clone())
            };
            return Err(match (&entry.drive, &entry.script) {
                (Some(drive), _) => {
                    inline_script_errors(&check, drive, &field("drive"), at_item(field("drive")))
                }
                (None, Some(path)) => {
                    referenced(path, &field("script"), at_item(resolve(path.get_ref())))
                }
                // A script comes from `drive` or `script`.
                (None, None) => at_item(name.to_string()),
            });
        }
        kinds.push((
            entry,
            SceneKind {
                creature,
                spots,
                solver,
                script,
                source: entry.creature.get_ref().clone(),
            },
        ));
    }
    refuse_overlaps(&check, &kinds)?;
    Ok(Scene {
        name: scene_name,
        terrain,
        kinds: kinds.into_iter().map(|(_, kind)| kind).collect(),
        files,
    })
}

/// Grid spacing that keeps two creatures' legs apart whatever they do:
/// what `Spawn::grid` uses.
fn tight_spacing(spec: &CreatureSpec) -> f32 {
    2.0 * spec.max_reach() + spec.body.size.x.max(spec.body.size.z) + 0.5
}

/// `count` spots on a square grid centred on `centre`, `spacing` apart.
fn grid(count: usize, centre: Vec2, spacing: f32, heading: f32) -> Vec<(Vec2, f32)> {
    let side = (count as f32).sqrt().ceil().max(1.0) as usize;
    (0..count)
        .map(|i| {
            let cell = Vec2::new((i % side) as f32, (i / side) as f32)
                - Vec2::splat((side - 1) as f32 * 0.5);
            (centre + cell * spacing, heading)
        })
        .collect()
}

/// Columns and rows for `count` cells in a rectangle `aspect` (width over
/// depth) wide: cells as square as the rectangle allows.
fn grid_shape(count: usize, aspect: f64) -> (usize, usize) {
    let columns = ((count as f64 * aspect).sqrt().round() as usize).clamp(1, count);
    (columns, count.div_ceil(columns))
}

/// Refuses two creatures starting with their feet overlapping, naming both
/// entries. Spots are bucketed in cells of the largest footprint and each is
/// compared with the spots in its own and neighbouring cells.
fn refuse_overlaps(
    check: &Check<'_>,
    kinds: &[(&KindEntry, SceneKind)],
) -> Result<(), ConfigError> {
    let cell = kinds
        .iter()
        .map(|(_, k)| 2.0 * k.creature.footprint_radius())
        .fold(0.0f32, f32::max);
    if cell <= 0.0 {
        return Ok(());
    }
    let mut spots: Vec<((i64, i64), usize, usize)> = Vec::new();
    for (kind, (_, scene_kind)) in kinds.iter().enumerate() {
        for (n, (at, _)) in scene_kind.spots.iter().enumerate() {
            let key = ((at.x / cell).floor() as i64, (at.y / cell).floor() as i64);
            spots.push((key, kind, n));
        }
    }
    spots.sort_unstable();
    for &((cx, cz), kind, n) in &spots {
        let (at, radius) = (
            kinds[kind].1.spots[n].0,
            kinds[kind].1.creature.footprint_radius(),
        );
        for dx in -1..=1 {
            for dz in -1..=1 {
                let key = (cx + dx, cz + dz);
                let from = spots.partition_point(|(k, _, _)| *k < key);
                for &(k, other_kind, m) in &spots[from..] {
                    if k != key {
                        break;
                    }
                    if (other_kind, m) <= (kind, n) {
                        continue;
                    }
                    let other = &kinds[other_kind].1;
                    let apart = at.distance(other.spots[m].0);
                    let needed = radius + other.creature.footprint_radius();
                    if apart < needed {
                        let (entry, _) = &kinds[other_kind];
                        // At what places it: `positions`, else `at`.
                        let (span, what) = match (&entry.positions, &entry.at) {
                            (Some(positions), _) => (positions.span(), ".positions"),
                            (None, Some(at)) => (at.span(), ".at"),
                            (None, None) => (entry.creature.span(), ""),
                        };
                        return Err(check.src.error(
                            Some(span),
                            format!("creatures[{other_kind}]{what}"),
                            format!(
                                "its creature {} starts {apart:.2} m from creature {} of \
                                 creatures[{kind}], closer than their feet allow ({needed:.2} m): \
                                 move `at` or `positions`, or widen `area`",
                                m + 1,
                                n + 1
                            ),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The errors of an inline drive script (`drive = "…"`), located in the
/// scene file: at the item itself when the string is written plainly on
/// one line (no escapes, so its characters are the file's), else at the
/// string. (They read `s.toml:4:7: creatures[0].drive:
/// creatures[0].drive:1:13: unknown item …`, two places for one.)
fn inline_script_errors(
    check: &Check<'_>,
    drive: &Spanned<String>,
    field: &str,
    errors: ConfigError,
) -> ConfigError {
    let span = drive.span();
    let written = check.src.text.get(span.clone()).unwrap_or("");
    let plain = written.len() == drive.get_ref().len() + 2
        && (written.starts_with('"') || written.starts_with('\''))
        && written[1..written.len() - 1] == *drive.get_ref();
    let relocated = errors
        .all()
        .map(|e| {
            let at = match (plain, e.line, e.column) {
                (true, Some(1), Some(column)) => drive
                    .get_ref()
                    .char_indices()
                    .nth(column - 1)
                    .map(|(byte, _)| span.start + 1 + byte),
                _ => None,
            };
            match at {
                Some(at) => check.src.error(Some(at..at + 1), field, e.message.clone()),
                None => check.at(drive, field, e.message.clone()),
            }
        })
        .collect();
    ConfigError::combine(relocated).unwrap_or(errors)
}

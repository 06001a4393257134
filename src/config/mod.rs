//! Reading and validating input files: creatures, terrains, drive scripts,
//! and the lab's button files.
//!
//! Every error names the file, the line and column where TOML gives them, the
//! field, and what would be valid. Nothing here panics on bad input.

mod buttons;
mod creature;
mod error;
mod fields;
mod scene;
mod script;
mod template;
mod terrain;
mod trial;

use std::path::Path;

pub use buttons::{MAX_BUTTON_OFFSET, MAX_BUTTONS, load_buttons, parse_buttons};
pub use creature::{
    LEG_REACH_RANGE, MAX_BONES, MAX_LEGS, MAX_POLE_REACHES, parse_creature,
    parse_creature_with_warnings,
};
pub use error::{ConfigError, Source, Warning};
pub use scene::{MAX_SCENE_CREATURES, MAX_SCENE_OFFSET, Scene, SceneKind, load_scene, parse_scene};
pub use script::{MAX_ITEM_SECONDS, Script, ScriptAction, ScriptStep, parse_script, steps_for};
pub use template::{CreatureTemplate, TEMPLATE_BONES, TEMPLATE_LEGS, TemplateError, TemplateGait};
pub use terrain::{parse_terrain, parse_terrain_seeded, parse_terrain_with_warnings};
pub use trial::{CROSSING_WARNING_SHARE, PACE_WARNING_SHARE};

use crate::creature::CreatureSpec;
use crate::terrain::TerrainSpec;

/// The kinds of input file an editor schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaKind {
    /// Creature files.
    Creature,
    /// Terrain files.
    Terrain,
    /// Scene files.
    Scene,
}

impl SchemaKind {
    /// Every kind, in the order `skitter schema` lists them.
    pub const ALL: [SchemaKind; 3] = [SchemaKind::Creature, SchemaKind::Terrain, SchemaKind::Scene];

    /// The kind's name on the command line and in `schema/NAME.json`.
    pub fn name(self) -> &'static str {
        match self {
            SchemaKind::Creature => "creature",
            SchemaKind::Terrain => "terrain",
            SchemaKind::Scene => "scene",
        }
    }
}

/// The JSON Schema of a kind of input file, generated from the types the
/// loader reads it with, for TOML editors (taplo, Even Better TOML) to
/// complete and check fields: pretty-printed, ending in a newline.
pub fn schema(kind: SchemaKind) -> String {
    let schema = match kind {
        SchemaKind::Creature => schemars::schema_for!(creature::CreatureFile),
        SchemaKind::Terrain => schemars::schema_for!(terrain::TerrainFile),
        SchemaKind::Scene => schemars::schema_for!(scene::SceneFile),
    };
    // A schema is plain JSON data: serialising it cannot fail.
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema serialises");
    text.push('\n');
    text
}

/// The table of a `kind` of file that has a field named `key`, as it is
/// written in the file (`[noise]`, `[[legs]]`): where a key found at the
/// top level, unknown there, was most likely meant to go. Read from the
/// file's schema, so it cannot fall behind the fields the loader reads.
pub(crate) fn table_holding(kind: SchemaKind, key: &str) -> Option<String> {
    let schema: serde_json::Value = serde_json::from_str(&schema(kind)).ok()?;
    let defs = schema.get("$defs")?;
    // The first definition a property refers to, however it is wrapped (an
    // optional table is `anyOf` it and null, an array of tables `items`).
    fn first_ref(value: &serde_json::Value) -> Option<&str> {
        match value {
            serde_json::Value::Object(map) => map
                .get("$ref")
                .and_then(serde_json::Value::as_str)
                .or_else(|| map.values().find_map(first_ref)),
            serde_json::Value::Array(items) => items.iter().find_map(first_ref),
            _ => None,
        }
    }
    schema
        .get("properties")?
        .as_object()?
        .iter()
        .find_map(|(table, property)| {
            let def = first_ref(property)?.strip_prefix("#/$defs/")?;
            defs.get(def)?.get("properties")?.get(key)?;
            Some(if property.get("items").is_some() {
                format!("[[{table}]]")
            } else {
                format!("[{table}]")
            })
        })
}

/// A file shipped inside the binary.
#[derive(Debug, Clone, Copy)]
pub struct BuiltIn {
    /// Name to ask for it by (`--creature spider`).
    pub name: &'static str,
    /// The file's text.
    pub text: &'static str,
}

/// Built-ins from files shipped in the repository, embedded at compile time.
macro_rules! built_ins {
    ($dir:literal: $($name:literal),+ $(,)?) => {
        &[$(BuiltIn { name: $name, text: include_str!(concat!("../../", $dir, "/", $name, ".toml")) }),+]
    };
}

/// The shipped creatures; the first is the default.
pub const CREATURES: &[BuiltIn] =
    built_ins!("creatures": "spider", "biped", "hexapod", "strider", "octopod", "centipede");

/// The shipped terrains; the first is the default.
pub const TERRAINS: &[BuiltIn] =
    built_ins!("terrain": "hills", "flat", "dunes", "rough", "wall", "overhang", "canyon");

/// The default creature (the thesis spider).
pub fn default_creature() -> CreatureSpec {
    // The shipped spider is validated by the test suite, so parsing it cannot fail.
    parse_creature("<built-in spider>", CREATURES[0].text).expect("built-in spider is valid")
}

/// The default terrain (hills).
pub fn default_terrain() -> TerrainSpec {
    // The shipped hills are validated by the test suite, so parsing cannot fail.
    parse_terrain("<built-in hills>", TERRAINS[0].text).expect("built-in hills are valid")
}

/// Whether a `--creature`/`--terrain` argument names a file rather than a
/// built-in: it does when a file by that name exists, or when it contains
/// `/` or `\\`, or ends in `.toml` (then a missing file is an error, never a
/// built-in). Anything else is a built-in name (`spider`, `hills`).
pub fn is_path(arg: &str) -> bool {
    arg.contains('/') || arg.contains('\\') || arg.ends_with(".toml") || Path::new(arg).is_file()
}

/// Resolves `arg` to a file or a built-in name (the rule is [`is_path`]):
/// the name to show in messages (`<built-in NAME>` for built-ins), and the text.
fn resolve(
    arg: &str,
    builtins: &'static [BuiltIn],
    what: &str,
) -> Result<(String, String), ConfigError> {
    if is_path(arg) {
        return read_file(arg).map(|text| (arg.to_string(), text));
    }
    match builtins.iter().find(|b| b.name.eq_ignore_ascii_case(arg)) {
        Some(b) => Ok((format!("<built-in {}>", b.name), b.text.to_string())),
        None => Err(ConfigError::whole_file(
            arg,
            format!(
                "no such file, and not a built-in {what}; built-in {what}s: {}",
                builtins
                    .iter()
                    .map(|b| b.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// Largest input file read (bytes): creature, terrain and script files are
/// small, and reading stops here however large (or endless) the input is.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// Reads a file of at most [`MAX_FILE_BYTES`], turning I/O failures, oversized
/// files and text that is not UTF-8 into a [`ConfigError`] naming it.
pub fn read_file(path: &str) -> Result<String, ConfigError> {
    use std::io::Read;
    let error = |message: String| ConfigError::whole_file(path, message);
    let file =
        std::fs::File::open(path).map_err(|e| error(format!("cannot read the file: {e}")))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| error(format!("cannot read the file: {e}")))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(error(format!(
            "the file is larger than {} KiB; creature, terrain and script files are small text files",
            MAX_FILE_BYTES / 1024
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        error(format!(
            "the file is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Loads a creature from a path or a built-in name.
pub fn load_creature(arg: &str) -> Result<CreatureSpec, ConfigError> {
    load_creature_with_warnings(arg).map(|(spec, _)| spec)
}

/// Loads a creature from a path or a built-in name, with its warnings.
pub fn load_creature_with_warnings(arg: &str) -> Result<(CreatureSpec, Vec<Warning>), ConfigError> {
    let (name, text) = resolve(arg, CREATURES, "creature")?;
    parse_creature_with_warnings(&name, &text)
}

/// Loads a terrain from a path or a built-in name.
pub fn load_terrain(arg: &str) -> Result<TerrainSpec, ConfigError> {
    load_terrain_with_warnings(arg).map(|(spec, _)| spec)
}

/// Loads a terrain from a path or a built-in name, with its warnings.
pub fn load_terrain_with_warnings(arg: &str) -> Result<(TerrainSpec, Vec<Warning>), ConfigError> {
    load_terrain_seeded(arg, None)
}

/// Loads a terrain from a path or a built-in name, with `seed` (`--seed`),
/// when given, in place of the file's; with its warnings.
pub fn load_terrain_seeded(
    arg: &str,
    seed: Option<u32>,
) -> Result<(TerrainSpec, Vec<Warning>), ConfigError> {
    let (name, text) = resolve(arg, TERRAINS, "terrain")?;
    parse_terrain_seeded(&name, &text, seed)
}

/// What `skitter check` found a file to be.
#[derive(Debug, Clone, PartialEq)]
pub enum Checked {
    /// A valid creature.
    Creature(Box<CreatureSpec>),
    /// A valid terrain.
    Terrain(TerrainSpec),
    /// A valid drive script.
    Script(Script),
    /// A valid scene (a terrain and the creatures on it).
    Scene(Box<Scene>),
}

impl std::fmt::Display for Checked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Checked::Creature(c) => write!(
                f,
                "creature {:?}: {} legs, {} gait groups, solver {}, walks at {:.2} m/s (gait cap {:.2}), {}",
                c.name,
                c.legs.len(),
                c.gait.groups.len(),
                c.solver.kind,
                c.walk_speed(),
                c.speed_cap(),
                match c.body.surface {
                    crate::creature::Surface::Any => "climbs walls and ceilings".to_string(),
                    crate::creature::Surface::Ground => format!(
                        "walks on ground up to {:.0}°",
                        c.body.max_slope.to_degrees()
                    ),
                }
            ),
            Checked::Terrain(t) => {
                write!(
                    f,
                    "terrain {:?}: {} noise, unbounded, {} m grid, seed {}",
                    t.name,
                    format!("{:?}", t.noise.fractal).to_lowercase(),
                    t.resolution,
                    t.seed
                )?;
                // Where the noise is read is not in the file when it is the
                // default, which depends on the fractal and the frequency.
                let [dx, dz] = t.noise.offset;
                if t.noise.fractal != crate::terrain::Fractal::Flat && (dx, dz) != (0.0, 0.0) {
                    write!(f, ", noise offset [{dx:.2}, {dz:.2}] m")?;
                }
                let carved = t.shapes.iter().filter(|s| s.subtract).count();
                match (t.shapes.len(), carved) {
                    (0, _) => Ok(()),
                    (n, 0) => write!(f, ", {}", counted(n, "shape")),
                    (n, c) => write!(f, ", {} ({c} carved)", counted(n, "shape")),
                }
            }
            Checked::Scene(scene) => {
                let count: usize = scene.kinds.iter().map(|k| k.spots.len()).sum();
                // A name two kinds share (two files of one template) is
                // followed by what the scene names each by, or, where that
                // is shared too (one creature listed twice), by its entry.
                let sharing = |same: &dyn Fn(&crate::config::SceneKind) -> bool| {
                    scene.kinds.iter().filter(|k| same(k)).count() > 1
                };
                let kinds = scene
                    .kinds
                    .iter()
                    .enumerate()
                    .map(|(i, k)| {
                        let (count, name) = (k.spots.len(), &k.creature.name);
                        if !sharing(&|other| other.creature.name == *name) {
                            format!("{count} {name}")
                        } else if sharing(&|other| other.source == k.source) {
                            format!("{count} {name} (creatures[{i}])")
                        } else {
                            format!("{count} {name} ({})", k.source)
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", ");
                write!(
                    f,
                    "scene {:?}: {} ({kinds}) on terrain {:?}, seed {}",
                    scene.name,
                    counted(count, "creature"),
                    scene.terrain.name,
                    scene.terrain.seed
                )
            }
            Checked::Script(s) => write!(
                f,
                "drive script: {}, {} s, {} of 1/{} s",
                counted(s.steps.len(), "item"),
                s.total_seconds(),
                counted(s.total_steps(crate::sim::DEFAULT_DT) as usize, "step"),
                (1.0 / crate::sim::DEFAULT_DT).round()
            ),
        }
    }
}

/// `n` and `noun`, plural unless one: "1 shape", "3 shapes".
use crate::text::counted;

/// Validates one file of any kind (see [`check_file_with_warnings`]).
pub fn check_file(path: &str) -> Result<Checked, ConfigError> {
    check_file_with_warnings(path).map(|(checked, _)| checked)
}

/// Validates one file of any kind (see [`check_file_with_warnings`]), a
/// terrain with `seed` in place of its own when given (`check --seed`).
pub fn check_file_seeded(
    path: &str,
    seed: Option<u32>,
) -> Result<(Checked, Vec<Warning>), ConfigError> {
    let text = read_file(path)?;
    if !path.ends_with(".toml") {
        let script = parse_script(path, &text)?;
        // Fine for the viewer, which goes on; a headless run of it alone
        // has nothing to report and is refused.
        let warnings = if script.total_steps(crate::sim::DEFAULT_DT) == 0 {
            vec![Warning(Source::new(path, &text).error(
                None,
                "",
                "the script runs no steps (it lasts under half of one 1/120 s step): \
                 `headless` refuses it without --steps; give an item a duration, e.g. `forward 5s`",
            ))]
        } else {
            Vec::new()
        };
        return Ok((Checked::Script(script), warnings));
    }
    let src = Source::new(path, &text);
    let doc = fields::Document::parse(&src)?;
    if doc.has("creatures") || doc.has("terrain") {
        let mut scene = parse_scene(path, &text)?;
        if let Some(seed) = seed {
            scene.terrain.seed = seed;
        }
        // The warnings of the creature and terrain files it reads, each
        // under its own name: a scene of a creature `check` warns of was
        // passed with none. (Scripts have none worth repeating; a scene
        // names no scene.)
        let mut warnings = Vec::new();
        for file in scene
            .files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "toml"))
        {
            if let Ok((_, found)) = check_file_seeded(&file.to_string_lossy(), seed) {
                warnings.extend(found);
            }
        }
        return Ok((Checked::Scene(Box::new(scene)), warnings));
    }
    if ["body", "legs", "gait", "solver"]
        .iter()
        .any(|key| doc.has(key))
    {
        let (creature, mut warnings) = parse_creature_with_warnings(path, &text)?;
        warnings.extend(trial::trial_warnings(&creature, &src, &doc));
        Ok((Checked::Creature(Box::new(creature)), warnings))
    } else {
        parse_terrain_seeded(path, &text, seed).map(|(t, warnings)| (Checked::Terrain(t), warnings))
    }
}

/// Validates one file of any kind, with the warnings it earns: `.toml` files
/// are scenes when they list `[[creatures]]` or name a `terrain` (no
/// terrain file has that key), creatures when they hold any
/// creature table (`body`, `legs`, `gait`, `solver`) and terrains otherwise
/// (every terrain field but `name` has a default); anything else is read as a drive
/// script. The same parsers load files for
/// `headless` and the viewer, so all three always agree.
pub fn check_file_with_warnings(path: &str) -> Result<(Checked, Vec<Warning>), ConfigError> {
    check_file_seeded(path, None)
}

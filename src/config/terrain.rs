//! Terrain files: TOML in, [`TerrainSpec`] out.

use glam::{Vec2, Vec3};
use schemars::JsonSchema;
use serde::Deserialize;
use toml::Spanned;

use super::error::{ConfigError, Errors, Source, Warning};
use super::fields::{Check, Document, Exactly};
use crate::terrain::{Fractal, NoiseSource, NoiseSpec, Shape, ShapeKind, TerrainSpec};

/// A terrain file: what `skitter schema terrain` describes and the loader reads.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "skitter terrain",
    description = "A skitter terrain file: noise heights over an unbounded plane."
)]
pub(super) struct TerrainFile {
    /// Display name.
    #[schemars(with = "Option<String>")]
    name: Option<Spanned<String>>,
    /// Noise seed (0 to 4294967295); `--seed` replaces it.
    #[schemars(with = "Option<u32>")]
    seed: Option<Spanned<i64>>,
    /// `[x, z]` metres around the origin generated at start (the terrain itself has no edge).
    #[schemars(with = "Option<[f32; 2]>")]
    size: Option<Spanned<Exactly<2, f32>>>,
    /// Grid spacing, metres.
    #[schemars(with = "Option<f32>")]
    resolution: Option<Spanned<f32>>,
    /// The noise the heights come from.
    noise: Option<NoiseFile>,
    /// Solids added to the ground or carved out of it (walls, rooms,
    /// tunnels), in order: each one changes everything listed before it.
    #[schemars(with = "Option<Vec<ShapeFile>>")]
    shapes: Option<Vec<Option<ShapeFile>>>,
}

/// `[[shapes]]`: one solid, in world coordinates (metres; +Y up).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ShapeFile {
    /// Which solid.
    #[schemars(with = "ShapeKindName")]
    kind: Spanned<String>,
    /// Its centre, `[x, y, z]`.
    #[schemars(with = "[f32; 3]")]
    center: Spanned<Exactly<3, f32>>,
    /// A box's full extents `[x, y, z]` before its yaw, metres.
    #[schemars(with = "Option<[f32; 3]>")]
    size: Option<Spanned<Exactly<3, f32>>>,
    /// A sphere's or cylinder's radius, metres.
    #[schemars(with = "Option<f32>")]
    radius: Option<Spanned<f32>>,
    /// A cylinder's height along its vertical axis, metres.
    #[schemars(with = "Option<f32>")]
    height: Option<Spanned<f32>>,
    /// Turn about +Y, degrees, counter-clockwise seen from above (boxes and cylinders). Default 0.
    #[schemars(with = "Option<f32>")]
    yaw: Option<Spanned<f32>>,
    /// Carve the shape out of everything before it (rooms, tunnels) instead of adding it. Default false.
    #[schemars(with = "Option<bool>")]
    subtract: Option<Spanned<bool>>,
}

/// A shape's kind (schema only).
#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum ShapeKindName {
    /// A box: `size` is its full extents.
    Box,
    /// A ball: `radius`.
    Sphere,
    /// A vertical cylinder: `radius` and `height`.
    Cylinder,
}

/// Most shapes one terrain may list.
const MAX_SHAPES: usize = 256;
/// Largest extent (and farthest centre from the origin) of a shape, metres.
const MAX_SHAPE_METRES: f32 = 10_000.0;

/// `[noise]`: the heights' noise function.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct NoiseFile {
    /// The base noise.
    #[schemars(with = "Option<NoiseSourceName>")]
    source: Option<Spanned<String>>,
    /// How octaves combine; "flat" is level ground.
    #[schemars(with = "Option<FractalName>")]
    fractal: Option<Spanned<String>>,
    /// Cycles per metre of the first octave (at most 1 / (2 × resolution)).
    #[schemars(with = "Option<f64>")]
    frequency: Option<Spanned<f64>>,
    /// Height scale, metres.
    #[schemars(with = "Option<f64>")]
    amplitude: Option<Spanned<f64>>,
    /// Octaves summed.
    #[schemars(with = "Option<i64>")]
    octaves: Option<Spanned<i64>>,
    /// Frequency factor from one octave to the next.
    #[schemars(with = "Option<f64>")]
    lacunarity: Option<Spanned<f64>>,
    /// Amplitude factor from one octave to the next.
    #[schemars(with = "Option<f64>")]
    persistence: Option<Spanned<f64>>,
    /// Height added everywhere, metres.
    #[schemars(with = "Option<f64>")]
    base: Option<Spanned<f64>>,
    /// Where the noise is read for the world's origin, [x, z] metres: the
    /// heights slide by minus this. Default: a third of the first octave's
    /// wavelength for ridged and billow, none for fbm.
    #[schemars(with = "Option<[f64; 2]>")]
    offset: Option<Spanned<Exactly<2, f64>>>,
}

/// A noise source's name (schema only).
#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum NoiseSourceName {
    /// Perlin gradient noise.
    Perlin,
    /// Simplex noise.
    Simplex,
}

/// A fractal's name (schema only).
#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum FractalName {
    /// Fractional Brownian motion: rolling hills.
    Fbm,
    /// Ridged multifractal: sharp crests.
    Ridged,
    /// Billow: rounded bumps.
    Billow,
    /// No noise: level ground at `base`.
    Flat,
}

/// Parses and validates a terrain file.
pub fn parse_terrain(name: &str, text: &str) -> Result<TerrainSpec, ConfigError> {
    parse_terrain_with_warnings(name, text).map(|(spec, _)| spec)
}

/// Parses and validates a terrain file: the terrain, and warnings about
/// ground that is legal but that creatures will struggle on.
pub fn parse_terrain_with_warnings(
    name: &str,
    text: &str,
) -> Result<(TerrainSpec, Vec<Warning>), ConfigError> {
    parse_terrain_seeded(name, text, None)
}

/// Parses and validates a terrain file with `seed` (`--seed`), when given,
/// in place of the file's: the heights checked are the ones that seed makes.
pub fn parse_terrain_seeded(
    name: &str,
    text: &str,
    seed: Option<u32>,
) -> Result<(TerrainSpec, Vec<Warning>), ConfigError> {
    let src = Source::new(name, text);
    let check = Check::new(&src);
    let mut doc = Document::parse(&src)?;
    let mut errors = Errors::default();
    let file = TerrainFile {
        name: doc.required(
            &src,
            "name",
            "every terrain file needs it, e.g. `name = \"my-ground\"` (`check` reads a \
             file as a terrain when it has none of a creature's tables, `body`, `legs`, \
             `gait` and `solver`, nor a scene's `creatures` and `terrain`)",
            &mut errors,
        ),
        seed: doc.optional(&src, "seed", &mut errors).flatten(),
        size: doc.optional(&src, "size", &mut errors).flatten(),
        resolution: doc.optional(&src, "resolution", &mut errors).flatten(),
        noise: doc.optional(&src, "noise", &mut errors).flatten(),
        shapes: doc
            .optional_array::<ShapeFile>(&src, "shapes", &mut errors)
            // Entries with errors stay as `None`, so the shapes after one
            // keep their index in messages.
            .map(|(_, entries)| {
                entries
                    .into_iter()
                    .map(|entry| entry.map(Spanned::into_inner))
                    .collect()
            }),
    };
    doc.refuse_unknown(&src, super::SchemaKind::Terrain, &mut errors);
    let terrain_name = file.name.as_ref().and_then(|name| {
        let trimmed = name.get_ref().trim();
        if trimmed.is_empty() {
            errors.push(check.at(name, "name", "must not be empty; give the terrain a name"));
            None
        } else {
            Some(trimmed.to_string())
        }
    });
    let seed = match &file.seed {
        // The command line's seed wins, but the file's is still checked.
        Some(file_seed) => errors
            .ok(check.int_in(file_seed, 0, i64::from(u32::MAX), "seed"))
            .map(|s| seed.unwrap_or(s as u32)),
        None => Some(seed.unwrap_or(0)),
    };
    let size = match &file.size {
        Some(size) => {
            let [x, z] = size.get_ref().0;
            if x.is_finite()
                && z.is_finite()
                && (1.0..=5000.0).contains(&x)
                && (1.0..=5000.0).contains(&z)
            {
                Some([x, z])
            } else {
                errors.push(check.at(
                    size,
                    "size",
                    format!("must be [x, z] in metres, each from 1 to 5000, got [{x}, {z}]"),
                ));
                None
            }
        }
        None => Some([200.0, 200.0]),
    };
    let resolution = match &file.resolution {
        Some(r) => {
            let v = *r.get_ref();
            if v.is_finite() && (0.02..=10.0).contains(&v) {
                Some(v)
            } else {
                errors.push(check.at(
                    r,
                    "resolution",
                    format!(
                        "must be a grid spacing from 0.02 to 10 metres, got {}",
                        super::fields::Number(f64::from(v))
                    ),
                ));
                None
            }
        }
        None => Some(0.5),
    };
    let noise = parse_noise(&check, file.noise.as_ref(), resolution, &mut errors);
    let shapes = parse_shapes(&check, file.shapes.as_deref().unwrap_or(&[]), &mut errors);
    let (Some(terrain_name), Some(seed), Some(size), Some(resolution), Some(noise)) =
        (terrain_name, seed, size, resolution, noise)
    else {
        return Err(errors.fail(name));
    };
    errors.finish()?;
    let spec = TerrainSpec {
        name: terrain_name,
        seed,
        size,
        resolution,
        noise,
        shapes,
    };
    let mut warnings = check_heights(&check, &file, &spec)?;
    warnings.extend(flush_carves(&check, &file, &spec));
    // Flat ground has no noise to read anywhere: an offset there is a
    // leftover or a misunderstanding, and changes nothing.
    if let Some(offset) = file.noise.as_ref().and_then(|n| n.offset.as_ref())
        && spec.noise.fractal == Fractal::Flat
    {
        warnings.push(Warning(
            check.at(
                offset,
                "noise.offset",
                "flat ground has no noise to slide, so this changes nothing; remove it, or give \
             `fractal` a noise (\"fbm\", \"ridged\", \"billow\")"
                    .to_string(),
            ),
        ));
    }
    Ok((spec, warnings))
}

/// How near two parallel faces may lie and count as one plane (metres).
const FLUSH: f32 = 1e-3;

/// A warning for every carve with a face lying exactly on a face of what
/// it cuts, facing the same way, with open space beyond it (a pit whose
/// top is the flat ground's level, a tunnel ending on a wall's face, a
/// shape carved away whole): there the distance field is zero on both
/// sides, a sheet of no thickness that rays stop on and creatures stand on.
/// (A room's floor flush with its block's underside is a real floor: the
/// ground is beyond it.)
fn flush_carves(check: &Check<'_>, file: &TerrainFile, spec: &TerrainSpec) -> Vec<Warning> {
    // Each flat face of a shape: its axis in the shape's frame and outward
    // sign.
    let faces = |shape: &Shape| {
        let axes = match shape.kind {
            ShapeKind::Box => [0, 1, 2].as_slice(),
            ShapeKind::Cylinder => [1].as_slice(),
            ShapeKind::Sphere => [].as_slice(),
        };
        axes.iter()
            .flat_map(|&k| [(k, -1.0f32), (k, 1.0)])
            .collect::<Vec<_>>()
    };
    // The world point `out` beyond the middle of face (k, sign) of `shape`.
    let on_face = |shape: &Shape, k: usize, sign: f32, out: f32| {
        let mut local = Vec3::ZERO;
        local[k] = sign * (shape.half[k] + out);
        shape.world_point(local)
    };
    let ground = spec.noise.sampler(spec.seed);
    let footprint = |shape: &Shape| match shape.kind {
        ShapeKind::Box => shape.half.x.hypot(shape.half.z),
        _ => shape.half.x,
    };
    let mut warnings = Vec::new();
    for (i, carve) in spec.shapes.iter().enumerate().filter(|(_, s)| s.subtract) {
        let earlier = &spec.shapes[..i];
        let solid_at = |p: Vec3| {
            f64::from(p.y) < ground(f64::from(p.x), f64::from(p.z))
                || earlier.iter().any(|s| !s.subtract && s.contains(p))
        };
        let flush_with = faces(carve).into_iter().find_map(|(k, sign)| {
            if solid_at(on_face(carve, k, sign, 2.0 * FLUSH)) {
                return None;
            }
            let middle = on_face(carve, k, sign, 0.0);
            if spec.noise.fractal == Fractal::Flat
                && k == 1
                && sign > 0.0
                && (f64::from(middle.y) - spec.noise.base).abs() < f64::from(FLUSH)
            {
                return Some(format!("the flat ground (y = {})", spec.noise.base));
            }
            earlier.iter().enumerate().find_map(|(j, solid)| {
                let apart = Vec2::new(
                    carve.center.x - solid.center.x,
                    carve.center.z - solid.center.z,
                );
                let flush = !solid.subtract
                    && apart.length() < footprint(carve) + footprint(solid)
                    && (k == 1 || (carve.yaw - solid.yaw).abs() < 1e-4)
                    && faces(solid).contains(&(k, sign))
                    && (solid.local(middle)[k] - sign * solid.half[k]).abs() < FLUSH;
                flush.then(|| format!("a face of shapes[{j}]"))
            })
        });
        if let Some(what) = flush_with {
            let center = file
                .shapes
                .as_ref()
                .and_then(|files| files.get(i))
                .and_then(Option::as_ref)
                .map(|f| &f.center);
            warnings.push(Warning(check.at_opt(
                center,
                format!("shapes[{i}]"),
                format!(
                    "this carve has a face lying exactly on {what}, facing the same way, with \
                     open space beyond: a sheet of no thickness is left there, which rays stop \
                     on and creatures stand on. Carry the carve a little past it (1 cm does)"
                ),
            )));
        }
    }
    warnings
}

/// Points per side of the grid of heights sampled to validate a terrain.
const PROBE_SIDE: usize = 24;
/// A terrain whose median slope (rise over run) is beyond this is refused:
/// 2 is 63°, where feet can no longer stand.
const MAX_MEDIAN_SLOPE: f64 = 2.0;
/// A terrain whose 90th-percentile slope is beyond this (45°) gets a warning.
const STEEP_SLOPE: f64 = 1.0;
/// Heights must stay within this many metres of zero.
const MAX_ABS_HEIGHT: f64 = 10_000.0;

/// Checks the heights the noise actually produces, not only its inputs:
/// some legal-looking combinations (fbm with `persistence = 0`) make every
/// height NaN. Samples a grid over the extent made at start, plus points far
/// out, since the terrain has no edge.
fn check_heights(
    check: &Check<'_>,
    file: &TerrainFile,
    spec: &TerrainSpec,
) -> Result<Vec<Warning>, ConfigError> {
    let sample = spec.noise.sampler(spec.seed);
    let half = f64::from(spec.size[0].max(spec.size[1])) * 0.5;
    let step = 2.0 * half / (PROBE_SIDE - 1) as f64;
    let far = [(12_345.5, -6_789.25), (-50_000.0, 50_000.0), (1.0e6, 3.0e5)];
    let grid = (0..PROBE_SIDE * PROBE_SIDE).map(|k| {
        let (i, j) = ((k % PROBE_SIDE) as f64, (k / PROBE_SIDE) as f64);
        (-half + i * step, -half + j * step)
    });
    let spacing = f64::from(spec.resolution);
    let mut slopes = Vec::with_capacity(PROBE_SIDE * PROBE_SIDE);
    for (x, z) in grid.chain(far) {
        let h = sample(x, z);
        let (hx, hz) = (sample(x + spacing, z), sample(x, z + spacing));
        if let Some(bad) = [h, hx, hz]
            .into_iter()
            .find(|h| !(h.is_finite() && h.abs() <= MAX_ABS_HEIGHT))
        {
            // The one setting that legal-looking files get wrong this way.
            let persistence = file.noise.as_ref().and_then(|n| n.persistence.as_ref());
            return Err(check.at_opt(
                persistence,
                "noise",
                format!(
                    "these noise settings give a height of {bad} m near ({x}, {z}); heights must be finite \
                     and within ±{MAX_ABS_HEIGHT} m. With fbm, billow or ridged noise, keep persistence \
                     above 0 and amplitude + base moderate"
                ),
            ));
        }
        slopes.push((hx - h).hypot(hz - h) / spacing);
    }
    slopes.sort_by(f64::total_cmp);
    let median = slopes[slopes.len() / 2];
    if median > MAX_MEDIAN_SLOPE {
        let amplitude = file.noise.as_ref().and_then(|n| n.amplitude.as_ref());
        return Err(check.at_opt(
            amplitude,
            "noise.amplitude",
            format!(
                "half of this terrain is steeper than {:.0}° (median slope {median:.2} m of rise a metre); no creature can \
                 walk a heightfield of cliffs. Keep amplitude × frequency below about {:.2} \
                 (now {:.2}): lower the amplitude or the frequency",
                median.atan().to_degrees(),
                MAX_MEDIAN_SLOPE / 6.0,
                spec.noise.amplitude * spec.noise.frequency
            ),
        ));
    }
    let steep = slopes[slopes.len() * 9 / 10];
    let mut warnings = Vec::new();
    if steep > STEEP_SLOPE {
        let amplitude = file.noise.as_ref().and_then(|n| n.amplitude.as_ref());
        warnings.push(Warning(check.at_opt(
            amplitude,
            "noise.amplitude",
            format!(
                "a tenth of this terrain is steeper than {:.0}° (90th-percentile slope {steep:.2} m of rise a metre); \
                 creatures cross it with legs hanging off crests and knees brushing the flanks. \
                 Lower amplitude × frequency (now {:.2}) below about {:.2} for ground they stand on cleanly",
                steep.atan().to_degrees(),
                spec.noise.amplitude * spec.noise.frequency,
                spec.noise.amplitude * spec.noise.frequency * STEEP_SLOPE / steep
            ),
        )));
    }
    Ok(warnings)
}

/// The shapes, every bad field reported (the bad shapes left out).
fn parse_shapes(check: &Check<'_>, files: &[Option<ShapeFile>], errors: &mut Errors) -> Vec<Shape> {
    if files.len() > MAX_SHAPES {
        errors.push(check.at_opt(
            files[MAX_SHAPES].as_ref().map(|file| &file.kind),
            "shapes",
            format!(
                "a terrain may list at most {MAX_SHAPES} shapes, this one has {}",
                files.len()
            ),
        ));
    }
    let mut shapes = Vec::with_capacity(files.len());
    for (i, file) in files.iter().enumerate().take(MAX_SHAPES) {
        if let Some(file) = file
            && let Some(shape) = parse_shape(check, i, file, errors)
        {
            shapes.push(shape);
        }
    }
    shapes
}

/// One `[[shapes]]` entry, or `None` with its errors recorded.
fn parse_shape(
    check: &Check<'_>,
    i: usize,
    file: &ShapeFile,
    errors: &mut Errors,
) -> Option<Shape> {
    let field = |key: &str| format!("shapes[{i}].{key}");
    let before = errors.len();
    let kind = ShapeKind::ALL
        .iter()
        .find(|(name, _)| name == file.kind.get_ref())
        .map(|(_, kind)| *kind);
    if kind.is_none() {
        errors.push(check.at(
            &file.kind,
            field("kind"),
            format!(
                "unknown shape {:?}; valid: \"box\", \"sphere\", \"cylinder\"",
                file.kind.get_ref()
            ),
        ));
    }
    let center = Vec3::from_array(file.center.get_ref().0);
    if !(center.is_finite() && center.abs().max_element() <= MAX_SHAPE_METRES) {
        errors.push(check.at(
            &file.center,
            field("center"),
            format!(
                "must be [x, y, z] in metres, each finite and within ±{MAX_SHAPE_METRES}, got {}",
                super::fields::Numbers(&center.as_dvec3().to_array())
            ),
        ));
    }
    let length = |value: &Spanned<f32>, key: &str, errors: &mut Errors| {
        let v = *value.get_ref();
        if v.is_finite() && v > 0.0 && v <= MAX_SHAPE_METRES {
            Some(v)
        } else {
            errors.push(check.at(
                value,
                field(key),
                format!(
                    "must be a length from above 0 to {MAX_SHAPE_METRES} metres, got {}",
                    super::fields::Number(f64::from(v))
                ),
            ));
            None
        }
    };
    // What each kind takes, and a clear word for a field it does not.
    let refuse = |value: Option<&Spanned<f32>>, key: &str, takes: &str, errors: &mut Errors| {
        if let Some(value) = value {
            errors.push(check.at(value, field(key), format!("{takes}, not `{key}`")));
        }
    };
    let needs = |key: &str, takes: &str, errors: &mut Errors| {
        // Not when it was there but unreadable (its error is recorded and
        // the key dropped to look for more).
        if !errors.names(&field(key)) {
            errors.push(check.at(&file.kind, field(key), format!("missing: {takes}")));
        }
    };
    let half = match kind {
        Some(ShapeKind::Box) => {
            refuse(
                file.radius.as_ref(),
                "radius",
                "a box takes `size` [x, y, z]",
                errors,
            );
            refuse(
                file.height.as_ref(),
                "height",
                "a box takes `size` [x, y, z]",
                errors,
            );
            match &file.size {
                Some(size) => {
                    let v = Vec3::from_array(size.get_ref().0);
                    if v.is_finite() && v.min_element() > 0.0 && v.max_element() <= MAX_SHAPE_METRES
                    {
                        Some(v * 0.5)
                    } else {
                        errors.push(check.at(
                            size,
                            field("size"),
                            format!(
                                "must be the box's full extents [x, y, z], each from above 0 to \
                                 {MAX_SHAPE_METRES} metres, got {}",
                                super::fields::Numbers(&v.as_dvec3().to_array())
                            ),
                        ));
                        None
                    }
                }
                None => {
                    needs(
                        "size",
                        "a box needs `size = [x, y, z]` (full extents, metres)",
                        errors,
                    );
                    None
                }
            }
        }
        Some(ShapeKind::Sphere) => {
            if let Some(size) = &file.size {
                errors.push(check.at(size, field("size"), "a sphere takes `radius`, not `size`"));
            }
            refuse(
                file.height.as_ref(),
                "height",
                "a sphere takes only `radius`",
                errors,
            );
            match &file.radius {
                Some(r) => length(r, "radius", errors).map(Vec3::splat),
                None => {
                    needs("radius", "a sphere needs `radius` (metres)", errors);
                    None
                }
            }
        }
        Some(ShapeKind::Cylinder) => {
            if let Some(size) = &file.size {
                errors.push(check.at(
                    size,
                    field("size"),
                    "a cylinder takes `radius` and `height`, not `size`",
                ));
            }
            let radius = match &file.radius {
                Some(r) => length(r, "radius", errors),
                None => {
                    needs("radius", "a cylinder needs `radius` (metres)", errors);
                    None
                }
            };
            let height = match &file.height {
                Some(h) => length(h, "height", errors),
                None => {
                    needs(
                        "height",
                        "a cylinder needs `height` (metres, along its vertical axis)",
                        errors,
                    );
                    None
                }
            };
            radius.zip(height).map(|(r, h)| Vec3::new(r, 0.5 * h, r))
        }
        None => None,
    };
    let yaw = match &file.yaw {
        Some(value) => {
            let v = *value.get_ref();
            if v.is_finite() && (-360.0..=360.0).contains(&v) {
                if kind == Some(ShapeKind::Sphere) && v != 0.0 {
                    errors.push(check.at(value, field("yaw"), "a sphere has no yaw; remove it"));
                }
                v.to_radians()
            } else {
                errors.push(check.at(
                    value,
                    field("yaw"),
                    format!(
                        "must be degrees from -360 to 360, got {}",
                        super::fields::Number(f64::from(v))
                    ),
                ));
                0.0
            }
        }
        None => 0.0,
    };
    if errors.len() > before {
        return None;
    }
    Some(Shape::new(
        kind?,
        center,
        half?,
        yaw,
        file.subtract.as_ref().is_some_and(|s| *s.get_ref()),
    ))
}

/// Farthest the noise may be read from the world's origin (metres): far
/// enough to slide any seed's ground by many wavelengths, near enough that
/// f64 noise coordinates keep millimetres.
const MAX_NOISE_OFFSET: f64 = 1.0e6;

/// The noise section (defaults where absent), every bad field reported;
/// `None` if any was bad. A frequency finer than a grid of `resolution`
/// (when that is sound) holds is refused here, with the section's other
/// errors rather than a round after them (it came after a bad amplitude).
fn parse_noise(
    check: &Check<'_>,
    noise: Option<&NoiseFile>,
    resolution: Option<f32>,
    errors: &mut Errors,
) -> Option<NoiseSpec> {
    let source = match noise.and_then(|n| n.source.as_ref()) {
        None => Some(NoiseSource::Perlin),
        Some(s) => match s.get_ref().as_str() {
            "perlin" => Some(NoiseSource::Perlin),
            "simplex" => Some(NoiseSource::Simplex),
            other => {
                errors.push(check.at(
                    s,
                    "noise.source",
                    format!("unknown noise source {other:?}; valid: \"perlin\", \"simplex\""),
                ));
                None
            }
        },
    };
    let fractal = match noise.and_then(|n| n.fractal.as_ref()) {
        None => Some(Fractal::Fbm),
        Some(s) => match s.get_ref().as_str() {
            "fbm" => Some(Fractal::Fbm),
            "ridged" => Some(Fractal::Ridged),
            "billow" => Some(Fractal::Billow),
            "flat" => Some(Fractal::Flat),
            other => {
                errors.push(check.at(
                    s,
                    "noise.fractal",
                    format!("unknown fractal {other:?}; valid: \"fbm\", \"ridged\", \"billow\", \"flat\""),
                ));
                None
            }
        },
    };
    let mut number =
        |value: Option<&Spanned<f64>>, default: f64, lo: f64, hi: f64, field: &str, unit: &str| {
            value.map_or(Some(default), |v| {
                errors.ok(check.number_in(v, lo, hi, field, unit))
            })
        };
    let frequency = number(
        noise.and_then(|n| n.frequency.as_ref()),
        0.05,
        1e-4,
        100.0,
        "noise.frequency",
        "cycles per metre",
    );
    let amplitude = number(
        noise.and_then(|n| n.amplitude.as_ref()),
        1.0,
        0.0,
        1000.0,
        "noise.amplitude",
        "metres",
    );
    let lacunarity = number(
        noise.and_then(|n| n.lacunarity.as_ref()),
        2.0,
        1.0,
        8.0,
        "noise.lacunarity",
        "frequency ratio between octaves",
    );
    let persistence = number(
        noise.and_then(|n| n.persistence.as_ref()),
        0.5,
        0.0,
        1.5,
        "noise.persistence",
        "amplitude ratio between octaves",
    );
    let base = number(
        noise.and_then(|n| n.base.as_ref()),
        0.0,
        -1000.0,
        1000.0,
        "noise.base",
        "metres",
    );
    if let (Some(resolution), Some(fractal), Some(frequency)) = (resolution, fractal, frequency) {
        let nyquist = 0.5 / f64::from(resolution);
        if fractal != Fractal::Flat && frequency > nyquist {
            errors.push(check.at_opt(
                noise.and_then(|n| n.frequency.as_ref()),
                "noise.frequency",
                format!(
                    "{frequency} cycles per metre is finer than a {resolution} m grid can hold (at \
                     most {nyquist} cycles per metre): the heights would be random spikes. Lower \
                     the frequency or the resolution"
                ),
            ));
        }
    }
    let octaves = match noise.and_then(|n| n.octaves.as_ref()) {
        Some(o) => errors
            .ok(check.int_in(o, 1, 16, "noise.octaves"))
            .map(|o| o as usize),
        None => Some(4),
    };
    let offset = match noise.and_then(|n| n.offset.as_ref()) {
        Some(o) => {
            let [x, z] = o.get_ref().0;
            if x.is_finite() && z.is_finite() && x.abs().max(z.abs()) <= MAX_NOISE_OFFSET {
                Some([x, z])
            } else {
                errors.push(check.at(
                    o,
                    "noise.offset",
                    format!(
                        "must be [x, z] in metres, each within ±{MAX_NOISE_OFFSET}, got {}",
                        super::fields::Numbers(&[x, z])
                    ),
                ));
                None
            }
        }
        None => fractal
            .zip(frequency)
            .map(|(fractal, frequency)| NoiseSpec::default_offset(fractal, frequency)),
    };
    Some(NoiseSpec {
        source: source?,
        fractal: fractal?,
        frequency: frequency?,
        amplitude: amplitude?,
        octaves: octaves?,
        lacunarity: lacunarity?,
        persistence: persistence?,
        base: base?,
        offset: offset?,
    })
}

//! Creature files: TOML in, [`CreatureSpec`] out, or an error that says where and why.

use std::collections::BTreeMap;

use glam::Vec3;
use schemars::JsonSchema;
use serde::Deserialize;
use toml::Spanned;

use super::error::{ConfigError, Errors, Source, Warning};
use super::fields::{Check, Document, Exactly, finite_vec3};
use crate::creature::{
    BodySpec, CROSSING_SHARE, CreatureSpec, FOOTHOLD_STRETCH, GaitOrder, GaitSpec,
    LEAST_UNDERSIDE_GAP, LegSpec, OrientationSource, SolverSpec, Surface, try_rest_chain,
};
use crate::ik::{JointLimit, SolverKind};

/// A creature file as a whole: what `skitter schema creature` describes.
/// The loader reads it section by section (so it can report every error
/// at once); this ties the sections together for the schema.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "skitter creature",
    description = "A skitter creature file: a body, its gait and its legs. Units are metres, seconds and degrees; body frame +x forward, +y up, +z right."
)]
#[allow(dead_code)] // Only its schema is used.
pub(super) struct CreatureFile {
    /// Display name.
    name: String,
    /// One-line description.
    description: Option<String>,
    /// The body box, its ride height and how it moves.
    body: BodyFile,
    /// The inverse-kinematics solver every leg uses unless it names its own.
    solver: Option<SolverFile>,
    /// When legs step and how.
    gait: GaitFile,
    /// The legs, each a chain of bones from a hip on the body to a foot.
    legs: Vec<LegFile>,
}

/// `[body]`: metres, seconds and degrees; body frame +x forward, +y up, +z right.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct BodyFile {
    /// `[length, height, width]` of the body box, metres.
    #[schemars(with = "[f32; 3]")]
    size: Spanned<Exactly<3, f32>>,
    /// Ride height above the ground, metres (a rest foot's y is about minus this).
    #[schemars(with = "f32")]
    height: Spanned<f32>,
    /// Full-throttle walking speed, m/s (capped by what the gait can carry).
    #[schemars(with = "f32")]
    speed: Spanned<f32>,
    /// Full-rudder turning speed, degrees per second.
    #[schemars(with = "f32")]
    turn_rate: Spanned<f32>,
    /// What the body aligns to: "feet" (the plane through the feet; needs 3+ legs) or "ground" (the normal under the body). Default "feet".
    #[schemars(with = "Option<Orientation>")]
    orientation: Option<Spanned<String>>,
    /// Fastest the body may re-orient, degrees per second. Default 180.
    #[schemars(with = "Option<f32>")]
    max_tilt_rate: Option<Spanned<f32>>,
    /// Fastest the body may correct its height, m/s. Default 1.0.
    #[schemars(with = "Option<f32>")]
    max_height_rate: Option<Spanned<f32>>,
    /// How fast speed may change, m/s² (braking may use twice as much). Default 3.
    #[schemars(with = "Option<f32>")]
    acceleration: Option<Spanned<f32>>,
    /// How fast the turning rate may change, degrees/s². Default 360.
    #[schemars(with = "Option<f32>")]
    turn_acceleration: Option<Spanned<f32>>,
    /// Which surfaces it walks on: "ground" (faces up to `max_slope`; default) or "any" (a climber: walls, ceilings, overhangs).
    #[schemars(with = "Option<SurfaceName>")]
    surface: Option<Spanned<String>>,
    /// Steepest face a ground walker treats as ground, degrees from level (steeper faces are obstacles it stops before). Default 50.
    #[schemars(with = "Option<f32>")]
    max_slope: Option<Spanned<f32>>,
}

/// A `surface` name (schema only).
#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum SurfaceName {
    /// Faces up to `max_slope` from level.
    Ground,
    /// Every face: walls, ceilings, overhangs.
    Any,
}

/// `[solver]`: the inverse-kinematics solver and its budget.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct SolverFile {
    /// The solver. Default "fabrik".
    #[schemars(with = "Option<SolverName>")]
    kind: Option<Spanned<String>>,
    /// How close the foot must come to its target, metres. Default 1e-4.
    #[schemars(with = "Option<f32>")]
    tolerance: Option<Spanned<f32>>,
    /// Most iterations per solve. Default 32.
    #[schemars(with = "Option<i64>")]
    max_iterations: Option<Spanned<i64>>,
}

/// `[gait]`: when legs step and how (see docs/authoring.md for choosing them).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct GaitFile {
    /// A planted foot farther than this from its desired foothold steps, metres.
    #[schemars(with = "f32")]
    step_threshold: Spanned<f32>,
    /// Peak lift of a swinging foot, metres.
    #[schemars(with = "f32")]
    step_height: Spanned<f32>,
    /// Duration of a step at walking speeds (the longest swing), seconds, 0.02 to 10.
    #[schemars(with = "f32")]
    step_duration: Spanned<f32>,
    /// Shortest a swing may become as the creature walks faster, seconds, 0.02 to step_duration. Default 0.6 × step_duration.
    #[schemars(with = "Option<f32>")]
    min_step_duration: Option<Spanned<f32>>,
    /// Footholds are sought this many seconds of motion ahead. Default 0.
    #[schemars(with = "Option<f32>")]
    lead: Option<Spanned<f32>>,
    /// Most legs in the air at once. Default: the largest group.
    #[schemars(with = "Option<i64>")]
    max_lifted: Option<Spanned<i64>>,
    /// Lists of leg names; a leg may lift only while every leg of the other groups is down. Default (the key left out): each leg alone.
    #[schemars(with = "Option<Vec<Vec<String>>>", length(min = 1))]
    groups: Option<Spanned<Vec<Vec<Spanned<String>>>>>,
    /// Which group steps next: "urgency" (the one that most needs to) or "listed" (in the order written: a wave). Default "urgency".
    #[schemars(with = "Option<GaitOrderName>")]
    order: Option<Spanned<String>>,
    /// For gaits that keep 3+ feet down: how far inside the support polygon the body's centre must stand before a step, metres. Default 0.02.
    #[schemars(with = "Option<f32>")]
    stability_margin: Option<Spanned<f32>>,
}

/// `[[legs]]`: one leg, hip to foot; positions in the body frame, metres.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct LegFile {
    /// The leg's name (gait groups refer to it).
    #[schemars(with = "String")]
    name: Spanned<String>,
    /// The hip, on the body, `[x, y, z]` in the body frame.
    #[schemars(with = "[f32; 3]")]
    mount: Spanned<Exactly<3, f32>>,
    /// Where the foot stands at rest, `[x, y, z]` in the body frame (y about minus the body's height).
    #[schemars(with = "[f32; 3]")]
    rest: Spanned<Exactly<3, f32>>,
    /// Bone lengths from the hip outward, metres (2 or more).
    #[schemars(with = "Vec<f32>")]
    bones: Spanned<Vec<f32>>,
    /// A point the knees bend toward, `[x, y, z]` in the body frame.
    #[schemars(with = "Option<[f32; 3]>")]
    pole: Option<Spanned<Exactly<3, f32>>>,
    /// This leg's own solver, overriding `[solver] kind`.
    #[schemars(with = "Option<SolverName>")]
    solver: Option<Spanned<String>>,
    /// Also create this leg's reflection (z negated) under this name.
    #[schemars(with = "Option<String>")]
    mirror: Option<Spanned<String>>,
    /// Limits of the joints between bones, hip outward: one entry per joint.
    #[schemars(with = "Option<Vec<JointFile>>")]
    joints: Option<Spanned<Vec<Spanned<JointFile>>>>,
}

/// One inner joint's limit: `{ hinge = { … } }`, `{ cone = DEG }`, or `{}` (free).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct JointFile {
    /// The bone after the joint turns only about an axis, between two angles.
    #[schemars(with = "Option<HingeFile>")]
    hinge: Option<Spanned<HingeFile>>,
    /// The bone after the joint stays within this many degrees (0-180) of the bone before it.
    #[schemars(with = "Option<f32>")]
    cone: Option<Spanned<f32>>,
}

/// A hinge: angles in degrees, the axis in the body frame at rest (the
/// normal of the joint's rest bend when omitted).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct HingeFile {
    /// The hinge axis `[x, y, z]` in the body frame at rest. Default: the normal of the rest bend.
    #[schemars(with = "Option<[f32; 3]>")]
    axis: Option<Spanned<Exactly<3, f32>>>,
    /// Smallest signed bend from straight, degrees (-180 to 180).
    #[schemars(with = "f32")]
    min: Spanned<f32>,
    /// Largest signed bend from straight, degrees (-180 to 180, at least `min`).
    #[schemars(with = "f32")]
    max: Spanned<f32>,
}

/// Where the body takes its up direction from (schema only).
#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Orientation {
    /// The plane through the feet.
    Feet,
    /// The ground's normal under the body.
    Ground,
}

/// Which group steps next (schema only).
#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum GaitOrderName {
    /// The group of the leg that most needs to step.
    Urgency,
    /// The groups in the order written, cyclically.
    Listed,
}

/// An inverse-kinematics solver's name (schema only).
#[derive(JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code)]
pub(super) enum SolverName {
    /// FABRIK: forward and backward reaching.
    Fabrik,
    /// Gradient descent on the joint angles.
    Gradient,
    /// The analytic solver, for two-bone legs only.
    TwoBone,
    /// Cyclic coordinate descent.
    Ccd,
    /// The Jacobian transpose.
    JacobianTranspose,
    /// Damped least squares.
    Dls,
}

/// Default body acceleration when a file gives none (m/s²).
const DEFAULT_ACCELERATION: f32 = 3.0;
/// Default turning acceleration when a file gives none (degrees/s²).
const DEFAULT_TURN_ACCELERATION: f32 = 360.0;
/// The swings a gait may ask for, seconds: at least a few simulation steps
/// (1/120 s each), so a swing is an arc and not a jump, and at most a
/// stride so slow the creature hardly walks.
const SWING_SECONDS: (f32, f32) = (0.02, 10.0);

/// Default shortest swing, as a fraction of `step_duration`.
const DEFAULT_MIN_STEP_FRACTION: f32 = 0.6;
/// Default stability margin when a file gives none (metres).
const DEFAULT_STABILITY_MARGIN: f32 = 0.02;
/// Default IK tolerance when a file gives none (metres).
const DEFAULT_TOLERANCE: f32 = 1e-4;
/// Default iteration budget per leg solve.
const DEFAULT_MAX_ITERATIONS: u32 = 32;
/// Rest feet must sit this far inside the leg's reach so a step can land
/// anywhere near them without the leg locking straight.
const REST_REACH_FRACTION: f32 = 0.95;
/// The stride must keep a foot this many times the leg's inner (folding)
/// limit from its hip.
const INNER_MARGIN: f32 = 1.1;
/// Rest feet of two legs must be at least this fraction of the shortest
/// reach apart.
const MIN_FOOT_SEPARATION: f32 = 0.1;
/// How far (metres) a hip may stand outside the body box before `check`
/// warns: a hip on the box's face, as most files put it, is not outside.
const HIP_OUTSIDE_BODY: f32 = 0.01;
/// Most legs a creature may have (after mirroring).
pub const MAX_LEGS: usize = 64;
/// Most bones a leg may have.
pub const MAX_BONES: usize = 32;
/// A leg's reach (the sum of its bones) must lie in this range, metres: the
/// terrain and the f32 simulation are built for creatures of this scale.
pub const LEG_REACH_RANGE: (f32, f32) = (0.01, 100.0);
/// Every bone must be at least this fraction of its leg's reach.
pub const MIN_BONE_FRACTION: f32 = 1e-4;
/// The IK tolerance may be at most this fraction of the shortest bone.
pub const MAX_TOLERANCE_FRACTION: f32 = 0.01;
/// A step may lift the foot at most this fraction of the shortest leg's reach.
pub const MAX_STEP_HEIGHT_FRACTION: f32 = 0.5;
/// Footholds may be sought at most this fraction of the shortest reach ahead
/// (`lead` × the speed the creature walks at).
pub const MAX_LEAD_FRACTION: f32 = 0.5;
/// A pole may be at most this many reaches from its leg's mount.
pub const MAX_POLE_REACHES: f32 = 10.0;
/// A rest pose may lie this far (degrees) outside its own joint limits
/// before the file is refused: rounding in the rest solve, not a real bend.
pub const REST_LIMIT_SLACK_DEG: f32 = 0.05;

/// Parses and validates a creature file, dropping warnings (see
/// [`parse_creature_with_warnings`]).
pub fn parse_creature(name: &str, text: &str) -> Result<CreatureSpec, ConfigError> {
    parse_creature_with_warnings(name, text).map(|(spec, _)| spec)
}

/// Parses and validates a creature file: the creature and the warnings about
/// values that work but will not do what the author probably expects.
pub fn parse_creature_with_warnings(
    name: &str,
    text: &str,
) -> Result<(CreatureSpec, Vec<Warning>), ConfigError> {
    let src = Source::new(name, text);
    let check = Check::new(&src);
    let mut doc = Document::parse(&src)?;
    let mut errors = Errors::default();
    let file_name: Option<Spanned<String>> = doc.required(
        &src,
        "name",
        "every creature file needs one, e.g. `name = \"my-walker\"`",
        &mut errors,
    );
    let description: Option<Option<String>> = doc.optional(&src, "description", &mut errors);
    let body_file: Option<BodyFile> = doc.required(
        &src,
        "body",
        "every creature file needs a [body] table",
        &mut errors,
    );
    let solver_file: Option<Option<SolverFile>> = doc.optional(&src, "solver", &mut errors);
    let gait_file: Option<GaitFile> = doc.required(
        &src,
        "gait",
        "every creature file needs a [gait] table",
        &mut errors,
    );
    let leg_files = doc.required_array::<LegFile>(&src, "legs", &mut errors);
    doc.refuse_unknown(&src, super::SchemaKind::Creature, &mut errors);

    let creature_name = file_name.as_ref().and_then(|name| {
        let trimmed = name.get_ref().trim();
        if trimmed.is_empty() {
            errors.push(check.at(name, "name", "must not be empty; give the creature a name"));
            None
        } else {
            Some(trimmed.to_string())
        }
    });
    let body = body_file
        .as_ref()
        .and_then(|b| parse_body(&check, b, &mut errors));
    let solver = solver_file
        .as_ref()
        .and_then(|s| errors.ok(parse_solver(&check, s.as_ref())));

    // Every leg is validated on its own; checks across legs run only when
    // all of them are sound, so one bad leg does not echo as others' errors.
    let mut legs = Vec::new();
    let mut legs_ok = leg_files.is_some();
    // Names of every leg that could be read, for the gait groups' check.
    let mut leg_names = Vec::new();
    // Whether every leg could be read: otherwise names are missing and the
    // groups' names are not checked (they would echo the unread leg).
    let mut all_read = leg_files.is_some();
    if let Some((legs_span, files)) = &leg_files {
        let too_many = |count: String| {
            src.error(
                Some(legs_span.clone()),
                "legs",
                format!("a creature may have at most {MAX_LEGS} legs{count}"),
            )
        };
        if files.len() > MAX_LEGS {
            legs_ok = false;
            errors.push(too_many(format!(", this file lists {}", files.len())));
        } else {
            for (index, leg) in files.iter().enumerate() {
                let Some(leg) = leg else {
                    legs_ok = false;
                    all_read = false;
                    continue;
                };
                leg_names.push(leg.get_ref().name.get_ref().trim().to_string());
                if let Some(mirror) = &leg.get_ref().mirror {
                    leg_names.push(mirror.get_ref().trim().to_string());
                }
                legs_ok &= parse_leg(&check, index, leg, &mut legs, &mut errors).is_some();
            }
        }
        if legs_ok {
            if legs.len() > MAX_LEGS {
                legs_ok = false;
                errors.push(too_many(format!(
                    " (mirrored legs count), this one has {}",
                    legs.len()
                )));
            } else if legs.len() < 2 {
                legs_ok = false;
                errors.push(src.error(
                    Some(legs_span.clone()),
                    "legs",
                    format!(
                        "a creature needs at least 2 legs, this one has {}",
                        legs.len()
                    ),
                ));
            }
            legs_ok &= errors.ok(check_unique_names(&check, &legs)).is_some();
        }
    }
    let gait = gait_file.as_ref().and_then(|g| {
        parse_gait(
            &check,
            g,
            all_read.then_some(&leg_names[..]),
            legs_ok,
            &mut errors,
        )
    });

    let (
        Some(creature_name),
        Some(description),
        Some(body),
        Some(solver),
        Some(gait),
        Some(gait_file),
        Some(body_file),
        true,
    ) = (
        creature_name,
        description,
        body,
        solver,
        gait,
        gait_file,
        body_file,
        legs_ok,
    )
    else {
        return Err(errors.fail(name));
    };
    errors.finish()?;
    // With every leg sound, the groups' indices are the legs' (leg_names
    // lists them in the same order).
    for (g, members) in gait.groups.iter().enumerate() {
        for &leg in members {
            legs[leg].spec.group = g;
        }
    }

    let mut told = Vec::new();
    for leg in &legs {
        let kind = leg.spec.solver.unwrap_or(solver.kind);
        if kind == SolverKind::TwoBone && leg.spec.bones.len() != 2 {
            let (span, field) = match &leg.solver_span {
                Some(span) => (span.clone(), format!("{}.solver", leg.field)),
                None => (leg.span.clone(), leg.field.clone()),
            };
            // A mirrored leg has its original's place: one error for both.
            if told.contains(&span) {
                continue;
            }
            told.push(span.clone());
            errors.push(src.error(
                Some(span),
                field,
                format!(
                    "the two-bone solver needs exactly 2 bones, leg `{}` has {}; use any other solver for it (fabrik, gradient, ccd, jacobian-transpose or dls)",
                    leg.spec.name,
                    leg.spec.bones.len()
                ),
            ));
        }
    }
    if body.orientation == OrientationSource::Feet && legs.len() < 3 {
        errors.push(check.at_opt(
            body_file.orientation.as_ref(),
            "body.orientation",
            "`feet` needs at least 3 legs to define a plane; use `ground` for this creature",
        ));
    }
    if gait.max_lifted > legs.len() {
        errors.push(check.at_opt(
            gait_file.max_lifted.as_ref(),
            "gait.max_lifted",
            format!("must be at most the number of legs ({})", legs.len()),
        ));
    }
    errors.finish()?;

    let spec = CreatureSpec {
        name: creature_name,
        description: description.as_ref().map(|d| d.trim().to_string()),
        body,
        solver,
        gait,
        legs: legs.iter().map(|l| l.spec.clone()).collect(),
    };
    let files = Sections {
        body: &body_file,
        solver: solver_file.as_ref().and_then(Option::as_ref),
        gait: &gait_file,
    };
    let warnings = physical_checks(&check, &files, &legs, &spec, &mut errors);
    errors.finish()?;
    Ok((spec, warnings))
}

/// The sections of a creature file that the whole-creature checks point at.
struct Sections<'a> {
    body: &'a BodyFile,
    solver: Option<&'a SolverFile>,
    gait: &'a GaitFile,
}

/// How far (a share of the leg's reach) a rest foot may stand off the
/// level ground the body rides `height` above before `check` warns: every
/// shipped creature's stands on it; 0.25 let a foot rest 22 cm up pass.
const REST_OFF_GROUND: f32 = 0.1;

/// How far over the gait's cap (m/s) a `speed` may be before `check` warns:
/// the cap as a person writes it, to two decimals.
const CAP_ROUNDING: f32 = 0.005;

/// Checks that need the whole creature: can the legs carry the body at its
/// ride height, are tolerances, steps and leads in proportion to the legs,
/// and can the gait carry the speed asked for.
fn physical_checks(
    check: &Check<'_>,
    file: &Sections<'_>,
    legs: &[ParsedLeg],
    spec: &CreatureSpec,
    errors: &mut Errors,
) -> Vec<Warning> {
    let mut warnings = Vec::new();
    let body = &spec.body;
    // Parsed legs are in the spec's order.
    for (index, leg) in legs.iter().enumerate() {
        let l = &leg.spec;
        let reach = l.reach();
        // Standing on level ground the foot is `height` below the body's centre.
        let standing = Vec3::new(l.rest.x, -body.height, l.rest.z);
        let distance = standing.distance(l.mount);
        if distance > FOOTHOLD_STRETCH * reach {
            let horizontal = Vec3::new(l.rest.x - l.mount.x, 0.0, l.rest.z - l.mount.z).length();
            let vertical_room = ((FOOTHOLD_STRETCH * reach).powi(2) - horizontal.powi(2))
                .max(0.0)
                .sqrt();
            errors.push(check.at(
                &file.body.height,
                "body.height",
                format!(
                    "at a ride height of {} m leg `{}` stands {distance:.3} m from its mount, more than \
                     {FOOTHOLD_STRETCH} of its {reach:.3} m reach: it would hover or stand locked straight. \
                     Keep the height at most {:.3} m or lengthen the leg",
                    body.height,
                    l.name,
                    (vertical_room + l.mount.y).max(0.0)
                ),
            ));
        }
        // The stroke moves the foot along the body's x; it must stay out of
        // the hollow a long outer bone leaves around the hip.
        let longest = l.bones.iter().copied().fold(0.0, f32::max);
        let inner = (2.0 * longest - reach).max(0.0);
        if inner > 0.0 {
            let offset = standing - l.mount;
            let half_stroke = spec.stroke(index) * 0.5;
            let closest_x = if offset.x.abs() <= half_stroke {
                0.0
            } else {
                offset.x.abs() - half_stroke
            };
            let closest = Vec3::new(closest_x, offset.y, offset.z).length();
            if closest < INNER_MARGIN * inner {
                errors.push(check.at(
                    &Spanned::new(leg.span.clone(), ()),
                    leg.field.clone(),
                    format!(
                        "leg `{}` cannot fold closer than {inner:.3} m to its hip (its longest bone \
                         outreaches the others), but its stride passes {closest:.3} m from the hip; \
                         make the bones closer in length or move rest and mount apart",
                        l.name
                    ),
                ));
            }
        }
        // Once a table: a mirrored leg's rest point is its twin's.
        if (l.rest.y + body.height).abs() > REST_OFF_GROUND * reach && !leg.is_mirror {
            warnings.push(Warning(check.src.error(
                Some(leg.rest_span.clone()),
                format!("{}.rest", leg.field),
                format!(
                    "rest.y is {} m but the body rides {} m above the ground; the foot rests on the \
                     ground, so rest.y is usually about -height ({})",
                    l.rest.y, body.height, -body.height
                ),
            )));
        }
    }
    let half = body.size * 0.5;
    let underside = body.height - half.y;
    if half.y < body.height && underside < LEAST_UNDERSIDE_GAP {
        errors.push(check.at(
            &file.body.height,
            "body.height",
            format!(
                "the body's underside rides {underside:.4} m above the ground (height {} m less \
                 half of size.y {} m), but the body is kept at least {:.3} m clear of the ground: \
                 it would be lifted off its feet, every leg hanging. Make the height at least \
                 {:.4} m (legs long enough to reach) or the body thinner",
                body.height,
                body.size.y,
                LEAST_UNDERSIDE_GAP,
                LEAST_UNDERSIDE_GAP + half.y
            ),
        ));
    }
    if half.y >= body.height {
        errors.push(check.at(
            &file.body.size,
            "body.size",
            format!(
                "a body {} m tall riding {} m high would sit in the ground; keep its height \
                 (the second size) below twice the ride height ({:.3} m)",
                body.size.y,
                body.height,
                2.0 * body.height
            ),
        ));
    }
    // Only the body box is kept clear of walls and the ground: a hip
    // outside it goes into them. (A walker whose hips stood 8 cm outside
    // its 0.35 m body went into a 0.4 m slot the box fitted, hips and legs
    // through its walls.) Once a table: a mirrored leg's hip is its twin's.
    for leg in legs.iter().filter(|leg| !leg.is_mirror) {
        let outside = (leg.spec.mount.abs() - half).max(Vec3::ZERO).length();
        if outside > HIP_OUTSIDE_BODY {
            let field = &leg.field;
            warnings.push(Warning(check.src.error(
                Some(leg.mount_span.clone()),
                format!("{field}.mount"),
                format!(
                    "leg `{}`'s hip is {outside:.3} m outside the body box ({:.3} × {:.3} × {:.3} m), \
                     and only the box is kept clear of walls and the ground: the hip and the leg's \
                     first bone can pass into them. Move the mount within the box or widen body.size",
                    leg.spec.name, body.size.x, body.size.y, body.size.z
                ),
            )));
        }
    }
    let longest_reach = spec.max_reach();
    let feet_x = spec.legs.iter().map(|l| l.rest.x.abs()).fold(0.0, f32::max);
    let feet_z = spec.legs.iter().map(|l| l.rest.z.abs()).fold(0.0, f32::max);
    if half.x > feet_x + longest_reach || half.z > feet_z + longest_reach {
        errors.push(check.at(
            &file.body.size,
            "body.size",
            format!(
                "a body {:.3} m long and {:.3} m wide cannot stand on feet that spread only \
                 {:.3} m × {:.3} m; keep it within {:.3} m long and {:.3} m wide",
                body.size.x,
                body.size.z,
                2.0 * feet_x,
                2.0 * feet_z,
                2.0 * (feet_x + longest_reach),
                2.0 * (feet_z + longest_reach)
            ),
        ));
    }
    let separation = MIN_FOOT_SEPARATION
        * spec
            .legs
            .iter()
            .map(LegSpec::reach)
            .fold(f32::INFINITY, f32::min);
    for (i, a) in legs.iter().enumerate() {
        for b in &legs[i + 1..] {
            let gap = a.spec.rest.distance(b.spec.rest);
            if gap < separation {
                errors.push(check.src.error(
                    Some(b.span.clone()),
                    format!("{}.rest", b.field),
                    format!(
                        "legs `{}` and `{}` rest their feet {gap:.3} m apart: two feet cannot stand on \
                         one spot. Keep rest feet at least {separation:.3} m apart ({MIN_FOOT_SEPARATION} \
                         of the shortest reach); a mirrored leg needs its rest off the centre line (z ≠ 0)",
                        a.spec.name, b.spec.name
                    ),
                ));
            }
        }
    }
    let shortest_bone = spec
        .legs
        .iter()
        .flat_map(|l| l.bones.iter().copied())
        .fold(f32::INFINITY, f32::min);
    let shortest_reach = spec
        .legs
        .iter()
        .map(LegSpec::reach)
        .fold(f32::INFINITY, f32::min);
    let tolerance_limit = MAX_TOLERANCE_FRACTION * shortest_bone;
    if spec.solver.tolerance > tolerance_limit {
        let span = file
            .solver
            .and_then(|s| s.tolerance.as_ref())
            .map(Spanned::span);
        errors.push(check.src.error(
            span,
            "solver.tolerance",
            format!(
                "a tolerance of {} m is coarse against the shortest bone ({shortest_bone} m): feet would \
                 miss their footholds; use at most {tolerance_limit:.2e} m ({MAX_TOLERANCE_FRACTION} of it)",
                spec.solver.tolerance
            ),
        ));
    }
    let step_limit = MAX_STEP_HEIGHT_FRACTION * shortest_reach;
    if spec.gait.step_height > step_limit {
        errors.push(check.at(
            &file.gait.step_height,
            "gait.step_height",
            format!(
                "a step {} m high is more than the legs can lift; use at most {step_limit:.3} m \
                 ({MAX_STEP_HEIGHT_FRACTION} of the shortest leg's reach, {shortest_reach:.3} m)",
                spec.gait.step_height
            ),
        ));
    }
    let (cap, cap_reason, remedy) = spec.speed_limit();
    let speed = body.speed.min(cap);
    let lead_limit = MAX_LEAD_FRACTION * shortest_reach;
    if spec.gait.lead * speed > lead_limit {
        errors.push(check.at_opt(
            file.gait.lead.as_ref(),
            "gait.lead",
            format!(
                "footholds {:.3} m ahead (lead {} s × {speed:.3} m/s) are beyond the legs; keep \
                 lead × speed within {lead_limit:.3} m ({MAX_LEAD_FRACTION} of the shortest reach), \
                 i.e. lead at most {:.3} s",
                spec.gait.lead * speed,
                spec.gait.lead,
                lead_limit / speed
            ),
        ));
    }
    // A speed written as the cap rounded (0.53 for 0.5299) is the cap.
    if body.speed > cap + CAP_ROUNDING {
        let remedy = match remedy {
            Some(remedy) => format!("{remedy}, or lower the speed"),
            None => "Lower the speed".to_string(),
        };
        warnings.push(Warning(check.at(
            &file.body.speed,
            "body.speed",
            format!(
                "the gait can carry at most {cap:.3} m/s (set by {cap_reason}); the creature will \
                 walk at {cap:.3} m/s. {remedy}"
            ),
        )));
    }
    if let Some((a, b, gap, stride)) = spec.crossing_legs() {
        warnings.push(Warning(check.at(
            &file.gait.step_threshold,
            "gait.step_threshold",
            format!(
                "a foot steps after {stride:.3} m of stride, but legs `{a}` and `{b}` rest only \
                 {gap:.3} m apart: their feet may cross. Keep step_threshold under {:.3} m \
                 ({CROSSING_SHARE} of the gap) or space the legs",
                CROSSING_SHARE * gap
            ),
        )));
    }
    warnings
}

/// The body section, every bad field reported; `None` if any was bad.
fn parse_body(check: &Check<'_>, body: &BodyFile, errors: &mut Errors) -> Option<BodySpec> {
    let size = errors
        .ok(finite_vec3(check, &body.size, "body.size"))
        .and_then(|size| {
            if size.min_element() <= 0.0 {
                errors.push(check.at(
                    &body.size,
                    "body.size",
                    "every dimension must be positive: [length, height, width] in metres",
                ));
                None
            } else {
                Some(size)
            }
        });
    let orientation = named(
        check,
        errors,
        (
            body.orientation.as_ref(),
            "body.orientation",
            "orientation source",
        ),
        &[
            ("feet", OrientationSource::Feet),
            ("ground", OrientationSource::Ground),
        ],
    );
    let surface = named(
        check,
        errors,
        (body.surface.as_ref(), "body.surface", "surface"),
        &[("ground", Surface::Ground), ("any", Surface::Any)],
    );
    let max_slope = match &body.max_slope {
        Some(value) => {
            let v = *value.get_ref();
            if v.is_finite() && (1.0..=89.0).contains(&v) {
                Some(v.to_radians())
            } else {
                errors.push(check.at(
                    value,
                    "body.max_slope",
                    format!(
                        "must be degrees from level, from 1 to 89, got {}",
                        super::fields::Number(f64::from(v))
                    ),
                ));
                None
            }
        }
        None => Some(DEFAULT_MAX_SLOPE.to_radians()),
    };
    let height = errors.ok(check.positive(&body.height, "body.height", "metres above the ground"));
    let speed = errors.ok(check.positive(&body.speed, "body.speed", "metres per second"));
    let turn_rate =
        errors.ok(check.positive(&body.turn_rate, "body.turn_rate", "degrees per second"));
    let max_tilt_rate = errors.ok(check.positive_or(
        body.max_tilt_rate.as_ref(),
        180.0,
        "body.max_tilt_rate",
        "degrees per second",
    ));
    let max_height_rate = errors.ok(check.positive_or(
        body.max_height_rate.as_ref(),
        1.0,
        "body.max_height_rate",
        "metres per second",
    ));
    let acceleration = errors.ok(check.positive_or(
        body.acceleration.as_ref(),
        DEFAULT_ACCELERATION,
        "body.acceleration",
        "metres per second squared",
    ));
    let turn_acceleration = errors.ok(check.positive_or(
        body.turn_acceleration.as_ref(),
        DEFAULT_TURN_ACCELERATION,
        "body.turn_acceleration",
        "degrees per second squared",
    ));
    Some(BodySpec {
        size: size?,
        height: height?,
        speed: speed?,
        turn_rate: turn_rate?.to_radians(),
        orientation: orientation?,
        max_tilt_rate: max_tilt_rate?.to_radians(),
        max_height_rate: max_height_rate?,
        acceleration: acceleration?,
        turn_acceleration: turn_acceleration?.to_radians(),
        surface: surface?,
        max_slope: max_slope?,
    })
}

/// The value named by `value` among `names` (the first is the default when
/// there is none), or `None` with an error naming the valid ones.
fn named<T: Copy>(
    check: &Check<'_>,
    errors: &mut Errors,
    (value, field, what): (Option<&Spanned<String>>, &str, &str),
    names: &[(&str, T)],
) -> Option<T> {
    let Some(given) = value else {
        return names.first().map(|(_, v)| *v);
    };
    if let Some((_, v)) = names.iter().find(|(name, _)| name == given.get_ref()) {
        return Some(*v);
    }
    let valid: Vec<String> = names.iter().map(|(name, _)| format!("{name:?}")).collect();
    errors.push(check.at(
        given,
        field,
        format!(
            "unknown {what} {:?}; valid: {}",
            given.get_ref(),
            valid.join(", ")
        ),
    ));
    None
}

/// A ground walker's steepest ground by default, degrees.
const DEFAULT_MAX_SLOPE: f32 = 50.0;

fn parse_solver(check: &Check<'_>, solver: Option<&SolverFile>) -> Result<SolverSpec, ConfigError> {
    let kind = match solver.and_then(|s| s.kind.as_ref()) {
        Some(kind) => parse_kind(check, kind, "solver.kind")?,
        None => SolverKind::Fabrik,
    };
    let tolerance = check.positive_or(
        solver.and_then(|s| s.tolerance.as_ref()),
        DEFAULT_TOLERANCE,
        "solver.tolerance",
        "metres",
    )?;
    let max_iterations = match solver.and_then(|s| s.max_iterations.as_ref()) {
        Some(n) => check.int_in(n, 1, 10_000, "solver.max_iterations")? as u32,
        None => DEFAULT_MAX_ITERATIONS,
    };
    Ok(SolverSpec {
        kind,
        tolerance,
        max_iterations,
    })
}

fn parse_kind(
    check: &Check<'_>,
    kind: &Spanned<String>,
    field: &str,
) -> Result<SolverKind, ConfigError> {
    kind.get_ref()
        .parse::<SolverKind>()
        .map_err(|e| check.at(kind, field, e.to_string()))
}

/// A leg being validated, with where it came from for later errors.
struct ParsedLeg {
    spec: LegSpec,
    span: std::ops::Range<usize>,
    /// Where the file gives the mount (a mirrored leg's is its twin's).
    mount_span: std::ops::Range<usize>,
    /// Where the file gives the rest point (a mirrored leg's is its twin's).
    rest_span: std::ops::Range<usize>,
    /// Made by its twin's `mirror`: what is said of the table is said once,
    /// of the twin (mount and rest mirror, so a warning holds for both).
    is_mirror: bool,
    name_span: std::ops::Range<usize>,
    solver_span: Option<std::ops::Range<usize>>,
    field: String,
}

/// One `[[legs]]` table (and its mirror) into `out`, every independent bad
/// field reported; `None` if the leg is not sound.
fn parse_leg(
    check: &Check<'_>,
    index: usize,
    leg: &Spanned<LegFile>,
    out: &mut Vec<ParsedLeg>,
    errors: &mut Errors,
) -> Option<()> {
    let field = format!("legs[{index}]");
    let file = leg.get_ref();
    let name = file.name.get_ref().trim().to_string();
    let name_ok = !name.is_empty();
    if !name_ok {
        errors.push(check.at(&file.name, format!("{field}.name"), "must not be empty"));
    }
    let mirror_ok = match &file.mirror {
        Some(mirror) if mirror.get_ref().trim().is_empty() => {
            errors.push(check.at(
                mirror,
                format!("{field}.mirror"),
                "must name the mirrored leg",
            ));
            false
        }
        _ => true,
    };
    let mount = errors.ok(finite_vec3(check, &file.mount, &format!("{field}.mount")));
    let rest = errors.ok(finite_vec3(check, &file.rest, &format!("{field}.rest")));
    let reach = errors.ok(check_bones(check, &field, &file.bones));
    let solver = match &file.solver {
        Some(s) => errors
            .ok(parse_kind(check, s, &format!("{field}.solver")))
            .map(Some),
        None => Some(None),
    };
    let (true, true, Some(mount), Some(rest), Some(reach), Some(solver)) =
        (name_ok, mirror_ok, mount, rest, reach, solver)
    else {
        return None;
    };
    errors.ok(place_leg(
        check,
        leg,
        out,
        LegFields {
            field,
            name,
            mount,
            rest,
            reach,
            solver,
        },
    ))
}

/// A leg's fields that checked out on their own.
struct LegFields {
    field: String,
    name: String,
    mount: Vec3,
    rest: Vec3,
    reach: f32,
    solver: Option<SolverKind>,
}

/// A leg's bone lengths: how many, each positive and in proportion; the
/// leg's reach.
fn check_bones(
    check: &Check<'_>,
    field: &str,
    file_bones: &Spanned<Vec<f32>>,
) -> Result<f32, ConfigError> {
    let bones = file_bones.get_ref();
    if bones.len() < 2 {
        return Err(check.at(
            file_bones,
            format!("{field}.bones"),
            format!(
                "a leg needs at least 2 bones (lengths in metres), got {}",
                bones.len()
            ),
        ));
    }
    if let Some((i, bad)) = bones
        .iter()
        .enumerate()
        .find(|(_, b)| !(b.is_finite() && **b > 0.0))
    {
        return Err(check.at_element(
            file_bones,
            i,
            format!("{field}.bones[{i}]"),
            format!("bone lengths must be positive finite metres, got {bad}"),
        ));
    }
    if bones.len() > MAX_BONES {
        return Err(check.at(
            file_bones,
            format!("{field}.bones"),
            format!(
                "a leg may have at most {MAX_BONES} bones, got {}",
                bones.len()
            ),
        ));
    }
    let reach: f32 = bones.iter().sum();
    if !(LEG_REACH_RANGE.0..=LEG_REACH_RANGE.1).contains(&reach) {
        return Err(check.at(
            file_bones,
            format!("{field}.bones"),
            format!(
                "the bones add up to a reach of {reach} m; a leg's reach must be from {} to {} m",
                LEG_REACH_RANGE.0, LEG_REACH_RANGE.1
            ),
        ));
    }
    let shortest_allowed = MIN_BONE_FRACTION * reach;
    if let Some((i, short)) = bones
        .iter()
        .enumerate()
        .find(|(_, b)| **b < shortest_allowed)
    {
        return Err(check.at_element(
            file_bones,
            i,
            format!("{field}.bones[{i}]"),
            format!(
                "bone of {short} m is too short to represent next to the others: each bone must be at \
                 least {MIN_BONE_FRACTION} of the leg's reach ({shortest_allowed:.2e} m); merge it into a neighbour"
            ),
        ));
    }
    Ok(reach)
}

/// Places a leg whose fields checked out: its pole, rest pose, chain and
/// joints, and its mirror.
fn place_leg(
    check: &Check<'_>,
    leg: &Spanned<LegFile>,
    out: &mut Vec<ParsedLeg>,
    fields: LegFields,
) -> Result<(), ConfigError> {
    let LegFields {
        field,
        name,
        mount,
        rest,
        reach,
        solver,
    } = fields;
    let file = leg.get_ref();
    let bones = file.bones.get_ref();
    let pole = file
        .pole
        .as_ref()
        .map(|p| finite_vec3(check, p, &format!("{field}.pole")))
        .transpose()?;
    if let Some(p) = &file.pole {
        let distance = (Vec3::from_array(p.get_ref().0) - mount).length();
        if distance > MAX_POLE_REACHES * reach {
            return Err(check.at(
                p,
                format!("{field}.pole"),
                format!(
                    "the pole is {distance:.3} m from the mount; keep it within {MAX_POLE_REACHES} reaches \
                     ({:.3} m): it is a direction hint for the knees, near the leg",
                    MAX_POLE_REACHES * reach
                ),
            ));
        }
    }
    let longest = bones.iter().copied().fold(0.0, f32::max);
    let inner = (2.0 * longest - reach).max(0.0);
    let distance = (rest - mount).length();
    if distance > REST_REACH_FRACTION * reach {
        return Err(check.at(
            &file.rest,
            format!("{field}.rest"),
            format!(
                "rest foot is {distance:.3} m from the mount but leg `{name}` reaches {reach:.3} m; \
                 keep rest within {:.3} m of the mount or lengthen the bones",
                REST_REACH_FRACTION * reach
            ),
        ));
    }
    if distance < inner * 1.05 + 1e-3 {
        return Err(check.at(
            &file.rest,
            format!("{field}.rest"),
            format!(
                "rest foot is {distance:.3} m from the mount, closer than leg `{name}` can fold \
                 ({inner:.3} m: its longest bone outreaches the others); move rest farther out"
            ),
        ));
    }

    let spec = LegSpec {
        name,
        mount,
        rest,
        bones: bones.clone(),
        pole,
        solver,
        group: usize::MAX,
        joints: Vec::new(),
    };
    let rest_chain = match try_rest_chain(&spec) {
        Ok(chain) => chain,
        Err(e) => {
            return Err(check.at(
                &file.bones,
                format!("{field}.bones"),
                format!(
                    "leg `{}` cannot be built from these bones at this mount ({e}); use longer bones",
                    spec.name
                ),
            ));
        }
    };
    let mut spec = spec;
    if let Some(joints) = &file.joints {
        spec.joints = parse_joints(check, &field, joints, &spec, &rest_chain)?;
    }
    let mirrored = file.mirror.as_ref().map(|mirror| {
        let flip = |v: Vec3| Vec3::new(v.x, v.y, -v.z);
        let spec = LegSpec {
            name: mirror.get_ref().trim().to_string(),
            mount: flip(spec.mount),
            rest: flip(spec.rest),
            pole: spec.pole.map(flip),
            joints: spec.joints.iter().map(mirror_limit).collect(),
            ..spec.clone()
        };
        ParsedLeg {
            spec,
            span: leg.span(),
            mount_span: file.mount.span(),
            rest_span: file.rest.span(),
            is_mirror: true,
            name_span: mirror.span(),
            solver_span: file.solver.as_ref().map(Spanned::span),
            field: format!("{field}.mirror"),
        }
    });
    out.push(ParsedLeg {
        spec,
        span: leg.span(),
        mount_span: file.mount.span(),
        rest_span: file.rest.span(),
        is_mirror: false,
        name_span: file.name.span(),
        solver_span: file.solver.as_ref().map(Spanned::span),
        field,
    });
    if let Some(m) = mirrored {
        out.push(m);
    }
    Ok(())
}

/// Reads a leg's `joints`: one entry per joint between two bones, hip
/// outward, and checks that the leg's rest pose keeps them.
fn parse_joints(
    check: &Check<'_>,
    leg_field: &str,
    joints: &Spanned<Vec<Spanned<JointFile>>>,
    spec: &LegSpec,
    rest: &crate::ik::Chain,
) -> Result<Vec<JointLimit>, ConfigError> {
    let field = format!("{leg_field}.joints");
    let inner = spec.bones.len() - 1;
    // Every entry's own values are checked too, whatever the count: one
    // run of `check` shows everything to fix.
    let mut errors: Vec<ConfigError> = Vec::new();
    if joints.get_ref().len() != inner {
        errors.push(check.at(
            joints,
            field.as_str(),
            format!(
                "leg `{}` has {} bones, so {inner} joints between them, but `joints` lists {}; give one \
                 entry per joint from the hip outward: {{ hinge = {{ min = DEG, max = DEG }} }}, \
                 {{ cone = DEG }}, or {{}} for a free joint",
                spec.name,
                spec.bones.len(),
                joints.get_ref().len()
            ),
        ));
    }
    let rest_joints = rest.joints();
    let bone_dir = |k: usize| (rest_joints[k + 1] - rest_joints[k]).normalize_or(Vec3::Y);
    let mut limits = Vec::with_capacity(inner);
    for (k, entry) in joints.get_ref().iter().enumerate() {
        let at = format!("{field}[{k}]");
        let limit = match (&entry.get_ref().hinge, &entry.get_ref().cone) {
            (Some(_), Some(_)) => {
                errors.push(check.at(
                    entry,
                    at,
                    "a joint is either a hinge or a cone, not both; keep one",
                ));
                continue;
            }
            (None, None) => JointLimit::Free,
            (None, Some(cone)) => {
                let max = *cone.get_ref();
                if !(max.is_finite() && (0.0..=180.0).contains(&max)) {
                    errors.push(check.at(
                        cone,
                        format!("{at}.cone"),
                        format!(
                            "must be the largest bend from the parent bone in degrees, 0 to 180, got {max}"
                        ),
                    ));
                    continue;
                }
                JointLimit::Cone {
                    max: max.to_radians(),
                }
            }
            (Some(hinge), None) => {
                let h = hinge.get_ref();
                let before = errors.len();
                for (value, name) in [(&h.min, "min"), (&h.max, "max")] {
                    let v = *value.get_ref();
                    if !(v.is_finite() && (-180.0..=180.0).contains(&v)) {
                        errors.push(check.at(
                            value,
                            format!("{at}.hinge.{name}"),
                            format!(
                                "must be an angle in degrees from -180 to 180, got {}",
                                super::fields::Number(f64::from(v))
                            ),
                        ));
                    }
                }
                if errors.len() > before {
                    continue;
                }
                let (min, max) = (*h.min.get_ref(), *h.max.get_ref());
                if min > max {
                    errors.push(check.at(
                        &h.min,
                        format!("{at}.hinge.min"),
                        format!(
                            "min ({min}°) is above max ({max}°); min is the most the joint bends one \
                             way (negative: against the axis), max the most the other way"
                        ),
                    ));
                    continue;
                }
                let axis = match &h.axis {
                    Some(axis) => {
                        let v = Vec3::from_array(axis.get_ref().0);
                        if !v.is_finite() || v.length() < 1e-6 {
                            errors.push(check.at(
                                axis,
                                format!("{at}.hinge.axis"),
                                format!(
                                    "must be a finite non-zero direction [x, y, z] in the body frame, got {}",
                                    super::fields::Numbers(&v.as_dvec3().to_array())
                                ),
                            ));
                            continue;
                        }
                        v
                    }
                    // Past the leg's joints (a count already refused) there
                    // is no rest bend to take an axis from.
                    None if k >= inner => continue,
                    None => {
                        let normal = bone_dir(k).cross(bone_dir(k + 1));
                        if normal.length() < 1f32.to_radians().sin() {
                            errors.push(check.at(
                                hinge,
                                format!("{at}.hinge"),
                                format!(
                                    "joint {k} of leg `{}` is straight in the rest pose, so the plane \
                                     it bends in is undefined; give the hinge an `axis` (body frame)",
                                    spec.name
                                ),
                            ));
                            continue;
                        }
                        normal.normalize()
                    }
                };
                JointLimit::Hinge {
                    axis,
                    min: min.to_radians(),
                    max: max.to_radians(),
                }
            }
        };
        limits.push(limit);
    }
    if let Some(error) = ConfigError::combine(errors) {
        return Err(error);
    }
    let mut limited = rest.clone();
    if let Err(e) = limited.set_limits(&limits) {
        let (joint, reason) = match e {
            crate::ik::IkError::InvalidLimit { joint, reason } => (joint, reason),
            other => (0, other.to_string()),
        };
        let joint = joint.min(inner - 1);
        return Err(check.at(
            &joints.get_ref()[joint],
            format!("{field}[{joint}]"),
            reason,
        ));
    }
    for (k, violation) in limited.joint_violations().into_iter().enumerate() {
        if violation.to_degrees() > REST_LIMIT_SLACK_DEG {
            let parent = bone_dir(k);
            let child = bone_dir(k + 1);
            let bend = parent.angle_between(child).to_degrees();
            return Err(check.at(
                &joints.get_ref()[k],
                format!("{field}[{k}]"),
                format!(
                    "the rest pose of leg `{}` (mount, rest and pole) bends joint {k} by {bend:.1}°, \
                     {:.1}° outside this limit; widen the limit, fix a hinge axis to the plane the \
                     leg bends in (or omit it), or move rest or pole",
                    spec.name,
                    violation.to_degrees()
                ),
            ));
        }
    }
    Ok(limits)
}

/// A limit of a leg reflected to the other side (z negated): a hinge's axis
/// is an axial vector, so it reflects to (−x, −y, z) and keeps its angles.
fn mirror_limit(limit: &JointLimit) -> JointLimit {
    match *limit {
        JointLimit::Hinge { axis, min, max } => JointLimit::Hinge {
            axis: Vec3::new(-axis.x, -axis.y, axis.z),
            min,
            max,
        },
        other => other,
    }
}

fn check_unique_names(check: &Check<'_>, legs: &[ParsedLeg]) -> Result<(), ConfigError> {
    let mut seen = BTreeMap::new();
    for leg in legs {
        if let Some(first) = seen.insert(leg.spec.name.as_str(), leg.field.as_str()) {
            return Err(check.src.error(
                Some(leg.name_span.clone()),
                leg.field.clone(),
                format!(
                    "leg name `{}` is already used by {first}; leg names must be unique",
                    leg.spec.name
                ),
            ));
        }
    }
    Ok(())
}

/// The gait section, every bad field reported; `None` if any was bad.
/// `names` are the legs, in order (mirrors after their leg), or `None` when
/// some could not be read and the groups cannot be checked; a leg missing
/// from every group is only an error when `legs_ok` (all legs are sound), so
/// a bad leg is not reported twice.
fn parse_gait(
    check: &Check<'_>,
    gait: &GaitFile,
    names: Option<&[String]>,
    legs_ok: bool,
    errors: &mut Errors,
) -> Option<GaitSpec> {
    let step_threshold =
        errors.ok(check.positive(&gait.step_threshold, "gait.step_threshold", "metres"));
    let step_height =
        errors.ok(check.non_negative(&gait.step_height, "gait.step_height", "metres"));
    let step_duration = errors.ok(check.within(
        &gait.step_duration,
        SWING_SECONDS,
        "gait.step_duration",
        "seconds",
    ));
    let min_step_duration = step_duration.and_then(|step_duration| {
        let min = match gait.min_step_duration.as_ref() {
            None => (DEFAULT_MIN_STEP_FRACTION * step_duration).max(SWING_SECONDS.0),
            Some(min) => {
                errors.ok(check.within(min, SWING_SECONDS, "gait.min_step_duration", "seconds"))?
            }
        };
        if min > step_duration {
            errors.push(check.at_opt(
                gait.min_step_duration.as_ref(),
                "gait.min_step_duration",
                format!(
                    "the shortest swing ({min} s) cannot be longer than the usual one \
                     (step_duration, {step_duration} s); use at most {step_duration}"
                ),
            ));
            return None;
        }
        Some(min)
    });
    let order = match gait.order.as_ref().map(|s| s.get_ref().trim()) {
        None | Some("urgency") => Some(GaitOrder::Urgency),
        Some("listed") => Some(GaitOrder::Listed),
        Some(other) => {
            errors.push(check.at_opt(
                gait.order.as_ref(),
                "gait.order",
                format!(
                    "unknown gait order {other:?}; valid: \"urgency\" (the group that most needs \
                     to step goes next) or \"listed\" (groups step in the order written)"
                ),
            ));
            None
        }
    };
    let stability_margin = match &gait.stability_margin {
        Some(margin) => errors.ok(check.non_negative(margin, "gait.stability_margin", "metres")),
        None => Some(DEFAULT_STABILITY_MARGIN),
    };
    let lead = match &gait.lead {
        Some(lead) => errors.ok(check.non_negative(lead, "gait.lead", "seconds of motion ahead")),
        None => Some(0.0),
    };
    let groups = names.and_then(|names| parse_groups(check, gait, names, legs_ok, errors));
    let max_lifted = match &gait.max_lifted {
        Some(n) => errors
            .ok(check.int_in(n, 1, 64, "gait.max_lifted"))
            .map(|n| n as usize),
        None => groups
            .as_ref()
            .map(|groups| groups.iter().map(Vec::len).max().unwrap_or(1)),
    };
    Some(GaitSpec {
        step_threshold: step_threshold?,
        step_height: step_height?,
        step_duration: step_duration?,
        min_step_duration: min_step_duration?,
        lead: lead?,
        max_lifted: max_lifted?,
        groups: groups?,
        order: order?,
        stability_margin: stability_margin?,
    })
}

/// `gait.groups` as lists of indices into `names`, every unknown or repeated
/// leg reported; without groups every leg is a group of its own (one leg
/// steps at a time).
fn parse_groups(
    check: &Check<'_>,
    gait: &GaitFile,
    names: &[String],
    legs_ok: bool,
    errors: &mut Errors,
) -> Option<Vec<Vec<usize>>> {
    let spanned = match &gait.groups {
        // Written but empty: surely not "each leg alone", which leaving the
        // key out says (it was taken so, and a warning then told the user
        // to use fewer of the groups they had not written).
        Some(spanned) if spanned.get_ref().is_empty() => {
            errors.push(check.at(
                spanned,
                "gait.groups",
                // No example from the names: which legs make a good group
                // depends on where they stand (alternating in file order
                // put each side in a group of its own, a gait that barely
                // walks).
                format!(
                    "an empty list names no group; list the groups of legs that lift \
                     together, each of its legs ({}) in exactly one, as in \
                     [[\"a\", \"d\"], [\"b\", \"c\"]], or leave `groups` out for each leg \
                     to step alone",
                    names.join(", ")
                ),
            ));
            return None;
        }
        Some(spanned) => spanned,
        None => return Some((0..names.len()).map(|i| vec![i]).collect()),
    };
    let mut ok = true;
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut owner: Vec<Option<usize>> = vec![None; names.len()];
    for (g, group) in spanned.get_ref().iter().enumerate() {
        if group.is_empty() {
            ok = false;
            errors.push(check.at(
                spanned,
                format!("gait.groups[{g}]"),
                "a gait group must name at least one leg",
            ));
        }
        let mut members = Vec::new();
        for name in group {
            let Some(index) = names.iter().position(|n| n == name.get_ref().trim()) else {
                ok = false;
                errors.push(check.at(
                    name,
                    format!("gait.groups[{g}]"),
                    format!(
                        "unknown leg `{}`; legs are: {}",
                        name.get_ref(),
                        names.join(", ")
                    ),
                ));
                continue;
            };
            if let Some(previous) = owner[index] {
                let msg = if previous == g {
                    format!("leg `{}` is listed twice in this group", names[index])
                } else {
                    format!(
                        "leg `{}` is already in gait group {previous}; each leg belongs to exactly one group",
                        names[index]
                    )
                };
                ok = false;
                errors.push(check.at(name, format!("gait.groups[{g}]"), msg));
                continue;
            }
            owner[index] = Some(g);
            members.push(index);
        }
        groups.push(members);
    }
    // A leg left out is usually the echo of a typo or a repeat reported
    // above, so it is only reported on its own.
    if legs_ok && ok {
        for missing in (0..owner.len()).filter(|&i| owner[i].is_none()) {
            ok = false;
            errors.push(check.at(
                spanned,
                "gait.groups",
                format!(
                    "leg `{}` is in no gait group; add it to one",
                    names[missing]
                ),
            ));
        }
    }
    ok.then_some(groups)
}

//! Creature files: TOML in, [`CreatureSpec`] out, or an error that says where and why.

use std::collections::BTreeMap;

use glam::Vec3;
use serde::Deserialize;
use toml::Spanned;

use super::error::{ConfigError, Source};
use super::fields::{Check, finite_vec3};
use crate::creature::{BodySpec, CreatureSpec, GaitSpec, LegSpec, OrientationSource, SolverSpec};
use crate::ik::SolverKind;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreatureFile {
    name: Spanned<String>,
    description: Option<String>,
    body: BodyFile,
    solver: Option<SolverFile>,
    gait: GaitFile,
    legs: Spanned<Vec<Spanned<LegFile>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BodyFile {
    size: Spanned<[f32; 3]>,
    height: Spanned<f32>,
    speed: Spanned<f32>,
    turn_rate: Spanned<f32>,
    orientation: Option<Spanned<String>>,
    max_tilt_rate: Option<Spanned<f32>>,
    max_height_rate: Option<Spanned<f32>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SolverFile {
    kind: Option<Spanned<String>>,
    tolerance: Option<Spanned<f32>>,
    max_iterations: Option<Spanned<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GaitFile {
    step_threshold: Spanned<f32>,
    step_height: Spanned<f32>,
    step_duration: Spanned<f32>,
    lead: Option<Spanned<f32>>,
    max_lifted: Option<Spanned<i64>>,
    groups: Option<Spanned<Vec<Vec<Spanned<String>>>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LegFile {
    name: Spanned<String>,
    mount: Spanned<[f32; 3]>,
    rest: Spanned<[f32; 3]>,
    bones: Spanned<Vec<f32>>,
    pole: Option<Spanned<[f32; 3]>>,
    solver: Option<Spanned<String>>,
    mirror: Option<Spanned<String>>,
}

/// Default IK tolerance when a file gives none (metres).
const DEFAULT_TOLERANCE: f32 = 1e-4;
/// Default iteration budget per leg solve.
const DEFAULT_MAX_ITERATIONS: u32 = 32;
/// Rest feet must sit this far inside the leg's reach so a step can land
/// anywhere near them without the leg locking straight.
const REST_REACH_FRACTION: f32 = 0.95;

/// Parses and validates a creature file.
pub fn parse_creature(name: &str, text: &str) -> Result<CreatureSpec, ConfigError> {
    let src = Source::new(name, text);
    let file: CreatureFile = toml::from_str(text).map_err(|e| src.from_toml(&e))?;
    let check = Check::new(&src);

    let creature_name = file.name.get_ref().trim();
    if creature_name.is_empty() {
        return Err(check.at(
            &file.name,
            "name",
            "must not be empty; give the creature a name",
        ));
    }

    let body = parse_body(&check, &file.body)?;
    let solver = parse_solver(&check, file.solver.as_ref())?;
    let legs_span = file.legs.span();
    let mut legs = Vec::new();
    for (index, leg) in file.legs.get_ref().iter().enumerate() {
        parse_leg(&check, index, leg, &mut legs)?;
    }
    if legs.len() < 2 {
        return Err(src.error(
            Some(legs_span),
            "legs",
            format!(
                "a creature needs at least 2 legs, this one has {}",
                legs.len()
            ),
        ));
    }
    check_unique_names(&check, &legs)?;
    let gait = parse_gait(&check, &file.gait, &mut legs)?;

    for leg in &legs {
        let kind = leg.spec.solver.unwrap_or(solver.kind);
        if kind == SolverKind::TwoBone && leg.spec.bones.len() != 2 {
            let (span, field) = match &leg.solver_span {
                Some(span) => (span.clone(), format!("{}.solver", leg.field)),
                None => (leg.span.clone(), leg.field.clone()),
            };
            return Err(src.error(
                Some(span),
                field,
                format!(
                    "the two-bone solver needs exactly 2 bones, leg `{}` has {}; use fabrik, gradient or ccd for it",
                    leg.spec.name,
                    leg.spec.bones.len()
                ),
            ));
        }
    }
    if body.orientation == OrientationSource::Feet && legs.len() < 3 {
        return Err(check.at_opt(
            file.body.orientation.as_ref(),
            "body.orientation",
            "`feet` needs at least 3 legs to define a plane; use `ground` for this creature",
        ));
    }
    if gait.max_lifted > legs.len() {
        return Err(check.at_opt(
            file.gait.max_lifted.as_ref(),
            "gait.max_lifted",
            format!("must be at most the number of legs ({})", legs.len()),
        ));
    }

    Ok(CreatureSpec {
        name: creature_name.to_string(),
        description: file.description.map(|d| d.trim().to_string()),
        body,
        solver,
        gait,
        legs: legs.into_iter().map(|l| l.spec).collect(),
    })
}

fn parse_body(check: &Check<'_>, body: &BodyFile) -> Result<BodySpec, ConfigError> {
    let size = finite_vec3(check, &body.size, "body.size")?;
    if size.min_element() <= 0.0 {
        return Err(check.at(
            &body.size,
            "body.size",
            "every dimension must be positive: [length, height, width] in metres",
        ));
    }
    let orientation = match body.orientation.as_ref().map(|s| s.get_ref().as_str()) {
        None | Some("feet") => OrientationSource::Feet,
        Some("ground") => OrientationSource::Ground,
        Some(other) => {
            return Err(check.at_opt(
                body.orientation.as_ref(),
                "body.orientation",
                format!("unknown orientation source {other:?}; valid: \"feet\", \"ground\""),
            ));
        }
    };
    Ok(BodySpec {
        size,
        height: check.positive(&body.height, "body.height", "metres above the ground")?,
        speed: check.positive(&body.speed, "body.speed", "metres per second")?,
        turn_rate: check
            .positive(&body.turn_rate, "body.turn_rate", "degrees per second")?
            .to_radians(),
        orientation,
        max_tilt_rate: check
            .positive_or(
                body.max_tilt_rate.as_ref(),
                180.0,
                "body.max_tilt_rate",
                "degrees per second",
            )?
            .to_radians(),
        max_height_rate: check.positive_or(
            body.max_height_rate.as_ref(),
            1.0,
            "body.max_height_rate",
            "metres per second",
        )?,
    })
}

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
    name_span: std::ops::Range<usize>,
    solver_span: Option<std::ops::Range<usize>>,
    field: String,
}

fn parse_leg(
    check: &Check<'_>,
    index: usize,
    leg: &Spanned<LegFile>,
    out: &mut Vec<ParsedLeg>,
) -> Result<(), ConfigError> {
    let field = format!("legs[{index}]");
    let file = leg.get_ref();
    let name = file.name.get_ref().trim().to_string();
    if name.is_empty() {
        return Err(check.at(&file.name, format!("{field}.name"), "must not be empty"));
    }
    let mount = finite_vec3(check, &file.mount, &format!("{field}.mount"))?;
    let rest = finite_vec3(check, &file.rest, &format!("{field}.rest"))?;
    let bones = file.bones.get_ref();
    if bones.len() < 2 {
        return Err(check.at(
            &file.bones,
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
        return Err(check.at(
            &file.bones,
            format!("{field}.bones[{i}]"),
            format!("bone lengths must be positive finite metres, got {bad}"),
        ));
    }
    let pole = file
        .pole
        .as_ref()
        .map(|p| finite_vec3(check, p, &format!("{field}.pole")))
        .transpose()?;
    let solver = file
        .solver
        .as_ref()
        .map(|s| parse_kind(check, s, &format!("{field}.solver")))
        .transpose()?;

    let reach: f32 = bones.iter().sum();
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
    };
    let mirrored = file.mirror.as_ref().map(|mirror| {
        let flip = |v: Vec3| Vec3::new(v.x, v.y, -v.z);
        let spec = LegSpec {
            name: mirror.get_ref().trim().to_string(),
            mount: flip(spec.mount),
            rest: flip(spec.rest),
            pole: spec.pole.map(flip),
            ..spec.clone()
        };
        ParsedLeg {
            spec,
            span: leg.span(),
            name_span: mirror.span(),
            solver_span: file.solver.as_ref().map(Spanned::span),
            field: format!("{field}.mirror"),
        }
    });
    out.push(ParsedLeg {
        spec,
        span: leg.span(),
        name_span: file.name.span(),
        solver_span: file.solver.as_ref().map(Spanned::span),
        field,
    });
    if let Some(m) = mirrored {
        if m.spec.name.is_empty() {
            return Err(check
                .src
                .error(Some(m.name_span), m.field, "must name the mirrored leg"));
        }
        out.push(m);
    }
    Ok(())
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

fn parse_gait(
    check: &Check<'_>,
    gait: &GaitFile,
    legs: &mut [ParsedLeg],
) -> Result<GaitSpec, ConfigError> {
    let step_threshold = check.positive(&gait.step_threshold, "gait.step_threshold", "metres")?;
    let step_height = check.non_negative(&gait.step_height, "gait.step_height", "metres")?;
    let step_duration = check.positive(&gait.step_duration, "gait.step_duration", "seconds")?;
    let lead = match &gait.lead {
        Some(lead) => check.non_negative(lead, "gait.lead", "seconds of motion ahead")?,
        None => 0.0,
    };
    let names: Vec<String> = legs.iter().map(|l| l.spec.name.clone()).collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    match &gait.groups {
        Some(spanned) if !spanned.get_ref().is_empty() => {
            let mut owner: Vec<Option<usize>> = vec![None; legs.len()];
            for (g, group) in spanned.get_ref().iter().enumerate() {
                if group.is_empty() {
                    return Err(check.at(
                        spanned,
                        format!("gait.groups[{g}]"),
                        "a gait group must name at least one leg",
                    ));
                }
                let mut members = Vec::new();
                for name in group {
                    let Some(index) = names.iter().position(|n| n == name.get_ref().trim()) else {
                        return Err(check.at(
                            name,
                            format!("gait.groups[{g}]"),
                            format!(
                                "unknown leg `{}`; legs are: {}",
                                name.get_ref(),
                                names.join(", ")
                            ),
                        ));
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
                        return Err(check.at(name, format!("gait.groups[{g}]"), msg));
                    }
                    owner[index] = Some(g);
                    members.push(index);
                }
                groups.push(members);
            }
            if let Some(missing) = owner.iter().position(Option::is_none) {
                return Err(check.at(
                    spanned,
                    "gait.groups",
                    format!(
                        "leg `{}` is in no gait group; add it to one",
                        names[missing]
                    ),
                ));
            }
        }
        // Without groups every leg is a group of its own: one leg steps at a time.
        _ => groups = (0..legs.len()).map(|i| vec![i]).collect(),
    }
    for (g, members) in groups.iter().enumerate() {
        for &leg in members {
            legs[leg].spec.group = g;
        }
    }
    let largest_group = groups.iter().map(Vec::len).max().unwrap_or(1);
    let max_lifted = match &gait.max_lifted {
        Some(n) => check.int_in(n, 1, 64, "gait.max_lifted")? as usize,
        None => largest_group,
    };
    Ok(GaitSpec {
        step_threshold,
        step_height,
        step_duration,
        lead,
        max_lifted,
        groups,
    })
}

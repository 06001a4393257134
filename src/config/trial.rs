//! What `check` learns by walking a creature: its pace on flat ground
//! against the speed its file asks for, and legs that touch as it walks
//! (see [`crate::sim::flat_ground_pace`]). Warnings only: a file that walks
//! slowly is still a valid file.

use std::sync::Arc;

use super::error::{Source, Warning};
use super::fields::Document;
use super::{TERRAINS, parse_terrain};
use crate::creature::CreatureSpec;
use crate::sim::{Pace, fastest_kept_speed, flat_ground_pace, round_down_significant};
use crate::terrain::Heightfield;

/// Below this share of its speed on flat ground a creature earns a warning
/// from `check`: well short of what the file and the summary say.
pub const PACE_WARNING_SHARE: f32 = 0.8;

/// What walking the creature at full throttle on flat ground (see
/// [`flat_ground_pace`]) shows a file cannot: legs that touch as it walks
/// ([`crossing_warning`]), then a pace well short of its speed
/// ([`pace_warning`]).
pub(super) fn trial_warnings(
    creature: &CreatureSpec,
    src: &Source<'_>,
    doc: &Document<'_>,
) -> Vec<Warning> {
    let flat = flat_ground();
    let pace = flat_ground_pace(creature, Arc::clone(&flat));
    crossing_warning(creature, &pace, src, doc)
        .into_iter()
        .chain(pace_warning(creature, &pace, &flat, src, doc))
        .collect()
}

/// A warning at the rest point of the leg behind when two legs came within
/// their gap ([`CreatureSpec::leg_gaps`]) of each other for more than
/// [`CROSSING_WARNING_SHARE`] of the walk at `pace`.
fn crossing_warning(
    creature: &CreatureSpec,
    pace: &Pace,
    src: &Source<'_>,
    doc: &Document<'_>,
) -> Option<Warning> {
    let (a, b, share) = pace
        .crossing
        .filter(|&(_, _, share)| share > CROSSING_WARNING_SHARE)?;
    let (front, back) = (&creature.legs[a], &creature.legs[b]);
    let place = doc.leg_key_span(&back.name, "rest");
    Some(Warning(src.error(
        place.as_ref().map(|(_, span)| span.clone()),
        place.map_or_else(
            || "legs".to_string(),
            |(index, _)| format!("legs[{index}].rest"),
        ),
        format!(
            "walked at full throttle on flat ground, legs `{}` and `{}` come within {:.1} mm of \
             each other for {:.1}% of the walk: their bones touch or cross. Space their rest \
             points (now {} m apart) or their mounts, or bend their knees apart (pole)",
            front.name,
            back.name,
            1000.0 * creature.leg_gaps()[a].min(creature.leg_gaps()[b]),
            100.0 * share,
            significant(front.rest.distance(back.rest)),
        ),
    )))
}

/// Legs that touch for more than this share of `check`'s walk on flat
/// ground (once it walks) earn a warning: more than a brush in passing (a
/// four-legged crawl's feet pass within a centimetre for under 1% of its
/// walk).
pub const CROSSING_WARNING_SHARE: f32 = 0.02;

/// A warning at `body.speed` when the creature, walked at full throttle on
/// flat ground at `pace`, falls short of [`PACE_WARNING_SHARE`] of the speed
/// it is asked to walk at: with what holds it back, what to change, and a
/// slower speed it does keep up, if one is found.
fn pace_warning(
    creature: &CreatureSpec,
    pace: &Pace,
    flat: &Arc<Heightfield>,
    src: &Source<'_>,
    doc: &Document<'_>,
) -> Option<Warning> {
    // (A walk gone wrong, NaN, is the run's to report, not a pace.)
    if pace.share().is_nan() || pace.share() >= PACE_WARNING_SHARE {
        return None;
    }
    let gait = &creature.gait;
    // Kept short: a message is cut at `MESSAGE_MAX_CHARS`.
    let cause = match creature.weakest_stance() {
        Some((group, room)) if room < gait.stability_margin => {
            let legs = gait.groups[group]
                .iter()
                .map(|&i| format!("`{}`", creature.legs[i].name))
                .collect::<Vec<_>>()
                .join(", ");
            if room > 0.0 {
                format!(
                    "lifting group {group} ({legs}) leaves the other feet no room deeper than {} \
                     m, under the {} m stability_margin, so each lift waits for a lean that cannot \
                     come. Lower stability_margin below {0} or spread the feet",
                    significant(room),
                    gait.stability_margin
                )
            } else {
                format!(
                    "lifting group {group} ({legs}) leaves the other feet on a line or to one side, \
                     so each lift waits for a lean that cannot come. Regroup so every group leaves \
                     feet ahead, behind and on both sides"
                )
            }
        }
        stance if pace.balance_wait >= BALANCE_BOUND_SHARE => {
            let swing = creature.swing_time(pace.asked);
            // A margin that takes much of the stance's room is as much the
            // cause as the swing (0.1 m on the template's tripod walked 26%).
            let margin = match stance {
                Some((_, room)) if gait.stability_margin > MARGIN_OF_ROOM * room => format!(
                    ", or lower stability_margin (now {} m of the {} m the stance leaves)",
                    gait.stability_margin,
                    significant(room)
                ),
                _ => String::new(),
            };
            format!(
                "{:.0}% of the walk waits for the body to lean before a step: at the {} m/s \
                 it is asked, a swing ({swing:.2} s, step_duration {}) carries it {} m, more than \
                 the feet that stay down give it room for. Shorten step_duration or spread the \
                 feet ahead and behind{margin}",
                100.0 * pace.balance_wait,
                significant(pace.asked),
                gait.step_duration,
                significant(pace.asked * swing)
            )
        }
        _ => "the body brakes for feet that trail or stretch: lengthen step_threshold or shorten \
              step_duration"
            .to_string(),
    };
    let slower = fastest_kept_speed(
        round_down_significant(pace.walked, 2),
        PACE_WARNING_SHARE,
        PACE_TRIES,
        flat,
        |speed| {
            let mut slower = creature.clone();
            slower.body.speed = speed;
            Ok::<_, std::convert::Infallible>(slower)
        },
    );
    let slower = match slower {
        // A speed a fraction of the one asked is no remedy worth naming.
        Ok(Some((speed, at))) if speed >= LEAST_SUGGESTED_SHARE * pace.asked => format!(
            "; at speed = {} it keeps up ({:.0}%)",
            significant(speed),
            100.0 * at.share()
        ),
        _ => String::new(),
    };
    Some(Warning(src.error(
        doc.span_of(&["body", "speed"]),
        "body.speed",
        format!(
            "on flat ground at full throttle it walks {} m/s, {:.0}% of its {}: {cause}{slower}",
            significant(pace.walked),
            // Rounded down: under 80% never reads as 80%.
            (100.0 * pace.share()).floor(),
            significant(pace.asked)
        ),
    )))
}

/// A stability margin above this share of the room its weakest stance
/// leaves is named among the causes of a wait for balance.
const MARGIN_OF_ROOM: f32 = 0.25;

/// The slowest speed `check` suggests, as a share of the one asked.
const LEAST_SUGGESTED_SHARE: f32 = 0.25;

/// Slower speeds `check` tries in search of one a creature keeps up.
const PACE_TRIES: usize = 4;

/// `value` to two decimals, or to two significant figures below 0.1 (a
/// tiny creature's 0.0123 m/s read 0.01, and its 0.0042 read 0.00).
fn significant(value: f32) -> String {
    if value.abs() >= 0.1 || value == 0.0 || !value.is_finite() {
        format!("{value:.2}")
    } else {
        let decimals = (1 - value.abs().log10().floor() as i32).max(2) as usize;
        format!("{value:.decimals$}")
    }
}

/// The shipped flat ground, built: what `check` and the template walk a
/// creature on to measure its pace.
pub(super) fn flat_ground() -> Arc<Heightfield> {
    // The shipped flat terrain is one of the built-ins, which the test
    // suite parses, so finding and parsing it cannot fail.
    let text = TERRAINS
        .iter()
        .find(|t| t.name == "flat")
        .expect("flat is built in")
        .text;
    let flat = parse_terrain("<built-in flat>", text).expect("built-in flat is valid");
    Arc::new(Heightfield::generate(&flat))
}

/// A creature that waits for balance this share of its walk is held back
/// by it, rather than by its stride.
const BALANCE_BOUND_SHARE: f32 = 0.1;

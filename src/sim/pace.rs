//! How fast a creature really walks: a short trial at full throttle on flat
//! ground. The speed a file asks for is capped by what the gait can carry
//! (`CreatureSpec::speed_limit`), but that cap is worked out from strides
//! and swing times alone; a gait that keeps feet down for balance may also
//! wait between steps for the body to shift over them, and only walking
//! shows how long. `skitter check` runs this trial and warns when the
//! creature falls well short of its speed.

use std::sync::Arc;

use super::World;
use crate::creature::{CreatureSpec, crossing_pair};
use crate::terrain::Heightfield;

/// Seconds the trial lets the creature get going before it measures its
/// pace: its acceleration and the first steps out of the rest pose (a
/// long stride took 7 s to settle, and measured from 2 s it read 69% of a
/// speed it walked at 99%).
const WARM_UP: f64 = 4.0;
/// Seconds the trial measures over: many strides of any gait, and more
/// than one of the slow swells a wave gait's balance gives its pace.
const MEASURED: f64 = 8.0;

/// What the trial measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pace {
    /// The speed the creature is asked to walk at full throttle: its file's
    /// `speed`, capped by what the gait can carry (m/s).
    pub asked: f32,
    /// How fast it went, measured along its heading after the warm-up (m/s).
    pub walked: f32,
    /// The share of the measured time a step was held back for the body's
    /// balance (0 to 1).
    pub balance_wait: f32,
    /// The two legs (indices) that came within their gap
    /// ([`CreatureSpec::leg_gaps`]) of each other
    /// most often once it walks (after the warm-up), and the share of that
    /// time they did.
    pub crossing: Option<(usize, usize, f32)>,
}

impl Pace {
    /// `walked` as a share of `asked`.
    pub fn share(&self) -> f32 {
        if self.asked > 0.0 {
            self.walked / self.asked
        } else {
            1.0
        }
    }
}

/// Walks one `spec` straight ahead at full throttle on `flat` (level ground
/// with no shapes) and measures its speed.
pub fn flat_ground_pace(spec: &CreatureSpec, flat: Arc<Heightfield>) -> Pace {
    // On the caller's thread: one creature has nothing to share out.
    let mut world = World::new(flat, spec.clone(), 1).with_pool(None);
    let dt = f64::from(world.dt());
    let warm_up = (WARM_UP / dt).round() as usize;
    let measured = (MEASURED / dt).round() as usize;
    let forward_x = |world: &World| {
        let spacing = world.terrain().spacing();
        let creature = &world.creatures()[0];
        creature.to_world_f64(spacing, creature.body.position)[0]
    };
    world.creatures_mut()[0].input.forward = 1.0;
    let mut start = forward_x(&world);
    let mut waited = 0usize;
    // Legs touching are counted once it walks, as its pace is: a climber
    // made from the template touched legs only in its first steps from
    // rest, which spacing its feet does not change (the summary's
    // `leg_crossings` counts those steps too).
    let mut crossings: Vec<((usize, usize), usize)> = Vec::new();
    for step in 0..warm_up + measured {
        if step == warm_up {
            start = forward_x(&world);
        }
        world.step();
        let creature = &world.creatures()[0];
        if step < warm_up {
            continue;
        }
        waited += usize::from(creature.is_waiting_for_balance());
        if let Some(pair) = crossing_pair(&creature.legs, creature.leg_gaps()) {
            match crossings.iter_mut().find(|(seen, _)| *seen == pair) {
                Some((_, count)) => *count += 1,
                None => crossings.push((pair, 1)),
            }
        }
    }
    // The most often, the first seen among equals (`max_by_key` keeps the
    // last of equals: so, from the end).
    let crossing = crossings
        .iter()
        .rev()
        .max_by_key(|(_, count)| *count)
        .map(|&((a, b), count)| (a, b, count as f32 / measured as f32));
    let walked = (forward_x(&world) - start) / (measured as f64 * dt);
    Pace {
        asked: spec.walk_speed(),
        walked: walked as f32,
        balance_wait: waited as f32 / measured as f32,
        crossing,
    }
}

/// The fastest speed, from `start` down, that the creature `spec_at`
/// builds for it walks at no less than `share` of on flat ground, with
/// its pace there; `None` if `tries` speeds all fall short. Each try after
/// the first is the pace the last one made, rounded down to two
/// significant figures, or a tenth less where that is no slower: a gait's
/// pace need not fall with its speed (a crawl asked 0.53 m/s made 0.42,
/// asked 0.42 made 0.31, and asked 0.40 walked at it).
pub fn fastest_kept_speed<E>(
    start: f32,
    share: f32,
    tries: usize,
    flat: &Arc<Heightfield>,
    mut spec_at: impl FnMut(f32) -> Result<CreatureSpec, E>,
) -> Result<Option<(f32, Pace)>, E> {
    let mut speed = start;
    for _ in 0..tries {
        if !(speed.is_finite() && speed > 0.0) {
            break;
        }
        let pace = flat_ground_pace(&spec_at(speed)?, Arc::clone(flat));
        if pace.share() >= share {
            return Ok(Some((speed, pace)));
        }
        let slower = round_down_significant(pace.walked, 2);
        speed = if slower < speed {
            slower
        } else {
            round_down_significant(0.9 * speed, 2)
        };
    }
    Ok(None)
}

/// `value` rounded down to `digits` significant figures (0.427 -> 0.42,
/// 0.0123 -> 0.012 at two), so a suggested speed reads as one a person
/// would write. Zero, negative and non-finite values are returned as they are.
pub fn round_down_significant(value: f32, digits: i32) -> f32 {
    if !(value.is_finite() && value > 0.0) {
        return value;
    }
    let scale = 10f64.powi(digits - 1 - f64::from(value).log10().floor() as i32);
    // A hair over, so an f32 just under its decimal (0.42 is 0.41999998)
    // is not taken down a step.
    ((f64::from(value) * scale + 1e-4).floor() / scale) as f32
}

#[cfg(test)]
mod tests {
    use super::round_down_significant;

    #[test]
    fn speeds_round_down_to_two_significant_figures() {
        assert_eq!(round_down_significant(0.427, 2), 0.42);
        assert_eq!(round_down_significant(0.0123, 2), 0.012);
        assert_eq!(round_down_significant(1.99, 2), 1.9);
        assert_eq!(round_down_significant(0.3, 2), 0.3);
        assert_eq!(round_down_significant(0.42, 2), 0.42);
        assert_eq!(round_down_significant(0.0, 2), 0.0);
        assert!(round_down_significant(f32::NAN, 2).is_nan());
    }
}

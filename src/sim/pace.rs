//! How fast a creature really walks: a short trial at full throttle on flat
//! ground. The speed a file asks for is capped by what the gait can carry
//! (`CreatureSpec::speed_limit`), but that cap is worked out from strides
//! and swing times alone; a gait that keeps feet down for balance may also
//! wait between steps for the body to shift over them, and only walking
//! shows how long. `skitter check` runs this trial and warns when the
//! creature falls well short of its speed.

use std::sync::Arc;

use super::World;
use crate::creature::CreatureSpec;
use crate::terrain::Heightfield;

/// Seconds the trial lets the creature get going before it measures: its
/// acceleration and the first steps out of the rest pose.
const WARM_UP: f64 = 2.0;
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
    for _ in 0..warm_up {
        world.step();
    }
    let start = forward_x(&world);
    let mut waited = 0usize;
    for _ in 0..measured {
        world.step();
        waited += usize::from(world.creatures()[0].is_waiting_for_balance());
    }
    let walked = (forward_x(&world) - start) / (measured as f64 * dt);
    Pace {
        asked: spec.walk_speed(),
        walked: walked as f32,
        balance_wait: waited as f32 / measured as f32,
    }
}

//! Creatures: their validated description ([`CreatureSpec`]) and their
//! running state ([`Creature`]): body, legs, gait.

mod body;
mod clearance;
mod drive;
mod footholds;
mod gait;
mod leg;
mod posture;
mod spec;
mod stability;
mod state;
mod swing;

pub use body::{Body, feet_plane_normal, foot_ring};
pub use clearance::{LEG_GAP, chain_enters_body, crossing_pair, leg_enters_body, legs_cross};
pub use gait::{GaitRule, StepCandidate, choose_listed, choose_steps};
pub use leg::{BONE_REPAIR_FRACTION, Leg, LegPhase, rest_chain, try_rest_chain};
pub use posture::{BodyMotion, LEAST_UNDERSIDE_GAP, body_corners};
pub use spec::{
    BodySpec, CROSSING_SHARE, CreatureSpec, FOOT_SPEED_LIMIT, FOOTHOLD_STRETCH, GaitOrder,
    GaitSpec, LegSpec, OrientationSource, SLOW_DOWN_STRETCH, SWING_PEAK_FACTOR, SWING_SHARE,
    SideNeighbours, SolverSpec, Surface,
};
pub use stability::{support_margin, support_plane};
pub use state::{Creature, Crowding, DriveInput, KindShared, StepEvents};
pub use swing::{arc, ease, peak_swing_speed, swing_point};

/// A flat terrain with one added box: the solid world of the creature
/// stages' unit tests.
#[cfg(test)]
fn boxed(center: [f32; 3], size: [f32; 3]) -> crate::terrain::Heightfield {
    let spec = crate::config::parse_terrain(
        "box.toml",
        &format!(
            "name = \"box\"\n[noise]\nfractal = \"flat\"\n\
             [[shapes]]\nkind = \"box\"\ncenter = {center:?}\nsize = {size:?}\n"
        ),
    )
    .expect("a box terrain file is valid");
    crate::terrain::Heightfield::generate(&spec)
}

//! Creatures: their validated description ([`CreatureSpec`]) and their
//! running state ([`Creature`]): body, legs, gait.

mod body;
mod gait;
mod leg;
mod spec;
mod state;

pub use body::{Body, feet_plane_normal, foot_ring};
pub use gait::{GaitRule, StepCandidate, choose_steps};
pub use leg::{Leg, LegPhase, rest_chain, try_rest_chain};
pub use spec::{
    BodySpec, CreatureSpec, FOOTHOLD_STRETCH, GaitSpec, LegSpec, OrientationSource,
    SLOW_DOWN_STRETCH, SolverSpec,
};
pub use state::{Creature, DriveInput, StepEvents};

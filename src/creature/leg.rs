//! A leg's running state: its chain, its foot, and whether it is stepping.

use glam::Vec3;

use super::LegSpec;
use crate::ik::{
    Chain, Fabrik, IkError, SolveParams, SolveReport, Solver, SolverKind, Termination,
};

/// Whether a foot is planted or in the air.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LegPhase {
    /// Planted: the foot does not move.
    Grounded,
    /// In the air, travelling from `from` toward the current desired foothold.
    Swinging {
        /// Where the step started.
        from: Vec3,
        /// Where it will land (follows the desired foothold as the body moves).
        to: Vec3,
        /// 0 at lift-off, 1 at touchdown.
        progress: f32,
    },
}

/// One leg of a running creature.
#[derive(Debug, Clone)]
pub struct Leg {
    /// Hip-to-foot chain in world coordinates (joint 0 is the hip).
    pub chain: Chain,
    /// Where the foot is (planted position, or current point of the swing arc).
    pub foot: Vec3,
    /// Planted or stepping.
    pub phase: LegPhase,
    /// Where the foot wants to be: the latest ray hit ahead of the rest point.
    pub desired: Vec3,
    /// The IK report from the latest solve.
    pub report: SolveReport,
    /// The solver this leg uses now.
    pub solver: SolverKind,
    /// Chain end right after the foot was planted: grounded feet must stay here.
    pub planted_end: Option<Vec3>,
    /// Largest bone-length error of the chain after the latest solve (and
    /// repair): measured once, read by the metrics.
    pub bone_error: f32,
}

impl Leg {
    /// Whether the foot is planted.
    pub fn is_grounded(&self) -> bool {
        matches!(self.phase, LegPhase::Grounded)
    }
}

/// The leg's rest pose in the body frame: hip at `mount`, foot at `rest`,
/// knee bent toward the pole (or up and out when there is none).
///
/// The rest pose is both the first pose and what the gradient solver's
/// rest term pulls toward.
pub fn rest_chain(leg: &LegSpec) -> Chain {
    // The config loader builds every leg with `try_rest_chain` and refuses
    // the file if it fails, so a validated leg always makes a chain.
    try_rest_chain(leg).expect("validated leg makes a chain")
}

/// [`rest_chain`], or why these bones cannot make a chain at this mount
/// (e.g. a bone too short to move a joint off its neighbour in f32).
pub fn try_rest_chain(leg: &LegSpec) -> Result<Chain, IkError> {
    let outward = Vec3::new(0.0, 0.0, leg.rest.z - leg.mount.z).normalize_or(Vec3::Z);
    let pole = leg
        .pole
        .unwrap_or(leg.mount + (Vec3::Y + outward) * leg.reach());
    let start_dir = (pole - leg.mount).normalize_or(Vec3::Y);
    let mut joints = Vec::with_capacity(leg.bones.len() + 1);
    joints.push(leg.mount);
    for bone in &leg.bones {
        let next = *joints.last().unwrap_or(&leg.mount) + start_dir * *bone;
        joints.push(next);
    }
    let mut chain = Chain::new(joints)?;
    let params = SolveParams {
        tolerance: 1e-6 * leg.reach(),
        max_iterations: 500,
        pole: Some(pole),
        end_direction: None,
    };
    let report = Fabrik::default().solve(&mut chain, leg.rest, &params);
    debug_assert!(
        report.reached || report.termination != Termination::MaxIterations,
        "rest pose of {} not reached: {report:?}",
        leg.name
    );
    // Re-build from the solved pose so its bone directions become the rest
    // directions (and the frame the joint limits' hinge axes are read in).
    let mut rest = Chain::new(chain.joints().to_vec())?;
    rest.set_limits(&leg.joints)?;
    Ok(rest)
}

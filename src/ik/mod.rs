//! Inverse kinematics: one [`Chain`] type and six solvers behind one [`Solver`] trait.
//!
//! Every solver keeps the root fixed, preserves every bone length, never
//! produces NaN or infinity for finite input, and respects
//! [`SolveParams::max_iterations`]. They share one frame of work: before
//! solving, the chain is moved so its root is at the origin and scaled so its
//! reach is 1 (see `unit_frame.rs`). That makes every threshold inside the
//! solvers scale-free, so a millimetre-sized chain and a kilometre-sized one
//! behave the same, and keeps precision when the root is far from the origin.

mod ccd;
mod chain;
pub mod experiment;
mod fabrik;
mod gradient;
mod jacobian;
mod lanes;
mod limits;
mod pole;
mod tracking;
mod two_bone;
mod unit_frame;

use std::fmt;
use std::str::FromStr;

use glam::Vec3;
use serde::{Deserialize, Serialize};

pub use ccd::Ccd;
pub use chain::Chain;
pub use fabrik::Fabrik;
pub use gradient::GradientDescent;
pub use jacobian::{DEFAULT_DLS_DAMPING, Dls, JacobianTranspose};
pub use lanes::{LANES, LaneJob, solve_tracking_lanes};
pub use limits::JointLimit;
pub use tracking::{TRACKING_PASSES, TRACKING_SWEEPS, solve_tracking};
pub use two_bone::TwoBone;

/// Why a chain could not be built or solved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum IkError {
    /// A chain needs a root and at least one more joint.
    #[error("a chain needs at least 2 joints (a root and an end), got {0}")]
    TooFewJoints(usize),
    /// A joint coordinate is NaN or infinite.
    #[error("joint {index} is not finite: {position:?}")]
    NonFiniteJoint {
        /// Index of the offending joint.
        index: usize,
        /// Its position.
        position: Vec3,
    },
    /// Two consecutive joints coincide, so the bone between them has no length.
    #[error("bone {index} has zero length (joints {index} and {next} coincide)", next = index + 1)]
    ZeroLengthBone {
        /// Index of the bone (joint `index` to joint `index + 1`).
        index: usize,
    },
    /// The solver only handles chains of a specific shape.
    #[error("the {solver} solver needs a chain of exactly {expected} bones, this one has {actual}")]
    UnsupportedChain {
        /// Solver name.
        solver: SolverKind,
        /// Bones the solver needs.
        expected: usize,
        /// Bones the chain has.
        actual: usize,
    },
    /// A joint limit cannot be used (see [`JointLimit::check`]), or the list
    /// does not have one limit per inner joint.
    #[error("joint limit {joint}: {reason}")]
    InvalidLimit {
        /// Index of the limit (inner joint `joint`, between bones `joint` and `joint + 1`).
        joint: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A replacement pose does not have the chain's joint count or bone lengths.
    #[error("pose does not fit the chain: {0}")]
    PoseMismatch(String),
}

/// What a solve is asked to achieve and how hard it may try.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolveParams {
    /// Distance from end effector to target that counts as reached (chain units).
    pub tolerance: f32,
    /// Upper bound on iterations; 0 leaves the chain as it is.
    pub max_iterations: u32,
    /// Point the inner joints bend toward (a knee or elbow hint), if any.
    pub pole: Option<Vec3>,
    /// Desired direction of the last bone (e.g. a foot pointing down); only
    /// the gradient solver uses it, as a secondary objective that never costs
    /// position accuracy.
    pub end_direction: Option<Vec3>,
}

impl Default for SolveParams {
    fn default() -> Self {
        Self {
            tolerance: 1e-4,
            max_iterations: 64,
            pole: None,
            end_direction: None,
        }
    }
}

/// Why a solve stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// The end effector is within tolerance of the target.
    Reached,
    /// The target is beyond the chain's reach; the chain points straight at it.
    Unreachable,
    /// An iteration no longer improved the end position meaningfully.
    Stalled,
    /// The tolerance is finer than `f32` can resolve at this chain's scale and
    /// position; the solver stopped at the best error it can represent.
    PrecisionLimit,
    /// `max_iterations` ran out first.
    MaxIterations,
    /// The target was NaN or infinite; the chain was left untouched.
    InvalidTarget,
    /// This solver cannot pose this chain (e.g. two-bone on three bones); the
    /// chain was left untouched.
    UnsupportedChain,
}

/// What a solve did: the figures every solver reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolveReport {
    /// Iterations performed (a FABRIK forward+backward pass, a CCD sweep, a
    /// gradient step attempt, or 1 for the analytic solver).
    pub iterations: u32,
    /// Distance from the end effector to the target after solving.
    pub error: f32,
    /// `error <= tolerance`.
    pub reached: bool,
    /// Why the solver stopped.
    pub termination: Termination,
}

/// An inverse-kinematics solver: moves a chain's joints so its end reaches a target.
///
/// Solvers hold only scratch buffers and tuning, so one instance can pose many
/// chains in turn; `&mut self` lets them reuse those buffers without allocating.
pub trait Solver: Send {
    /// Which algorithm this is.
    fn kind(&self) -> SolverKind;

    /// Whether this solver can pose `chain` at all (the shape, not the target).
    fn supports(&self, chain: &Chain) -> Result<(), IkError> {
        let _ = chain;
        Ok(())
    }

    /// Poses `chain` so that its end is as close to `target` as the solver can get.
    fn solve(&mut self, chain: &mut Chain, target: Vec3, params: &SolveParams) -> SolveReport;
}

/// The solver algorithms by the names creature files and the CLI use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum SolverKind {
    /// Forward and backward reaching IK.
    #[serde(rename = "fabrik")]
    Fabrik,
    /// Gradient descent over joint rotations.
    #[serde(rename = "gradient")]
    Gradient,
    /// Analytic law-of-cosines solve for two bones.
    #[serde(rename = "two-bone")]
    TwoBone,
    /// Cyclic coordinate descent.
    #[serde(rename = "ccd")]
    Ccd,
    /// Jacobian transpose with a line-search step.
    #[serde(rename = "jacobian-transpose")]
    JacobianTranspose,
    /// Damped least squares.
    #[serde(rename = "dls")]
    Dls,
}

impl SolverKind {
    /// Every solver, in the order the TUI cycles through them.
    pub const ALL: [SolverKind; 6] = [
        SolverKind::Fabrik,
        SolverKind::Gradient,
        SolverKind::TwoBone,
        SolverKind::Ccd,
        SolverKind::JacobianTranspose,
        SolverKind::Dls,
    ];

    /// This solver's position in [`SolverKind::ALL`]: an index for tables
    /// holding one entry per solver.
    pub fn index(self) -> usize {
        match self {
            SolverKind::Fabrik => 0,
            SolverKind::Gradient => 1,
            SolverKind::TwoBone => 2,
            SolverKind::Ccd => 3,
            SolverKind::JacobianTranspose => 4,
            SolverKind::Dls => 5,
        }
    }

    /// The name used in files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SolverKind::Fabrik => "fabrik",
            SolverKind::Gradient => "gradient",
            SolverKind::TwoBone => "two-bone",
            SolverKind::Ccd => "ccd",
            SolverKind::JacobianTranspose => "jacobian-transpose",
            SolverKind::Dls => "dls",
        }
    }

    /// A fresh solver of this kind with default tuning.
    pub fn build(self) -> Box<dyn Solver> {
        match self {
            SolverKind::Fabrik => Box::new(Fabrik::default()),
            SolverKind::Gradient => Box::new(GradientDescent::default()),
            SolverKind::TwoBone => Box::new(TwoBone),
            SolverKind::Ccd => Box::new(Ccd::default()),
            SolverKind::JacobianTranspose => Box::new(JacobianTranspose::default()),
            SolverKind::Dls => Box::new(Dls::default()),
        }
    }

    /// The next solver in [`SolverKind::ALL`], wrapping around.
    pub fn next(self) -> SolverKind {
        SolverKind::ALL[(self.index() + 1) % SolverKind::ALL.len()]
    }
}

impl fmt::Display for SolverKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A solver name that is not one of [`SolverKind::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown solver {0:?}; valid solvers are: fabrik, gradient, two-bone, ccd, jacobian-transpose, dls"
)]
pub struct UnknownSolver(pub String);

impl FromStr for SolverKind {
    type Err = UnknownSolver;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SolverKind::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownSolver(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solver_names_round_trip() {
        for kind in SolverKind::ALL {
            assert_eq!(kind.name().parse::<SolverKind>(), Ok(kind));
            assert_eq!(kind.to_string(), kind.name());
            assert_eq!(kind.build().kind(), kind);
        }
        assert_eq!("Two-Bone".parse::<SolverKind>(), Ok(SolverKind::TwoBone));
        for (i, kind) in SolverKind::ALL.into_iter().enumerate() {
            assert_eq!(kind.index(), i);
        }
    }

    #[test]
    fn unknown_solver_lists_valid_names() {
        let err = "jacobian".parse::<SolverKind>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown solver \"jacobian\"; valid solvers are: fabrik, gradient, two-bone, ccd, \
             jacobian-transpose, dls"
        );
    }

    #[test]
    fn next_cycles_through_all() {
        let mut kind = SolverKind::Fabrik;
        let mut seen = vec![kind];
        for _ in 1..SolverKind::ALL.len() {
            kind = kind.next();
            seen.push(kind);
        }
        assert_eq!(seen, SolverKind::ALL.to_vec());
        assert_eq!(kind.next(), SolverKind::Fabrik);
    }

    /// Whatever the pole (far, huge, on the axis, behind the root), every
    /// solver keeps each bone to 1e-5 of the reach: a leg is only as good
    /// as its bone lengths. A pole 1e4 reaches away once changed a two-bone
    /// leg's bones by 0.29 m.
    #[test]
    fn every_solver_keeps_bone_lengths_with_any_pole() {
        let legs = [
            vec![
                Vec3::ZERO,
                Vec3::new(0.3, 0.2, 0.0),
                Vec3::new(0.6, -0.3, 0.1),
            ],
            vec![
                Vec3::new(0.18, 0.0, -0.14),
                Vec3::new(0.3, 0.2, -0.35),
                Vec3::new(0.45, 0.05, -0.6),
                Vec3::new(0.5, -0.32, -0.5),
            ],
        ];
        let poles = [
            Vec3::new(0.4, 0.6, -0.6),
            Vec3::new(1e4, 3e4, -2e4),
            Vec3::new(-3e7, 1e8, 5e6),
            Vec3::new(1e20, -1e20, 3e19),
            Vec3::new(3e38, 3e38, -3e38),
            Vec3::splat(f32::INFINITY),
            Vec3::ZERO,
        ];
        let targets = [
            Vec3::new(0.4, -0.3, -0.3),
            Vec3::new(0.9, -0.1, 0.2),
            Vec3::new(5.0, 5.0, 5.0),
        ];
        for kind in SolverKind::ALL {
            for joints in &legs {
                let chain = Chain::new(joints.clone()).unwrap();
                let mut solver = kind.build();
                if solver.supports(&chain).is_err() {
                    continue;
                }
                for pole in poles {
                    for target in targets {
                        let mut posed = chain.clone();
                        let params = SolveParams {
                            tolerance: 1e-4,
                            max_iterations: 64,
                            pole: Some(pole),
                            end_direction: None,
                        };
                        solver.solve(&mut posed, target, &params);
                        let error = posed.bone_length_error();
                        assert!(
                            error <= 1e-5 * chain.reach(),
                            "{kind} with pole {pole} to {target}: bones off by {error}"
                        );
                        assert_eq!(posed.root(), chain.root(), "{kind} moved the root");
                    }
                }
            }
        }
    }
}

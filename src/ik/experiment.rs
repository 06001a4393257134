//! Reproducible solver experiments: the FABRIK report's random-chain test and
//! a creature-leg test, shared by the benchmarks and the tests so both measure
//! the same thing.

use glam::{Quat, Vec3};

use super::{Chain, SolveParams, Solver};
use crate::math::SplitMix64;

/// One solve to perform: a start pose and a target.
#[derive(Debug, Clone)]
pub struct Case {
    /// The chain in its (bent) start pose.
    pub chain: Chain,
    /// Where the end effector should go.
    pub target: Vec3,
}

/// The shape of an experiment: chain geometry and where targets fall.
#[derive(Debug, Clone, Copy)]
pub struct Setup {
    /// Number of bones.
    pub bones: usize,
    /// Length of every bone.
    pub bone_length: f32,
    /// Largest angle between consecutive bones in the start pose (degrees).
    pub max_bend_deg: f32,
    /// Targets are at a distance from the root between these fractions of the reach.
    pub target_range: (f32, f32),
}

impl Setup {
    /// The report's experiment: 10 bones of 900 mm, reachable targets, start
    /// poses bent up to 60° at every joint (a moderately curled chain).
    pub const REPORT_REACHABLE: Setup = Setup {
        bones: 10,
        bone_length: 900.0,
        max_bend_deg: 60.0,
        target_range: (0.10, 0.95),
    };
    /// The lab's model of the report's chain: 10 bones making 900 mm in all,
    /// reachable targets, start poses as in [`Setup::REPORT_REACHABLE`].
    pub const LAB_REACHABLE: Setup = Setup {
        bone_length: 90.0,
        ..Setup::REPORT_REACHABLE
    };
    /// The lab's chain with targets beyond its reach.
    pub const LAB_UNREACHABLE: Setup = Setup {
        bone_length: 90.0,
        ..Setup::REPORT_UNREACHABLE
    };
    /// The report's chain with targets beyond its reach.
    pub const REPORT_UNREACHABLE: Setup = Setup {
        target_range: (1.10, 2.00),
        ..Setup::REPORT_REACHABLE
    };
    /// A creature leg: three bones of 0.6 m, targets inside its reach.
    pub const LEG: Setup = Setup {
        bones: 3,
        bone_length: 0.6,
        max_bend_deg: 60.0,
        target_range: (0.20, 0.95),
    };

    /// `count` cases from `seed`: the same seed always gives the same cases.
    pub fn cases(&self, seed: u64, count: usize) -> Vec<Case> {
        let mut rng = SplitMix64::new(seed);
        (0..count).map(|_| self.case(&mut rng)).collect()
    }

    /// `count` tracking cases, as when a leg is re-solved every frame: the
    /// chain starts in the pose FABRIK found for one of [`Setup::cases`]'
    /// targets, and the new target is that one moved by up to `max_offset`
    /// (a fraction of the reach), kept inside this setup's target range.
    pub fn tracking_cases(&self, seed: u64, count: usize, max_offset: f32) -> Vec<Case> {
        let mut rng = SplitMix64::new(seed ^ 0x5EED);
        let mut fabrik = super::Fabrik::default();
        self.cases(seed, count)
            .into_iter()
            .map(|mut case| {
                let reach = case.chain.reach();
                let params = SolveParams {
                    tolerance: 1e-6 * reach,
                    max_iterations: 1000,
                    ..SolveParams::default()
                };
                fabrik.solve(&mut case.chain, case.target, &params);
                let moved = case.target + rng.unit_vector() * rng.range(0.0, max_offset) * reach;
                let (lo, hi) = self.target_range;
                let distance = moved.length().clamp(lo * reach, hi * reach);
                case.target = moved.normalize_or(case.target) * distance;
                case
            })
            .collect()
    }

    fn case(&self, rng: &mut SplitMix64) -> Case {
        let mut joints = Vec::with_capacity(self.bones + 1);
        joints.push(Vec3::ZERO);
        let mut dir = rng.unit_vector();
        for i in 0..self.bones {
            if i > 0 {
                let axis = dir
                    .cross(rng.unit_vector())
                    .normalize_or(dir.any_orthonormal_vector());
                let angle = rng.range(0.0, self.max_bend_deg.to_radians());
                dir = (Quat::from_axis_angle(axis, angle) * dir).normalize();
            }
            let next = joints[i] + dir * self.bone_length;
            joints.push(next);
        }
        // Built from non-zero lengths along unit directions from a finite
        // root, so `Chain::new` cannot reject these joints.
        let chain = Chain::new(joints).expect("generated chain is valid");
        let reach = chain.reach();
        let distance = rng.range(self.target_range.0, self.target_range.1) * reach;
        Case {
            target: rng.unit_vector() * distance,
            chain,
        }
    }
}

/// What a solver achieved over a set of cases.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stats {
    /// Cases solved.
    pub solves: usize,
    /// Cases whose report says `reached`.
    pub reached: usize,
    /// Sum of iterations over all cases.
    pub iterations: u64,
    /// Largest final error.
    pub max_error: f32,
    /// Largest bone-length change over all cases.
    pub max_bone_error: f32,
    /// Largest distance the root moved.
    pub max_root_shift: f32,
    /// Cases that ended with a non-finite joint.
    pub non_finite: usize,
}

impl Stats {
    /// Mean iterations per solve.
    pub fn mean_iterations(&self) -> f64 {
        self.iterations as f64 / self.solves.max(1) as f64
    }

    /// Fraction of solves that reached their target, in percent.
    pub fn success_percent(&self) -> f64 {
        100.0 * self.reached as f64 / self.solves.max(1) as f64
    }
}

/// Solves every case (on a copy of its chain) and gathers the figures.
pub fn run(solver: &mut dyn Solver, cases: &[Case], params: &SolveParams) -> Stats {
    let mut stats = Stats::default();
    for case in cases {
        let mut chain = case.chain.clone();
        let report = solver.solve(&mut chain, case.target, params);
        stats.solves += 1;
        stats.reached += usize::from(report.reached);
        stats.iterations += u64::from(report.iterations);
        stats.max_error = stats.max_error.max(report.error);
        stats.max_bone_error = stats.max_bone_error.max(chain.bone_length_error());
        stats.max_root_shift = stats
            .max_root_shift
            .max((chain.root() - case.chain.root()).length());
        stats.non_finite += usize::from(chain.joints().iter().any(|p| !p.is_finite()));
    }
    stats
}

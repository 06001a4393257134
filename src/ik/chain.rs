//! The kinematic chain every solver works on.

use std::sync::Arc;

use glam::{DVec3, Quat, Vec3};
use smallvec::SmallVec;

use super::IkError;
use super::limits::{JointLimit, Limits, UnitLimit};

/// A serial chain of joints with a fixed root and fixed bone lengths.
///
/// Joint 0 is the root; bone `i` joins joint `i` and joint `i + 1`. Bone
/// lengths are fixed when the chain is built and every solver preserves them.
/// The chain also remembers its rest pose (the bone directions it was built
/// with), which the gradient solver can be asked to stay close to; when the
/// body carrying the chain turns, [`Chain::set_rest_frame`] turns the rest pose
/// with it.
#[derive(Debug, PartialEq)]
pub struct Chain {
    joints: Joints,
    /// What the chain's copies share: a thousand legs of one kind hold one.
    bones: Arc<Bones>,
    rest_frame: Quat,
}

/// A chain's joint positions: inline up to a three-bone leg's four, so a
/// creature's legs need no buffer of their own each (in a swarm of 100 000
/// spiders those buffers were 256 bytes a spider).
type Joints = SmallVec<[Vec3; 4]>;

/// The fixed part of a chain: its bones and their limits, shared by every
/// copy (a creature's legs are copies of its kind's rest chains), so a copy
/// holds only its pose.
#[derive(Debug, Clone, PartialEq)]
struct Bones {
    lengths: Vec<f32>,
    /// The sum of `lengths` (kept here, not on every copy: a leg's chain
    /// is on every creature, and its size is a creature's).
    reach: f32,
    /// Bone lengths divided by the reach: the lengths solvers use in the unit frame.
    unit_lengths: Vec<f64>,
    rest_directions: Vec<Vec3>,
    /// One limit per inner joint, or none at all (a chain of ball joints).
    limits: Vec<JointLimit>,
    /// `limits` in solver form; empty when every joint is free.
    unit_limits: Vec<UnitLimit>,
}

impl Clone for Chain {
    fn clone(&self) -> Self {
        Chain {
            joints: self.joints.clone(),
            bones: Arc::clone(&self.bones),
            rest_frame: self.rest_frame,
        }
    }

    /// Reuses this chain's buffer: resetting a pose in a hot loop (benchmarks,
    /// replays) then costs a copy, not an allocation.
    fn clone_from(&mut self, source: &Self) {
        self.joints.clone_from(&source.joints);
        self.bones.clone_from(&source.bones);
        self.rest_frame = source.rest_frame;
    }
}

impl Chain {
    /// Builds a chain from joint positions, root first.
    ///
    /// Rejects fewer than two joints, non-finite coordinates and coincident
    /// consecutive joints (a bone of zero length).
    pub fn new(joints: Vec<Vec3>) -> Result<Chain, IkError> {
        if joints.len() < 2 {
            return Err(IkError::TooFewJoints(joints.len()));
        }
        if let Some(index) = joints.iter().position(|p| !p.is_finite()) {
            return Err(IkError::NonFiniteJoint {
                index,
                position: joints[index],
            });
        }
        let mut lengths = Vec::with_capacity(joints.len() - 1);
        let mut rest_directions = Vec::with_capacity(joints.len() - 1);
        for (index, pair) in joints.windows(2).enumerate() {
            let bone = pair[1] - pair[0];
            let length = bone.length();
            if length == 0.0 || !length.is_finite() {
                return Err(IkError::ZeroLengthBone { index });
            }
            lengths.push(length);
            rest_directions.push(bone / length);
        }
        let reach: f32 = lengths.iter().sum();
        if !reach.is_finite() {
            return Err(IkError::NonFiniteJoint {
                index: joints.len() - 1,
                position: joints[joints.len() - 1],
            });
        }
        let unit_lengths = lengths
            .iter()
            .map(|l| f64::from(*l) / f64::from(reach))
            .collect();
        Ok(Chain {
            joints: Joints::from_slice(&joints),
            bones: Arc::new(Bones {
                lengths,
                reach,
                unit_lengths,
                rest_directions,
                limits: Vec::new(),
                unit_limits: Vec::new(),
            }),
            rest_frame: Quat::IDENTITY,
        })
    }

    /// Joint positions, root first.
    pub fn joints(&self) -> &[Vec3] {
        &self.joints
    }

    /// Bone lengths, root bone first.
    pub fn bone_lengths(&self) -> &[f32] {
        &self.bones.lengths
    }

    /// Number of bones (joints minus one).
    pub fn bone_count(&self) -> usize {
        self.bones.lengths.len()
    }

    /// The fixed root joint.
    pub fn root(&self) -> Vec3 {
        self.joints[0]
    }

    /// The end effector (last joint).
    pub fn end(&self) -> Vec3 {
        // A chain always has at least two joints (checked in `new`).
        self.joints[self.joints.len() - 1]
    }

    /// Sum of the bone lengths: the farthest the end can be from the root.
    pub fn reach(&self) -> f32 {
        self.bones.reach
    }

    /// The nearest the end can come to the root: the longest bone less all
    /// the others, folded back along it (zero when they are longer).
    pub fn inner_reach(&self) -> f32 {
        let longest = self.bone_lengths().iter().copied().fold(0.0, f32::max);
        (2.0 * longest - self.bones.reach).max(0.0)
    }

    /// Largest difference between a bone's current and its built length.
    pub fn bone_length_error(&self) -> f32 {
        self.joints
            .windows(2)
            .zip(&self.bones.lengths)
            .map(|(pair, len)| ((pair[1] - pair[0]).length() - len).abs())
            .fold(0.0, f32::max)
    }

    /// Moves the whole chain rigidly so its root is at `root`.
    ///
    /// A leg's hip moves with the body; translating the whole pose keeps the
    /// previous solution as a warm start for the next solve.
    pub fn set_root(&mut self, root: Vec3) {
        let delta = root - self.joints[0];
        if delta != Vec3::ZERO {
            for p in &mut self.joints {
                *p += delta;
            }
        }
    }

    /// Puts every joint back at its bone's length from the previous one,
    /// keeping each bone's direction (or its rest direction where a bone has
    /// collapsed or gone non-finite). The root stays.
    pub fn restore_bone_lengths(&mut self) {
        // Directions come from the pose as it was, not from joints already moved.
        let mut previous = self.joints[0];
        for i in 0..self.bones.lengths.len() {
            let old = self.joints[i + 1];
            let direction = (old - previous)
                .try_normalize()
                .unwrap_or(self.rest_frame * self.bones.rest_directions[i]);
            self.joints[i + 1] = self.joints[i] + direction * self.bones.lengths[i];
            previous = old;
        }
    }

    /// Rotates the whole chain rigidly about its root.
    pub fn rotate_about_root(&mut self, rotation: Quat) {
        let root = self.joints[0];
        for p in &mut self.joints[1..] {
            *p = root + rotation * (*p - root);
        }
    }

    /// Replaces the pose with `joints`, which must have this chain's joint count
    /// and bone lengths (to 1e-4 relative).
    pub fn set_pose(&mut self, joints: &[Vec3]) -> Result<(), IkError> {
        if joints.len() != self.joints.len() {
            return Err(IkError::PoseMismatch(format!(
                "{} joints given, chain has {}",
                joints.len(),
                self.joints.len()
            )));
        }
        for (index, (pair, len)) in joints.windows(2).zip(&self.bones.lengths).enumerate() {
            let actual = (pair[1] - pair[0]).length();
            let within = (actual - len).abs() <= 1e-4 * self.bones.reach;
            if !within {
                return Err(IkError::PoseMismatch(format!(
                    "bone {index} is {actual} long, chain needs {len}"
                )));
            }
        }
        self.joints.copy_from_slice(joints);
        Ok(())
    }

    /// Unit directions of the bones in the rest pose, in world space.
    pub fn rest_directions(&self) -> impl ExactSizeIterator<Item = Vec3> + '_ {
        self.bones
            .rest_directions
            .iter()
            .map(|d| self.rest_frame * *d)
    }

    /// Orients the rest pose: the rest directions given at construction are
    /// rotated by `frame` (e.g. the body's orientation).
    pub fn set_rest_frame(&mut self, frame: Quat) {
        self.rest_frame = frame.normalize();
    }

    /// Limits the inner joints: `limits[k]` constrains bone `k + 1` relative
    /// to bone `k` (see [`JointLimit`]); hinge axes are read in the frame of
    /// the parent bone as it rests in the pose the chain was built with. An
    /// empty list removes every limit. Refuses a list whose length is not the
    /// number of inner joints (bones − 1), and unusable limits.
    pub fn set_limits(&mut self, limits: &[JointLimit]) -> Result<(), IkError> {
        let inner = self.bones.lengths.len() - 1;
        if !limits.is_empty() && limits.len() != inner {
            return Err(IkError::InvalidLimit {
                joint: limits.len().min(inner),
                reason: format!(
                    "{} limits given for a chain of {} inner joints (one per joint between two bones)",
                    limits.len(),
                    inner
                ),
            });
        }
        let unit = limits
            .iter()
            .enumerate()
            .map(|(k, limit)| UnitLimit::new(*limit, self.bones.rest_directions[k], k))
            .collect::<Result<Vec<_>, _>>()?;
        // Copies made before share the old bones; this chain gets its own.
        let bones = Arc::make_mut(&mut self.bones);
        bones.limits = limits.to_vec();
        bones.unit_limits = if limits.iter().all(JointLimit::is_free) {
            Vec::new()
        } else {
            unit
        };
        Ok(())
    }

    /// The inner joints' limits (empty when none were set).
    pub fn limits(&self) -> &[JointLimit] {
        &self.bones.limits
    }

    /// The largest angle (radians) by which any inner joint of the current
    /// pose lies outside its limit; 0 for a chain without limits.
    pub fn limit_violation(&self) -> f32 {
        let Some(limits) = self.limits_view() else {
            return 0.0;
        };
        let joints: Vec<DVec3> = self.joints.iter().map(|p| p.as_dvec3()).collect();
        limits.max_violation(&joints) as f32
    }

    /// How far (radians) each inner joint of the current pose lies outside
    /// its limit, hip outward; empty for a chain without limits.
    pub fn joint_violations(&self) -> Vec<f32> {
        let Some(limits) = self.limits_view() else {
            return Vec::new();
        };
        let joints: Vec<DVec3> = self.joints.iter().map(|p| p.as_dvec3()).collect();
        (1..joints.len() - 1)
            .map(|k| {
                let parent = (joints[k] - joints[k - 1]).normalize_or(DVec3::Y);
                let child = (joints[k + 1] - joints[k]).normalize_or(parent);
                limits.violation(k - 1, parent, child) as f32
            })
            .collect()
    }

    /// Turns every bone into its joint's limits, hip outward, keeping bone
    /// lengths and each allowed direction: what a solver that cannot honour
    /// limits while it works does with its answer. Returns whether any joint moved.
    pub(super) fn project_into_limits(&mut self) -> bool {
        let Some(limits) = self.limits_view() else {
            return false;
        };
        let root = self.joints[0].as_dvec3();
        let mut work: Vec<DVec3> = self.joints.iter().map(|p| p.as_dvec3() - root).collect();
        let lengths: Vec<f64> = self.bones.lengths.iter().map(|l| f64::from(*l)).collect();
        if limits.max_violation(&work) == 0.0 {
            return false;
        }
        limits.enforce(&mut work, &lengths, 1);
        for (p, q) in self.joints.iter_mut().zip(&work).skip(1) {
            *p = (root + *q).as_vec3();
        }
        true
    }

    /// The limits as solvers use them, or `None` when every joint is free.
    pub(super) fn limits_view(&self) -> Option<Limits<'_>> {
        (!self.bones.unit_limits.is_empty()).then(|| Limits {
            joints: &self.bones.unit_limits,
            frame: self.rest_frame.as_dquat(),
        })
    }

    pub(super) fn unit_lengths(&self) -> &[f64] {
        &self.bones.unit_lengths
    }

    pub(super) fn joints_mut(&mut self) -> &mut [Vec3] {
        &mut self.joints
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inner_reach_is_the_longest_bone_less_the_others() {
        let chain = |points: &[[f32; 3]]| {
            Chain::new(points.iter().map(|p| Vec3::from_array(*p)).collect()).unwrap()
        };
        let two_bone = chain(&[[0.0; 3], [0.24, 0.0, 0.0], [0.24, -0.32, 0.0]]);
        assert!((two_bone.inner_reach() - 0.08).abs() < 1e-6);
        // The others outreach the longest: the end folds back to the root.
        let three = chain(&[[0.0; 3], [0.3, 0.0, 0.0], [0.3, 0.3, 0.0], [0.6, 0.3, 0.0]]);
        assert_eq!(three.inner_reach(), 0.0);
        let one = chain(&[[0.0; 3], [0.0, 0.5, 0.0]]);
        assert!((one.inner_reach() - 0.5).abs() < 1e-6);
    }

    #[test]
    fn rejects_too_few_joints() {
        assert_eq!(Chain::new(vec![]), Err(IkError::TooFewJoints(0)));
        assert_eq!(Chain::new(vec![Vec3::ZERO]), Err(IkError::TooFewJoints(1)));
    }

    #[test]
    fn rejects_zero_length_bone() {
        let err = Chain::new(vec![Vec3::ZERO, Vec3::X, Vec3::X]).unwrap_err();
        assert_eq!(err, IkError::ZeroLengthBone { index: 1 });
        assert_eq!(
            err.to_string(),
            "bone 1 has zero length (joints 1 and 2 coincide)"
        );
    }

    #[test]
    fn rejects_non_finite_joints_and_overflowing_reach() {
        let err = Chain::new(vec![Vec3::ZERO, Vec3::new(f32::NAN, 0.0, 0.0)]).unwrap_err();
        assert!(matches!(err, IkError::NonFiniteJoint { index: 1, .. }));
        let huge = Vec3::new(f32::MAX, 0.0, 0.0);
        assert!(Chain::new(vec![-huge, huge]).is_err());
    }

    #[test]
    fn accessors_report_the_built_chain() {
        let chain = Chain::new(vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 2.0, 0.0)]).unwrap();
        assert_eq!(chain.bone_lengths(), &[1.0, 2.0]);
        assert_eq!(chain.reach(), 3.0);
        assert_eq!(chain.end(), Vec3::new(1.0, 2.0, 0.0));
        assert_eq!(chain.root(), Vec3::ZERO);
        assert_eq!(chain.bone_count(), 2);
        assert_eq!(chain.bone_length_error(), 0.0);
    }

    #[test]
    fn restore_bone_lengths_keeps_directions_and_mends_collapsed_bones() {
        let mut chain = Chain::new(vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0)]).unwrap();
        // A stretched bone keeps its direction.
        chain.joints[1] = Vec3::new(3.0, 0.0, 0.0);
        chain.joints[2] = Vec3::new(3.0, 5.0, 0.0);
        chain.restore_bone_lengths();
        assert_eq!(chain.joints()[1], Vec3::X);
        assert_eq!(chain.joints()[2], Vec3::new(1.0, 1.0, 0.0));
        // A collapsed bone takes its rest direction (+Y).
        chain.joints[2] = chain.joints[1];
        chain.restore_bone_lengths();
        assert_eq!(chain.joints()[2], Vec3::new(1.0, 1.0, 0.0));
        assert_eq!(chain.bone_length_error(), 0.0);
    }

    #[test]
    fn set_root_translates_rigidly() {
        let mut chain = Chain::new(vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0)]).unwrap();
        chain.set_root(Vec3::new(5.0, 0.0, 0.0));
        assert_eq!(chain.joints()[2], Vec3::new(6.0, 1.0, 0.0));
        assert_eq!(chain.bone_length_error(), 0.0);
    }

    #[test]
    fn set_pose_checks_lengths() {
        let mut chain = Chain::new(vec![Vec3::ZERO, Vec3::X]).unwrap();
        assert!(chain.set_pose(&[Vec3::ZERO, Vec3::Y]).is_ok());
        assert_eq!(chain.end(), Vec3::Y);
        assert!(chain.set_pose(&[Vec3::ZERO, Vec3::Y * 2.0]).is_err());
        assert!(chain.set_pose(&[Vec3::ZERO]).is_err());
    }

    #[test]
    fn rest_frame_rotates_rest_directions() {
        let mut chain = Chain::new(vec![Vec3::ZERO, Vec3::X]).unwrap();
        chain.set_rest_frame(Quat::from_rotation_y(std::f32::consts::FRAC_PI_2));
        let dir: Vec<Vec3> = chain.rest_directions().collect();
        assert!((dir[0] - Vec3::new(0.0, 0.0, -1.0)).length() < 1e-6);
    }
}

//! What the views draw of a walker: a body box, its legs, which feet are
//! planted and where each wants to go. The simulation's creatures and the
//! lab's baked spider both show through this one shape, so they are drawn
//! by the same code.

use glam::Vec3;

use crate::creature::{Body, Creature};
use crate::lab::baked::BakedPose;

/// A walker as the views see it. Positions are in the frame the caller
/// draws in (a creature's own frame, or the world's).
pub trait Figure {
    /// The body's pose.
    fn body(&self) -> &Body;
    /// Half the body box's size (length, height, width), metres.
    fn half_size(&self) -> Vec3;
    /// Number of legs.
    fn leg_count(&self) -> usize;
    /// Leg `leg`'s joints, hip first, foot last.
    fn joints(&self, leg: usize) -> &[Vec3];
    /// Whether leg `leg`'s foot is planted.
    fn planted(&self, leg: usize) -> bool;
    /// Where leg `leg`'s foot wants to go, if the walker chooses footholds.
    fn desired(&self, leg: usize) -> Option<Vec3>;
}

impl Figure for Creature {
    fn body(&self) -> &Body {
        &self.body
    }

    fn half_size(&self) -> Vec3 {
        self.spec().body.size * 0.5
    }

    fn leg_count(&self) -> usize {
        self.legs.len()
    }

    fn joints(&self, leg: usize) -> &[Vec3] {
        self.legs[leg].chain.joints()
    }

    fn planted(&self, leg: usize) -> bool {
        self.legs[leg].is_grounded()
    }

    fn desired(&self, leg: usize) -> Option<Vec3> {
        Some(self.legs[leg].desired)
    }
}

/// The lab's baked spider with its body's size: it chooses no footholds,
/// it only replays where its feet were.
#[derive(Debug, Clone, Copy)]
pub struct BakedFigure<'a> {
    /// The pose to draw.
    pub pose: &'a BakedPose,
    /// Half the body box's size, metres.
    pub half_size: Vec3,
}

impl Figure for BakedFigure<'_> {
    fn body(&self) -> &Body {
        &self.pose.body
    }

    fn half_size(&self) -> Vec3 {
        self.half_size
    }

    fn leg_count(&self) -> usize {
        self.pose.legs.len()
    }

    fn joints(&self, leg: usize) -> &[Vec3] {
        &self.pose.legs[leg]
    }

    fn planted(&self, leg: usize) -> bool {
        self.pose.planted.get(leg).copied().unwrap_or(false)
    }

    fn desired(&self, _leg: usize) -> Option<Vec3> {
        None
    }
}

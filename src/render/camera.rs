//! Views and how they map world points to grid cells.

use glam::{Vec2, Vec3};

use crate::sim::World;

/// Which way the world is looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViewKind {
    /// Plan view from above: terrain shaded by height.
    Top,
    /// From the creature's right: terrain profile along its heading.
    Side,
    /// From in front of the creature: terrain profile across it.
    Front,
    /// A chase camera behind and above, with a depth-buffered terrain.
    Perspective,
}

impl ViewKind {
    /// Every view, in the order the `v` key cycles through them.
    pub const ALL: [ViewKind; 4] = [
        ViewKind::Top,
        ViewKind::Side,
        ViewKind::Front,
        ViewKind::Perspective,
    ];

    /// Display name.
    pub fn name(self) -> &'static str {
        match self {
            ViewKind::Top => "top",
            ViewKind::Side => "side",
            ViewKind::Front => "front",
            ViewKind::Perspective => "perspective",
        }
    }

    /// The next view in [`ViewKind::ALL`], wrapping around.
    pub fn next(self) -> ViewKind {
        let i = ViewKind::ALL.iter().position(|v| *v == self).unwrap_or(0);
        ViewKind::ALL[(i + 1) % ViewKind::ALL.len()]
    }
}

/// Where the views look: follow the first creature or stay put, zoom, pan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// Magnification (1 = default; larger shows less).
    pub zoom: f32,
    /// Offset from the focus in metres: x along the view's right, y along its up
    /// (for the top view: +x east, +y north).
    pub pan: Vec2,
    /// Whether the focus follows the first creature.
    pub follow: bool,
    /// The focus when not following.
    pub anchor: Vec3,
}

impl Default for Camera {
    fn default() -> Self {
        Camera {
            zoom: 1.0,
            pan: Vec2::ZERO,
            follow: true,
            anchor: Vec3::ZERO,
        }
    }
}

/// Orthographic views' scale at zoom 1: cells per metre horizontally.
const CELLS_PER_METRE: f32 = 14.0;
/// Chase camera distance behind and height above the focus at zoom 1 (metres).
const CHASE_DISTANCE: f32 = 3.2;
const CHASE_HEIGHT: f32 = 1.9;
/// Vertical field of view of the chase camera.
const FIELD_OF_VIEW_DEG: f32 = 60.0;
/// Nothing nearer the chase camera than this is drawn (metres).
const NEAR: f32 = 0.1;

impl Camera {
    /// The world point the views centre on.
    pub fn focus(&self, world: &World) -> Vec3 {
        match world.creatures().first() {
            Some(c) if self.follow => c.body.position,
            _ => self.anchor,
        }
    }

    /// Zoom, kept within sensible bounds.
    pub fn clamped_zoom(&self) -> f32 {
        if self.zoom.is_finite() {
            self.zoom.clamp(0.05, 20.0)
        } else {
            1.0
        }
    }
}

/// A view's mapping from world points to (column, row, depth).
#[derive(Debug, Clone, Copy)]
pub struct Projection {
    /// Which view.
    pub kind: ViewKind,
    /// World point at the grid's centre (orthographic) or the camera position (perspective).
    pub origin: Vec3,
    /// World direction of screen right.
    pub right: Vec3,
    /// World direction of screen up.
    pub up: Vec3,
    /// World direction the viewer looks along (depth grows along it).
    pub forward: Vec3,
    /// Cells per metre horizontally (orthographic).
    pub scale: f32,
    width: f32,
    height: f32,
    /// tan(fov/2) vertically, and the grid's aspect, for perspective.
    tan_half_fov: f32,
    aspect: f32,
    /// How many times taller a row is than a column is wide.
    row_height: f32,
}

impl Projection {
    /// The projection `kind` uses for `world` seen by `camera` on a `width` ×
    /// `height` grid whose rows are `row_height` times as tall as its columns
    /// are wide (2 for terminal text cells, 1 for half-block pixels).
    pub fn new(
        kind: ViewKind,
        camera: &Camera,
        world: &World,
        width: usize,
        height: usize,
        row_height: f32,
    ) -> Projection {
        let zoom = camera.clamped_zoom();
        let focus = camera.focus(world);
        // Heading on the ground plane; side and front views turn with the creature.
        let heading = world
            .creatures()
            .first()
            .map(|c| c.body.forward())
            .map(|f| Vec3::new(f.x, 0.0, f.z).normalize_or(Vec3::X))
            .unwrap_or(Vec3::X);
        let side = Vec3::new(-heading.z, 0.0, heading.x); // heading × up: the creature's right
        let (right, up, forward) = match kind {
            ViewKind::Top => (Vec3::X, -Vec3::Z, -Vec3::Y),
            // Seen from the creature's right, so that its forward is screen
            // right without mirroring the picture.
            ViewKind::Side => (heading, Vec3::Y, -side),
            ViewKind::Front => (-side, Vec3::Y, -heading),
            ViewKind::Perspective => {
                let eye =
                    focus - heading * (CHASE_DISTANCE / zoom) + Vec3::Y * (CHASE_HEIGHT / zoom);
                let look_at = focus + heading * 0.6;
                let forward = (look_at - eye).normalize_or(heading);
                let right = forward.cross(Vec3::Y).normalize_or(side);
                let up = right.cross(forward);
                let pan = right * camera.pan.x + heading * camera.pan.y;
                return Projection {
                    kind,
                    origin: eye + pan,
                    right,
                    up,
                    forward,
                    scale: 1.0,
                    width: width as f32,
                    height: height as f32,
                    tan_half_fov: (FIELD_OF_VIEW_DEG.to_radians() * 0.5).tan(),
                    aspect: width as f32 / (row_height * height.max(1) as f32),
                    row_height,
                };
            }
        };
        Projection {
            kind,
            origin: focus + right * camera.pan.x + up * camera.pan.y,
            right,
            up,
            forward,
            scale: CELLS_PER_METRE * zoom,
            width: width as f32,
            height: height as f32,
            tan_half_fov: 1.0,
            aspect: 1.0,
            row_height,
        }
    }

    /// (column, row, depth) of a world point, or `None` if it cannot be shown
    /// (behind the chase camera).
    #[inline]
    pub fn project(&self, p: Vec3) -> Option<(f32, f32, f32)> {
        let d = p - self.origin;
        let depth = d.dot(self.forward);
        if self.kind == ViewKind::Perspective {
            if depth < NEAR {
                return None;
            }
            let x = d.dot(self.right) / (depth * self.tan_half_fov * self.aspect);
            let y = d.dot(self.up) / (depth * self.tan_half_fov);
            return Some((
                (x + 1.0) * 0.5 * self.width,
                (1.0 - y) * 0.5 * self.height,
                depth,
            ));
        }
        let col = self.width * 0.5 + d.dot(self.right) * self.scale;
        let row = self.height * 0.5 - d.dot(self.up) * self.scale / self.row_height;
        Some((col, row, depth))
    }

    /// The same projection for points given in a frame displaced by
    /// `offset` from this one (another creature's local frame): a point `p`
    /// there projects as `p + offset` does here.
    pub fn shifted(&self, offset: Vec3) -> Projection {
        Projection {
            origin: self.origin - offset,
            ..*self
        }
    }

    /// For orthographic views: the world point at the centre of cell
    /// (column, row) on the plane through the origin facing the viewer.
    pub fn unproject(&self, col: f32, row: f32) -> Vec3 {
        let u = (col - self.width * 0.5) / self.scale;
        let v = (self.height * 0.5 - row) / (self.scale / self.row_height);
        self.origin + self.right * u + self.up * v
    }
}

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
    /// The followed creature's leg the leg inspector shows, drawn apart.
    pub inspect: Option<usize>,
}

impl Default for Camera {
    fn default() -> Self {
        Camera {
            zoom: 1.0,
            pan: Vec2::ZERO,
            follow: true,
            anchor: Vec3::ZERO,
            inspect: None,
        }
    }
}

/// Orthographic views' scale at zoom 1: cells per metre horizontally.
const CELLS_PER_METRE: f32 = 14.0;
/// Chase camera distance behind and height above the focus at zoom 1 (metres).
const CHASE_DISTANCE: f32 = 3.2;
const CHASE_HEIGHT: f32 = 1.9;
/// How far ahead of the focus the chase camera looks (metres).
const CHASE_LOOK_AHEAD: f32 = 0.6;
/// Vertical field of view of the chase camera.
const FIELD_OF_VIEW_DEG: f32 = 60.0;
/// Nothing nearer the chase camera than this is drawn (metres).
const NEAR: f32 = 0.1;
/// Creatures further from the chase camera than this are not drawn
/// (metres): at the default zoom they would be under a cell.
pub const FAR: f32 = 120.0;

impl Camera {
    /// The world point the views centre on.
    pub fn focus(&self, world: &World) -> Vec3 {
        self.focus_on(world.followed_creature().map(|c| c.body.position))
    }

    /// The point the views centre on when `subject` is what they follow:
    /// the subject while following (and there is one), the anchor otherwise.
    pub fn focus_on(&self, subject: Option<Vec3>) -> Vec3 {
        match subject {
            Some(p) if self.follow => p,
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

/// What a view centres on, which way the subject faces, and how large the
/// scene is drawn: the viewer frames a creature at a fixed scale, the lab
/// screen fits its chain to the view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Framing {
    /// The point at the view's centre (orthographic) or looked at
    /// (perspective).
    pub focus: Vec3,
    /// The subject's forward on the ground plane (unit): side and front views
    /// turn with it, the chase camera sits behind it.
    pub heading: Vec3,
    /// Orthographic cells per unit of length horizontally, at zoom 1.
    pub cells_per_unit: f32,
    /// The chase camera's distance behind and height above the focus, at
    /// zoom 1, and how far ahead of the focus it looks.
    pub chase: (f32, f32, f32),
    /// The direction the chase camera looks along, on the ground plane (unit):
    /// the heading, for the viewer.
    pub chase_heading: Vec3,
    /// What the chase camera takes as up (unit): world up, or, for a
    /// subject on a wall or a ceiling, the subject's own up, so the camera
    /// rolls with it and it stays upright on screen.
    pub chase_up: Vec3,
}

/// How far the chase camera keeps from a wall it would otherwise be behind,
/// metres.
const CAMERA_CLEARANCE: f32 = 0.3;
/// A subject tilted less than this from world up is chased level, degrees.
const ROLL_FROM_DEG: f32 = 25.0;
/// A subject tilted more than this is chased in its own frame, degrees; in
/// between the camera's up blends smoothly from one to the other.
const ROLL_FULL_DEG: f32 = 55.0;

/// The chase camera's up for a subject whose up is `subject_up`: world up
/// on gentle ground, the subject's up on walls and ceilings, a smooth blend
/// between (so the picture never snaps).
pub fn chase_up(subject_up: Vec3) -> Vec3 {
    let Some(subject_up) = subject_up.try_normalize() else {
        return Vec3::Y;
    };
    let tilt = subject_up.y.clamp(-1.0, 1.0).acos().to_degrees();
    let t = ((tilt - ROLL_FROM_DEG) / (ROLL_FULL_DEG - ROLL_FROM_DEG)).clamp(0.0, 1.0);
    let share = t * t * (3.0 - 2.0 * t);
    Vec3::Y
        .lerp(subject_up, share)
        .try_normalize()
        // Exactly upside down, halfway: lean toward the subject.
        .unwrap_or(subject_up)
}

/// `forward` flattened onto the ground plane, unit length (+X when it has
/// no horizontal part): the heading views turn with.
pub fn flat_heading(forward: Vec3) -> Vec3 {
    Vec3::new(forward.x, 0.0, forward.z).normalize_or(Vec3::X)
}

/// The heading side and front views turn with for a body: its forward on
/// the ground plane, or, climbing a wall (forward near vertical), the way
/// into the wall (its down, flattened), so the side view shows the wall in
/// profile with the creature on it; blended smoothly between.
pub fn view_heading(body: &crate::creature::Body) -> Vec3 {
    let forward = body.forward();
    let steep = ((forward.y.abs() - 0.5) / 0.4).clamp(0.0, 1.0);
    let share = steep * steep * (3.0 - 2.0 * steep);
    // Into the wall, signed so that going up the wall looks the same way as
    // walking toward it did.
    let into = -body.up() * forward.y.signum();
    flat_heading(forward.lerp(into, share))
}

impl Framing {
    /// The viewer's framing of `world`: the camera's focus, the followed
    /// creature's heading, 14 cells a metre.
    pub fn of_world(camera: &Camera, world: &World) -> Framing {
        let Some(creature) = world.followed_creature() else {
            return Framing::following(camera.focus(world), Vec3::X);
        };
        let body = &creature.body;
        let mut framing = Framing::following(camera.focus(world), view_heading(body));
        framing.chase_up = chase_up(body.up());
        // Chased in its own frame, the camera looks along its forward
        // (which on a wall points up the wall).
        if framing.chase_up != Vec3::Y {
            let forward = body.forward().reject_from(framing.chase_up);
            framing.chase_heading = forward.try_normalize().unwrap_or(framing.heading);
        }
        // Among walls and under roofs, the camera comes in closer rather
        // than look from inside the solid.
        let ground = world.terrain().at(creature.origin());
        if ground.has_shapes() {
            let zoom = camera.clamped_zoom();
            let (distance, height, ahead) = framing.chase;
            let offset = (framing.chase_up * height - framing.chase_heading * distance) / zoom;
            let focus = framing.focus;
            if let Some(hit) = ground.raycast(focus, offset, offset.length()) {
                let share = ((hit.distance - CAMERA_CLEARANCE) / offset.length()).max(0.15);
                framing.chase = (distance * share, height * share, ahead);
            }
        }
        framing
    }

    /// The viewer's scale around `focus`, facing `heading` (unit, on the
    /// ground plane: see [`flat_heading`]).
    pub fn following(focus: Vec3, heading: Vec3) -> Framing {
        Framing {
            focus,
            heading,
            cells_per_unit: CELLS_PER_METRE,
            chase: (CHASE_DISTANCE, CHASE_HEIGHT, CHASE_LOOK_AHEAD),
            chase_heading: heading,
            chase_up: Vec3::Y,
        }
    }

    /// A framing that shows a ball of `radius` about `focus` whole in a
    /// `width` × `height` grid whose rows are `row_height` columns tall, at
    /// zoom 1, whatever the unit of length.
    pub fn fitting(
        focus: Vec3,
        heading: Vec3,
        radius: f32,
        width: usize,
        height: usize,
        row_height: f32,
    ) -> Framing {
        let radius = if radius.is_finite() && radius > 0.0 {
            radius
        } else {
            1.0
        };
        let across = (width.max(1) as f32).min(height.max(1) as f32 * row_height);
        let heading = flat_heading(heading);
        Framing {
            focus,
            heading,
            chase_heading: heading,
            cells_per_unit: across / (2.0 * radius),
            // The chase camera's field of view is 60°: from about 2.5 radii
            // away it takes in the whole ball.
            chase: (2.2 * radius, 1.3 * radius, 0.0),
            chase_up: Vec3::Y,
        }
    }
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
        Projection::framed(
            kind,
            camera,
            &Framing::of_world(camera, world),
            width,
            height,
            row_height,
        )
    }

    /// The projection `kind` uses for `framing`, zoomed and panned by
    /// `camera` (see [`Projection::new`] for the grid).
    pub fn framed(
        kind: ViewKind,
        camera: &Camera,
        framing: &Framing,
        width: usize,
        height: usize,
        row_height: f32,
    ) -> Projection {
        let zoom = camera.clamped_zoom();
        let focus = framing.focus;
        let heading = framing.heading;
        let side = Vec3::new(-heading.z, 0.0, heading.x); // heading × up: the subject's right
        let (right, up, forward) = match kind {
            ViewKind::Top => (Vec3::X, -Vec3::Z, -Vec3::Y),
            // Seen from the creature's right, so that its forward is screen
            // right without mirroring the picture.
            ViewKind::Side => (heading, Vec3::Y, -side),
            ViewKind::Front => (-side, Vec3::Y, -heading),
            ViewKind::Perspective => {
                let heading = framing.chase_heading;
                let above = framing.chase_up;
                let side = heading.cross(above).normalize_or(Vec3::Z);
                let (distance, height_above, ahead) = framing.chase;
                let eye = focus - heading * (distance / zoom) + above * (height_above / zoom);
                let look_at = focus + heading * ahead;
                let forward = (look_at - eye).normalize_or(heading);
                let right = forward.cross(above).normalize_or(side);
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
            scale: framing.cells_per_unit * zoom,
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

    /// The unit direction from the perspective camera through grid point
    /// (`col`, `row`) (cell corners at whole numbers).
    pub fn ray(&self, col: f32, row: f32) -> Vec3 {
        let x = col / self.width * 2.0 - 1.0;
        let y = 1.0 - row / self.height * 2.0;
        (self.forward
            + self.right * (x * self.tan_half_fov * self.aspect)
            + self.up * (y * self.tan_half_fov))
            .normalize_or(self.forward)
    }

    /// The grid rectangle (first column, last column, first row, last row)
    /// the convex hull of `corners` can cover in the perspective view, and
    /// the nearest depth any of it stands at; `None` when it is wholly
    /// behind the camera or beyond `far`.
    ///
    /// With every corner in front of the camera the hull's image is the
    /// hull of the corners' images (a perspective projection keeps convex
    /// sets convex there), so their bounding rectangle is exact; a hull
    /// reaching past the camera's plane may cover anything.
    pub fn hull_rect(&self, corners: &[Vec3], far: f32) -> Option<([f32; 4], f32)> {
        let depths = corners.iter().map(|&c| (c - self.origin).dot(self.forward));
        let (nearest, farthest) = depths.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), d| {
            (lo.min(d), hi.max(d))
        });
        if !(farthest >= NEAR && nearest <= far) {
            return None;
        }
        if nearest <= NEAR {
            return Some(([0.0, self.width, 0.0, self.height], nearest));
        }
        let mut rect = [
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ];
        for &corner in corners {
            // In front of the camera (checked above), so it projects.
            let (col, row, _) = self.project(corner)?;
            rect = [
                rect[0].min(col),
                rect[1].max(col),
                rect[2].min(row),
                rect[3].max(row),
            ];
        }
        Some((rect, nearest))
    }

    /// Whether anything within `radius` metres of world point `p` can land
    /// on the grid: false only when all of it certainly falls outside, so a
    /// view of a thousand creatures draws only those near it. Perspective
    /// views also leave out what lies beyond [`FAR`], where a creature is
    /// smaller than a cell.
    pub fn may_show(&self, p: Vec3, radius: f32) -> bool {
        let d = p - self.origin;
        let depth = d.dot(self.forward);
        if self.kind == ViewKind::Perspective {
            if depth + radius < NEAR || depth - radius > FAR {
                return false;
            }
            // The view's half-width and half-height at that depth, widened by
            // the radius: a cone test that never culls what it should show.
            let reach = depth.max(NEAR);
            let across = d.dot(self.right).abs() - radius;
            let up = d.dot(self.up).abs() - radius;
            return across <= reach * self.tan_half_fov * self.aspect
                && up <= reach * self.tan_half_fov;
        }
        let margin_cols = radius * self.scale;
        let margin_rows = radius * self.scale / self.row_height;
        let col = self.width * 0.5 + d.dot(self.right) * self.scale;
        let row = self.height * 0.5 - d.dot(self.up) * self.scale / self.row_height;
        col + margin_cols >= 0.0
            && col - margin_cols <= self.width
            && row + margin_rows >= 0.0
            && row - margin_rows <= self.height
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

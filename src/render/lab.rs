//! Drawing the lab screen's rig in the viewer's projections: the chain or
//! arm as bones and joints, its target, the end's recent path, and around
//! them what the experiment is about (the chain's reach, the arm's wall and
//! buttons). There is no ground here; the view is fitted to the rig.

use glam::Vec3;

use super::camera::{Camera, Framing, Projection, ViewKind};
use super::draw::{TEXT_ROW_HEIGHT, draw_bones, mark, segment};
use super::grid::{Grid, Ink};
use crate::lab::live::{LabScene, Rig};
use crate::lab::reach::WALL_X;

/// The depth backdrops (the reach circle, the wall's outline) are drawn
/// at: behind everything else, and finite, so lines between two such points
/// interpolate to it rather than to NaN.
const BACKDROP_DEPTH: f32 = 1e30;
/// Points on the reach circle.
const CIRCLE_POINTS: usize = 96;
/// The depth the target and the end are drawn at: in front of everything.
const ON_TOP: f32 = -1e30;
/// Half the wall's extent drawn around the buttons (metres, up and across).
const WALL_HALF: f32 = 0.45;

/// Renders `view` of the lab scene through `camera` into a `width` ×
/// `height` grid of text cells. The camera's zoom applies; the framing
/// always fits the rig, so pan and follow do not.
///
/// Pure: the same scene, view, camera and size always give the same grid.
pub fn render_lab(
    scene: &LabScene,
    view: ViewKind,
    camera: &Camera,
    width: usize,
    height: usize,
) -> Grid {
    let mut grid = Grid::new(width, height);
    if width == 0 || height == 0 {
        return grid;
    }
    let (focus, radius, heading) = scene.frame();
    let mut framing = Framing::fitting(focus, heading, radius, width, height, TEXT_ROW_HEIGHT);
    // The chase camera looks from three quarters: between behind the
    // heading and the side view's line of sight, so a rig laid out for the
    // side view is not seen edge on.
    let side_sight = -heading.cross(Vec3::Y);
    framing.chase_heading = (framing.heading + side_sight).normalize_or(framing.heading);
    let fixed = Camera {
        pan: glam::Vec2::ZERO,
        ..*camera
    };
    let projection = Projection::framed(view, &fixed, &framing, width, height, TEXT_ROW_HEIGHT);
    let chain = scene.chain();
    match scene.rig() {
        Rig::Chain => draw_reach(&mut grid, chain.root(), chain.reach(), &projection),
        Rig::Arm => draw_wall(&mut grid, scene, &projection),
    }
    for p in scene.trail() {
        if let Some(p) = projection.project(*p) {
            mark(&mut grid, p, '.', Ink::FootSwinging);
        }
    }
    let projected: Vec<_> = chain
        .joints()
        .iter()
        .map(|p| projection.project(*p))
        .collect();
    draw_bones(&mut grid, &projected);
    if let Some(Some(root)) = projected.first() {
        mark(&mut grid, *root, '#', Ink::Body);
    }
    // The target and the end are what the experiment is about: drawn over
    // everything, the end last, so it covers the target once it arrives.
    if let Some(target) = projection.project(scene.target()) {
        mark(&mut grid, (target.0, target.1, ON_TOP), 'x', Ink::Foothold);
    }
    if let Some(Some(end)) = projected.last() {
        let end = &(end.0, end.1, ON_TOP);
        let reached = scene.history().back().is_none_or(|s| s.reached);
        let ink = if reached {
            Ink::FootGrounded
        } else {
            Ink::FootSwinging
        };
        mark(&mut grid, *end, 'O', ink);
    }
    grid
}

/// The chain's reach: in orthographic views the outline of the ball the end
/// can get to (a target outside it is out of reach); in perspective its
/// equator, about the vertical.
fn draw_reach(grid: &mut Grid, root: Vec3, reach: f32, projection: &Projection) {
    let (u, v) = match projection.kind {
        ViewKind::Perspective => (Vec3::X, Vec3::Z),
        _ => (projection.right, projection.up),
    };
    for i in 0..CIRCLE_POINTS {
        let angle = std::f32::consts::TAU * i as f32 / CIRCLE_POINTS as f32;
        let p = root + (u * angle.cos() + v * angle.sin()) * reach;
        if let Some(mut cell) = projection.project(p) {
            // Behind everything the chain draws.
            cell.2 = BACKDROP_DEPTH;
            mark(grid, cell, '.', Ink::Ground(3));
        }
    }
}

/// The arm's wall (its outline) and buttons: `+` waiting, `*` pressed this
/// lap, `@` the one being pressed.
fn draw_wall(grid: &mut Grid, scene: &LabScene, projection: &Projection) {
    let root = scene.chain().root();
    // The outline is drawn behind everything: the wall is a backdrop, and
    // its near edge must not hide the buttons on it.
    let corner = |y: f32, z: f32| {
        projection
            .project(root + Vec3::new(WALL_X, y, z))
            .map(|(col, row, _)| (col, row, BACKDROP_DEPTH))
    };
    let corners = [
        corner(-WALL_HALF, -WALL_HALF),
        corner(-WALL_HALF, WALL_HALF),
        corner(WALL_HALF, WALL_HALF),
        corner(WALL_HALF, -WALL_HALF),
    ];
    for k in 0..4 {
        segment(grid, corners[k], corners[(k + 1) % 4], Ink::Ground(4));
    }
    let Some((buttons, hit, current, _)) = scene.buttons() else {
        return;
    };
    for (i, button) in buttons.iter().enumerate() {
        let Some(p) = projection.project(root + *button) else {
            continue;
        };
        let (ch, ink) = if i == current {
            ('@', Ink::Foothold)
        } else if hit.get(i).copied().unwrap_or(false) {
            ('*', Ink::FootGrounded)
        } else {
            ('+', Ink::Support)
        };
        mark(grid, p, ch, ink);
    }
}

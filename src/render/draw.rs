//! Drawing a whole view: terrain first, creatures over it with depth.

use glam::Vec3;

use super::camera::{Camera, Projection, ViewKind};
use super::grid::{Cell, Grid, Ink};
use super::terrain::draw_terrain;
use crate::creature::{Creature, LegPhase, support_margin, support_plane};
use crate::geometry::ConvexHull;
use crate::sim::World;

/// How much nearer than their true depth creature marks are drawn, so that
/// feet standing on the ground are not hidden by the ground they stand on.
const MARK_BIAS: f32 = 0.05;

/// Renders `view` of `world` through `camera` into a `width` × `height` grid
/// of terminal text cells (about twice as tall as they are wide).
///
/// Pure: the same world, view, camera and size always give the same grid.
pub fn render_view(
    world: &World,
    view: ViewKind,
    camera: &Camera,
    width: usize,
    height: usize,
) -> Grid {
    render(world, view, camera, width, height, TEXT_ROW_HEIGHT)
}

/// Renders `view` into a `width` × `height` grid of square pixels: the
/// high-resolution mode, where each terminal cell shows two pixels stacked
/// (a half-block character with a foreground and a background colour). Only
/// the cells' inks matter here.
pub fn render_pixels(
    world: &World,
    view: ViewKind,
    camera: &Camera,
    width: usize,
    height: usize,
) -> Grid {
    render(world, view, camera, width, height, 1.0)
}

/// Terminal text cells are about twice as tall as they are wide.
const TEXT_ROW_HEIGHT: f32 = 2.0;

fn render(
    world: &World,
    view: ViewKind,
    camera: &Camera,
    width: usize,
    height: usize,
    row_height: f32,
) -> Grid {
    let mut grid = Grid::new(width, height);
    if width == 0 || height == 0 {
        return grid;
    }
    let projection = Projection::new(view, camera, world, width, height, row_height);
    // Everything is drawn in the first creature's frame (the camera's).
    let frame = world
        .creatures()
        .first()
        .map(|c| c.origin())
        .unwrap_or_default();
    let spacing = world.terrain().spacing();
    draw_terrain(&mut grid, &world.terrain().at(frame), &projection);
    for creature in world.creatures() {
        let origin = creature.origin();
        let offset = Vec3::new(
            ((origin.x - frame.x) as f64 * f64::from(spacing)) as f32,
            0.0,
            ((origin.z - frame.z) as f64 * f64::from(spacing)) as f32,
        );
        let projection = projection.shifted(offset);
        if view == ViewKind::Top {
            draw_support(&mut grid, creature, &projection);
        }
        draw_creature(&mut grid, creature, &projection);
    }
    grid
}

/// The support polygon of the planted feet (with three or more down) and the
/// body centre's projection onto it, `+` inside and `!` outside: what static
/// stability is about.
fn draw_support(grid: &mut Grid, creature: &Creature, projection: &Projection) {
    let body = &creature.body;
    let up = body.up();
    let planted: Vec<Vec3> = creature
        .legs
        .iter()
        .filter(|leg| leg.is_grounded())
        .map(|leg| leg.chain.end())
        .collect();
    let mut hull = ConvexHull::default();
    let mut scratch = Vec::new();
    let Some(margin) = support_margin(
        body.position,
        up,
        planted.iter().copied(),
        &mut hull,
        &mut scratch,
    ) else {
        return;
    };
    // Corners back in the world, as low as the lowest foot (along the up),
    // so no foot is hidden under the polygon's lines.
    let (u, v) = support_plane(up);
    let level = planted
        .iter()
        .map(|p| (*p - body.position).dot(up))
        .fold(f32::INFINITY, f32::min);
    let base = body.position + up * level;
    let corners: Vec<_> = hull
        .corners()
        .iter()
        .map(|c| projection.project(base + u * c.x + v * c.y))
        .collect();
    for (k, a) in corners.iter().enumerate() {
        let b = corners[(k + 1) % corners.len()];
        segment(grid, *a, b, Ink::Support);
    }
    if let Some(centre) = projection.project(base) {
        let ch = if margin >= 0.0 { '+' } else { '!' };
        mark(grid, centre, ch, Ink::Support);
    }
}

fn draw_creature(grid: &mut Grid, creature: &Creature, projection: &Projection) {
    let body = &creature.body;
    let half = creature.spec().body.size * 0.5;
    let corner = |i: usize| {
        let sign = |bit: usize| if i & bit == 0 { -1.0 } else { 1.0 };
        body.to_world(Vec3::new(
            sign(1) * half.x,
            sign(2) * half.y,
            sign(4) * half.z,
        ))
    };
    let corners: Vec<_> = (0..8).map(|i| projection.project(corner(i))).collect();
    // Box edges join corners that differ in exactly one axis bit.
    for i in 0..8 {
        for bit in [1, 2, 4] {
            let j = i | bit;
            if j != i {
                segment(grid, corners[i], corners[j], Ink::Body);
            }
        }
    }
    let nose = body.to_world(Vec3::new(half.x + 0.06, 0.0, 0.0));
    let centre = projection.project(body.position);
    if let (Some(n), Some(c)) = (projection.project(nose), centre) {
        let ch = arrow(n.0 - c.0, (n.1 - c.1) * 2.0);
        grid.plot(
            n.0.round() as i32,
            n.1.round() as i32,
            Cell {
                ch,
                ink: Ink::Heading,
                depth: n.2 - MARK_BIAS,
            },
        );
    }

    for leg in &creature.legs {
        let joints = leg.chain.joints();
        let projected: Vec<_> = joints.iter().map(|p| projection.project(*p)).collect();
        for pair in projected.windows(2) {
            segment(grid, pair[0], pair[1], Ink::Leg);
        }
        for p in projected.iter().take(joints.len() - 1).skip(1).flatten() {
            mark(grid, *p, 'o', Ink::Joint);
        }
        if let Some(desired) = projection.project(leg.desired) {
            mark(grid, desired, 'x', Ink::Foothold);
        }
        if let Some(Some(end)) = projected.last() {
            // A foot covers its own foothold mark when it stands on it.
            let end = &(end.0, end.1, end.2 - MARK_BIAS);
            match leg.phase {
                LegPhase::Grounded => mark(grid, *end, 'O', Ink::FootGrounded),
                LegPhase::Swinging { .. } => mark(grid, *end, '^', Ink::FootSwinging),
            }
        }
    }
}

fn segment(grid: &mut Grid, a: Option<(f32, f32, f32)>, b: Option<(f32, f32, f32)>, ink: Ink) {
    if let (Some(a), Some(b)) = (a, b) {
        grid.line(
            (a.0, a.1, a.2 - MARK_BIAS),
            (b.0, b.1, b.2 - MARK_BIAS),
            ink,
        );
    }
}

fn mark(grid: &mut Grid, p: (f32, f32, f32), ch: char, ink: Ink) {
    grid.plot(
        p.0.round() as i32,
        p.1.round() as i32,
        Cell {
            ch,
            ink,
            depth: p.2 - 2.0 * MARK_BIAS,
        },
    );
}

/// An arrow character pointing along a screen direction (rows grow downward).
fn arrow(dx: f32, dy: f32) -> char {
    if dx.abs() >= dy.abs() {
        if dx >= 0.0 { '>' } else { '<' }
    } else if dy >= 0.0 {
        'v'
    } else {
        '^'
    }
}

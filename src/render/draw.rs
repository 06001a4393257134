//! Drawing a whole view: terrain first, creatures over it with depth.

use glam::Vec3;

use super::camera::{Camera, Framing, Projection, ViewKind, flat_heading};
use super::figure::Figure;
use super::grid::{Cell, Grid, Ink};
use super::terrain::draw_terrain;
use crate::creature::{support_margin, support_plane};
use crate::geometry::ConvexHull;
use crate::sim::World;
use crate::terrain::Heightfield;

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
pub(super) const TEXT_ROW_HEIGHT: f32 = 2.0;

/// Renders `view` of one walker on `terrain`, both in the world frame (the
/// baked spider), the camera following the walker's body; in half-block
/// pixels when `pixels` (see [`render_pixels`]), else text cells.
///
/// Pure, like [`render_view`].
#[allow(clippy::too_many_arguments)]
pub fn render_walker(
    terrain: &Heightfield,
    walker: &dyn Figure,
    view: ViewKind,
    camera: &Camera,
    width: usize,
    height: usize,
    pixels: bool,
) -> Grid {
    let row_height = if pixels { 1.0 } else { TEXT_ROW_HEIGHT };
    let mut grid = Grid::new(width, height);
    if width == 0 || height == 0 {
        return grid;
    }
    let body = walker.body();
    let framing = Framing::following(
        camera.focus_on(Some(body.position)),
        flat_heading(body.forward()),
    );
    let projection = Projection::framed(view, camera, &framing, width, height, row_height);
    // Its farthest foot from the body's centre bounds the ground it stands on.
    let band = (0..walker.leg_count())
        .filter_map(|leg| walker.joints(leg).last())
        .map(|foot| (*foot - body.position).with_y(0.0).length())
        .fold(0.0, f32::max);
    draw_terrain(&mut grid, &terrain.world(), &projection, band, None);
    if view == ViewKind::Top {
        draw_support(&mut grid, walker, &projection);
    }
    draw_figure(&mut grid, walker, &projection, None);
    grid
}

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
    // Everything is drawn in the followed creature's frame (the camera's).
    let frame = world
        .followed_creature()
        .map(|c| c.origin())
        .unwrap_or_default();
    let spacing = world.terrain().spacing();
    let band = world
        .followed_creature()
        .map_or(0.0, |c| c.spec().footprint_radius());
    draw_terrain(
        &mut grid,
        &world.terrain().at(frame),
        &projection,
        band,
        world.pool().map(|pool| &**pool),
    );
    for (index, creature) in world.creatures().iter().enumerate() {
        let origin = creature.origin();
        let offset = Vec3::new(
            ((origin.x - frame.x) as f64 * f64::from(spacing)) as f32,
            0.0,
            ((origin.z - frame.z) as f64 * f64::from(spacing)) as f32,
        );
        let projection = projection.shifted(offset);
        // Legs reach at most this far from the body's centre.
        let spec = creature.spec();
        let radius = spec.max_reach() + spec.body.size.max_element();
        if !projection.may_show(creature.body.position, radius) {
            continue;
        }
        if view == ViewKind::Top {
            draw_support(&mut grid, creature, &projection);
        }
        let inspected = camera.inspect.filter(|_| index == world.followed());
        draw_figure(&mut grid, creature, &projection, inspected);
    }
    grid
}

/// The support polygon of the planted feet (with three or more down) and the
/// body centre's projection onto it, `+` inside and `!` outside: what static
/// stability is about.
fn draw_support(grid: &mut Grid, walker: &dyn Figure, projection: &Projection) {
    let body = walker.body();
    let up = body.up();
    let planted: Vec<Vec3> = (0..walker.leg_count())
        .filter(|leg| walker.planted(*leg))
        .filter_map(|leg| walker.joints(leg).last().copied())
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

/// Draws a creature; leg `inspected` (if any) in the inspector's ink.
fn draw_figure(
    grid: &mut Grid,
    walker: &dyn Figure,
    projection: &Projection,
    inspected: Option<usize>,
) {
    let body = walker.body();
    let half = walker.half_size();
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

    for leg in 0..walker.leg_count() {
        let joints = walker.joints(leg);
        let projected: Vec<_> = joints.iter().map(|p| projection.project(*p)).collect();
        if inspected == Some(leg) {
            for pair in projected.windows(2) {
                segment(grid, pair[0], pair[1], Ink::Inspected);
            }
        } else {
            draw_bones(grid, &projected);
        }
        if let Some(desired) = walker.desired(leg).and_then(|p| projection.project(p)) {
            mark(grid, desired, 'x', Ink::Foothold);
        }
        if let Some(Some(end)) = projected.last() {
            // A foot covers its own foothold mark when it stands on it.
            let end = &(end.0, end.1, end.2 - MARK_BIAS);
            if walker.planted(leg) {
                mark(grid, *end, 'O', Ink::FootGrounded);
            } else {
                mark(grid, *end, '^', Ink::FootSwinging);
            }
        }
    }
}

/// A chain's bones as lines and its inner joints as `o`, from its joints'
/// projections (root first).
pub(super) fn draw_bones(grid: &mut Grid, projected: &[Option<(f32, f32, f32)>]) {
    for pair in projected.windows(2) {
        segment(grid, pair[0], pair[1], Ink::Leg);
    }
    let inner = projected.len().saturating_sub(1);
    for p in projected.iter().take(inner).skip(1).flatten() {
        mark(grid, *p, 'o', Ink::Joint);
    }
}

pub(super) fn segment(
    grid: &mut Grid,
    a: Option<(f32, f32, f32)>,
    b: Option<(f32, f32, f32)>,
    ink: Ink,
) {
    if let (Some(a), Some(b)) = (a, b) {
        grid.line(
            (a.0, a.1, a.2 - MARK_BIAS),
            (b.0, b.1, b.2 - MARK_BIAS),
            ink,
        );
    }
}

pub(super) fn mark(grid: &mut Grid, p: (f32, f32, f32), ch: char, ink: Ink) {
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

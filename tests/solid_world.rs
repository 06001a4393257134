//! Invariants of the solid world on terrains no one shipped: random boxes,
//! balls and pillars, added and carved over rolling ground, and creatures
//! walking among them.

mod common;

use std::sync::Arc;

use glam::Vec3;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use skitter::sim::{Command, World};
use skitter::terrain::{Heightfield, NoiseSpec, Shape, ShapeKind, TerrainSpec};

/// Gently rolling ground with `shapes` on it.
fn world_of(shapes: Vec<Shape>) -> Heightfield {
    let mut spec = common::shipped_terrain("hills");
    spec.size = [40.0, 40.0];
    spec.noise = NoiseSpec {
        amplitude: 0.4,
        ..spec.noise
    };
    Heightfield::generate(&TerrainSpec { shapes, ..spec })
}

fn shape() -> impl Strategy<Value = Shape> {
    (
        0usize..3,
        (-6.0f32..6.0, -1.0f32..3.0, -6.0f32..6.0),
        (0.05f32..3.0, 0.05f32..3.0, 0.05f32..3.0),
        -180.0f32..180.0,
        any::<bool>(),
    )
        .prop_map(|(kind, (x, y, z), (a, b, c), yaw, subtract)| {
            let kind = [ShapeKind::Box, ShapeKind::Sphere, ShapeKind::Cylinder][kind];
            let half = match kind {
                ShapeKind::Box => Vec3::new(a, b, c),
                ShapeKind::Sphere => Vec3::splat(a),
                ShapeKind::Cylinder => Vec3::new(a, b, a),
            };
            Shape::new(kind, Vec3::new(x, y, z), half, yaw.to_radians(), subtract)
        })
}

proptest! {
    #![proptest_config(common::deterministic(96))]

    /// A ray stops at the first solid point: no sample of it before the
    /// hit is inside the solid, one just past the hit is (or the hit is on
    /// the surface), and a ray that hits nothing has no solid sample.
    #[test]
    fn rays_stop_at_the_first_solid_point(
        shapes in prop::collection::vec(shape(), 1..6),
        origin in (-8.0f32..8.0, 0.5f32..6.0, -8.0f32..8.0),
        direction in (-1.0f32..1.0, -1.0f32..0.3, -1.0f32..1.0),
    ) {
        let field = world_of(shapes);
        let ground = field.world();
        let origin = Vec3::new(origin.0, origin.1, origin.2);
        let direction = Vec3::new(direction.0, direction.1, direction.2);
        prop_assume!(direction.length() > 0.1 && !ground.inside(origin));
        let direction = direction.normalize();
        let max = 20.0;
        let hit = ground.raycast(origin, direction, max);
        let end = hit.map_or(max, |h| h.distance);
        let samples = 2000;
        for k in 0..samples {
            let t = end * k as f32 / samples as f32;
            if t < end - 1e-3 {
                let p = origin + direction * t;
                prop_assert!(!ground.inside(p), "solid at {t} before the hit at {end}: {p}");
            }
        }
        if let Some(hit) = hit {
            prop_assert!(hit.point.is_finite());
            let past = origin + direction * (hit.distance + 2e-3);
            prop_assert!(
                ground.inside(past) || ground.signed_distance(hit.point).abs() < 0.02,
                "nothing solid just past the hit {hit:?}"
            );
        }
    }

    /// Distances are finite and agree in sign with inside/outside away
    /// from the surface, and the closest point lands nearer the surface
    /// than the point it started from.
    #[test]
    fn distances_agree_with_inside(
        shapes in prop::collection::vec(shape(), 1..6),
        p in (-8.0f32..8.0, -2.0f32..5.0, -8.0f32..8.0),
    ) {
        let field = world_of(shapes);
        let ground = field.world();
        let p = Vec3::new(p.0, p.1, p.2);
        let (d, normal) = ground.distance_and_normal(p);
        prop_assert!(d.is_finite() && normal.is_finite());
        prop_assert!((normal.length() - 1.0).abs() < 1e-3);
        if d.abs() > 1e-3 {
            prop_assert_eq!(ground.inside(p), d < 0.0, "d = {} at {}", d, p);
        }
        let q = ground.closest_point(p);
        prop_assert!(q.is_finite());
        prop_assert!(ground.signed_distance(q).abs() <= d.abs() + 1e-4);
    }
}

/// A spider and a biped walking for 10 s among random solids (seeded, so
/// always the same ones): nothing goes NaN, the biped stays upright, and
/// whatever they meet, the run ends.
#[test]
fn creatures_walk_among_random_solids_without_going_nan() {
    let mut runner = proptest::test_runner::TestRunner::new(common::deterministic(1));
    for (round, creature) in ["spider", "biped"].into_iter().cycle().take(8).enumerate() {
        let shapes = prop::collection::vec(shape(), 3..10)
            .new_tree(&mut runner)
            .unwrap()
            .current();
        let field = Arc::new(world_of(shapes));
        let mut world = World::new(field, common::shipped_creature(creature), 1);
        world
            .apply(Command::Drive {
                forward: 1.0,
                turn: 0.3,
            })
            .unwrap();
        for _ in 0..1200 {
            world.step();
        }
        let m = world.metrics();
        assert_eq!(m.nan_count, 0, "round {round}: {creature} went NaN");
        assert_eq!(m.gait_violations, 0, "round {round}: {creature}");
        let body = &world.creatures()[0].body;
        assert!(body.position.is_finite(), "round {round}: {creature}");
        if creature == "biped" {
            assert!(body.up().y > 0.5, "round {round}: the biped turned over");
        }
    }
}

/// Inside a wall standing flush on the floor, just over the floor, the way
/// out is by a side face, not by the base (which leads into the ground):
/// measured by the nearest face alone, a climber's knee 0.1 m into the
/// base of the overhang room's back wall read 6 mm deep, and the knee
/// guard left it there.
#[test]
fn a_point_in_a_walls_base_is_as_deep_as_its_way_out_by_a_side() {
    let wall = Heightfield::generate(&common::shipped_terrain("wall"));
    let ground = wall.world();
    // The wall spans x 4.5–5.5 from the floor (y = 0) up to 3 m.
    let p = Vec3::new(5.2, 0.006, 3.0);
    let (d, normal) = ground.distance_and_normal(p);
    assert!((d + 0.3).abs() < 1e-4, "{d}");
    assert!((normal - Vec3::X).length() < 1e-4, "{normal}");
    let out = ground.closest_point(p);
    assert!((out - Vec3::new(5.5, 0.006, 3.0)).length() < 1e-3, "{out}");
    // The room's back wall (x 10–11, carved from x 10 inward): 70 mm in,
    // the way out is into the room.
    let room = Heightfield::generate(&common::shipped_terrain("overhang"));
    let ground = room.world();
    let (d, normal) = ground.distance_and_normal(Vec3::new(10.07, 0.0063, -0.278));
    assert!((d + 0.07).abs() < 1e-4, "{d}");
    assert!((normal + Vec3::X).length() < 1e-4, "{normal}");
    // Over the floor in the open the distance is the gap, as before.
    let (d, _) = ground.distance_and_normal(Vec3::new(2.0, 0.006, 0.0));
    assert!((d - 0.006).abs() < 1e-5, "{d}");
}

/// A wall flush on the floor with a block set into it: a point inside both,
/// just over the floor, deeper in the block by the block's own faces than
/// over the wall's base, is as deep as the wall's way out by a side.
#[test]
fn a_point_in_a_walls_base_and_a_block_in_it_is_as_deep_as_its_way_out() {
    let mut spec = common::shipped_terrain("wall");
    let wall = spec.shapes[0];
    let block = Shape::new(
        ShapeKind::Box,
        Vec3::new(5.2, 0.2, 0.0),
        Vec3::new(0.05, 0.25, 0.5),
        0.0,
        false,
    );
    spec.shapes = vec![wall, block];
    let field = Heightfield::generate(&spec);
    let ground = field.world();
    // In the wall (x 4.5–5.5) 6 mm over its base, in the block 50 mm in
    // by its sides: out of both by the wall's face at x = 5.5.
    let (d, normal) = ground.distance_and_normal(Vec3::new(5.2, 0.006, 0.0));
    assert!((d + 0.3).abs() < 1e-4, "{d}");
    assert!((normal - Vec3::X).length() < 1e-4, "{normal}");
}

//! Terrain: grid sampling, interpolation, normals, and the one ray cast every
//! part of skitter uses.

use glam::Vec3;
use proptest::prelude::*;
use skitter::config::{TERRAINS, parse_terrain};
use skitter::terrain::Heightfield;

mod common;

fn terrain(text: &str) -> Heightfield {
    Heightfield::generate(&parse_terrain("t.toml", text).unwrap())
}

fn flat(base: f32) -> Heightfield {
    terrain(&format!(
        "name = \"flat\"\nsize = [20.0, 20.0]\nresolution = 0.5\n[noise]\nfractal = \"flat\"\nbase = {base}\n"
    ))
}

fn hills() -> Heightfield {
    Heightfield::generate(&parse_terrain("hills", TERRAINS[0].text).unwrap())
}

/// The rough terrain, generated once for all property cases.
fn rough() -> &'static Heightfield {
    static ROUGH: std::sync::OnceLock<Heightfield> = std::sync::OnceLock::new();
    ROUGH.get_or_init(|| Heightfield::generate(&parse_terrain("rough", TERRAINS[3].text).unwrap()))
}

#[test]
fn flat_ground_is_flat_and_rays_hit_it_exactly() {
    let t = flat(1.5);
    assert_eq!(t.height(3.3, -2.1), 1.5);
    assert_eq!(t.normal(0.0, 0.0), Vec3::Y);
    let hit = t.raycast(Vec3::new(1.0, 5.0, 2.0), -Vec3::Y, 10.0).unwrap();
    assert_eq!(hit.point, Vec3::new(1.0, 1.5, 2.0));
    assert!((hit.distance - 3.5).abs() < 1e-3);
    let slanted = t
        .raycast(Vec3::new(0.0, 4.5, 0.0), Vec3::new(1.0, -1.0, 0.0), 10.0)
        .unwrap();
    assert!(
        (slanted.point - Vec3::new(3.0, 1.5, 0.0)).length() < 2e-3,
        "{slanted:?}"
    );
}

#[test]
fn rays_that_cannot_hit_return_none() {
    let t = flat(0.0);
    assert!(
        t.raycast(Vec3::new(0.0, 1.0, 0.0), Vec3::Y, 10.0).is_none(),
        "pointing up"
    );
    assert!(
        t.raycast(Vec3::new(0.0, 1.0, 0.0), Vec3::X, 10.0).is_none(),
        "parallel"
    );
    assert!(
        t.raycast(Vec3::new(0.0, 5.0, 0.0), -Vec3::Y, 2.0).is_none(),
        "too short"
    );
    assert!(
        t.raycast(Vec3::new(0.0, -1.0, 0.0), -Vec3::Y, 10.0)
            .is_none(),
        "starts underground"
    );
    assert!(
        t.raycast(Vec3::new(0.0, 1.0, 0.0), Vec3::ZERO, 10.0)
            .is_none(),
        "no direction"
    );
    assert!(
        t.raycast(Vec3::splat(f32::NAN), -Vec3::Y, 10.0).is_none(),
        "NaN origin"
    );
    assert!(
        t.raycast(Vec3::new(0.0, 1.0, 0.0), -Vec3::Y, f32::NAN)
            .is_none(),
        "NaN length"
    );
}

#[test]
fn outside_the_grid_the_edge_continues_flat() {
    let t = hills();
    let (lo, hi) = t.bounds();
    assert_eq!(t.height(hi.x + 50.0, 0.0), t.height(hi.x, 0.0));
    assert_eq!(t.height(0.0, lo.y - 50.0), t.height(0.0, lo.y));
    assert!(t.height(1e30, -1e30).is_finite());
}

#[test]
fn normals_point_up_the_slope_they_describe() {
    let t = hills();
    for (x, z) in [(1.3, 4.2), (-20.0, 7.5), (33.3, -12.1)] {
        let n = t.normal(x, z);
        assert!((n.length() - 1.0).abs() < 1e-5 && n.y > 0.0);
        // Moving a little along the downhill direction lowers the ground.
        let downhill = Vec3::new(n.x, 0.0, n.z).normalize_or_zero() * 0.05;
        if downhill != Vec3::ZERO {
            assert!(t.height(x + downhill.x, z + downhill.z) <= t.height(x, z) + 1e-4);
        }
    }
}

#[test]
fn same_seed_same_terrain_other_seed_other_terrain() {
    let a = hills();
    let b = hills();
    assert_eq!(a.height(12.3, 4.5), b.height(12.3, 4.5));
    let mut spec = a.spec().clone();
    spec.seed += 1;
    let c = Heightfield::generate(&spec);
    assert_ne!(a.height(12.3, 4.5), c.height(12.3, 4.5));
}

proptest! {
    #![proptest_config(common::deterministic(200))]

    /// A ray's hit is on the surface, and no point of the ray before it is
    /// underground (checked by dense sampling): the march never tunnels.
    #[test]
    fn rays_hit_the_first_surface_point(
        x in -60.0f32..60.0,
        z in -60.0f32..60.0,
        height in 0.2f32..4.0,
        dx in -1.5f32..1.5,
        dz in -1.5f32..1.5,
    ) {
        let t = rough();
        let origin = Vec3::new(x, t.height(x, z) + height, z);
        let direction = Vec3::new(dx, -1.0, dz).normalize();
        if let Some(hit) = t.raycast(origin, direction, 30.0) {
            prop_assert!((hit.point.y - t.height(hit.point.x, hit.point.z)).abs() < 1e-4);
            let along = origin + direction * hit.distance;
            prop_assert!(along.distance(hit.point) < 2e-3, "{hit:?} vs {along}");
            let samples = 2000;
            for i in 0..samples {
                let p = origin + direction * (hit.distance * i as f32 / samples as f32);
                prop_assert!(p.y >= t.height(p.x, p.z) - 2e-3, "underground at {p} before the hit {hit:?}");
            }
        }
    }
}

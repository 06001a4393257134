//! Terrain: grid sampling, interpolation, normals, and the one ray cast every
//! part of skitter uses.

use glam::Vec3;
use proptest::prelude::*;
use skitter::config::{TERRAINS, parse_terrain};
use skitter::terrain::{GridOrigin, Heightfield};

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
fn the_terrain_has_no_edge_far_heights_are_the_noise_itself() {
    let t = hills();
    let spec = t.spec();
    let noise = spec.noise.sampler(spec.seed);
    let spacing = f64::from(t.spacing());
    // Grid points 10 km out in every direction, far past the extent made at start.
    for (i, j) in [
        (20_000i64, 3),
        (-20_000, 7),
        (5, 20_001),
        (-19_999, -20_000),
    ] {
        let expected = noise(i as f64 * spacing, j as f64 * spacing) as f32;
        let ground = t.at(GridOrigin { x: i, z: j });
        assert_eq!(ground.height(0.0, 0.0), expected, "grid point ({i}, {j})");
    }
    assert!(t.height(1e30, -1e30).is_finite());
    assert!(t.height(f32::NAN, 0.0).is_nan());
}

/// Every resolution, not only the shipped 0.5 m: chunk sizes follow the
/// resolution, and a chunk lookup that assumed the wrong size once read
/// heights 0.3 m off at 0.3755 m.
#[test]
fn cached_heights_are_the_noise_at_any_resolution() {
    for resolution in ["0.02", "0.0731", "0.3755", "0.5", "1.9", "7.3"] {
        let text = TERRAINS[0]
            .text
            .replace("resolution = 0.5 ", &format!("resolution = {resolution} "));
        let mut t = terrain(&text);
        let spec = t.spec().clone();
        let noise = spec.noise.sampler(spec.seed);
        let spacing = f64::from(t.spacing());
        t.prepare_around(GridOrigin { x: 37, z: -52 }, Vec3::ZERO, 6.0);
        for (i, j) in [
            (0i64, 0i64),
            (37, -52),
            (40, -50),
            (-1, -1),
            (31, 33),
            (100, 7),
            (-9_000, 77),
        ] {
            let expected = noise(i as f64 * spacing, j as f64 * spacing) as f32;
            let got = t.at(GridOrigin { x: i, z: j }).height(0.0, 0.0);
            assert_eq!(
                got, expected,
                "resolution {resolution}, grid point ({i}, {j})"
            );
            // Between grid points too: a quarter cell in, seen from a neighbour's frame.
            let quarter = t.spacing() * 0.25;
            let from_neighbour = t
                .at(GridOrigin { x: i - 1, z: j })
                .height(t.spacing() + quarter, 0.0);
            let here = t.at(GridOrigin { x: i, z: j }).height(quarter, 0.0);
            assert!(
                (from_neighbour - here).abs() <= 1e-5 * (1.0 + here.abs()),
                "resolution {resolution}"
            );
        }
    }
}

#[test]
fn heights_do_not_depend_on_the_order_chunks_are_made_in() {
    let far = GridOrigin {
        x: 30_000,
        z: -12_345,
    };
    let mut a = hills();
    let mut b = hills();
    let points = [(0.3, 0.7), (-3.1, 5.9), (7.77, -2.25), (15.5, 15.5)];
    let before: Vec<f32> = points
        .iter()
        .map(|&(x, z)| a.at(far).height(x, z))
        .collect();
    a.prepare_around(far, Vec3::ZERO, 20.0);
    b.prepare_around(GridOrigin { x: -500, z: 900 }, Vec3::ZERO, 40.0);
    b.prepare_around(far, Vec3::new(10.0, 0.0, 10.0), 20.0);
    for (k, &(x, z)) in points.iter().enumerate() {
        let (ha, hb) = (a.at(far).height(x, z), b.at(far).height(x, z));
        assert_eq!(ha, hb, "at ({x}, {z})");
        assert_eq!(ha, before[k], "cached and uncached differ at ({x}, {z})");
    }
    assert!(a.chunks_generated() > hills().chunks_generated());
}

#[test]
fn a_local_frame_is_the_world_shifted_by_whole_cells() {
    let t = hills();
    let origin = GridOrigin { x: 40, z: -24 };
    let (dx, dz) = (40.0 * t.spacing(), -24.0 * t.spacing());
    for (x, z) in [(0.25, 0.5), (-3.5, 1.75), (2.0, -7.25)] {
        assert_eq!(t.at(origin).height(x, z), t.height(x + dx, z + dz));
    }
    let local = t
        .at(origin)
        .raycast(Vec3::new(0.5, 10.0, 0.5), -Vec3::Y, 30.0)
        .unwrap();
    let world = t
        .raycast(Vec3::new(0.5 + dx, 10.0, 0.5 + dz), -Vec3::Y, 30.0)
        .unwrap();
    assert!((local.point.y - world.point.y).abs() < 1e-5);
}

#[test]
fn the_chunk_cache_is_bounded_however_far_one_walks() {
    let mut t = hills();
    let capacity = t.cache_capacity();
    for k in 0..200i64 {
        t.prepare_around(
            GridOrigin {
                x: k * 97,
                z: -k * 61,
            },
            Vec3::ZERO,
            12.0,
        );
        assert!(t.cached_chunks() <= capacity);
    }
    assert!(
        t.chunks_generated() > capacity as u64,
        "walking far makes new chunks"
    );
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

/// Ridged noise 6 m high read on its lattice: a steep peak at the origin
/// and knife-edge crests.
fn ridged_peaks() -> &'static Heightfield {
    static RIDGED: std::sync::OnceLock<Heightfield> = std::sync::OnceLock::new();
    RIDGED.get_or_init(|| {
        terrain(
            "name = \"ridges\"\nseed = 10\n[noise]\nfractal = \"ridged\"\nfrequency = 0.04\namplitude = 6.0\noctaves = 4\noffset = [0.0, 0.0]\n",
        )
    })
}

/// The highest and the lowest height on a 0.25 m grid over the 4 m square
/// round the origin, less the origin's own.
fn round_the_origin(t: &Heightfield) -> (f32, f32) {
    let mut range = (f32::NEG_INFINITY, f32::INFINITY);
    for i in -8i8..=8 {
        for k in -8i8..=8 {
            if (i, k) != (0, 0) {
                let h = t.height(f32::from(i) * 0.25, f32::from(k) * 0.25);
                range = (range.0.max(h), range.1.min(h));
            }
        }
    }
    range
}

/// Gradient noise is zero on its lattice in every octave, so ridged noise
/// read there peaks on the spawn for any seed, and billow bottoms out:
/// read there (`offset = [0, 0]`) the origin is the highest (lowest) point
/// round it on every seed. Read off it, as a file that names no offset
/// is, the spawn is ordinary ground: no spike or pit, on any of these seeds.
#[test]
fn ridged_and_billow_noise_put_no_spike_or_pit_on_the_spawn() {
    for seed in 0..12 {
        for (fractal, spike) in [("ridged", true), ("billow", false)] {
            let text = |offset: &str| {
                format!(
                    "name = \"n\"\nseed = {seed}\n[noise]\nfractal = \"{fractal}\"\nfrequency = 0.04\namplitude = 6.0\n{offset}"
                )
            };
            // How far the origin stands out of all round it: above for
            // ridged noise's spike, below for billow's pit.
            let stands_out = |t: &Heightfield| {
                let (highest, lowest) = round_the_origin(t);
                let origin = t.height(0.0, 0.0);
                if spike {
                    origin - highest
                } else {
                    lowest - origin
                }
            };
            let on_lattice = stands_out(&terrain(&text("offset = [0.0, 0.0]\n")));
            assert!(on_lattice > 0.0, "{fractal} seed {seed}: {on_lattice}");
            // (Only the one way: ridged valleys are flat at the bottom of
            // its range, and the spawn may lie on one, level with all
            // round it.)
            let off_lattice = stands_out(&terrain(&text("")));
            assert!(off_lattice < 0.0, "{fractal} seed {seed}: {off_lattice}");
        }
    }
}

proptest! {
    #![proptest_config(common::deterministic(300))]

    /// The surface point nearest a point near a steep crest lies on the
    /// ground. (The ground's distance is only a bound there: the steps
    /// along its gradient stopped up to 4 cm over a flank, a climber's
    /// foothold was set in the air, and the leg stepped to it for good.)
    #[test]
    fn the_nearest_ground_point_is_on_the_ground(
        x in -8.0f32..8.0,
        z in -8.0f32..8.0,
        height in -0.5f32..1.5,
    ) {
        let t = ridged_peaks();
        let ground = t.at(GridOrigin::default());
        let p = Vec3::new(x, t.height(x, z) + height, z);
        let q = ground.closest_point(p);
        prop_assert!((q.y - t.height(q.x, q.z)).abs() < 1e-4, "{p} -> {q}, ground {} there", t.height(q.x, q.z));
        let vertical = (p.y - t.height(x, z)).abs();
        prop_assert!(q.distance(p) <= vertical + 1e-4, "{p} -> {q}: farther than the vertical's {vertical}");
    }
}

proptest! {
    #![proptest_config(common::deterministic(400))]

    /// The floor under a normal's y, which lets the metrics skip a knee's
    /// normal, is under the normal's y wherever the ground is cached, on
    /// steep peaks and across chunk edges (and known there: not zero).
    #[test]
    fn the_normal_never_tilts_past_its_floor(
        x in -20.0f32..20.0,
        z in -20.0f32..20.0,
        below in (0.0f32..3.0, 0.0f32..3.0),
        above in (0.0f32..3.0, 0.0f32..3.0),
    ) {
        let t = ridged_peaks();
        let ground = t.at(GridOrigin::default());
        // Over the point alone, and over a rectangle holding it.
        let point = glam::Vec2::new(x, z);
        let (lo, hi) = (point - glam::Vec2::from(below), point + glam::Vec2::from(above));
        let floor = ground.normal_y_floor(point, point);
        prop_assert!(ground.normal_y_floor(lo, hi) <= floor);
        let floor = ground.normal_y_floor(lo, hi);
        let normal = ground.normal(x, z);
        prop_assert!(floor > 0.0, "({x}, {z}): no floor");
        prop_assert!(normal.y >= floor, "({x}, {z}): normal {normal}, floor {floor}");
    }
}

/// The least of `point.y - ground` over a lattice of `n × n` points on each
/// face of the box: what the exact box gap must never be above.
fn lattice_box_gap(
    ground: &skitter::terrain::Ground<'_>,
    centre: Vec3,
    q: glam::Quat,
    half: Vec3,
    n: usize,
) -> f32 {
    let axes = [
        q * Vec3::X * half.x,
        q * Vec3::Y * half.y,
        q * Vec3::Z * half.z,
    ];
    let mut least = f32::INFINITY;
    for k in 0..3 {
        let (i, j) = ((k + 1) % 3, (k + 2) % 3);
        for sign in [1.0f32, -1.0] {
            for a in 0..=n {
                for b in 0..=n {
                    let s = 2.0 * a as f32 / n as f32 - 1.0;
                    let t = 2.0 * b as f32 / n as f32 - 1.0;
                    let p = centre + axes[k] * sign + axes[i] * s + axes[j] * t;
                    least = least.min(p.y - ground.height(p.x, p.z));
                }
            }
        }
    }
    least
}

#[test]
fn a_box_over_flat_ground_is_as_high_as_its_lowest_corner() {
    let t = flat(1.5);
    let ground = t.world();
    let q = glam::Quat::from_rotation_z(0.3) * glam::Quat::from_rotation_y(0.7);
    let half = Vec3::new(0.6, 0.1, 0.2);
    let centre = Vec3::new(2.3, 2.0, -1.1);
    let lowest = [-1.0f32, 1.0]
        .into_iter()
        .flat_map(|x| {
            [-1.0f32, 1.0]
                .into_iter()
                .flat_map(move |y| [-1.0f32, 1.0].map(|z| Vec3::new(x, y, z)))
        })
        .map(|s| (centre + q * (s * half)).y)
        .fold(f32::INFINITY, f32::min);
    let gap = ground.box_ground_gap(centre, q, half, f32::INFINITY);
    assert!(
        (gap.gap - (lowest - 1.5)).abs() < 1e-5,
        "{gap:?} against {}",
        lowest - 1.5
    );
    // Sunk half a metre, it reports the ground half a metre in.
    let sunk = ground.box_ground_gap(centre - Vec3::Y * (lowest - 1.0), q, half, f32::INFINITY);
    assert!((sunk.gap + 0.5).abs() < 1e-5, "{sunk:?}");
}

#[test]
fn a_box_with_a_nan_coordinate_has_a_nan_gap() {
    let t = hills();
    let gap = t.world().box_ground_gap(
        Vec3::new(f32::NAN, 1.0, 0.0),
        glam::Quat::IDENTITY,
        Vec3::splat(0.2),
        0.04,
    );
    assert!(gap.gap.is_nan());
}

#[test]
fn a_box_well_above_the_ground_gets_a_bound_at_least_the_margin_and_at_most_the_gap() {
    let q = glam::Quat::from_rotation_z(0.2);
    let half = Vec3::new(0.5, 0.1, 0.3);
    // Over level ground the bound is the gap itself.
    let level = flat(1.5);
    let exact = level
        .world()
        .box_ground_gap(Vec3::new(1.0, 3.0, 2.0), q, half, f32::INFINITY);
    let bound = level
        .world()
        .box_ground_gap(Vec3::new(1.0, 3.0, 2.0), q, half, 0.04);
    assert!(
        (bound.gap - exact.gap).abs() < 1e-5,
        "{bound:?} against {exact:?}"
    );
    // Over the rough ground a bound, between the margin and the gap.
    let t = rough();
    let ground = t.world();
    let mut bounded = 0;
    for k in 0..50 {
        let (x, z) = (k as f32 * 0.9 - 20.0, k as f32 * 0.4 - 10.0);
        let centre = Vec3::new(x, t.height(x, z) + 2.0 + k as f32 * 0.05, z);
        let exact = ground.box_ground_gap(centre, q, half, f32::INFINITY);
        let bound = ground.box_ground_gap(centre, q, half, 0.04);
        assert!(
            bound.gap >= 0.04 || bound == exact,
            "{bound:?} against {exact:?}"
        );
        assert!(bound.gap <= exact.gap + 1e-5, "{bound:?} above {exact:?}");
        bounded += usize::from(bound.gap < exact.gap - 1e-3);
    }
    assert!(bounded > 0, "no box stood high enough to be bounded");
    // Near the ground, below the margin, it is the exact gap.
    let centre = Vec3::new(3.0, t.height(3.0, 4.0) + 0.1, 4.0);
    let exact = ground.box_ground_gap(centre, q, half, f32::INFINITY);
    assert!(exact.gap < 0.04, "{exact:?}");
    assert_eq!(ground.box_ground_gap(centre, q, half, 0.04), exact);
}

#[test]
fn a_long_box_on_a_crest_meets_it_between_its_corners() {
    // Lay a 2.2 m box level on the rough ground, as low as its corners and
    // the points under its ends and middle allow, across many places: on
    // some of them the ground rises into it between those points, and the
    // exact gap says so.
    let t = rough();
    let ground = t.world();
    let half = Vec3::new(1.1, 0.08, 0.16);
    let mut missed = 0.0f32;
    for k in 0..200 {
        let (x, z) = (k as f32 * 0.37 - 37.0, (k as f32 * 0.61).sin() * 20.0);
        let q = glam::Quat::from_rotation_y(k as f32 * 0.3);
        let probes = [-1.0f32, -0.5, 0.0, 0.5, 1.0]
            .into_iter()
            .flat_map(|s| [-1.0f32, 1.0].map(|w| q * Vec3::new(s * half.x, -half.y, w * half.z)));
        let top = probes
            .map(|p| ground.height(x + p.x, z + p.z) - p.y)
            .fold(f32::NEG_INFINITY, f32::max);
        let centre = Vec3::new(x, top, z);
        let gap = ground.box_ground_gap(centre, q, half, f32::INFINITY);
        missed = missed.min(gap.gap);
        assert!(
            gap.gap <= 1e-5,
            "the probes themselves touch the ground: {gap:?}"
        );
    }
    assert!(
        missed < -0.02,
        "the ground never rose between the probes: {missed}"
    );
}

#[test]
fn a_peak_under_the_middle_of_a_level_box_is_found() {
    // A grid vertex of the rough ground higher than all around it, under the
    // middle of a level box whose underside is 1 cm below the peak: the box's
    // edges and corners, 0.4 m out, are all clear of the ground.
    let t = rough();
    let ground = t.world();
    let spacing = t.spacing();
    let half = Vec3::new(0.4, 0.05, 0.4);
    let peak = (-100..100)
        .flat_map(|i| {
            (-100..100).map(move |j| Vec3::new(i as f32 * spacing, 0.0, j as f32 * spacing))
        })
        .map(|p| Vec3::new(p.x, ground.height(p.x, p.z), p.z))
        .find(|p| {
            // Every point 0.4 m or more out, up to the box's corners, is
            // 5 cm below it.
            (0..64).all(|k| {
                let angle = k as f32 * std::f32::consts::TAU / 64.0;
                [0.4f32, 0.5, 0.566].iter().all(|r| {
                    let (x, z) = (p.x + r * angle.cos(), p.z + r * angle.sin());
                    ground.height(x, z) < p.y - 0.05
                })
            })
        })
        .expect("the rough ground has a sharp peak");
    let centre = peak + Vec3::Y * (half.y - 0.01);
    let gap = ground.box_ground_gap(centre, glam::Quat::IDENTITY, half, f32::INFINITY);
    assert!((gap.gap + 0.01).abs() < 1e-4, "{gap:?}");
    assert!(
        gap.at.distance(peak - Vec3::Y * 0.01) < 1e-4,
        "{gap:?} is not at the peak {peak}"
    );
}

proptest! {
    #![proptest_config(common::deterministic(150))]

    /// The exact gap is the box's own (its point is on the box, its gap is
    /// that point's height over the ground), and no point of a fine lattice
    /// over the box's faces is lower.
    #[test]
    fn the_box_gap_is_the_least_over_the_whole_box(
        x in -60.0f32..60.0,
        z in -60.0f32..60.0,
        lift in -0.4f32..0.6,
        yaw in -3.2f32..3.2,
        pitch in -1.2f32..1.2,
        roll in -1.2f32..1.2,
        hx in 0.05f32..1.6,
        hy in 0.02f32..0.3,
        hz in 0.05f32..0.6,
    ) {
        let t = rough();
        let ground = t.world();
        let q = glam::Quat::from_rotation_y(yaw) * glam::Quat::from_rotation_z(pitch) * glam::Quat::from_rotation_x(roll);
        let half = Vec3::new(hx, hy, hz);
        let centre = Vec3::new(x, t.height(x, z) + lift, z);
        let gap = ground.box_ground_gap(centre, q, half, f32::INFINITY);
        let local = q.inverse() * (gap.at - centre);
        prop_assert!(local.abs().cmple(half * 1.001 + Vec3::splat(1e-4)).all(), "{gap:?} is off the box: {local}");
        let own = gap.at.y - ground.height(gap.at.x, gap.at.z);
        prop_assert!((own - gap.gap).abs() < 2e-4, "{gap:?} but the ground there gives {own}");
        let lattice = lattice_box_gap(&ground, centre, q, half, 48);
        prop_assert!(gap.gap <= lattice + 2e-4, "{gap:?} above the lattice's {lattice}");
    }
}

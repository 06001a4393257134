//! The viewer with many creatures: every one near the camera drawn, the
//! camera and the stats following the one chosen with n/m, far ones left
//! out, and a picture that stands still not redrawn.

mod common;

use glam::Vec3;
use skitter::render::{Ink, Projection, ViewKind, render_view};
use skitter::tui::{Action, App, Sources, draw};

fn scene_app(scene: &str) -> App {
    let path = format!("{}/scenes/{scene}", env!("CARGO_MANIFEST_DIR"));
    let sources = Sources {
        creature: "spider".into(),
        terrain: "hills".into(),
        scene: Some(path),
        seed: None,
    };
    App::load(sources, None).unwrap()
}

fn frame(app: &App, width: u16, height: u16) -> String {
    common::screen_text(width, height, |f| draw(f, app))
}

/// The zoo after two seconds of its scripts.
fn zoo() -> App {
    let mut app = scene_app("zoo.toml");
    app.camera.zoom = 0.4;
    for _ in 0..40 {
        app.advance(0.05);
    }
    app
}

#[test]
fn snapshot_zoo_top_view_following_the_hexapod() {
    let mut app = zoo();
    app.handle(Action::FollowNext(1));
    app.handle(Action::FollowNext(1));
    assert_eq!(app.world.followed(), 2);
    insta::assert_snapshot!(frame(&app, 120, 40));
}

#[test]
fn n_and_m_cycle_the_followed_creature_and_the_stats_follow() {
    let mut app = zoo();
    let names: Vec<String> = (0..6)
        .map(|_| {
            app.handle(Action::FollowNext(1));
            let text = frame(&app, 120, 40);
            text.lines()
                .find(|l| l.contains("creature "))
                .unwrap()
                .to_string()
        })
        .collect();
    for (line, name) in names.iter().zip([
        "biped",
        "hexapod",
        "strider",
        "octopod",
        "centipede",
        "spider",
    ]) {
        assert!(line.contains(name), "{line}");
    }
    assert_eq!(app.world.followed(), 0);
    app.handle(Action::FollowNext(-1));
    assert_eq!(app.world.followed(), 5, "m goes back, wrapping round");
    // The camera centres on the followed creature.
    let c = &app.world.creatures()[5];
    assert_eq!(app.camera.focus(&app.world), c.body.position);
}

#[test]
fn every_creature_in_view_is_drawn_and_far_ones_are_not() {
    let app = scene_app("swarm.toml");
    // Zoomed right out, the top view spans the whole swarm: creatures
    // (their bodies, legs and feet) all over the grid.
    let mut camera = app.camera;
    camera.zoom = 0.05;
    let wide = render_view(&app.world, ViewKind::Top, &camera, 200, 60);
    let marks = |grid: &skitter::render::Grid| {
        (0..grid.height())
            .flat_map(|y| (0..grid.width()).map(move |x| (x, y)))
            .filter(|(x, y)| {
                grid.get(*x, *y)
                    .is_some_and(|c| !matches!(c.ink, Ink::Empty | Ink::Ground(_)))
            })
            .count()
    };
    let shown = marks(&wide);
    // 1000 spiders 2.5 m apart over 100 x 62.5 m: at 0.7 cells a metre
    // that is most of a 70 x 22-cell patch.
    assert!(
        shown >= 1000,
        "only {shown} cells of creatures for 1000 of them"
    );
    // At the default zoom only the neighbourhood shows.
    let near = render_view(&app.world, ViewKind::Top, &app.camera, 200, 60);
    let few = marks(&near);
    assert!(
        few > 0 && few < shown,
        "{few} cells near the camera, {shown} zoomed out"
    );
}

#[test]
fn culling_never_hides_what_would_land_on_the_grid() {
    let app = scene_app("zoo.toml");
    for view in [
        ViewKind::Top,
        ViewKind::Side,
        ViewKind::Front,
        ViewKind::Perspective,
    ] {
        let projection = Projection::new(view, &app.camera, &app.world, 80, 24, 2.0);
        let radius = 1.5;
        // Points on a lattice around the focus, out to 200 m: wherever one
        // within `radius` of a centre lands on the grid, the centre is kept.
        for i in -40..=40 {
            for k in -40..=40 {
                let centre = Vec3::new(i as f32 * 5.0, 1.0, k as f32 * 5.0);
                let lands = [
                    Vec3::X,
                    Vec3::NEG_X,
                    Vec3::Z,
                    Vec3::NEG_Z,
                    Vec3::Y,
                    Vec3::NEG_Y,
                    Vec3::ZERO,
                ]
                .into_iter()
                .filter_map(|d| projection.project(centre + d * radius * 0.99))
                .filter(|(_, _, depth)| {
                    view != ViewKind::Perspective || *depth < skitter::render::FAR
                })
                .any(|(col, row, _)| (0.0..80.0).contains(&col) && (0.0..24.0).contains(&row));
                if lands {
                    assert!(projection.may_show(centre, radius), "{view:?} {centre}");
                }
            }
        }
    }
}

#[test]
fn a_creature_standing_still_keeps_the_same_picture_digest() {
    let mut app = scene_app("zoo.toml");
    // Stop every kind (the zoo's scripts would walk them) and let them settle.
    let mut still = App::new(
        app.world.kinds()[0].spec().as_ref().clone(),
        app.world.terrain().spec().clone(),
        Sources {
            creature: "spider".into(),
            terrain: "hills".into(),
            scene: None,
            seed: None,
        },
        None,
    );
    for _ in 0..100 {
        still.advance(0.05);
    }
    let digest = still.picture_digest();
    still.advance(0.05);
    assert_eq!(
        still.picture_digest(),
        digest,
        "a settled spider's picture is unchanged"
    );
    still.handle(Action::Faster);
    still.advance(0.05);
    assert_ne!(still.picture_digest(), digest, "walking changes it");
    // Following another creature changes it too.
    let before = app.picture_digest();
    app.handle(Action::FollowNext(1));
    assert_ne!(app.picture_digest(), before);
}

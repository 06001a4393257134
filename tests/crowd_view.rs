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
    // A second of the hexapod's own figures in the panel.
    for _ in 0..20 {
        app.advance(0.05);
    }
    insta::assert_snapshot!(frame(&app, 120, 40));
}

/// Following another creature while paused: the panel's live rows are its
/// own at once (its height, its balance, its legs' solves), and its maxima
/// start afresh, filled by the steps it takes from then on.
#[test]
fn a_creature_followed_while_paused_shows_its_own_figures_at_once() {
    let mut app = zoo();
    app.handle(Action::TogglePause);
    // The biped: two legs, never three feet down.
    app.handle(Action::FollowNext(1));
    let text = frame(&app, 120, 40);
    assert!(text.contains("creature biped 2/6 (2 legs)"), "{text}");
    assert!(text.contains("balance  <3 down"), "{text}");
    assert!(text.contains("slip max -  gait viol -"), "{text}");
    // The hexapod stands on three feet or more.
    app.handle(Action::FollowNext(1));
    let text = frame(&app, 120, 40);
    let live = app.world.live_figures().expect("the zoo has creatures");
    let margin = live.margin.expect("a hexapod on three feet or more");
    assert!(margin > 0.05, "{live:?}");
    assert!(
        text.contains(&format!("height   {:.3} m", live.body_height)),
        "{text}"
    );
    assert!(text.contains(&format!("balance  {margin:+.3} m")), "{text}");
    assert!(
        text.contains(&format!("{:.1} it", live.legs.ik_iterations_mean)),
        "{text}"
    );
    assert_eq!(app.followed.steps, 0);
    // A terminal too narrow for the panel says which of the six it is.
    let narrow = frame(&app, 60, 20);
    assert!(narrow.contains("hexapod 3/6 fabrik"), "{narrow}");
    // One step later its record holds that step, its own.
    app.handle(Action::SingleStep);
    assert_eq!(app.followed.steps, 1);
    let last = app.world.metrics().last;
    assert_eq!(app.followed.foot_slip_max, last.foot_slip_max);
    assert_eq!(
        last.ik_error_max,
        skitter::sim::StepFigures::of(&app.world.creatures()[2]).ik_error_max
    );
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

/// The baked playback stands in for one creature walking alone: in a
/// scene `p` says so and leaves the scene as it is.
#[test]
fn the_baked_playback_is_refused_in_a_scene() {
    let mut app = zoo();
    app.handle(Action::ToggleBaked);
    assert!(app.baked.is_none());
    let notice = app.notice.as_ref().expect("a notice").text.clone();
    assert!(
        notice.contains("one creature on its own, not one of 6"),
        "{notice}"
    );
    let text = frame(&app, 120, 40);
    assert!(text.contains("creature spider 1/6 (4 legs)"), "{text}");
}

/// A drive key while following a creature whose kind walks its scene
/// script takes the kind off the script (the keys were ignored without a
/// word). The first kind to leave keeps its own pace as the keys' start
/// (`w` on a creature at full speed left it at half); a later one joins
/// the kinds on the keys, and the notice names them.
#[test]
fn a_drive_key_takes_the_followed_kind_off_its_scene_script() {
    let mut app = zoo();
    app.handle(Action::FollowNext(1));
    assert_eq!(app.world.kind_of(app.world.followed()), 1);
    assert_eq!(app.world.creatures()[1].input.forward, 1.0);
    app.handle(Action::Faster);
    let notice = app.notice.as_ref().expect("a notice").text.clone();
    assert_eq!(notice, "the biped left its scene script: the keys drive it");
    for _ in 0..10 {
        app.advance(0.05);
    }
    assert_eq!(app.world.creatures()[1].input.forward, 1.0);
    app.handle(Action::Stop);
    for _ in 0..10 {
        app.advance(0.05);
    }
    assert_eq!(app.world.creatures()[1].input.forward, 0.0);
    // The other kinds keep walking their scripts.
    assert_eq!(app.world.creatures()[0].input.forward, 1.0);
    assert_eq!(app.world.creatures()[2].input.forward, 1.0);
    // The hexapod joins the biped on the keys.
    app.handle(Action::FollowNext(1));
    app.handle(Action::Turn(1.0));
    let notice = app.notice.as_ref().expect("a notice").text.clone();
    assert_eq!(
        notice,
        "the hexapod left its scene script: the keys drive it with the biped"
    );
    app.advance(0.05);
    assert_eq!(app.world.creatures()[2].input.forward, 0.0);
    assert_eq!(app.world.creatures()[2].input.turn, 1.0);
    assert_eq!(app.world.creatures()[3].input.forward, 1.0);
}

/// `g` in a scene starts it again on new ground with its kinds on their
/// scripts (a rebuild where they stood had left them to the keys, which
/// stood them still).
#[test]
fn a_new_seed_in_a_scene_keeps_its_scripts() {
    let mut app = zoo();
    let seed = app.world.terrain().spec().seed;
    app.handle(Action::NewSeed);
    assert_eq!(app.world.terrain().spec().seed, seed.wrapping_add(1));
    for _ in 0..10 {
        app.advance(0.05);
    }
    for creature in app.world.creatures() {
        assert!(creature.input.forward > 0.5, "{:?}", creature.input);
    }
}

//! The lab screen and the baked spider in the viewer, on ratatui's
//! TestBackend: a snapshot of a lab frame (fixed seed and step count, so it
//! is deterministic), every terminal size from 0x0 up, what the keys change
//! on screen, and the baked spider's feet floating on hills.

mod common;

use skitter::config::{load_creature, load_terrain};
use skitter::ik::SolverKind;
use skitter::lab::live::{LabScene, Rig};
use skitter::render::{Camera, Ink, ViewKind, render_lab};
use skitter::tui::{Action, App, LabAction, LabApp, Sources, draw, draw_lab};

fn lab(rig: Rig, steps: usize) -> LabApp {
    let mut app = LabApp::new(LabScene::new(rig, SolverKind::Fabrik, 1, None).unwrap());
    for _ in 0..steps {
        app.scene.step();
    }
    app
}

fn lab_frame(app: &LabApp, width: u16, height: u16) -> String {
    common::screen_text(width, height, |f| draw_lab(f, app))
}

fn viewer_frame(app: &App, width: u16, height: u16) -> String {
    common::screen_text(width, height, |f| draw(f, app))
}

#[test]
fn snapshot_lab_chain_tracking() {
    // Five seconds in: the chart holds the cold start and the tracking after.
    let app = lab(Rig::Chain, 300);
    insta::assert_snapshot!(lab_frame(&app, 120, 40));
}

#[test]
fn snapshot_lab_arm_pressing_buttons_in_four_views() {
    let mut app = lab(Rig::Arm, 200);
    app.handle(LabAction::ToggleSplit);
    insta::assert_snapshot!(lab_frame(&app, 140, 44));
}

#[test]
fn snapshot_lab_help() {
    let mut app = lab(Rig::Chain, 10);
    app.handle(LabAction::ToggleHelp);
    insta::assert_snapshot!(lab_frame(&app, 100, 32));
}

#[test]
fn tiny_terminals_get_a_message_and_every_size_draws() {
    let app = lab(Rig::Chain, 30);
    for (w, h) in [(20, 5), (0, 0), (1, 1), (39, 12), (40, 11), (10, 3)] {
        let text = lab_frame(&app, w, h);
        assert_eq!(text.lines().count(), h as usize, "{w}x{h}");
        if w >= 20 {
            assert!(text.contains("skitter lab needs"), "{w}x{h}: {text}");
        }
    }
    let text = lab_frame(&app, 60, 8);
    assert!(
        text.contains("needs at least 40x12; this terminal is 60x8"),
        "{text}"
    );
    let mut split = lab(Rig::Arm, 30);
    split.handle(LabAction::ToggleSplit);
    split.handle(LabAction::ToggleHelp);
    for (w, h) in [
        (40, 12),
        (41, 13),
        (80, 24),
        (99, 30),
        (99, 29),
        (100, 30),
        (300, 90),
    ] {
        for app in [&app, &split] {
            let text = lab_frame(app, w, h);
            assert_eq!(text.lines().count(), h as usize);
            assert!(text.contains("view"), "{w}x{h}\n{text}");
        }
    }
    // Narrow but tall: the charts go under the views.
    assert!(lab_frame(&app, 80, 40).contains("iterations per step"));
    // Narrow and short: one status line instead.
    assert!(lab_frame(&app, 80, 24).contains("chain tracking a sine | fabrik"));
}

#[test]
fn the_panel_shows_the_scene_and_keys_change_it_on_screen() {
    let mut app = lab(Rig::Chain, 120);
    let text = lab_frame(&app, 120, 40);
    assert!(text.contains("solver   fabrik (1 of 5)"), "{text}");
    assert!(text.contains("limits   on: 50° cones"), "{text}");
    assert!(text.contains("step     120  seed 1  rate 1×"), "{text}");
    let last = app.scene.history().back().copied().unwrap();
    assert!(
        text.contains(&format!("last     {} it", last.iterations)),
        "{text}"
    );
    app.handle(LabAction::CycleSolver);
    app.handle(LabAction::CycleSolver);
    let text = lab_frame(&app, 120, 40);
    assert!(text.contains("side view  ccd"), "{text}");
    assert!(text.contains("solver: ccd"), "{text}");
    app.handle(LabAction::SwitchRig);
    for _ in 0..40 {
        app.scene.step();
    }
    let text = lab_frame(&app, 120, 40);
    assert!(text.contains("buttons  "), "{text}");
    assert!(text.contains("on: elbow 0–150°, wrist 70°"), "{text}");
    assert!(
        text.contains("side view  ccd"),
        "the solver survives a rig change"
    );
}

#[test]
fn lab_views_are_pure_and_draw_the_whole_rig() {
    let app = lab(Rig::Chain, 200);
    for view in ViewKind::ALL {
        let a = render_lab(&app.scene, view, &Camera::default(), 80, 30);
        let b = render_lab(&app.scene, view, &Camera::default(), 80, 30);
        assert_eq!(a, b, "{view:?}");
        let count = |ink: Ink| {
            (0..30)
                .flat_map(|y| (0..80).map(move |x| (x, y)))
                .filter(|(x, y)| a.get(*x, *y).is_some_and(|c| c.ink == ink))
                .count()
        };
        // Ten bones of 90 mm: a few cells each, joints covering their ends;
        // the side view faces the plane the target sways in, the front view
        // sees it edge on.
        let least = if view == ViewKind::Front { 3 } else { 10 };
        assert!(
            count(Ink::Leg) + count(Ink::Joint) >= least,
            "{view:?}\n{}",
            a.to_text()
        );
        assert_eq!(count(Ink::Body), 1, "one root\n{}", a.to_text());
    }
    // The arm's front view faces the wall: every button shows.
    let arm = lab(Rig::Arm, 1);
    let front = render_lab(&arm.scene, ViewKind::Front, &Camera::default(), 100, 40);
    let buttons = front
        .to_text()
        .chars()
        .filter(|c| matches!(c, '+' | '*' | '@'))
        .count();
    assert_eq!(buttons, 12, "{}", front.to_text());
    assert_eq!(
        front.to_text().matches('@').count(),
        1,
        "the button being pressed"
    );
    // Empty and tiny grids do not panic.
    assert_eq!(
        render_lab(&arm.scene, ViewKind::Top, &Camera::default(), 0, 0).width(),
        0
    );
    render_lab(&arm.scene, ViewKind::Perspective, &Camera::default(), 1, 1);
}

fn viewer(terrain: &str) -> App {
    let sources = Sources {
        creature: "spider".into(),
        terrain: terrain.into(),
        scene: None,
        seed: None,
    };
    App::new(
        load_creature("spider").unwrap(),
        load_terrain(terrain).unwrap(),
        sources,
        None,
    )
}

#[test]
fn the_baked_spider_floats_over_hills_and_shows_its_gap() {
    let mut app = viewer("hills");
    app.show_baked().unwrap();
    let steps_before = app.world.metrics().steps;
    for _ in 0..1200 {
        app.step_world(1);
    }
    assert_eq!(
        app.world.metrics().steps,
        steps_before,
        "the IK world waits"
    );
    let baked = app.baked.as_ref().unwrap();
    let feet = baked.feet();
    // 10 s at the clip's speed.
    let travelled = baked
        .pose()
        .body
        .position
        .distance(app.world.creatures()[0].body.position);
    assert!((8.0..10.0).contains(&travelled), "{travelled}");
    assert!(feet.gap_max > 0.01, "gap max {}", feet.gap_max);
    let text = viewer_frame(&app, 120, 40);
    assert!(text.contains("BAKED"), "{text}");
    assert!(
        text.contains(&format!("max {:.1} cm", feet.gap_max * 100.0)),
        "{text}"
    );
    assert!(text.contains("foot gap (max, mm)"), "{text}");
    // Every view draws it, in characters and in half-block pixels.
    for _ in 0..4 {
        app.handle(Action::CycleView);
        assert!(viewer_frame(&app, 100, 30).contains("view"));
    }
    app.handle(Action::ToggleHiRes);
    assert!(viewer_frame(&app, 100, 30).matches('▀').count() > 500);
    app.handle(Action::CycleSolver);
    assert!(app.notice.as_ref().unwrap().text.contains("uses no solver"));
    app.handle(Action::ToggleBaked);
    assert!(app.baked.is_none());
    assert!(!viewer_frame(&app, 120, 40).contains("BAKED"));
}

#[test]
fn on_flat_ground_the_clip_is_the_walk_and_a_wrong_speed_makes_feet_glide() {
    let walk = |throttle: f32| {
        let mut app = viewer("flat");
        app.show_baked().unwrap();
        app.throttle = throttle;
        for _ in 0..600 {
            app.step_world(1);
        }
        app.baked.as_ref().unwrap().feet().clone()
    };
    let matched = walk(1.0);
    assert!(matched.gap_max < 0.005, "{}", matched.gap_max);
    assert!(matched.slip_max < 0.005, "{}", matched.slip_max);
    let slow = walk(0.5);
    assert!(
        slow.gap_max < 0.005,
        "flat ground: no float, {}",
        slow.gap_max
    );
    assert!(
        slow.slip_max > 0.02,
        "half speed: planted feet glide, {}",
        slow.slip_max
    );
}

/// Esc closes the lab's help, as the viewer's, before it quits.
#[test]
fn esc_closes_the_lab_help_before_it_quits() {
    let mut app = lab(Rig::Chain, 10);
    app.handle(LabAction::ToggleHelp);
    app.handle(LabAction::Back);
    assert!(!app.show_help && !app.quit);
    app.handle(LabAction::Back);
    assert!(app.quit);
}

/// The lab's help does not fit the smallest screen either: it scrolls with
/// j/k (or the arrows) and says which rows show; with the help closed those
/// keys change nothing.
#[test]
fn the_lab_help_scrolls_on_a_small_terminal() {
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use skitter::tui::lab_action_for;
    let down = lab_action_for(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE)).unwrap();
    assert_eq!(down, LabAction::ScrollHelp(1));
    let mut app = lab(Rig::Chain, 10);
    app.handle(down);
    assert_eq!(app.help_scroll, 0, "the closed help does not scroll");
    app.handle(LabAction::ToggleHelp);
    let first = lab_frame(&app, 40, 12);
    assert!(first.contains("keys 1–7/"), "{first}");
    for _ in 0..3 {
        app.handle(LabAction::ScrollHelp(1));
    }
    let scrolled = lab_frame(&app, 40, 12);
    assert!(scrolled.contains("keys 4–10/"), "{scrolled}");
    for _ in 0..100 {
        app.handle(LabAction::ScrollHelp(1));
    }
    let end = lab_frame(&app, 40, 12);
    assert!(end.contains("root."), "the note's last word: {end}");
}

//! The viewer's frames on ratatui's TestBackend: whole-frame snapshots of every
//! view at fixed sizes (fixed seed and step count, so they are deterministic),
//! and rendering checks on the buffer.

mod common;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use skitter::config::{default_creature, default_terrain, parse_creature};
use skitter::render::{Camera, Cell, Grid, Ink, ViewKind, render_pixels, render_view};
use skitter::tui::{Action, App, Sources, copy_grid, copy_half_blocks, draw, ink_style};

fn app() -> App {
    let sources = Sources {
        creature: "spider".into(),
        terrain: "hills".into(),
        scene: None,
        seed: None,
    };
    App::new(default_creature(), default_terrain(), sources, None)
}

/// The default scene after two seconds of walking with a gentle left turn.
fn walking_app() -> App {
    let mut app = app();
    app.handle(Action::Faster);
    app.handle(Action::Faster);
    for _ in 0..40 {
        app.handle(Action::Turn(1.0));
        app.step_world(6);
    }
    app
}

fn frame(app: &App, width: u16, height: u16) -> String {
    common::screen_text(width, height, |f| draw(f, app))
}

#[test]
fn snapshot_top_view() {
    let app = walking_app();
    insta::assert_snapshot!(frame(&app, 120, 40));
}

#[test]
fn snapshot_side_view() {
    let mut app = walking_app();
    app.handle(Action::CycleView);
    insta::assert_snapshot!(frame(&app, 120, 40));
}

#[test]
fn snapshot_front_view() {
    let mut app = walking_app();
    app.handle(Action::CycleView);
    app.handle(Action::CycleView);
    insta::assert_snapshot!(frame(&app, 120, 40));
}

#[test]
fn snapshot_perspective_view() {
    let mut app = walking_app();
    for _ in 0..3 {
        app.handle(Action::CycleView);
    }
    insta::assert_snapshot!(frame(&app, 120, 40));
}

#[test]
fn snapshot_split_views() {
    let mut app = walking_app();
    app.handle(Action::ToggleSplit);
    insta::assert_snapshot!(frame(&app, 160, 50));
}

#[test]
fn snapshot_help_overlay() {
    let mut app = app();
    app.handle(Action::ToggleHelp);
    insta::assert_snapshot!(frame(&app, 100, 30));
}

/// At the smallest size the help does not fit: its title says which rows
/// show, the up/down keys scroll it (and stop at either end), and while it
/// is open they do not change the walking speed.
#[test]
fn the_help_scrolls_on_a_small_terminal() {
    let mut app = app();
    app.handle(Action::ToggleHelp);
    let first = frame(&app, 40, 12);
    assert!(first.contains("keys 1–7/"), "{first}");
    assert!(first.contains("walk: faster"), "{first}");
    // The box leaves the status line above the hint bar whole.
    let rows: Vec<&str> = first.lines().collect();
    assert!(rows[10].starts_with("spider"), "{first}");
    for _ in 0..3 {
        app.handle(Action::Slower);
    }
    let scrolled = frame(&app, 40, 12);
    assert!(scrolled.contains("keys 4–10/"), "{scrolled}");
    assert!(!scrolled.contains("walk: faster"), "{scrolled}");
    assert_eq!(app.throttle, 0.0, "scrolling must not change the speed");
    // Far past the end: the last rows show, and one press up moves at once.
    for _ in 0..200 {
        app.handle(Action::Pan(glam::Vec2::new(0.0, -1.0)));
    }
    let end = frame(&app, 40, 12);
    assert!(end.contains("hold."), "the note's last words: {end}");
    // Home and End go to the ends, PageUp and PageDown by six rows.
    app.handle(Action::ScrollHelp(i32::MIN));
    assert_eq!(frame(&app, 40, 12), first);
    app.handle(Action::ScrollHelp(6));
    assert!(frame(&app, 40, 12).contains("keys 7–13/"));
    app.handle(Action::ScrollHelp(i32::MAX));
    assert_eq!(frame(&app, 40, 12), end);
    app.handle(Action::Faster);
    assert_ne!(frame(&app, 40, 12), end);
    // Closing and opening starts again at the top.
    app.handle(Action::ToggleHelp);
    app.handle(Action::ToggleHelp);
    assert_eq!(frame(&app, 40, 12), first);
}

/// Esc quit with the help open, where a user means to close it; with
/// nothing open it still quits, as does q at any time.
#[test]
fn esc_closes_the_help_before_it_quits() {
    let mut app = app();
    app.handle(Action::ToggleHelp);
    app.handle(Action::Back);
    assert!(!app.show_help && !app.quit);
    app.handle(Action::Back);
    assert!(app.quit);
    let mut app = self::app();
    app.handle(Action::ToggleHelp);
    app.handle(Action::Quit);
    assert!(app.quit);
    // The leg inspector closes the same way, after the help.
    let mut app = self::app();
    app.handle(Action::Inspect(Some(0)));
    app.handle(Action::ToggleHelp);
    app.handle(Action::Back);
    assert_eq!((app.show_help, app.camera.inspect), (false, Some(0)));
    app.handle(Action::Back);
    assert_eq!(app.camera.inspect, None);
    assert!(!app.quit);
    app.handle(Action::Back);
    assert!(app.quit);
}

#[test]
fn snapshot_smallest_terminal() {
    let app = walking_app();
    insta::assert_snapshot!(frame(&app, 40, 12));
}

#[test]
fn too_small_terminals_get_a_message_not_a_panic() {
    let app = walking_app();
    for (w, h) in [(39, 12), (40, 11), (10, 3), (1, 1), (0, 0)] {
        let text = frame(&app, w, h);
        if w >= 10 {
            assert!(text.contains("skitter"), "{w}x{h}: {text}");
        }
    }
    let text = frame(&app, 60, 8);
    assert!(
        text.contains("needs at least 40x12; this terminal is 60x8"),
        "{text}"
    );
}

#[test]
fn every_size_from_tiny_to_huge_draws() {
    let mut app = walking_app();
    app.handle(Action::ToggleSplit);
    for (w, h) in [
        (40, 12),
        (41, 13),
        (79, 24),
        (96, 30),
        (200, 60),
        (400, 120),
    ] {
        let text = frame(&app, w, h);
        assert_eq!(text.lines().count(), h as usize);
        assert!(text.contains("top view"), "{w}x{h}");
    }
}

#[test]
fn stats_panel_reports_the_shared_metrics() {
    let app = walking_app();
    let text = frame(&app, 120, 40);
    let m = app.world.metrics();
    assert!(text.contains("creature spider (4 legs)"), "{text}");
    assert!(text.contains("solver   fabrik"));
    assert!(text.contains(&format!("gait viol {}", m.gait_violations)));
    assert!(text.contains(&format!("{:.2} mm", m.foot_slip_max * 1000.0)));
    for leg in ["front_left", "front_right", "back_left", "back_right"] {
        assert!(text.contains(leg), "{leg} missing from the leg table");
    }
    assert!(text.contains("IK iterations (mean)"));
}

#[test]
fn names_from_files_cannot_inject_escape_sequences() {
    let text = default_creature_text().replace(
        "name = \"spider\"",
        "name = \"evil\\u001b[2J\\u0007spider\"",
    );
    let creature = parse_creature("evil.toml", &text).unwrap();
    assert!(creature.name.contains('\u{1b}'));
    let sources = Sources {
        creature: "evil.toml".into(),
        terrain: "hills".into(),
        scene: None,
        seed: None,
    };
    let app = App::new(creature, default_terrain(), sources, None);
    let text = frame(&app, 120, 40);
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'));
    assert!(text.contains("evil\\u{1b}[2J\\u{7}spider"), "{text}");
}

fn default_creature_text() -> String {
    skitter::config::CREATURES[0].text.to_string()
}

#[test]
fn grid_cells_are_copied_with_their_inks_colours() {
    // Standing, so every foot is down and none hides under a lifted knee.
    let app = app();
    let grid = render_view(&app.world, ViewKind::Top, &Camera::default(), 60, 20);
    let mut buffer = Buffer::empty(Rect::new(0, 0, 60, 20));
    copy_grid(&grid, Rect::new(0, 0, 60, 20), &mut buffer);
    let mut feet = 0;
    for y in 0..20u16 {
        for x in 0..60u16 {
            let cell = grid.get(x as usize, y as usize).unwrap();
            assert_eq!(buffer[(x, y)].symbol(), cell.ch.to_string());
            assert_eq!(
                buffer[(x, y)].fg,
                ink_style(cell.ink).fg.unwrap_or(Color::Reset)
            );
            feet += usize::from(matches!(cell.ink, Ink::FootGrounded | Ink::FootSwinging));
        }
    }
    assert!(
        feet == 4,
        "the spider's feet should be visible from above, saw {feet}"
    );
}

#[test]
fn views_are_pure_and_show_the_creature() {
    let app = walking_app();
    for view in ViewKind::ALL {
        let a = render_view(&app.world, view, &Camera::default(), 80, 24);
        let b = render_view(&app.world, view, &Camera::default(), 80, 24);
        assert_eq!(a, b, "{view:?} is not deterministic");
        let legs = (0..24)
            .flat_map(|y| (0..80).map(move |x| (x, y)))
            .filter(|(x, y)| a.get(*x, *y).is_some_and(|c| c.ink == Ink::Leg))
            .count();
        assert!(
            legs >= 8,
            "{view:?}: only {legs} leg cells\n{}",
            a.to_text()
        );
    }
}

#[test]
fn zoom_and_pan_move_the_picture() {
    let mut app = walking_app();
    let before = frame(&app, 100, 30);
    app.handle(Action::Zoom(2.0));
    let zoomed = frame(&app, 100, 30);
    assert_ne!(before, zoomed);
    app.handle(Action::ToggleFollow);
    app.handle(Action::Pan(glam::Vec2::new(5.0, 0.0)));
    assert!(!app.camera.follow);
    assert_ne!(zoomed, frame(&app, 100, 30));
}

#[test]
fn half_blocks_pair_pixel_rows_and_leave_empty_pixels_blank() {
    let mut pixels = Grid::new(3, 4);
    let ground = Cell {
        ch: ' ',
        ink: Ink::Ground(3),
        depth: 1.0,
    };
    let leg = Cell {
        ch: ' ',
        ink: Ink::Leg,
        depth: 0.0,
    };
    pixels.plot(0, 0, leg);
    pixels.plot(0, 1, ground);
    pixels.plot(1, 1, ground);
    pixels.plot(2, 0, leg);
    let mut buffer = Buffer::empty(Rect::new(0, 0, 3, 2));
    copy_half_blocks(&pixels, Rect::new(0, 0, 3, 2), &mut buffer);
    let colour = |ink| ink_style(ink).fg.unwrap();
    assert_eq!(buffer[(0, 0)].symbol(), "▀");
    assert_eq!(
        (buffer[(0, 0)].fg, buffer[(0, 0)].bg),
        (colour(Ink::Leg), colour(Ink::Ground(3)))
    );
    assert_eq!(buffer[(1, 0)].symbol(), "▄");
    assert_eq!(buffer[(1, 0)].fg, colour(Ink::Ground(3)));
    assert_eq!(buffer[(1, 0)].bg, Color::Reset);
    assert_eq!(buffer[(2, 0)].symbol(), "▀");
    assert_eq!(buffer[(2, 0)].bg, Color::Reset);
    assert_eq!(
        buffer[(0, 1)].symbol(),
        " ",
        "two empty pixels are a blank cell"
    );
}

#[test]
fn pixel_views_have_twice_the_rows_and_show_the_creature() {
    let app = walking_app();
    for view in ViewKind::ALL {
        let pixels = render_pixels(&app.world, view, &Camera::default(), 60, 40);
        assert_eq!((pixels.width(), pixels.height()), (60, 40));
        let creature = (0..40)
            .flat_map(|y| (0..60).map(move |x| (x, y)))
            .filter(|(x, y)| {
                pixels
                    .get(*x, *y)
                    .is_some_and(|c| matches!(c.ink, Ink::Leg | Ink::Body))
            })
            .count();
        assert!(creature >= 10, "{view:?}: {creature} creature pixels");
    }
}

#[test]
fn hires_mode_toggles_and_draws_half_blocks() {
    let mut app = walking_app();
    app.handle(Action::ToggleHiRes);
    assert!(app.hires);
    let text = frame(&app, 100, 30);
    assert!(text.contains("hi-res"));
    assert!(text.matches('▀').count() > 500, "{text}");
    app.handle(Action::ToggleHiRes);
    assert!(!frame(&app, 100, 30).contains('▀'));
}

#[test]
fn a_script_played_in_the_viewer_matches_the_same_script_headless() {
    use skitter::config::parse_script;
    use skitter::headless::{self, HeadlessRun};
    let script = parse_script(
        "t",
        "forward 2s, forward+left 1s, solver gradient, forward 1.5s, back 0.5s",
    )
    .unwrap();
    let run = HeadlessRun {
        creature: default_creature(),
        terrain: default_terrain(),
        solver: None,
        length: None,
        script: Some(script.clone()),
        count: 1,
        scene: None,
        threads: 1,
    };
    let headless = headless::run(&run, None).unwrap();

    let mut app = app();
    app.play(&script);
    assert!(app.playing());
    // Real time arrives in frames; the script is cued per simulation step.
    while app.world.metrics().steps < headless.steps {
        let due = (headless.steps - app.world.metrics().steps).min(3) as u32;
        app.step_world(due);
    }
    let viewer = app.world.summary(headless.wall_seconds);
    assert_eq!(viewer.steps, 600);
    assert_eq!(
        skitter::sim::Summary {
            step_micros_mean: 0.0,
            ..viewer
        },
        skitter::sim::Summary {
            step_micros_mean: 0.0,
            ..headless
        },
        "same script, different trajectories"
    );
    assert_eq!(app.world.solver().name(), "gradient");
}

#[test]
fn the_top_view_draws_the_support_polygon_and_the_centre_over_it() {
    // A standing hexapod: six feet down, the centre well inside them.
    let spec = skitter::config::load_creature("hexapod").unwrap();
    let sources = Sources {
        creature: "hexapod".into(),
        terrain: "flat".into(),
        scene: None,
        seed: None,
    };
    let terrain = skitter::config::load_terrain("flat").unwrap();
    let app = App::new(spec, terrain, sources, None);
    let grid = render_view(&app.world, ViewKind::Top, &Camera::default(), 100, 40);
    let support: Vec<char> = (0..40)
        .flat_map(|y| (0..100).map(move |x| (x, y)))
        .filter_map(|(x, y)| grid.get(x, y))
        .filter(|cell| cell.ink == Ink::Support)
        .map(|cell| cell.ch)
        .collect();
    assert!(support.contains(&'+'), "{support:?}");
    assert!(!support.contains(&'!'), "{support:?}");
    assert!(support.len() > 10, "polygon edges drawn: {support:?}");
    // Side views are sections, not plans: no polygon there.
    let side = render_view(&app.world, ViewKind::Side, &Camera::default(), 100, 40);
    assert!(
        (0..40).all(|y| (0..100).all(|x| side.get(x, y).is_none_or(|c| c.ink != Ink::Support)))
    );
}

#[test]
fn the_gait_diagram_shows_each_legs_stance_and_swing() {
    let app = walking_app();
    assert!(!app.gait_history.is_empty());
    // The spider's diagonals alternate: a moment with front_left in the air
    // has back_right in the air too, and front_right down.
    let lifted_together = app
        .gait_history
        .iter()
        .filter(|bits| *bits & 1 != 0)
        .all(|bits| bits & 0b1000 != 0 && bits & 0b0010 == 0);
    assert!(lifted_together, "{:?}", app.gait_history);
    let text = frame(&app, 120, 50);
    assert!(text.contains("gait, last"), "{text}");
    assert!(text.contains("balance"), "{text}");
}

#[test]
fn the_viewer_keeps_the_seed_from_the_command_line_across_reloads() {
    let sources = Sources {
        creature: "spider".into(),
        terrain: "hills".into(),
        scene: None,
        seed: Some(99),
    };
    let mut app = App::load(sources, None).unwrap();
    assert_eq!(app.world.terrain().spec().seed, 99);
    app.handle(Action::Reload);
    assert_eq!(app.world.terrain().spec().seed, 99);
}

#[test]
fn walking_backwards_shows_a_negative_speed() {
    let mut app = app();
    app.handle(Action::Slower);
    app.handle(Action::Slower);
    for _ in 0..40 {
        app.advance(0.05);
    }
    let text = frame(&app, 120, 40);
    let line = text.lines().find(|l| l.contains("speed ")).unwrap();
    assert!(line.contains("speed    -0."), "{line}");
    assert!(line.contains("throttle -100%"), "{line}");
}

#[test]
fn notices_clear_after_a_while_and_errors_stay_longer() {
    let mut app = app();
    app.handle(Action::CycleSolver);
    assert!(app.notice.is_some());
    app.advance(3.9);
    assert!(app.notice.is_some(), "still there before 4 s");
    app.advance(0.2);
    assert!(app.notice.is_none(), "gone after 4 s");
    app.sources.creature = "/nonexistent/creature.toml".into();
    app.handle(Action::Reload);
    app.advance(10.0);
    assert!(
        app.notice.as_ref().is_some_and(|n| n.is_error),
        "an error stays 15 s"
    );
    app.advance(6.0);
    assert!(app.notice.is_none());
}

#[test]
fn following_again_recentres_on_the_creature() {
    let mut app = walking_app();
    app.notice = None;
    let centred = frame(&app, 120, 40);
    app.handle(Action::ToggleFollow);
    app.handle(Action::Pan(glam::Vec2::new(3.0, 0.0)));
    app.handle(Action::ToggleFollow);
    assert!(app.camera.follow);
    assert_eq!(app.camera.pan, glam::Vec2::ZERO);
    app.notice = None;
    assert_eq!(
        frame(&app, 120, 40),
        centred,
        "the same picture as before panning"
    );
}

#[test]
fn a_long_error_is_shown_whole_over_several_rows() {
    let mut app = app();
    let path = format!(
        "/nonexistent/{}/creature.toml",
        "deeply/nested/folder".repeat(2)
    );
    app.sources.creature = path.clone();
    app.handle(Action::Reload);
    let text = frame(&app, 80, 30);
    let joined: String = text
        .lines()
        .rev()
        .skip(1)
        .take(4)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .map(str::trim_end)
        .collect();
    assert!(joined.contains(&path), "{text}");
    assert!(joined.contains("keeping the running creature"), "{text}");
}

#[test]
fn ik_errors_read_in_the_charts_unit() {
    let app = walking_app();
    let text = frame(&app, 120, 40);
    assert!(text.contains("IK error (max, µm)"), "{text}");
    let line = text
        .lines()
        .find(|l| l.contains("IK ") && l.contains(" it "))
        .unwrap();
    assert!(line.contains(" µm"), "{line}");
}

#[test]
fn brackets_slow_down_and_speed_up_the_simulation_within_bounds() {
    let steps_in_a_second = |app: &mut App| {
        let before = app.world.metrics().steps;
        for _ in 0..20 {
            app.advance(0.05);
        }
        app.world.metrics().steps - before
    };
    // A fraction of a step carries over between seconds: within one.
    let about = |steps: u64, wanted: u64| steps.abs_diff(wanted) <= 1;
    let mut app = app();
    let steps = steps_in_a_second(&mut app);
    assert!(about(steps, 120), "{steps}");
    app.handle(Action::Rate(-1));
    assert_eq!(app.rate(), 0.5);
    let steps = steps_in_a_second(&mut app);
    assert!(about(steps, 60), "{steps}");
    for _ in 0..5 {
        app.handle(Action::Rate(-1));
    }
    assert_eq!(app.rate(), 0.25, "no slower than a quarter");
    for _ in 0..9 {
        app.handle(Action::Rate(1));
    }
    assert_eq!(app.rate(), 4.0, "no faster than four times");
    let steps = steps_in_a_second(&mut app);
    assert!(about(steps, 480), "{steps}");
    let text = frame(&app, 120, 40);
    assert!(text.contains("rate 4×"), "{text}");
}

#[test]
fn the_time_line_says_how_fast_a_world_too_big_for_the_machine_really_runs() {
    let mut app = app();
    app.advance(0.05);
    // As the event loop measures it: 12 steps a second where 120 are due.
    app.timings.steps_per_second = 12.0;
    let text = frame(&app, 120, 40);
    assert!(text.contains("rate 1× (0.10×)"), "{text}");
    // Keeping up, nothing more is said.
    app.timings.steps_per_second = 119.0;
    let text = frame(&app, 120, 40);
    assert!(text.contains("rate 1×  "), "{text}");
    assert!(!text.contains("(0."), "{text}");
}

#[test]
fn a_reload_keeps_the_creature_where_it_walked_to() {
    let mut app = walking_app();
    let spacing = app.world.terrain().spacing();
    let place = |app: &App| {
        let c = &app.world.creatures()[0];
        let [x, _, z] = c.to_world_f64(spacing, c.body.position);
        glam::Vec2::new(x as f32, z as f32)
    };
    let before = place(&app);
    assert!(before.length() > 0.5, "it walked: {before}");
    app.handle(Action::Reload);
    assert!(
        app.notice
            .as_ref()
            .is_some_and(|n| n.text.starts_with("reloaded"))
    );
    assert!(
        place(&app).distance(before) < 0.05,
        "{} vs {before}",
        place(&app)
    );
}

#[test]
fn the_leg_inspector_draws_the_leg_apart_and_lists_its_details() {
    let mut app = walking_app();
    let plain = frame(&app, 120, 50);
    assert!(!plain.contains('#'), "nothing inspected yet");
    app.handle(Action::Inspect(Some(1)));
    let text = frame(&app, 120, 50);
    assert!(text.contains("leg 2 front_right"), "{text}");
    for field in [
        "state ",
        "solver   fabrik",
        "solve ",
        "target ",
        "foothold ",
        "pole ",
        "hip ",
        "joint 1 ",
        "foot ",
    ] {
        assert!(text.contains(field), "{field}: {text}");
    }
    // A terminal too narrow for the stats panel gets the inspector too, in
    // full: at 80×24 it showed only a notice, at 100×30 two lines.
    for (width, height) in [(80, 24), (100, 30)] {
        let text = frame(&app, width, height);
        for field in [
            "leg 2 front_right",
            "state ",
            "solver ",
            "foothold ",
            "foot ",
        ] {
            assert!(text.contains(field), "{width}x{height} {field}: {text}");
        }
    }
    // Too short for every row, the joints between hip and foot give way
    // and the title counts them; the foot stays (it was the row cut off).
    let text = frame(&app, 50, 15);
    assert!(text.contains("leg 2 front_right (1 hidden)"), "{text}");
    for field in ["state ", "foothold ", "joint 1 ", "foot "] {
        assert!(text.contains(field), "50x15 {field}: {text}");
    }
    let text = frame(&app, 40, 12);
    assert!(text.contains("hidden)"), "{text}");
    assert!(text.contains("foot "), "40x12: {text}");
    assert!(!text.contains("joint 1 "), "40x12: {text}");
    // The longest solver name and its result fit the panel: its name ran
    // into the result and cut it off.
    while !frame(&app, 120, 50).contains("jacobian-transpose") {
        app.handle(Action::CycleSolver);
    }
    let text = frame(&app, 120, 50);
    assert!(text.contains("solver   jacobian-transpose "), "{text}");
    assert!(
        text.lines()
            .any(|l| l.contains("solve    ") && (l.contains(" hit ") || l.contains(" short "))),
        "{text}"
    );
    let view: String = text
        .lines()
        .map(|l| l.split("││").next().unwrap_or(""))
        .collect();
    assert!(
        view.matches('#').count() >= 3,
        "the leg is drawn in #: {text}"
    );
    // Tab walks through the legs and past the last closes the inspector.
    for leg in 2..4 {
        app.handle(Action::InspectNext);
        assert_eq!(app.camera.inspect, Some(leg));
    }
    app.handle(Action::InspectNext);
    assert_eq!(app.camera.inspect, None);
    // A leg the creature does not have is refused, saying how many it has.
    app.handle(Action::Inspect(Some(8)));
    assert_eq!(app.camera.inspect, None);
    let notice = app.notice.as_ref().unwrap();
    assert!(
        notice.is_error && notice.text.contains("has 4"),
        "{}",
        notice.text
    );
}

#[test]
fn snapshot_leg_inspector() {
    let mut app = walking_app();
    app.handle(Action::Inspect(Some(0)));
    insta::assert_snapshot!(frame(&app, 120, 50));
}

/// Among shapes the stats panel shows the time off the floor and how near
/// the body, the knees and the bones came to the solid; on open ground it
/// shows none of them.
#[test]
fn the_stats_panel_shows_clearances_among_shapes_only() {
    let wall = common::shipped_terrain("wall");
    let sources = Sources {
        creature: "octopod".into(),
        terrain: "wall".into(),
        scene: None,
        seed: None,
    };
    let mut app = App::new(common::shipped_creature("octopod"), wall, sources, None);
    app.handle(Action::Faster);
    app.step_world(240);
    let screen = frame(&app, 160, 45);
    for expected in ["climb", "clear    body", "bones    clear"] {
        assert!(screen.contains(expected), "no {expected:?} in\n{screen}");
    }
    let open = frame(&walking_app(), 160, 45);
    assert!(!open.contains("bones    clear"), "{open}");
}

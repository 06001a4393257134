//! Drawing the viewer: views, stats panel, hint bar, help. Reads [`App`],
//! never changes the simulation.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Sparkline, Widget, Wrap};

use super::app::{App, Notice, sanitize};
use super::input::{KEYS, WALKING_NOTE};
use crate::creature::LegPhase;
use crate::render::{BakedFigure, Grid, Ink, ViewKind, render_pixels, render_view, render_walker};
use crate::sim::StepFigures;

/// Smallest terminal the viewer draws into.
pub const MIN_WIDTH: u16 = 40;
/// Smallest terminal height the viewer draws into.
pub const MIN_HEIGHT: u16 = 12;
/// Width of the stats panel, shown when the terminal is wide enough for it.
const STATS_WIDTH: u16 = 36;
/// Narrowest terminal that gets the stats panel beside the view.
const STATS_MIN_TERMINAL_WIDTH: u16 = 96;

/// Draws the whole screen.
pub fn draw(frame: &mut Frame<'_>, app: &App) {
    let scene = app.world.creatures().len() > 1;
    let hints: Vec<(&str, &str)> = HINTS
        .iter()
        .filter(|(.., shown)| match shown {
            HintFor::Any => true,
            HintFor::Scene => scene,
            HintFor::Alone => !scene,
        })
        .map(|&(key, what, _)| (key, what))
        .collect();
    let chrome = Chrome {
        name: "skitter",
        min: (MIN_WIDTH, MIN_HEIGHT),
        notice: app.notice.as_ref(),
        hints: &hints,
        help: app.show_help.then_some((
            (KEYS, WALKING_NOTE),
            5,
            " keys (? or Esc to close) ",
            app.help_scroll,
        )),
    };
    draw_screen(frame, &chrome, |frame, main| {
        let views = if main.width >= STATS_MIN_TERMINAL_WIDTH {
            let [views, stats] =
                Layout::horizontal([Constraint::Min(1), Constraint::Length(STATS_WIDTH)])
                    .areas(main);
            draw_views(frame.buffer_mut(), views, app);
            draw_stats(frame, stats, app);
            views
        } else {
            let [views, status] =
                Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(main);
            draw_views(frame.buffer_mut(), views, app);
            draw_status(frame, status, &status_line(app));
            views
        };
        if let Some(index) = app.camera.inspect {
            draw_inspector(frame, views, app, index);
        }
    });
}

/// What every screen has around its content: its name and smallest size
/// (for the too-small message), the notice, the hint bar and the help
/// overlay when it is up (its keys and note, spare rows and title).
pub(super) struct Chrome<'a> {
    pub name: &'a str,
    pub min: (u16, u16),
    pub notice: Option<&'a Notice>,
    pub hints: &'a [(&'a str, &'a str)],
    pub help: Option<HelpText<'a>>,
}

/// The help overlay's (keys, note), spare rows, title and the rows scrolled
/// past (a small terminal cannot show all of it at once).
pub(super) type HelpText<'a> = ((&'a [(&'a str, &'a str)], &'a str), u16, &'a str, u16);

/// Draws a screen: the too-small message if it is, else `body` in the main
/// area, then the notice, the hint bar and the help overlay.
pub(super) fn draw_screen(
    frame: &mut Frame<'_>,
    chrome: &Chrome<'_>,
    body: impl FnOnce(&mut Frame<'_>, Rect),
) {
    if too_small(frame, chrome.name, chrome.min) {
        return;
    }
    let area = frame.area();
    // A notice takes as many rows as its whole text needs (a located error
    // is often longer than a line), up to a third of the screen.
    let notice_lines: Vec<String> = chrome
        .notice
        .map(|n| wrap_notice(&n.text, area.width, area.height / 3))
        .unwrap_or_default();
    let [main, notice, hints] = screen_areas(area, notice_lines.len() as u16);
    body(frame, main);
    draw_notice(frame, notice, chrome.notice, notice_lines);
    frame.render_widget(hint_bar(chrome.hints, area.width), hints);
    if let Some((text, spare, title, scroll)) = chrome.help {
        // Over everything but the hint bar, which says how to close it.
        let above_hints = Rect {
            height: area.height - hints.height,
            ..area
        };
        draw_help(frame, above_hints, text, spare, title, scroll);
    }
}

/// Says the terminal is too small for `name` if it is under `min` (width,
/// height), and returns whether it was.
fn too_small(frame: &mut Frame<'_>, name: &str, min: (u16, u16)) -> bool {
    let area = frame.area();
    if area.width >= min.0 && area.height >= min.1 {
        return false;
    }
    let text = format!(
        "{name} needs at least {}x{}; this terminal is {}x{}. Enlarge it, or q to quit.",
        min.0, min.1, area.width, area.height
    );
    frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
    true
}

/// A screen's main area, its notice line (empty without a notice) and its
/// hint bar.
fn screen_areas(area: Rect, notice_rows: u16) -> [Rect; 3] {
    Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(notice_rows),
        Constraint::Length(1),
    ])
    .areas(area)
}

/// One grey status line, for terminals too narrow for a side panel.
pub(super) fn draw_status(frame: &mut Frame<'_>, area: Rect, fields: &[String]) {
    frame.render_widget(
        Paragraph::new(fitting_fields(fields, area.width)).style(Style::new().fg(Color::Gray)),
        area,
    );
}

/// `fields` joined by ` | `, as many whole ones as fit in `width` columns
/// (the first always): cut mid-field, `slip 0.10 mm` read `slip 0.10 m`.
pub(super) fn fitting_fields(fields: &[String], width: u16) -> String {
    let mut line = String::new();
    for field in fields {
        let joined = if line.is_empty() {
            field.clone()
        } else {
            format!("{line} | {field}")
        };
        if !line.is_empty() && joined.chars().count() > usize::from(width) {
            break;
        }
        line = joined;
    }
    line
}

/// `text` cut into rows of at most `width` characters at spaces (and at
/// its own line breaks), at most `most` rows (at least one), the last
/// ending in `…` if text was left over. Known before drawing, so the
/// notice takes the rows it needs; a word longer than a row (a long path)
/// is cut by character. (Cut by character everywhere, a located error read
/// `…never closed … ne` / `ver closed`.)
fn wrap_notice(text: &str, width: u16, most: u16) -> Vec<String> {
    let most = usize::from(most.max(1));
    let mut rows: Vec<String> = text
        .lines()
        .flat_map(|line| wrap_words(line, width))
        .collect();
    if rows.is_empty() {
        rows.push(String::new());
    }
    if rows.len() > most {
        rows.truncate(most);
        if let Some(last) = rows.last_mut() {
            if last.chars().count() >= usize::from(width.max(1)) {
                last.pop();
            }
            last.push('…');
        }
    }
    rows
}

/// The message for the user, red and bold when it reports a problem,
/// already cut into `rows`.
fn draw_notice(frame: &mut Frame<'_>, area: Rect, notice: Option<&Notice>, rows: Vec<String>) {
    let Some(n) = notice else {
        return;
    };
    let style = if n.is_error {
        Style::new()
            .fg(Color::LightRed)
            .add_modifier(Modifier::BOLD)
    } else {
        Style::new().fg(Color::LightGreen)
    };
    let lines: Vec<Line<'_>> = rows.into_iter().map(Line::from).collect();
    frame.render_widget(Paragraph::new(lines).style(style), area);
}

/// Where `count` views go in `area`: all of it for one, quarters for more
/// (the overview's four).
pub(super) fn view_areas(area: Rect, count: usize) -> Vec<Rect> {
    if count <= 1 {
        return vec![area];
    }
    let [top, bottom] = Layout::vertical([Constraint::Ratio(1, 2); 2]).areas(area);
    let [a, b] = Layout::horizontal([Constraint::Ratio(1, 2); 2]).areas(top);
    let [c, d] = Layout::horizontal([Constraint::Ratio(1, 2); 2]).areas(bottom);
    vec![a, b, c, d]
}

fn draw_views(buf: &mut Buffer, area: Rect, app: &App) {
    let views = app.visible_views();
    for (rect, view) in view_areas(area, views.len()).into_iter().zip(views) {
        draw_view(buf, rect, app, view);
    }
}

fn draw_view(buf: &mut Buffer, area: Rect, app: &App, view: ViewKind) {
    let follow = if app.camera.follow { "" } else { " (fixed)" };
    let paused = if app.paused { " PAUSED" } else { "" };
    let hires = if app.hires { " hi-res" } else { "" };
    let baked = if app.baked.is_some() { " BAKED" } else { "" };
    let title = format!(
        " {} view  zoom {:.2}{follow}{hires}{baked}{paused} ",
        view.name(),
        app.camera.clamped_zoom()
    );
    let block = Block::bordered()
        .title(title)
        .border_style(Style::new().fg(Color::DarkGray));
    let inner = block.inner(area);
    block.render(area, buf);
    let (width, height) = (inner.width as usize, inner.height as usize);
    if let Some(baked) = &app.baked {
        let figure = BakedFigure {
            pose: baked.pose(),
            half_size: app.world.spec().body.size * 0.5,
        };
        let rows = if app.hires { 2 * height } else { height };
        let grid = render_walker(
            app.world.terrain(),
            &figure,
            view,
            &app.camera,
            width,
            rows,
            app.hires,
        );
        if app.hires {
            copy_half_blocks(&grid, inner, buf);
        } else {
            copy_grid(&grid, inner, buf);
        }
    } else if app.hires {
        let pixels = render_pixels(&app.world, view, &app.camera, width, 2 * height);
        copy_half_blocks(&pixels, inner, buf);
    } else {
        copy_grid(
            &render_view(&app.world, view, &app.camera, width, height),
            inner,
            buf,
        );
    }
}

/// Copies a grid of square pixels into the buffer two rows per cell: an upper
/// half block coloured as the upper pixel on the lower pixel's colour. Empty
/// pixels stay the terminal's own background (a blank, or the other half's block).
pub fn copy_half_blocks(pixels: &Grid, area: Rect, buf: &mut Buffer) {
    let colour = |x: usize, y: usize| {
        pixels
            .get(x, y)
            .filter(|c| c.ink != Ink::Empty)
            .and_then(|c| ink_style(c.ink).fg)
    };
    for y in 0..area.height.min((pixels.height() / 2) as u16) {
        for x in 0..area.width.min(pixels.width() as u16) {
            let (px, py) = (x as usize, 2 * y as usize);
            let (ch, style) = match (colour(px, py), colour(px, py + 1)) {
                (None, None) => (' ', Style::new()),
                (Some(upper), None) => ('▀', Style::new().fg(upper)),
                (None, Some(lower)) => ('▄', Style::new().fg(lower)),
                (Some(upper), Some(lower)) => ('▀', Style::new().fg(upper).bg(lower)),
            };
            if let Some(target) = buf.cell_mut((area.x + x, area.y + y)) {
                target.set_char(ch).set_style(style);
            }
        }
    }
}

/// Copies a rendered grid into the buffer, colouring each cell by its ink.
pub fn copy_grid(grid: &Grid, area: Rect, buf: &mut Buffer) {
    for y in 0..area.height.min(grid.height() as u16) {
        for x in 0..area.width.min(grid.width() as u16) {
            let Some(cell) = grid.get(x as usize, y as usize) else {
                continue;
            };
            if let Some(target) = buf.cell_mut((area.x + x, area.y + y)) {
                target.set_char(cell.ch).set_style(ink_style(cell.ink));
            }
        }
    }
}

/// The colour of each role.
pub fn ink_style(ink: Ink) -> Style {
    const GROUND: [u8; 8] = [236, 238, 240, 242, 65, 71, 108, 151];
    match ink {
        Ink::Empty => Style::new(),
        Ink::Ground(level) => Style::new().fg(Color::Indexed(GROUND[usize::from(level.min(7))])),
        Ink::Body => Style::new().fg(Color::White).add_modifier(Modifier::BOLD),
        Ink::Heading => Style::new()
            .fg(Color::LightMagenta)
            .add_modifier(Modifier::BOLD),
        Ink::Leg => Style::new().fg(Color::Indexed(220)),
        Ink::Joint => Style::new().fg(Color::Indexed(208)),
        Ink::FootGrounded => Style::new()
            .fg(Color::Indexed(46))
            .add_modifier(Modifier::BOLD),
        Ink::FootSwinging => Style::new()
            .fg(Color::Indexed(51))
            .add_modifier(Modifier::BOLD),
        Ink::Foothold => Style::new().fg(Color::Indexed(196)),
        Ink::Support => Style::new().fg(Color::Indexed(141)),
        Ink::Inspected => Style::new()
            .fg(Color::Indexed(201))
            .add_modifier(Modifier::BOLD),
    }
}

fn centimetres(metres: f32) -> String {
    format!("{:.1} cm", metres * 100.0)
}

fn millimetres(metres: f32) -> String {
    format!("{:.2} mm", metres * 1000.0)
}

/// IK errors in the unit of the IK error chart.
fn micrometres(metres: f32) -> String {
    format!("{:.0} µm", metres * 1e6)
}

/// A stats line: a grey name column, then the value.
pub(super) fn label(name: &str, value: String) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{name:<9}"), Style::new().fg(Color::DarkGray)),
        Span::raw(value),
    ])
}

fn draw_stats(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let block = Block::bordered()
        .title(" stats ")
        .border_style(Style::new().fg(Color::DarkGray));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let world = &app.world;
    let m = world.metrics();
    let spec = world.spec();
    let followed = world.followed();
    // Worked out afresh from the creature's state: right for one just
    // followed, before a step has measured it.
    let (Some(creature), Some(live)) = (world.followed_creature(), world.live_figures()) else {
        return;
    };
    let record = &app.followed;
    let terrain = world.terrain().spec();
    // Signed: walking backwards shows a negative speed.
    let speed = creature.body.velocity.dot(creature.body.forward());
    let lifted = creature.legs.iter().filter(|l| l.is_lifted()).count();
    let hanging = creature.legs.iter().filter(|l| l.hanging).count();
    let mut lines = vec![
        label(
            "creature",
            format!(
                "{}{} ({} legs)",
                sanitize(&spec.name),
                which_followed(world),
                spec.legs.len()
            ),
        ),
        label(
            "terrain",
            format!("{} seed {}", sanitize(&terrain.name), terrain.seed),
        ),
        label("solver", world.solver().to_string()),
        label(
            "sim",
            format!(
                "{:.0} steps/s  dt {:.2} ms",
                app.timings.steps_per_second,
                world.dt() * 1000.0
            ),
        ),
        label(
            "frame",
            format!(
                "{:.1} ms  render {:.1} ms",
                app.timings.frame_ms, app.timings.render_ms
            ),
        ),
        label(
            "time",
            format!(
                "{:.1} s  rate {}×{}",
                world.time(),
                app.rate(),
                time_note(app, f64::from(world.dt()))
            ),
        ),
        // The followed creature's own throttle: in a scene a creature with
        // its own script follows that, not the keys (the keys' throttle
        // showed +100% over a scripted creature standing still).
        label(
            "speed",
            format!(
                "{speed:.2} m/s  throttle {:+.0}%",
                creature.input.forward * 100.0
            ),
        ),
        label(
            "distance",
            format!(
                "{:.1} m",
                world.tracks().get(followed).map_or(0.0, |t| t.odometer)
            ),
        ),
    ];
    if let Some(baked) = &app.baked {
        // The baked spider's own figures replace the IK creature's: it has
        // no solver, no gait rule, no balance, only a clip and its feet.
        lines.truncate(3);
        lines[2] = label("mode", "baked: no rays, no IK".into());
        let clip = baked.clip();
        let feet = baked.feet();
        let body = baked.pose().body;
        lines.extend([
            label(
                "clip",
                format!(
                    "{:.2} s at {:.2} m/s, flat",
                    clip.frames.len() as f32 * clip.dt,
                    clip.speed
                ),
            ),
            label(
                "speed",
                format!(
                    "{:.2} m/s  throttle {:+.0}%",
                    body.velocity.length(),
                    app.throttle * 100.0
                ),
            ),
            label("foot gap", format!("now {}", centimetres(feet.gap_now))),
            label(
                "",
                format!(
                    "max {}  mean {}",
                    centimetres(feet.gap_max),
                    centimetres(feet.gap_mean() as f32)
                ),
            ),
            label("slip max", centimetres(feet.slip_max)),
        ]);
    } else {
        if spec.body.speed > spec.speed_cap() {
            // The gait cannot carry the file's speed: say what it walks at.
            lines.push(label(
                "capped",
                format!(
                    "{:.2} m/s (file asks {:.2})",
                    spec.speed_cap(),
                    spec.body.speed
                ),
            ));
        }
        lines.extend([
            label(
                "height",
                format!("{:.3} m  tilt {:.1}°", live.body_height, live.tilt_deg),
            ),
            label(
                "lifted",
                format!(
                    "{lifted} of {} (max {}){}",
                    spec.legs.len(),
                    spec.gait.max_lifted,
                    if hanging > 0 {
                        format!(", {hanging} hang")
                    } else {
                        String::new()
                    }
                ),
            ),
            // Its maxima since it was followed (the whole run's, with one
            // creature; none yet right after another was followed): a
            // scene's whole figures are the summary's.
            label(
                "slip max",
                if record.steps == 0 {
                    "-  gait viol -".into()
                } else {
                    format!(
                        "{}  gait viol {}",
                        millimetres(record.foot_slip_max),
                        record.gait_violations
                    )
                },
            ),
            label(
                "IK",
                format!(
                    "{:.1} it  err {}",
                    live.legs.ik_iterations_mean,
                    micrometres(live.legs.ik_error_max)
                ),
            ),
            label(
                "motion",
                if record.steps == 0 {
                    "max -".into()
                } else {
                    format!(
                        "max {:.1} m/s²  {:.0}°/s",
                        record.body_accel_max, record.tilt_rate_max
                    )
                },
            ),
        ]);
        if !app.world.terrain().shapes().is_empty() {
            // A solid world: time off the floor, and how near the body,
            // the knees and the bones came to the solid.
            let creatures = app.world.creatures().len().max(1) as f64;
            if creatures > 1.0 {
                // Unlike the rows above, these are the whole scene's.
                lines.push(Line::from(Span::styled(
                    " over every creature:",
                    Style::new().fg(Color::DarkGray),
                )));
            }
            let clearance = |min: f32| {
                if min.is_finite() {
                    format!("{:.0} mm", min * 1000.0)
                } else {
                    "-".into()
                }
            };
            lines.extend([
                label(
                    "climb",
                    format!(
                        "wall {:.1} s  ceiling {:.1} s",
                        m.wall_time / creatures,
                        m.ceiling_time / creatures
                    ),
                ),
                label(
                    "clear",
                    format!(
                        "body {}  knee {}",
                        clearance(m.body_clearance_min),
                        clearance(m.joint_clearance_min)
                    ),
                ),
                // A line of its own: the panel is narrow.
                label(
                    "bones",
                    format!("clear {}", clearance(m.bone_clearance_min)),
                ),
            ]);
        }
        lines.extend([
            label("balance", {
                let unstable = if record.steps == 0 {
                    "-".to_string()
                } else {
                    format!("{:.1}%", 100.0 * record.unstable_fraction())
                };
                match live.margin {
                    None => format!("<3 down  unstable {unstable}"),
                    Some(margin) => format!("{margin:+.3} m  unstable {unstable}"),
                }
            }),
            Line::from(Span::styled(
                " leg          state it    error",
                Style::new().fg(Color::DarkGray),
            )),
        ]);
        for (leg, leg_spec) in creature.legs.iter().zip(&spec.legs) {
            let state = match leg.phase {
                LegPhase::Grounded => Span::styled("down ", Style::new().fg(Color::Indexed(46))),
                // Out of reach of any ground: what a user looks for when
                // a creature stalls astride a crest.
                LegPhase::Swinging { .. } if leg.hanging => {
                    Span::styled("hang ", Style::new().fg(Color::Indexed(208)))
                }
                LegPhase::Swinging { .. } => {
                    Span::styled("air  ", Style::new().fg(Color::Indexed(51)))
                }
            };
            let name: String = sanitize(&leg_spec.name).chars().take(12).collect();
            lines.push(Line::from(vec![
                Span::raw(format!(" {name:<12} ")),
                state,
                Span::raw(format!(
                    "{:>3} {:>9}",
                    leg.report.iterations,
                    micrometres(leg.report.error)
                )),
            ]));
        }
    }
    // The gait diagram: one row per leg, time running left to right, a bar
    // while the foot is down.
    let columns = (inner.width as usize).saturating_sub(14);
    if columns > 0 && !app.gait_history.is_empty() {
        lines.push(Line::from(Span::styled(
            format!(
                " gait, last {:.1} s (█ down)",
                (columns * GAIT_STEPS_PER_COLUMN) as f64 * world.dt() as f64
            ),
            Style::new().fg(Color::DarkGray),
        )));
        let history = &app.gait_history;
        let take = (columns * GAIT_STEPS_PER_COLUMN).min(history.len());
        let recent: Vec<u64> = history.iter().skip(history.len() - take).copied().collect();
        for (i, leg_spec) in spec.legs.iter().enumerate().take(64) {
            let name: String = sanitize(&leg_spec.name).chars().take(12).collect();
            let bar: String = recent
                .chunks(GAIT_STEPS_PER_COLUMN)
                .map(|chunk| {
                    // Down for the whole column: a bar; in the air at all: a gap.
                    if chunk.iter().all(|bits| bits & (1 << i) == 0) {
                        '█'
                    } else {
                        ' '
                    }
                })
                .collect();
            lines.push(Line::from(vec![
                Span::raw(format!(" {name:<12} ")),
                Span::styled(bar, Style::new().fg(Color::Indexed(46))),
            ]));
        }
    }
    let sparkline_rows = if inner.height as usize > lines.len() + 6 {
        6
    } else {
        0
    };
    let [text, sparks] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(sparkline_rows)]).areas(inner);
    frame.render_widget(Paragraph::new(lines), text);
    if sparkline_rows > 0 {
        let [a, b] = Layout::vertical([Constraint::Length(3); 2]).areas(sparks);
        let width = a.width as usize;
        let tail = |values: &std::collections::VecDeque<f32>, scale: f32| -> Vec<u64> {
            let skip = values.len().saturating_sub(width);
            values
                .iter()
                .skip(skip)
                .map(|v| (v * scale).max(0.0).round() as u64)
                .collect()
        };
        let iterations = tail(&app.iterations_history, 10.0);
        // The baked spider has no IK: its second line is the feet's gap.
        let (errors, error_title) = if app.baked.is_some() {
            (tail(&app.error_history, 1e3), "foot gap (max, mm)")
        } else {
            (tail(&app.error_history, 1e6), "IK error (max, µm)")
        };
        frame.render_widget(
            Sparkline::default()
                .block(Block::new().title(if app.baked.is_some() {
                    "IK iterations (none: baked)"
                } else {
                    "IK iterations (mean)"
                }))
                .data(&iterations)
                .style(Style::new().fg(Color::Indexed(220))),
            a,
        );
        frame.render_widget(
            Sparkline::default()
                .block(Block::new().title(error_title))
                .data(&errors)
                .style(Style::new().fg(Color::Indexed(196))),
            b,
        );
    }
}

/// A point's coordinates in metres to the centimetre, signed: `+0.18
/// +0.00 +0.14`. A coordinate that rounds to zero reads `+0.00`, never
/// `-0.00` (a hip a hair below the body's centre read `-0.00`).
fn coordinates_to_the_centimetre(p: glam::Vec3) -> String {
    let cm = |v: f32| {
        let rounded = (v * 100.0).round() / 100.0;
        // Adding zero turns a negative zero positive.
        rounded + 0.0
    };
    format!("{:+.2} {:+.2} {:+.2}", cm(p.x), cm(p.y), cm(p.z))
}

/// The leg inspector, in a box over the top right of `views`: at any
/// terminal size (it was a part of the stats panel, which terminals under
/// 96 columns do not get, and whose foot cut it short under 50 rows).
fn draw_inspector(frame: &mut Frame<'_>, views: Rect, app: &App, index: usize) {
    let world = &app.world;
    let Some(creature) = world.creatures().get(world.followed()) else {
        return;
    };
    let mut lines = inspector_lines(creature, index);
    if lines.is_empty() {
        return;
    }
    let title = lines.remove(0);
    let mut details = lines;
    // Too short for every row (a small terminal, a notice below): the
    // joints between hip and foot go first, the last first, then the hip
    // and the pole; the state, the solve, target, foothold and the foot
    // itself stay. (The foot was the row cut off.)
    let room = usize::from(views.height.saturating_sub(2));
    let mut hidden = 0;
    while details.len() > room && details.len() > INSPECTOR_KEPT_ROWS + 1 {
        details.remove(details.len() - 2);
        hidden += 1;
    }
    let title = if hidden > 0 {
        let mut title = title;
        title.spans.push(Span::raw(format!("({hidden} hidden) ")));
        title
    } else {
        title
    };
    let width = STATS_WIDTH.min(views.width);
    let height = (details.len() as u16 + 2).min(views.height);
    let area = Rect::new(views.right() - width, views.y, width, height);
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(details).block(Block::bordered().title(title)),
        area,
    );
}

/// The leg inspector's rows it never hides for want of room: state,
/// solver, solve, target and foothold (the foot, its last row, stays too).
const INSPECTOR_KEPT_ROWS: usize = 5;

/// The leg inspector's lines for leg `index` of `creature`: positions in
/// the body frame (metres, +x forward, +y up, +z right), as the creature
/// file gives mount, rest and pole, so they read against the file.
fn inspector_lines(creature: &crate::creature::Creature, index: usize) -> Vec<Line<'static>> {
    let (Some(leg), Some(leg_spec)) = (creature.legs.get(index), creature.spec().legs.get(index))
    else {
        return Vec::new();
    };
    let body = &creature.body;
    let at = |p: glam::Vec3| coordinates_to_the_centimetre(body.to_local(p));
    let phase = match leg.phase {
        LegPhase::Grounded => "down".to_string(),
        LegPhase::Swinging { .. } if leg.hanging => "hanging: out of reach".to_string(),
        LegPhase::Swinging { progress, .. } => format!("air {:.0}%", 100.0 * progress),
    };
    let report = &leg.report;
    let mut lines = vec![
        Line::from(Span::styled(
            format!(" leg {} {} ", index + 1, sanitize(&leg_spec.name)),
            Style::new()
                .fg(Color::Indexed(201))
                .add_modifier(Modifier::BOLD),
        )),
        // One figure a line: the panel is 34 columns, and a solver name
        // with its result ran past it (`jacobian-transpose 11 it …`).
        label("state", phase),
        label("solver", leg.solver.to_string()),
        label(
            "solve",
            format!(
                "{} it {} {}",
                report.iterations,
                micrometres(report.error),
                if report.reached { "hit" } else { "short" }
            ),
        ),
        label("target", at(leg.foot)),
        label("foothold", at(leg.desired)),
    ];
    if let Some(pole) = leg_spec.pole {
        lines.push(label("pole", coordinates_to_the_centimetre(pole)));
    }
    for (k, joint) in leg.chain.joints().iter().enumerate() {
        let name = match k {
            0 => "hip".to_string(),
            k if k + 1 == leg.chain.joints().len() => "foot".to_string(),
            k => format!("joint {k}"),
        };
        lines.push(label(&name, at(*joint)));
    }
    lines
}

/// World steps per column of the gait diagram.
const GAIT_STEPS_PER_COLUMN: usize = 3;

/// The most important figures, most important first (a pause right after
/// the creature), for the one line terminals too narrow for the panel get.
/// In a world of several creatures, which one the camera follows, as
/// ` 2/9` (nothing alone): creatures of one kind look alike, and the
/// notice that named it fades.
fn which_followed(world: &crate::sim::World) -> String {
    let count = world.creatures().len();
    if count > 1 {
        format!(" {}/{count}", world.followed() + 1)
    } else {
        String::new()
    }
}

fn status_line(app: &App) -> Vec<String> {
    let world = &app.world;
    let creature = &world.creatures()[world.followed()];
    let live = StepFigures::of(creature);
    let lifted = creature.legs.iter().filter(|l| !l.is_grounded()).count();
    let which = which_followed(world);
    let mut fields = vec![format!(
        "{}{which} {}",
        sanitize(&world.spec().name),
        world.solver()
    )];
    if app.paused {
        fields.push("PAUSED".to_string());
    }
    fields.extend([
        format!("{:.2} m/s", creature.body.velocity.length()),
        format!("up {lifted}/{}", creature.legs.len()),
        format!(
            "IK {:.1}it {}",
            live.ik_iterations_mean,
            micrometres(live.ik_error_max)
        ),
        if app.followed.steps == 0 {
            "slip -".to_string()
        } else {
            format!("slip {}", millimetres(app.followed.foot_slip_max))
        },
    ]);
    fields
}

/// The viewer's hint bar, most useful keys first: help and quit before
/// anything else, so a narrow terminal still says how to leave; in a
/// scene, which creature is followed before the rest.
const HINTS: &[(&str, &str, HintFor)] = &[
    ("?", "help", HintFor::Any),
    ("q", "quit", HintFor::Any),
    ("n/m", "next/previous creature", HintFor::Scene),
    ("w/s", "speed", HintFor::Any),
    ("a/d", "turn", HintFor::Any),
    ("x", "stop", HintFor::Any),
    ("space", "pause", HintFor::Any),
    ("i", "solver", HintFor::Any),
    ("v", "view", HintFor::Any),
    ("o", "overview", HintFor::Any),
    ("+/-", "zoom", HintFor::Any),
    ("hjkl", "pan", HintFor::Any),
    ("f", "follow", HintFor::Any),
    ("p", "baked", HintFor::Alone),
];

/// Which worlds a hint is shown for.
enum HintFor {
    Any,
    /// Worlds of several creatures.
    Scene,
    /// A creature on its own (the baked spider stands in for one).
    Alone,
}

/// A bar of (key, what) hints, as many as fit in `width` columns.
fn hint_bar(hints: &[(&str, &str)], width: u16) -> Paragraph<'static> {
    let mut spans = Vec::new();
    let mut used = 0usize;
    for (key, what) in hints {
        let len = key.chars().count() + what.chars().count() + 3;
        if used + len > width as usize {
            break;
        }
        used += len;
        spans.push(Span::styled(
            format!(" {key}"),
            Style::new().fg(Color::Black).bg(Color::Gray),
        ));
        spans.push(Span::raw(format!(" {what} ")));
    }
    Paragraph::new(Line::from(spans))
}

/// Width of the help overlay on a terminal `terminal_width` columns wide.
fn help_width(terminal_width: u16) -> u16 {
    terminal_width.saturating_sub(4).min(78)
}

/// The help overlay's rows for a box `width` columns wide (border
/// included): each (keys, what) wrapped by character, a blank row, then
/// `note`. Cut here rather than by the paragraph, so their count (and so
/// how far the overlay scrolls) is known before drawing.
fn help_lines<'a>(keys: &[(&str, &str)], note: &str, width: u16) -> Vec<Line<'a>> {
    let inner = width.saturating_sub(2);
    let mut lines: Vec<Line> = Vec::new();
    for (keys, what) in keys {
        let head = format!(" {keys:<9} ");
        // What a key does wraps under itself, clear of the keys' column.
        let indent = head.chars().count() as u16;
        let rows = wrap_words(what, inner.saturating_sub(indent));
        for (i, row) in rows.into_iter().enumerate() {
            let lead = if i == 0 {
                Span::styled(head.clone(), Style::new().fg(Color::Yellow))
            } else {
                Span::raw(" ".repeat(usize::from(indent)))
            };
            lines.push(Line::from(vec![lead, Span::raw(row)]));
        }
    }
    lines.push(Line::raw(""));
    lines.extend(
        wrap_words(note, inner.saturating_sub(1))
            .into_iter()
            .map(|row| Line::raw(format!(" {row}"))),
    );
    lines
}

/// `text` cut into rows of at most `width` characters at spaces (a word
/// longer than a row is cut by character); leading spaces are kept.
fn wrap_words(text: &str, width: u16) -> Vec<String> {
    let width = usize::from(width.max(1));
    let mut rows = Vec::new();
    let mut row = String::new();
    let mut len = 0;
    for (i, word) in text.split(' ').enumerate() {
        let word_len = word.chars().count();
        if i > 0 && len + 1 + word_len <= width {
            row.push(' ');
            len += 1;
        } else if i > 0 {
            rows.push(std::mem::take(&mut row));
            len = 0;
        }
        for ch in word.chars() {
            if len == width {
                rows.push(std::mem::take(&mut row));
                len = 0;
            }
            row.push(ch);
            len += 1;
        }
    }
    rows.push(row);
    rows
}

/// The most rows the help overlay can be scrolled past on any terminal the
/// viewer draws on (the narrowest wraps the most): where scrolling stops.
pub(super) fn help_scroll_limit(keys: &[(&str, &str)], note: &str) -> u16 {
    let rows = help_lines(keys, note, help_width(MIN_WIDTH)).len() as u16;
    // The smallest terminal's box shows all but this many: its border
    // and a row free above and below it, over the rows above the hint bar.
    let shown = MIN_HEIGHT.saturating_sub(5);
    rows.saturating_sub(shown)
}

/// The key help overlay: one line per (keys, what), then `note`, in a box
/// titled `title` over the middle of `area`, with `spare` rows beyond one a
/// line for the border and the note's wrapping. A row of `area` stays
/// clear above and below the box (the bottom one is a narrow terminal's
/// status line).
fn draw_help(
    frame: &mut Frame<'_>,
    area: Rect,
    (keys, note): (&[(&str, &str)], &str),
    spare: u16,
    title: &str,
    scroll: u16,
) {
    let width = help_width(area.width);
    let lines = help_lines(keys, note, width);
    let height = (lines.len() as u16 + spare).min(area.height.saturating_sub(2));
    let popup = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    // When the rows do not fit inside the border, the title says how to
    // scroll and where one is.
    let inside = height.saturating_sub(2);
    let rows = lines.len() as u16;
    let paragraph = Paragraph::new(lines);
    let scroll = scroll.min(rows.saturating_sub(inside));
    let title = if rows > inside {
        // Short enough for the narrowest box.
        format!(
            " keys {}–{}/{} ↑/↓ scroll ?:close ",
            scroll + 1,
            (scroll + inside).min(rows),
            rows
        )
    } else {
        title.to_string()
    };
    frame.render_widget(Clear, popup);
    frame.render_widget(
        paragraph
            .scroll((scroll, 0))
            .block(Block::bordered().title(title)),
        popup,
    );
}

/// After the time line's rate: paused, or, when the machine cannot step the
/// world as fast as asked (too many creatures), how fast it really runs, in
/// brackets.
fn time_note(app: &App, dt: f64) -> String {
    let actual = app.timings.steps_per_second * dt;
    if app.paused {
        "  paused".to_string()
    } else if actual > 0.0 && actual < 0.9 * app.rate() {
        format!(" ({actual:.2}×)")
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A narrow status line drops whole fields from the end: cut inside
    /// one, `slip 0.10 mm` read `slip 0.10 m`. The first is always kept.
    #[test]
    fn a_status_line_keeps_whole_fields() {
        let fields = ["spider fabrik", "0.90 m/s", "slip 0.10 mm"].map(String::from);
        assert_eq!(
            fitting_fields(&fields, 40),
            "spider fabrik | 0.90 m/s | slip 0.10 mm"
        );
        assert_eq!(fitting_fields(&fields, 38), "spider fabrik | 0.90 m/s");
        assert_eq!(fitting_fields(&fields, 5), "spider fabrik");
        assert_eq!(fitting_fields(&[], 5), "");
    }

    /// A notice wraps at spaces, keeps its own line breaks, cuts only a
    /// word longer than a row, and ends in `…` when it has more rows than
    /// it may take.
    #[test]
    fn notices_wrap_between_words() {
        let rows = wrap_notice("this `[` opens an array that is never closed", 20, 5);
        assert_eq!(rows, ["this `[` opens an", "array that is never", "closed"]);
        assert!(rows.iter().all(|r| r.chars().count() <= 20));
        let rows = wrap_notice(
            "reload failed:\n/a/very/long/path/to/beetle.toml:3:1",
            16,
            5,
        );
        assert_eq!(
            rows,
            [
                "reload failed:",
                "/a/very/long/pat",
                "h/to/beetle.toml",
                ":3:1"
            ]
        );
        let rows = wrap_notice("one two three four five six", 9, 2);
        assert_eq!(rows, ["one two", "three…"]);
        let rows = wrap_notice("abcdefghij klm", 5, 1);
        assert_eq!(rows, ["abcd…"]);
        assert_eq!(wrap_notice("", 10, 3), [""]);
    }

    /// A coordinate that rounds to zero has no minus sign.
    #[test]
    fn coordinates_near_zero_read_plus_zero() {
        let p = glam::Vec3::new(0.18, -0.001, -0.004_99);
        assert_eq!(coordinates_to_the_centimetre(p), "+0.18 +0.00 +0.00");
        assert_eq!(coordinates_to_the_centimetre(-p), "-0.18 +0.00 +0.00");
        assert_eq!(
            coordinates_to_the_centimetre(glam::Vec3::new(-0.005_1, 0.0, 1.0)),
            "-0.01 +0.00 +1.00"
        );
    }
}

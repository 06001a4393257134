//! Drawing the lab screen: the rig in the viewer's projections, a panel of
//! figures, and charts of iterations and error over the last 10 s. Reads
//! [`LabApp`], never changes it.
//!
//! ```text
//! ┌ side view ─────────────────────┐┌ lab ─────────────────────┐
//! │                                ││ rig, solver, limits, step │
//! │        the rig, its target     │├ iterations per step ─────┤
//! │        and what it reaches for ││ chart                     │
//! │                                │├ error (mm) ───────────────┤
//! │                                ││ chart                     │
//! └────────────────────────────────┘└───────────────────────────┘
//!  notice
//!  ? help  i solver  m rig  c limits  …
//! ```

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Paragraph, Widget};

use super::lab::{LAB_KEYS, LAB_NOTE, LabApp, solver_line};
use super::ui::{Chrome, copy_grid, draw_screen, draw_status, label, view_areas};
use crate::lab::live::{HISTORY_STEPS, Rig, STEPS_PER_SECOND};
use crate::lab::{constraints::CONE_DEG, reach};
use crate::render::{ViewKind, render_lab};

/// Smallest terminal the lab screen draws into.
pub const LAB_MIN_WIDTH: u16 = 40;
/// Smallest terminal height the lab screen draws into.
pub const LAB_MIN_HEIGHT: u16 = 12;
/// Width of the side panel, when the terminal is wide enough for it.
const PANEL_WIDTH: u16 = 46;
/// Narrowest terminal that gets the panel beside the views.
const PANEL_MIN_TERMINAL_WIDTH: u16 = 100;
/// Fewest rows (above the notice and hint lines) that get the charts under
/// the views when the terminal is too narrow for the panel beside them.
const CHARTS_BELOW_MIN_ROWS: u16 = 28;
/// Lines of figures above the charts.
const FIGURE_LINES: u16 = 9;

/// The hint bar's keys, most useful first (it shows as many as fit): help
/// and quit first, so a narrow terminal still says how to leave.
const HINTS: &[(&str, &str)] = &[
    ("?", "help"),
    ("q", "quit"),
    ("i", "solver"),
    ("m", "rig"),
    ("c", "limits"),
    ("space", "pause"),
    ("[ ]", "rate"),
    ("v", "view"),
    ("o", "overview"),
    ("+/-", "zoom"),
    ("r", "restart"),
    ("g", "seed"),
];

/// Draws the whole lab screen.
pub fn draw_lab(frame: &mut Frame<'_>, app: &LabApp) {
    let chrome = Chrome {
        name: "skitter lab",
        min: (LAB_MIN_WIDTH, LAB_MIN_HEIGHT),
        notice: app.notice.as_ref(),
        hints: HINTS,
        help: app.show_help.then_some((
            (LAB_KEYS, LAB_NOTE),
            9,
            " lab keys (? or Esc to close) ",
            app.help_scroll,
        )),
    };
    draw_screen(frame, &chrome, |frame, main| {
        if main.width >= PANEL_MIN_TERMINAL_WIDTH {
            let [views, panel] =
                Layout::horizontal([Constraint::Min(1), Constraint::Length(PANEL_WIDTH)])
                    .areas(main);
            draw_views(frame.buffer_mut(), views, app);
            draw_panel(frame, panel, app);
        } else if main.height >= CHARTS_BELOW_MIN_ROWS {
            let [views, panel] =
                Layout::vertical([Constraint::Min(1), Constraint::Length(FIGURE_LINES + 10)])
                    .areas(main);
            draw_views(frame.buffer_mut(), views, app);
            draw_panel(frame, panel, app);
        } else {
            let [views, status] =
                Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(main);
            draw_views(frame.buffer_mut(), views, app);
            draw_status(frame, status, &status_line(app));
        }
    });
}

fn draw_views(buf: &mut Buffer, area: Rect, app: &LabApp) {
    let views = app.visible_views();
    for (rect, view) in view_areas(area, views.len()).into_iter().zip(views) {
        draw_view(buf, rect, app, view);
    }
}

fn draw_view(buf: &mut Buffer, area: Rect, app: &LabApp, view: ViewKind) {
    let paused = if app.paused { " PAUSED" } else { "" };
    let title = format!(
        " {} view  {}  zoom {:.2}{paused} ",
        view.name(),
        app.scene.solver(),
        app.camera.clamped_zoom()
    );
    let block = Block::bordered()
        .title(title)
        .border_style(Style::new().fg(Color::DarkGray));
    let inner = block.inner(area);
    block.render(area, buf);
    let grid = render_lab(
        &app.scene,
        view,
        &app.camera,
        inner.width as usize,
        inner.height as usize,
    );
    copy_grid(&grid, inner, buf);
}

/// Mean of `values`, 0 for none.
fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, count) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if count == 0 { 0.0 } else { sum / count as f64 }
}

/// The panel: figures, then the two charts.
fn draw_panel(frame: &mut Frame<'_>, area: Rect, app: &LabApp) {
    let block = Block::bordered()
        .title(" lab ")
        .border_style(Style::new().fg(Color::DarkGray));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [text, charts] =
        Layout::vertical([Constraint::Length(FIGURE_LINES), Constraint::Min(0)]).areas(inner);
    frame.render_widget(Paragraph::new(figures(app)), text);
    if charts.height >= 6 {
        let [iterations, error] = Layout::vertical([Constraint::Ratio(1, 2); 2]).areas(charts);
        draw_chart(
            frame,
            iterations,
            app,
            "iterations per step",
            Color::Indexed(220),
            |s| f64::from(s.iterations),
        );
        draw_chart(
            frame,
            error,
            app,
            "error beyond reach (mm)",
            Color::Indexed(196),
            |s| f64::from(s.error_mm),
        );
    }
}

/// The figures above the charts.
fn figures(app: &LabApp) -> Vec<Line<'static>> {
    let scene = &app.scene;
    let history = scene.history();
    let last = history.back();
    let limits = match (scene.limited(), scene.rig()) {
        (false, _) => "off".to_string(),
        (true, Rig::Chain) => format!("on: {CONE_DEG}° cones"),
        (true, Rig::Arm) => format!(
            "on: elbow {}–{}°, wrist {}°",
            reach::ELBOW_DEG.0,
            reach::ELBOW_DEG.1,
            reach::WRIST_DEG
        ),
    };
    let seconds = history.len() as f64 / STEPS_PER_SECOND;
    let jump_max = history.iter().map(|s| s.jump_mm).fold(0.0, f32::max);
    let mut lines = vec![
        label("rig", app.describe().to_string()),
        label("solver", solver_line(scene)),
        label("limits", limits),
        label(
            "step",
            format!(
                "{}  seed {}  rate {}×{}",
                scene.steps(),
                scene.seed(),
                app.rate(),
                if app.paused { "  paused" } else { "" }
            ),
        ),
        label(
            "last",
            match last {
                // The jump has its own line so this one fits a narrow panel
                // with the miss marker still visible.
                Some(s) => format!(
                    "{} it  err {:.3} mm{}",
                    s.iterations,
                    s.error_mm,
                    if s.reached { "" } else { "  missed" }
                ),
                None => "-".into(),
            },
        ),
        label(
            "mean",
            format!(
                "{:.1} it  err {:.3} mm  over {seconds:.1} s",
                mean(history.iter().map(|s| f64::from(s.iterations))),
                mean(history.iter().map(|s| f64::from(s.error_mm)))
            ),
        ),
        label(
            "jump",
            format!(
                "{:.1} mm, max {jump_max:.1} mm over {seconds:.1} s",
                last.map_or(0.0, |s| s.jump_mm)
            ),
        ),
    ];
    if let Some((buttons, hit, current, laps)) = scene.buttons() {
        lines.push(label(
            "buttons",
            format!(
                "{} of {} hit  pressing #{}  lap {}",
                hit.iter().filter(|h| **h).count(),
                buttons.len(),
                current + 1,
                laps + 1
            ),
        ));
    } else {
        let target = scene.target().distance(scene.chain().root()) / scene.chain().reach();
        lines.push(label(
            "target",
            format!(
                "{:.0}% of the reach{}",
                100.0 * target,
                if target > 1.0 { "  (out of reach)" } else { "" }
            ),
        ));
    }
    lines
}

/// A line chart of one figure over the history: seconds before now across,
/// the figure up, from 0 to the largest value shown.
fn draw_chart(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &LabApp,
    title: &str,
    colour: Color,
    value: impl Fn(&crate::lab::live::Sample) -> f64,
) {
    let history = app.scene.history();
    let now = app.scene.steps() as f64;
    let points: Vec<(f64, f64)> = history
        .iter()
        .map(|s| ((s.step as f64 + 1.0 - now) / STEPS_PER_SECOND, value(s)))
        .collect();
    let top = points.iter().map(|p| p.1).fold(0.0, f64::max);
    // Round the scale up to a figure a label shows exactly, so the axis and
    // the labels agree (and snapshots hold no long decimals).
    let top = nice_ceiling(top);
    let span = HISTORY_STEPS as f64 / STEPS_PER_SECOND;
    let axis_style = Style::new().fg(Color::DarkGray);
    let chart = Chart::new(vec![
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::new().fg(colour))
            .data(&points),
    ])
    .block(Block::new().title(Span::styled(
        format!(" {title} "),
        Style::new().fg(Color::Gray),
    )))
    .x_axis(
        Axis::default()
            .style(axis_style)
            .bounds([-span, 0.0])
            .labels([format!("-{span:.0} s"), "now".to_string()]),
    )
    .y_axis(
        Axis::default()
            .style(axis_style)
            .bounds([0.0, top])
            .labels(["0".to_string(), format_scale(top)]),
    );
    frame.render_widget(chart, area);
}

/// The smallest of 1, 2 and 5 times a power of ten at or above `value`
/// (1 for nothing above zero).
fn nice_ceiling(value: f64) -> f64 {
    if !(value.is_finite() && value > 0.0) {
        return 1.0;
    }
    let power = 10f64.powf(value.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|v| *v >= value * (1.0 - 1e-12))
        .unwrap_or(10.0 * power)
}

/// A scale figure with as many decimals as it needs (0.05, 2, 500).
fn format_scale(value: f64) -> String {
    let decimals = (-value.log10().floor()).max(0.0) as usize;
    format!("{value:.decimals$}")
}

/// The most important figures, most important first (a pause right after
/// the rig), for the one line terminals too small for the panel get.
fn status_line(app: &LabApp) -> Vec<String> {
    let last = app.scene.history().back();
    let mut fields = vec![app.scene.rig().name().to_string()];
    if app.paused {
        fields.push("PAUSED".to_string());
    }
    fields.extend([
        app.scene.solver().to_string(),
        format!("limits {}", if app.scene.limited() { "on" } else { "off" }),
        format!("{} it", last.map_or(0, |s| s.iterations)),
        format!("err {:.3} mm", last.map_or(0.0, |s| s.error_mm)),
    ]);
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chart_scales_round_up_to_one_two_or_five() {
        assert_eq!(nice_ceiling(0.0), 1.0);
        assert_eq!(nice_ceiling(3.0), 5.0);
        assert_eq!(nice_ceiling(5.0), 5.0);
        assert_eq!(nice_ceiling(17.0), 20.0);
        assert_eq!(nice_ceiling(0.031), 0.05);
        assert_eq!(nice_ceiling(f64::NAN), 1.0);
        assert_eq!(format_scale(0.05), "0.05");
        assert_eq!(format_scale(20.0), "20");
        assert_eq!(format_scale(500.0), "500");
    }
}

//! The terminal screens: the viewer and the lab. One event loop serves both:
//! it turns keys into actions, runs the screen's due fixed steps, and draws.
//! No simulation logic lives here.

mod app;
mod input;
mod lab;
mod lab_ui;
mod record;
mod ui;
mod watch;

use std::io;
use std::time::{Duration, Instant};

use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::crossterm::event::{self, Event, KeyEvent};
use ratatui::{Frame, Terminal};

pub use app::{Action, App, HISTORY, LoadError, Notice, Sources, Timings, sanitize};
pub use input::{KEYS, WALKING_NOTE, action_for};
pub use lab::{LAB_KEYS, LAB_NOTE, LabAction, LabApp, RATES, lab_action_for, solver_line};
pub use lab_ui::{LAB_MIN_HEIGHT, LAB_MIN_WIDTH, draw_lab};
pub use record::Recorder;
pub use ui::{MIN_HEIGHT, MIN_WIDTH, copy_grid, copy_half_blocks, draw, ink_style};

/// Time between frames while running: 60 frames per second.
const FRAME: Duration = Duration::from_micros(16_667);
/// Time between frames while paused and idle: keeps the CPU quiet.
const IDLE_FRAME: Duration = Duration::from_millis(250);
/// Longest a screen goes without a redraw while its pictures stand still:
/// the figures that tick on regardless (time, rates) refresh this often.
const STILL_REDRAW: Duration = Duration::from_millis(500);
/// Weight of the newest sample in the smoothed timings.
const SMOOTHING: f64 = 0.1;

/// What the event loop needs of a screen.
trait Screen {
    /// Advances real time by `elapsed` seconds; returns the steps run.
    fn advance(&mut self, elapsed: f64) -> u64;
    /// Handles one key.
    fn key(&mut self, key: KeyEvent);
    /// Draws the screen.
    fn draw(&self, frame: &mut Frame<'_>);
    /// Whether the user asked to leave.
    fn quit(&self) -> bool;
    /// Whether the screen is paused (idle: fewer frames).
    fn paused(&self) -> bool;
    /// A digest of what the pictures show: while it stays the same and no
    /// key or resize came, the loop redraws only now and then (for the
    /// figures that tick on, such as time).
    fn picture_digest(&self) -> u64;
    /// Where the smoothed real-time figures go.
    fn timings(&mut self) -> &mut Timings;
}

/// A screen whose state has `advance`, `handle`, `quit`, `paused` and
/// `timings` as [`App`] and [`LabApp`] do, with its key map and draw function.
macro_rules! screen {
    ($state:ty, $keys:path, $draw:path, $digest:expr) => {
        impl Screen for $state {
            fn advance(&mut self, elapsed: f64) -> u64 {
                u64::from(<$state>::advance(self, elapsed))
            }

            fn key(&mut self, key: KeyEvent) {
                if let Some(action) = $keys(key) {
                    self.handle(action);
                }
            }

            fn draw(&self, frame: &mut Frame<'_>) {
                $draw(frame, self);
            }

            fn quit(&self) -> bool {
                self.quit
            }

            fn paused(&self) -> bool {
                self.paused
            }

            fn picture_digest(&self) -> u64 {
                $digest(self)
            }

            fn timings(&mut self) -> &mut Timings {
                &mut self.timings
            }
        }
    };
}

screen!(App, action_for, draw, App::picture_digest);
// The lab's target moves every step: its step count is its picture.
screen!(LabApp, lab_action_for, draw_lab, |lab: &LabApp| lab
    .scene
    .steps());

/// Runs the viewer until the user quits. The terminal is restored on return,
/// on error, and (through ratatui's hook) on panic.
pub fn run(app: App) -> io::Result<()> {
    run_screen(app)
}

/// Runs the lab screen until the user quits; the terminal is restored as
/// by [`run`].
pub fn run_lab(app: LabApp) -> io::Result<()> {
    run_screen(app)
}

fn run_screen(screen: impl Screen) -> io::Result<()> {
    let mut terminal = ratatui::try_init()?;
    let result = event_loop(&mut terminal, screen);
    ratatui::restore();
    result
}

/// Runs the viewer as [`run`] does, recording every frame into `cast` as
/// asciicast v2 (see [`Recorder`]). The cast's size is the terminal's when
/// it starts.
pub fn run_recorded(app: App, cast: std::fs::File) -> io::Result<()> {
    // The usual set-up (raw mode, alternate screen, restore on panic), then
    // the same output through a recorder.
    let plain = ratatui::try_init()?;
    let result = plain.size().and_then(|size| {
        let recorder = Recorder::new(io::stdout(), cast, size.width, size.height, "skitter")?;
        let mut terminal = Terminal::new(CrosstermBackend::new(recorder))?;
        event_loop(&mut terminal, app)
    });
    ratatui::restore();
    result
}

/// Steps a second as the viewer really runs them: a frame's steps over
/// the time from its start to the next frame's (its stepping, drawing and
/// wait). Measured at the frame's own start, a frame's steps over the
/// frame before's time read a world that takes 0.46 s a step, stepped
/// once in a frame after a 50 ms one, as twenty steps a second.
#[derive(Debug, Default)]
struct StepRate {
    /// The steps of the frame before, unless it was paused (or there was
    /// none).
    previous: Option<u64>,
}

impl StepRate {
    /// At a frame's start, `elapsed` seconds after the frame before's: that
    /// frame's steps a second, when it ran unpaused.
    fn measure(&mut self, elapsed: f64) -> Option<f64> {
        let steps = self.previous.take()?;
        (elapsed > 0.0).then(|| steps as f64 / elapsed)
    }

    /// This frame ran `steps` (none to count while `paused`).
    fn ran(&mut self, steps: u64, paused: bool) {
        self.previous = (!paused).then_some(steps);
    }
}

fn smooth(old: f64, new: f64) -> f64 {
    if old == 0.0 {
        new
    } else {
        old + (new - old) * SMOOTHING
    }
}

fn event_loop<B: Backend<Error = io::Error>>(
    terminal: &mut Terminal<B>,
    mut screen: impl Screen,
) -> io::Result<()> {
    let mut last = Instant::now();
    // Frames are due on a fixed cadence rather than a budget from each
    // frame's start, so a wake-up that comes late is made up next frame.
    let mut deadline = last;
    // What was last drawn, and when; None forces the next draw.
    let mut drawn: Option<(u64, Instant)> = None;
    let mut step_rate = StepRate::default();
    loop {
        let frame_start = Instant::now();
        let elapsed = frame_start.duration_since(last).as_secs_f64();
        last = frame_start;
        if let Some(rate) = step_rate.measure(elapsed) {
            let timings = screen.timings();
            timings.steps_per_second = smooth(timings.steps_per_second, rate);
        }
        let steps = screen.advance(elapsed);
        step_rate.ran(steps, screen.paused());
        if elapsed > 0.0 && !screen.paused() {
            let timings = screen.timings();
            timings.frame_ms = smooth(timings.frame_ms, elapsed * 1000.0);
        }
        let digest = screen.picture_digest();
        let unchanged = drawn
            .is_some_and(|(last_digest, at)| last_digest == digest && at.elapsed() < STILL_REDRAW);
        if !unchanged {
            let render_start = Instant::now();
            terminal.draw(|frame| screen.draw(frame))?;
            let render_ms = render_start.elapsed().as_secs_f64() * 1000.0;
            let timings = screen.timings();
            timings.render_ms = smooth(timings.render_ms, render_ms);
            drawn = Some((digest, Instant::now()));
        }
        if screen.quit() {
            return Ok(());
        }
        // Wait for input until the next frame is due; every key is handled as
        // soon as it comes, and simulation time keeps accruing meanwhile.
        let budget = if screen.paused() { IDLE_FRAME } else { FRAME };
        deadline += budget;
        if deadline < Instant::now() {
            // Fell behind (a slow frame, a suspended terminal): start afresh.
            deadline = Instant::now() + budget;
        }
        while let Some(timeout) = deadline.checked_duration_since(Instant::now()) {
            if !event::poll(timeout)? {
                break;
            }
            match event::read()? {
                Event::Key(key) => {
                    screen.key(key);
                    drawn = None;
                    if screen.quit() {
                        return Ok(());
                    }
                    if screen.paused() {
                        // Show the effect of a key at once while idle.
                        break;
                    }
                }
                Event::Resize(..) => {
                    drawn = None;
                    break;
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frames_steps_are_rated_over_the_time_until_the_next_frame() {
        let mut rate = StepRate::default();
        // Nothing before the first frame.
        assert_eq!(rate.measure(0.0), None);
        // One step of a world that takes 0.46 s a step, in a frame that
        // started 50 ms after the one before: one step over its 0.46 s.
        rate.ran(1, false);
        assert_eq!(rate.measure(0.46), Some(1.0 / 0.46));
        rate.ran(2, false);
        assert_eq!(rate.measure(0.02), Some(100.0));
        // A paused frame runs nothing to rate, and neither does the next.
        rate.ran(0, true);
        assert_eq!(rate.measure(0.25), None);
        assert_eq!(rate.measure(0.25), None);
        rate.ran(2, false);
        assert_eq!(rate.measure(0.0), None);
    }
}

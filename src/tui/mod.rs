//! The terminal viewer: an event loop that turns keys into actions, runs the
//! simulation's due fixed steps, and draws. No simulation logic lives here.

mod app;
mod input;
mod ui;

use std::io;
use std::time::{Duration, Instant};

use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{self, Event};

pub use app::{Action, App, HISTORY, LoadError, Notice, Sources, Timings, sanitize};
pub use input::{KEYS, WALKING_NOTE, action_for};
pub use ui::{MIN_HEIGHT, MIN_WIDTH, copy_grid, copy_half_blocks, draw, ink_style};

/// Time between frames while running: 60 frames per second.
const FRAME: Duration = Duration::from_micros(16_667);
/// Time between frames while paused and idle: keeps the CPU quiet.
const IDLE_FRAME: Duration = Duration::from_millis(250);
/// Weight of the newest sample in the smoothed timings.
const SMOOTHING: f64 = 0.1;

/// Runs the viewer until the user quits. The terminal is restored on return,
/// on error, and (through ratatui's hook) on panic.
pub fn run(app: App) -> io::Result<()> {
    let mut terminal = ratatui::try_init()?;
    let result = event_loop(&mut terminal, app);
    ratatui::restore();
    result
}

fn smooth(old: f64, new: f64) -> f64 {
    if old == 0.0 {
        new
    } else {
        old + (new - old) * SMOOTHING
    }
}

fn event_loop(terminal: &mut DefaultTerminal, mut app: App) -> io::Result<()> {
    let mut last = Instant::now();
    // Frames are due on a fixed cadence rather than a budget from each
    // frame's start, so a wake-up that comes late is made up next frame.
    let mut deadline = last;
    loop {
        let frame_start = Instant::now();
        let elapsed = frame_start.duration_since(last).as_secs_f64();
        last = frame_start;
        let steps_before = app.world.metrics().steps;
        app.advance(elapsed);
        let steps = app.world.metrics().steps - steps_before;
        if elapsed > 0.0 && !app.paused {
            app.timings.steps_per_second =
                smooth(app.timings.steps_per_second, steps as f64 / elapsed);
            app.timings.frame_ms = smooth(app.timings.frame_ms, elapsed * 1000.0);
        }
        let render_start = Instant::now();
        terminal.draw(|frame| draw(frame, &app))?;
        app.timings.render_ms = smooth(
            app.timings.render_ms,
            render_start.elapsed().as_secs_f64() * 1000.0,
        );
        if app.quit {
            return Ok(());
        }
        // Wait for input until the next frame is due; every key is handled as
        // soon as it comes, and simulation time keeps accruing meanwhile.
        let budget = if app.paused { IDLE_FRAME } else { FRAME };
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
                    if let Some(action) = action_for(key) {
                        app.handle(action);
                    }
                    if app.quit {
                        return Ok(());
                    }
                    if app.paused {
                        // Show the effect of a key at once while idle.
                        break;
                    }
                }
                Event::Resize(..) => break,
                _ => {}
            }
        }
    }
}

//! Keys to actions. Nothing else: what an action does lives in [`super::App`].

use glam::Vec2;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::app::Action;

/// Zoom factor per press of + or -.
const ZOOM_STEP: f32 = 1.25;

/// The action a key press asks for, if any.
pub fn action_for(key: KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return Some(Action::Quit);
    }
    let action = match key.code {
        KeyCode::Char('w') | KeyCode::Up => Action::Faster,
        KeyCode::Char('s') | KeyCode::Down => Action::Slower,
        KeyCode::Char('a') | KeyCode::Left => Action::Turn(1.0),
        KeyCode::Char('d') | KeyCode::Right => Action::Turn(-1.0),
        KeyCode::Char('x') => Action::Stop,
        KeyCode::Char(' ') => Action::TogglePause,
        KeyCode::Char('.') => Action::SingleStep,
        KeyCode::Char('i') => Action::CycleSolver,
        KeyCode::Char('v') => Action::CycleView,
        KeyCode::Char('V') => Action::ToggleSplit,
        KeyCode::Char('b') => Action::ToggleHiRes,
        KeyCode::Char('+') | KeyCode::Char('=') => Action::Zoom(ZOOM_STEP),
        KeyCode::Char('-') | KeyCode::Char('_') => Action::Zoom(1.0 / ZOOM_STEP),
        KeyCode::Char('H') => Action::Pan(Vec2::new(-1.0, 0.0)),
        KeyCode::Char('L') => Action::Pan(Vec2::new(1.0, 0.0)),
        KeyCode::Char('K') => Action::Pan(Vec2::new(0.0, 1.0)),
        KeyCode::Char('J') => Action::Pan(Vec2::new(0.0, -1.0)),
        KeyCode::Char('f') => Action::ToggleFollow,
        KeyCode::Char('r') => Action::NewSeed,
        KeyCode::Char('R') => Action::Reload,
        KeyCode::Char('?') | KeyCode::F(1) => Action::ToggleHelp,
        KeyCode::Char('q') | KeyCode::Esc => Action::Quit,
        _ => return None,
    };
    Some(action)
}

/// Key help: (keys, what they do), for the overlay and the hint bar.
pub const KEYS: &[(&str, &str)] = &[
    (
        "W/S ↑/↓",
        "walk: faster / slower (steps of 50%; negative walks back)",
    ),
    ("A/D ←/→", "turn left / right while held"),
    ("X", "stop"),
    ("space", "pause / resume"),
    (".", "one step while paused"),
    ("i", "next solver"),
    ("v", "next view"),
    ("V", "split: all four views"),
    (
        "b",
        "half-block pixels (double resolution, colour) / characters",
    ),
    ("+/-", "zoom in / out"),
    ("H/J/K/L", "pan left / down / up / right"),
    ("f", "follow the creature on / off"),
    ("r", "new terrain seed"),
    ("R", "reload creature and terrain files"),
    ("?", "this help"),
    ("q/Esc", "quit"),
];

/// Why walking works the way it does, for the help overlay.
pub const WALKING_NOTE: &str = "Terminals report key presses but not releases, so speed is a setting: \
     W raises it and it stays until S lowers it or X stops. A turn lasts a moment after each press \
     of A or D; holding the key repeats it, so the turn lasts as long as you hold.";

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyEventState;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn keys_map_to_actions() {
        assert_eq!(action_for(key(KeyCode::Char('w'))), Some(Action::Faster));
        assert_eq!(action_for(key(KeyCode::Left)), Some(Action::Turn(1.0)));
        assert_eq!(
            action_for(key(KeyCode::Char('V'))),
            Some(Action::ToggleSplit)
        );
        assert_eq!(action_for(key(KeyCode::Esc)), Some(Action::Quit));
        assert_eq!(
            action_for(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Action::Quit)
        );
        assert_eq!(action_for(key(KeyCode::Char('z'))), None);
    }

    #[test]
    fn releases_are_ignored() {
        let release = KeyEvent {
            code: KeyCode::Char('w'),
            modifiers: KeyModifiers::NONE,
            kind: KeyEventKind::Release,
            state: KeyEventState::NONE,
        };
        assert_eq!(action_for(release), None);
    }
}

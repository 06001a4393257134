//! Keys to actions. Nothing else: what an action does lives in [`super::App`].

use glam::Vec2;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::app::Action;

/// Zoom factor per press of + or -.
const ZOOM_STEP: f32 = 1.25;

/// Rows the help scrolls per PageUp or PageDown: the smallest terminal's
/// box shows seven.
const HELP_PAGE: i32 = 6;

/// The action a key press asks for, if any.
///
/// Letter keys mean the same in either case (`w` and `W`, with or without
/// Shift or Caps Lock), so no letter has a second meaning behind Shift.
pub fn action_for(key: KeyEvent) -> Option<Action> {
    let action = match pressed(key)? {
        KeyCode::Char('w') | KeyCode::Up => Action::Faster,
        KeyCode::Char('s') | KeyCode::Down => Action::Slower,
        KeyCode::Char('a') | KeyCode::Left => Action::Turn(1.0),
        KeyCode::Char('d') | KeyCode::Right => Action::Turn(-1.0),
        KeyCode::Char('x') => Action::Stop,
        KeyCode::Char(' ') => Action::TogglePause,
        KeyCode::Char('.') => Action::SingleStep,
        KeyCode::Char('i') => Action::CycleSolver,
        KeyCode::Char('v') => Action::CycleView,
        KeyCode::Char('o') => Action::ToggleSplit,
        KeyCode::Char('b') => Action::ToggleHiRes,
        KeyCode::Char('+') | KeyCode::Char('=') => Action::Zoom(ZOOM_STEP),
        KeyCode::Char('-') | KeyCode::Char('_') => Action::Zoom(1.0 / ZOOM_STEP),
        KeyCode::Char('h') => Action::Pan(Vec2::new(-1.0, 0.0)),
        KeyCode::Char('l') => Action::Pan(Vec2::new(1.0, 0.0)),
        KeyCode::Char('k') => Action::Pan(Vec2::new(0.0, 1.0)),
        KeyCode::Char('j') => Action::Pan(Vec2::new(0.0, -1.0)),
        KeyCode::Char('f') => Action::ToggleFollow,
        KeyCode::Char('r') => Action::Reload,
        KeyCode::Char('g') => Action::NewSeed,
        KeyCode::Char('p') => Action::ToggleBaked,
        KeyCode::Char(c @ '1'..='9') => Action::Inspect(Some(c as usize - '1' as usize)),
        KeyCode::Char('0') => Action::Inspect(None),
        KeyCode::Tab => Action::InspectNext,
        KeyCode::Char('[') => Action::Rate(-1),
        KeyCode::Char(']') => Action::Rate(1),
        KeyCode::Char('n') => Action::FollowNext(1),
        KeyCode::Char('m') => Action::FollowNext(-1),
        KeyCode::Char('?') | KeyCode::F(1) => Action::ToggleHelp,
        KeyCode::PageUp => Action::ScrollHelp(-HELP_PAGE),
        KeyCode::PageDown => Action::ScrollHelp(HELP_PAGE),
        KeyCode::Home => Action::ScrollHelp(i32::MIN),
        KeyCode::End => Action::ScrollHelp(i32::MAX),
        KeyCode::Char('q') => Action::Quit,
        KeyCode::Esc => Action::Back,
        _ => return None,
    };
    Some(action)
}

/// The key a press means, the same for every screen: nothing for a
/// release, letters in lower case (so either case means the same), and
/// Ctrl+C as q, which quits everywhere (Esc first closes what is open).
pub(super) fn pressed(key: KeyEvent) -> Option<KeyCode> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return Some(KeyCode::Char('q'));
    }
    Some(match key.code {
        KeyCode::Char(c) => KeyCode::Char(c.to_ascii_lowercase()),
        other => other,
    })
}

/// Key help: (keys, what they do), for the overlay; letters are shown in
/// lower case and work in either.
pub const KEYS: &[(&str, &str)] = &[
    (
        "w/s ↑/↓",
        "walk: faster / slower (steps of 50%; negative walks back)",
    ),
    ("a/d ←/→", "turn left / right while held"),
    ("x", "stop"),
    ("space", "pause / resume"),
    (".", "one step while paused"),
    ("i", "next solver"),
    ("v", "next view"),
    ("o", "overview: all four views at once"),
    (
        "b",
        "half-block pixels (double resolution, colour) / characters",
    ),
    ("+/-", "zoom in / out"),
    ("h/j/k/l", "pan left / down / up / right"),
    ("f", "follow the creature on / off"),
    (
        "r",
        "reload creature and terrain files (a scene starts again)",
    ),
    ("g", "generate: new terrain seed"),
    (
        "p",
        "baked spider: a played clip, no IK (feet float) / IK; alone only",
    ),
    (
        "1-9 Tab",
        "inspect a leg of the followed creature (0 closes)",
    ),
    ("[/]", "slow motion / fast forward (0.25x to 4x)"),
    ("n/m", "follow the next / previous creature (in a scene)"),
    ("?", "this help (↑/↓, PgUp/PgDn, Home/End scroll it)"),
    (
        "q/Esc",
        "quit (Esc first closes this help, then the inspector)",
    ),
];

/// Why walking works the way it does, for the help overlay.
pub const WALKING_NOTE: &str = "Letter keys work in either case. Terminals report key presses but \
     not releases, so speed is a setting: w raises it and it stays until s lowers it or x stops. \
     A turn lasts a moment after each press of a or d; holding the key repeats it, so the turn \
     lasts as long as you hold.";

#[cfg(test)]
pub(super) mod tests {
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
            action_for(key(KeyCode::Char('O'))),
            Some(Action::ToggleSplit)
        );
        assert_eq!(action_for(key(KeyCode::Esc)), Some(Action::Back));
        assert_eq!(
            action_for(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Action::Quit)
        );
        assert_eq!(action_for(key(KeyCode::Char('z'))), None);
    }

    /// Every single-letter key [`KEYS`] lists, sorted.
    fn help_letters() -> Vec<char> {
        letters_listed(KEYS)
    }

    /// Every single-letter key a help list names, sorted.
    pub(in crate::tui) fn letters_listed(keys: &[(&str, &str)]) -> Vec<char> {
        let mut letters: Vec<char> = keys
            .iter()
            .flat_map(|(keys, _)| keys.split(['/', ' ']))
            .filter(|k| k.chars().count() == 1)
            .filter_map(|k| k.chars().next())
            .filter(char::is_ascii_alphabetic)
            .collect();
        letters.sort_unstable();
        letters
    }

    #[test]
    fn every_letter_means_the_same_in_either_case() {
        for c in 'a'..='z' {
            let lower = action_for(key(KeyCode::Char(c)));
            let upper = action_for(key(KeyCode::Char(c.to_ascii_uppercase())));
            assert_eq!(lower, upper, "{c}");
            let shifted = action_for(KeyEvent::new(
                KeyCode::Char(c.to_ascii_uppercase()),
                KeyModifiers::SHIFT,
            ));
            assert_eq!(lower, shifted, "shift+{c}");
        }
    }

    #[test]
    fn the_help_lists_exactly_the_letters_that_act() {
        let acting: Vec<char> = ('a'..='z')
            .filter(|c| action_for(key(KeyCode::Char(*c))).is_some())
            .collect();
        assert_eq!(help_letters(), acting);
        assert_eq!(acting.iter().collect::<String>(), "abdfghijklmnopqrsvwx");
    }

    #[test]
    fn each_letter_does_what_the_help_says() {
        let cases = [
            ('w', Action::Faster),
            ('s', Action::Slower),
            ('a', Action::Turn(1.0)),
            ('d', Action::Turn(-1.0)),
            ('x', Action::Stop),
            ('i', Action::CycleSolver),
            ('v', Action::CycleView),
            ('o', Action::ToggleSplit),
            ('b', Action::ToggleHiRes),
            ('h', Action::Pan(Vec2::new(-1.0, 0.0))),
            ('j', Action::Pan(Vec2::new(0.0, -1.0))),
            ('k', Action::Pan(Vec2::new(0.0, 1.0))),
            ('l', Action::Pan(Vec2::new(1.0, 0.0))),
            ('f', Action::ToggleFollow),
            ('r', Action::Reload),
            ('g', Action::NewSeed),
            ('p', Action::ToggleBaked),
            ('n', Action::FollowNext(1)),
            ('m', Action::FollowNext(-1)),
            ('q', Action::Quit),
        ];
        for (c, action) in cases {
            for c in [c, c.to_ascii_uppercase()] {
                assert_eq!(action_for(key(KeyCode::Char(c))), Some(action), "{c}");
            }
        }
        // Kept free for later features.
        assert_eq!(action_for(key(KeyCode::Char('['))), Some(Action::Rate(-1)));
        assert_eq!(action_for(key(KeyCode::Char(']'))), Some(Action::Rate(1)));
        assert_eq!(
            action_for(key(KeyCode::Char('1'))),
            Some(Action::Inspect(Some(0)))
        );
        assert_eq!(
            action_for(key(KeyCode::Char('9'))),
            Some(Action::Inspect(Some(8)))
        );
        assert_eq!(
            action_for(key(KeyCode::Char('0'))),
            Some(Action::Inspect(None))
        );
        assert_eq!(action_for(key(KeyCode::Tab)), Some(Action::InspectNext));
        for (code, rows) in [
            (KeyCode::PageUp, -HELP_PAGE),
            (KeyCode::PageDown, HELP_PAGE),
            (KeyCode::Home, i32::MIN),
            (KeyCode::End, i32::MAX),
        ] {
            assert_eq!(action_for(key(code)), Some(Action::ScrollHelp(rows)));
        }
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

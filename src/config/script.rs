//! Drive scripts: `forward 5s, left 2s, forward+right 3s, solver ccd, forward 10s`.
//!
//! Items are separated by commas or new lines; `#` starts a comment. A
//! movement item is one or more of `forward`, `back`, `left`, `right` joined
//! by `+` (or `stop`/`wait`), then a duration in seconds (`5s`, `2.5s`,
//! `500ms`, or a bare number). `solver KIND` and `reset` take effect at once.
//!
//! Durations are kept in whole microseconds and summed exactly; a time is
//! turned into simulation steps once, from the exact sum ([`steps_for`]), so
//! a thousand items of `forward 4ms` last exactly 4 s, not a thousand
//! separately rounded steps.

use super::error::{ConfigError, Errors, Source};
use crate::creature::CreatureSpec;
use crate::ik::SolverKind;

/// What one script item does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScriptAction {
    /// Hold these inputs: `forward` in [-1, 1] (back is negative), `turn` in
    /// [-1, 1] (left is positive, a counter-clockwise turn seen from above).
    Drive {
        /// Throttle.
        forward: f32,
        /// Rudder.
        turn: f32,
    },
    /// Switch every leg that can use it to this solver.
    SetSolver(SolverKind),
    /// Put the creatures back where they started.
    Reset,
}

/// One script item and how long it lasts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScriptStep {
    /// What to do.
    pub action: ScriptAction,
    /// How long, in whole microseconds (0 for instantaneous actions):
    /// integers, so any number of items adds up exactly.
    pub micros: u64,
}

impl ScriptStep {
    /// How long, in seconds.
    pub fn seconds(&self) -> f64 {
        micros_to_seconds(self.micros)
    }
}

/// The longest duration one item may have, in seconds (a day).
pub const MAX_ITEM_SECONDS: f64 = 86_400.0;

const MICROS_PER_SECOND: u64 = 1_000_000;

fn micros_to_seconds(micros: u64) -> f64 {
    micros as f64 / MICROS_PER_SECOND as f64
}

/// The number of simulation steps of `dt` seconds closest to `micros`
/// microseconds: the one rounding between script time and steps, used for
/// every cue, for the run's length and by `skitter check`, so they agree.
pub fn steps_for(micros: u64, dt: f32) -> u64 {
    // Dividing by a whole rate's reciprocal rounded to `f32` lost a step in
    // a day-long script: the rate it stands for counts exactly, in
    // integers (u128: no product of two u64 overflows it).
    if let Some(rate) = crate::sim::whole_rate(dt) {
        let micros_per_second = u128::from(MICROS_PER_SECOND);
        let steps =
            (u128::from(micros) * u128::from(rate) + micros_per_second / 2) / micros_per_second;
        return u64::try_from(steps).unwrap_or(u64::MAX);
    }
    (micros_to_seconds(micros) / f64::from(dt)).round() as u64
}

/// A parsed drive script.
#[derive(Debug, Clone, Default)]
pub struct Script {
    /// Items in order.
    pub steps: Vec<ScriptStep>,
    /// Where the items came from, for errors found once a creature is
    /// known (see [`Script::check_solvers`]).
    origin: ScriptOrigin,
}

/// The text a script was parsed from: its name, and each item's 1-based
/// line and column in it.
#[derive(Debug, Clone, Default)]
struct ScriptOrigin {
    name: String,
    places: Vec<(usize, usize)>,
}

/// Scripts are equal when they drive the same, wherever they were written.
impl PartialEq for Script {
    fn eq(&self, other: &Script) -> bool {
        self.steps == other.steps
    }
}

impl Script {
    /// Total scripted time, in whole microseconds (exact).
    pub fn total_micros(&self) -> u64 {
        // Each item is at most a day, so even billions of items cannot overflow.
        self.steps.iter().map(|s| s.micros).sum()
    }

    /// Total scripted time, in seconds.
    pub fn total_seconds(&self) -> f64 {
        micros_to_seconds(self.total_micros())
    }

    /// How many steps of `dt` seconds the script lasts.
    pub fn total_steps(&self, dt: f32) -> u64 {
        steps_for(self.total_micros(), dt)
    }

    /// Whether `creature` can use every solver the script switches to;
    /// otherwise an error at the first item it cannot, naming the leg (a
    /// script's `solver two-bone` for a creature of three-bone legs was
    /// refused with no file or line).
    pub fn check_solvers(&self, creature: &CreatureSpec) -> Result<(), ConfigError> {
        for (i, step) in self.steps.iter().enumerate() {
            let ScriptAction::SetSolver(kind) = step.action else {
                continue;
            };
            if let Err(message) = creature.check_solver(kind, "the script") {
                let (line, column) = self.origin.places.get(i).copied().unzip();
                let mut error = ConfigError::whole_file(self.origin.name.clone(), message);
                error.line = line;
                error.column = column;
                error.field = Some("solver".to_string());
                return Err(error);
            }
        }
        Ok(())
    }

    /// The solvers the script switches to, each with the line and column
    /// (1-based) of its item in the script's text.
    pub fn solver_items(&self) -> impl Iterator<Item = (SolverKind, (usize, usize))> + '_ {
        self.steps
            .iter()
            .zip(&self.origin.places)
            .filter_map(|(s, place)| match s.action {
                ScriptAction::SetSolver(kind) => Some((kind, *place)),
                _ => None,
            })
    }

    /// Every solver the script switches to, in order.
    pub fn solvers(&self) -> impl Iterator<Item = SolverKind> + '_ {
        self.steps.iter().filter_map(|s| match s.action {
            ScriptAction::SetSolver(kind) => Some(kind),
            _ => None,
        })
    }

    /// Seconds spent with a non-zero throttle (for comparisons with speeds,
    /// hence `f32`).
    pub fn driven_seconds(&self) -> f32 {
        let micros: u64 = self
            .steps
            .iter()
            .filter(|s| matches!(s.action, ScriptAction::Drive { forward, .. } if forward != 0.0))
            .map(|s| s.micros)
            .sum();
        micros_to_seconds(micros) as f32
    }
}

const VALID_ITEMS: &str = "valid items: forward|back|left|right (joined with +, e.g. forward+left) \
     or stop/wait, each followed by a duration like 5s or 500ms; `solver KIND`; `reset`";

/// Parses a drive script; `name` is used in error messages.
pub fn parse_script(name: &str, text: &str) -> Result<Script, ConfigError> {
    let src = Source::new(name, text);
    let (mut steps, mut places) = (Vec::new(), Vec::new());
    // Every bad item is reported, not only the first.
    let mut errors = Errors::default();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let code = line.split('#').next().unwrap_or("");
        let mut item_offset = offset;
        for item in code.split(',') {
            let trimmed = item.trim();
            if !trimmed.is_empty() {
                let start = item_offset + (item.len() - item.trim_start().len());
                if let Some(step) = errors.ok(parse_item(&src, trimmed, start)) {
                    steps.push(step);
                    places.push(src.line_column(start));
                }
            }
            item_offset += item.len() + 1;
        }
        offset += line.len();
    }
    errors.finish()?;
    if steps.is_empty() {
        return Err(src.error(None, "", format!("the script has no items; {VALID_ITEMS}")));
    }
    Ok(Script {
        steps,
        origin: ScriptOrigin {
            name: name.to_string(),
            places,
        },
    })
}

fn parse_item(src: &Source<'_>, item: &str, start: usize) -> Result<ScriptStep, ConfigError> {
    let mut words = item.split_whitespace();
    let head = words.next().unwrap_or_default().to_ascii_lowercase();
    let rest: Vec<&str> = words.collect();
    let at = |message: String| src.error(Some(start..start + item.len()), "", message);
    match head.as_str() {
        "reset" if rest.is_empty() => Ok(ScriptStep {
            action: ScriptAction::Reset,
            micros: 0,
        }),
        "solver" => {
            let [kind] = rest.as_slice() else {
                return Err(at(format!(
                    "`solver` takes one name, e.g. `solver fabrik`, got {item:?}"
                )));
            };
            // At the name (the item is trimmed, and the name is its last
            // word), as a bad duration is placed at the duration.
            let name_at = start + item.len() - kind.len();
            let kind = kind
                .parse::<SolverKind>()
                .map_err(|e| src.error(Some(name_at..start + item.len()), "", e.to_string()))?;
            Ok(ScriptStep {
                action: ScriptAction::SetSolver(kind),
                micros: 0,
            })
        }
        _ => {
            let (mut forward, mut turn) = (None::<f32>, None::<f32>);
            let mut still = false;
            let words: Vec<&str> = head.split('+').collect();
            for &word in &words {
                let (axis, value) = match word {
                    "forward" | "fwd" | "f" => (&mut forward, 1.0),
                    "back" | "backward" | "b" => (&mut forward, -1.0),
                    "left" | "l" => (&mut turn, 1.0),
                    "right" | "r" => (&mut turn, -1.0),
                    "stop" | "wait" => {
                        still = true;
                        continue;
                    }
                    _ => return Err(at(format!("unknown item {item:?}; {VALID_ITEMS}"))),
                };
                // `forward+back` would stand still and `left+left` turn
                // no faster: both are slips of the pen.
                if axis.is_some() {
                    return Err(at(format!(
                        "{item:?} names forward/back or left/right twice; join at most one \
                         of each, e.g. forward+left"
                    )));
                }
                *axis = Some(value);
            }
            if still && words.len() > 1 {
                return Err(at(format!(
                    "{item:?}: stop and wait stand alone, e.g. `stop 2s`"
                )));
            }
            let (forward, turn) = (forward.unwrap_or(0.0), turn.unwrap_or(0.0));
            let [duration] = rest.as_slice() else {
                return Err(at(format!(
                    "{head} needs one duration, e.g. `{head} 5s`; got {item:?}"
                )));
            };
            // Pointed at itself: the item's start is its direction.
            let duration_at = start + item.rfind(duration).unwrap_or(0);
            let duration_span = duration_at..duration_at + duration.len();
            let micros = parse_duration(duration).ok_or_else(|| {
                let message = format!(
                    "bad duration {duration:?}: use seconds like 5s or 2.5, or milliseconds like \
                     500ms, from 0 to {MAX_ITEM_SECONDS} s"
                );
                src.error(Some(duration_span), "", message)
            })?;
            Ok(ScriptStep {
                action: ScriptAction::Drive { forward, turn },
                micros,
            })
        }
    }
}

/// A duration in whole microseconds (rounded), if `text` is one from 0 to
/// [`MAX_ITEM_SECONDS`].
fn parse_duration(text: &str) -> Option<u64> {
    let text = text.to_ascii_lowercase();
    // Milliseconds are scaled by an integer, so `4ms` is exactly 4000 µs.
    let (number, micros_per_unit) = match text.strip_suffix("ms") {
        Some(ms) => (ms, 1_000.0),
        None => (text.strip_suffix('s').unwrap_or(&text), 1_000_000.0),
    };
    let value = number.parse::<f64>().ok()?;
    let micros = value * micros_per_unit;
    let max_micros = MAX_ITEM_SECONDS * 1e6;
    // In range, the cast is exact for the rounded value (below 2^53).
    (micros.is_finite() && (0.0..=max_micros).contains(&micros)).then(|| micros.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_issue_example() {
        let script = parse_script("--drive", "forward 5s, left 2s, forward 10s").unwrap();
        assert_eq!(script.steps.len(), 3);
        assert_eq!(script.total_seconds(), 17.0);
        assert_eq!(script.driven_seconds(), 15.0);
        assert_eq!(
            script.steps[1].action,
            ScriptAction::Drive {
                forward: 0.0,
                turn: 1.0
            }
        );
    }

    #[test]
    fn combined_moves_solver_reset_comments_and_lines() {
        let text = "# warm up\nforward+right 1.5s\nsolver ccd, wait 500ms\nreset\n";
        let script = parse_script("drive.txt", text).unwrap();
        assert_eq!(
            script.steps[0].action,
            ScriptAction::Drive {
                forward: 1.0,
                turn: -1.0
            }
        );
        assert_eq!(
            script.steps[1].action,
            ScriptAction::SetSolver(SolverKind::Ccd)
        );
        assert_eq!(script.steps[2].micros, 500_000);
        assert_eq!(script.steps[2].seconds(), 0.5);
        assert_eq!(script.steps[3].action, ScriptAction::Reset);
    }

    #[test]
    fn errors_point_at_the_item() {
        let err = parse_script("drive.txt", "forward 5s\n  jump 2s").unwrap_err();
        assert_eq!(err.line, Some(2));
        assert_eq!(err.column, Some(3));
        assert!(err.message.contains("unknown item \"jump 2s\""), "{err}");
        // A bad duration is pointed at itself, past its item's direction.
        let err = parse_script("--drive", "forward 5s, left soon").unwrap_err();
        assert_eq!(err.column, Some(18));
        assert!(err.message.contains("bad duration \"soon\""), "{err}");
        let err = parse_script("--drive", "solver jacobian").unwrap_err();
        assert!(err.message.contains("valid solvers are"), "{err}");
        assert!(parse_script("--drive", " # nothing\n").is_err());
        assert!(parse_script("--drive", "forward -3s").is_err());
    }

    /// `forward+back` stood still and `stop+forward` walked: both parsed.
    #[test]
    fn contradictory_moves_in_one_item_are_refused() {
        for item in ["forward+back 1s", "l+right 1s", "forward+f 1s"] {
            let err = parse_script("--drive", &format!("left 1s, {item}")).unwrap_err();
            assert_eq!(err.column, Some(10), "{err}");
            assert!(err.message.contains("at most one of each"), "{err}");
        }
        let err = parse_script("--drive", "stop+forward 2s").unwrap_err();
        assert!(err.message.contains("stand alone"), "{err}");
        let script = parse_script("--drive", "back+right 1s, r+f 1s").unwrap();
        let actions: Vec<_> = script.steps.iter().map(|s| s.action).collect();
        assert_eq!(
            actions,
            vec![
                ScriptAction::Drive {
                    forward: -1.0,
                    turn: -1.0
                },
                ScriptAction::Drive {
                    forward: 1.0,
                    turn: -1.0
                },
            ]
        );
    }

    #[test]
    fn durations_are_exact_microseconds_within_a_day() {
        let script =
            parse_script("t", "forward 4ms, left 2.5s, wait 0.0000004, stop 86400").unwrap();
        let micros: Vec<u64> = script.steps.iter().map(|s| s.micros).collect();
        assert_eq!(micros, vec![4_000, 2_500_000, 0, 86_400_000_000]);
        assert!(parse_script("t", "forward 86400.000001s").is_err());
        assert!(parse_script("t", "forward 86400001ms").is_err());
        assert!(parse_script("t", "forward NaN").is_err());
        assert!(parse_script("t", "forward inf").is_err());
        let err = parse_script("t", "forward 1e9s").unwrap_err();
        assert!(err.message.contains("from 0 to 86400 s"), "{err}");
    }

    #[test]
    fn a_day_of_steps_counts_every_step() {
        for (seconds, steps) in [
            (86_400, 10_368_000),
            (80_000, 9_600_000),
            (70_000, 8_400_000),
        ] {
            let script = parse_script("t", &format!("forward {seconds}s")).unwrap();
            assert_eq!(script.total_steps(1.0 / 120.0), steps, "{seconds} s");
        }
        // Half a step rounds up, a hair less down; a step that is no whole
        // rate's reciprocal divides as it is.
        assert_eq!(steps_for(4_167, 1.0 / 120.0), 1);
        assert_eq!(steps_for(4_166, 1.0 / 120.0), 0);
        assert_eq!(steps_for(1_000_000, 0.3), 3);
        assert_eq!(steps_for(1_000_000, 1.0 / 60.0), 60);
        // A step so short its rate passes any integer: divided, not
        // multiplied past u128.
        assert_eq!(steps_for(1, f32::MIN_POSITIVE), u64::MAX);
        assert_eq!(steps_for(86_400_000_000, 1e-30), u64::MAX);
    }

    #[test]
    fn a_thousand_short_items_add_up_exactly() {
        let text = ["forward 4ms"; 1000].join(", ");
        let script = parse_script("t", &text).unwrap();
        assert_eq!(script.total_micros(), 4_000_000);
        assert_eq!(script.total_seconds(), 4.0);
        assert_eq!(script.total_steps(1.0 / 120.0), 480);
        // 0.1 s is not a binary fraction; ten of them are still exactly 1 s.
        let script = parse_script("t", &["forward 0.1s"; 10].join("\n")).unwrap();
        assert_eq!(script.total_steps(1.0 / 120.0), 120);
    }
}

//! A drive script laid out on the simulation's clock: commands at steps.
//!
//! The headless runner and the viewer both play scripts through this one
//! type, so the same script gives the same trajectory in either.

use super::{Command, CommandError, World};
use crate::config::{Script, ScriptAction, steps_for};

/// A command and the world step before which it applies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cue {
    /// Applied when the world has taken this many steps.
    pub step: u64,
    /// What to do.
    pub command: Command,
}

/// Commands waiting for their steps.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Timeline {
    cues: Vec<Cue>,
    next: usize,
}

impl Timeline {
    /// `script` in steps of `dt` seconds, ending with [`Command::Stop`].
    ///
    /// Each cue's step is its exact start time (the sum of the items before
    /// it, in whole microseconds) rounded once, so rounding never piles up
    /// over many short items.
    pub fn from_script(script: &Script, dt: f32) -> Timeline {
        let mut cues = Vec::with_capacity(script.steps.len() + 1);
        let mut micros = 0u64;
        for item in &script.steps {
            let command = match item.action {
                ScriptAction::Drive { forward, turn } => Command::Drive { forward, turn },
                ScriptAction::SetSolver(kind) => Command::SetSolver(kind),
                ScriptAction::Reset => Command::Reset,
            };
            cues.push(Cue {
                step: steps_for(micros, dt),
                command,
            });
            micros += item.micros;
        }
        cues.push(Cue {
            step: steps_for(micros, dt),
            command: Command::Stop,
        });
        Timeline { cues, next: 0 }
    }

    /// One command from the first step on (e.g. walk forward).
    pub fn constant(command: Command) -> Timeline {
        Timeline {
            cues: vec![Cue { step: 0, command }],
            next: 0,
        }
    }

    /// The same cues, each `steps` later: a script started mid-run.
    pub fn delayed(mut self, steps: u64) -> Timeline {
        for cue in &mut self.cues {
            cue.step += steps;
        }
        self
    }

    /// The step of the last cue: how long the script runs.
    pub fn end(&self) -> u64 {
        self.cues.last().map_or(0, |c| c.step)
    }

    /// Whether every cue has been applied.
    pub fn finished(&self) -> bool {
        self.next >= self.cues.len()
    }

    /// Applies every cue due by the world's current step count, in order;
    /// returns the commands applied and the first refusal, if any (the rest
    /// still apply).
    pub fn apply_due(&mut self, world: &mut World) -> (usize, Result<(), CommandError>) {
        self.apply_due_with(world, |world, command| world.apply(command))
    }

    /// [`Timeline::apply_due`] for the creatures of one kind only: a scene
    /// drives each kind by its own script.
    pub fn apply_due_to_kind(
        &mut self,
        world: &mut World,
        kind: usize,
    ) -> (usize, Result<(), CommandError>) {
        self.apply_due_with(world, |world, command| world.apply_to_kind(kind, command))
    }

    fn apply_due_with(
        &mut self,
        world: &mut World,
        apply: impl Fn(&mut World, Command) -> Result<(), CommandError>,
    ) -> (usize, Result<(), CommandError>) {
        let now = world.metrics().steps;
        let mut applied = 0;
        let mut outcome = Ok(());
        while let Some(cue) = self.cues.get(self.next).filter(|c| c.step <= now) {
            let result = apply(world, cue.command);
            if outcome.is_ok() {
                outcome = result;
            }
            self.next += 1;
            applied += 1;
        }
        (applied, outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_script;

    #[test]
    fn script_items_become_cues_at_their_steps() {
        let script = parse_script("t", "forward 1s, solver ccd, left 0.5s").unwrap();
        let timeline = Timeline::from_script(&script, 0.25);
        let steps: Vec<u64> = timeline.cues.iter().map(|c| c.step).collect();
        assert_eq!(steps, vec![0, 4, 4, 6]);
        assert_eq!(timeline.cues[3].command, Command::Stop);
        assert_eq!(timeline.end(), 6);
    }

    #[test]
    fn many_short_items_round_once() {
        // 4 ms is 0.48 of a 1/120 s step: rounded per item it would be 0
        // steps each (or 1 each, rounding up): 0 or 1000 steps instead of 480.
        let text = ["forward 4ms"; 1000].join(", ");
        let script = parse_script("t", &text).unwrap();
        let timeline = Timeline::from_script(&script, 1.0 / 120.0);
        assert_eq!(timeline.end(), 480);
        assert_eq!(timeline.end(), script.total_steps(1.0 / 120.0));
        // The 250th item starts at exactly 1 s.
        assert_eq!(timeline.cues[250].step, 120);
        assert_eq!(timeline.cues[1].step, 0);
        assert_eq!(timeline.cues[2].step, 1);
    }
}

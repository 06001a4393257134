//! What a driver (a person at the keyboard or a script) can tell the world.

use crate::ik::SolverKind;

/// A command to the world; every creature obeys it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Command {
    /// Hold a throttle in [-1, 1] (negative walks back) and a rudder in
    /// [-1, 1] (positive turns left) until told otherwise.
    Drive {
        /// Throttle.
        forward: f32,
        /// Rudder.
        turn: f32,
    },
    /// Stand still.
    Stop,
    /// Switch every leg that can use it to this solver.
    SetSolver(SolverKind),
    /// Put every creature back where it started.
    Reset,
}

/// A command that could not be carried out in full.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// Some legs cannot use the requested solver and kept theirs.
    #[error("{refused} of {legs} legs cannot use the {solver} solver and kept their own")]
    SolverRefused {
        /// The requested solver.
        solver: SolverKind,
        /// Legs that kept their solver.
        refused: usize,
        /// Legs in all.
        legs: usize,
    },
}

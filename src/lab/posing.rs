//! A chain and the solver posing it, solve after solve from the previous
//! pose: what `track` and `reach` step through, and what the lab screen
//! switches solvers on without losing the pose.

use glam::Vec3;

use crate::ik::{Chain, SolveParams, SolveReport, Solver, SolverKind};

/// A chain re-solved from its previous pose by a switchable solver.
pub struct Posing {
    solver: Box<dyn Solver>,
    kind: SolverKind,
    chain: Chain,
    /// The joints before the last solve.
    before: Vec<Vec3>,
}

// Solvers are trait objects without `Debug`; the kind names the solver.
impl std::fmt::Debug for Posing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Posing")
            .field("kind", &self.kind)
            .field("chain", &self.chain)
            .finish_non_exhaustive()
    }
}

impl Posing {
    /// `start` (copied) posed by `kind`. A solver that cannot pose the chain
    /// is the caller's to refuse: its solves leave the chain as it is.
    pub fn new(kind: SolverKind, start: &Chain) -> Posing {
        Posing {
            solver: kind.build(),
            kind,
            chain: start.clone(),
            before: start.joints().to_vec(),
        }
    }

    /// The solver in use.
    pub fn kind(&self) -> SolverKind {
        self.kind
    }

    /// Switches to `kind`, keeping the pose; refuses a solver that cannot
    /// pose the chain (with its reason).
    pub fn set_solver(&mut self, kind: SolverKind) -> Result<(), String> {
        let solver = kind.build();
        solver.supports(&self.chain).map_err(|e| e.to_string())?;
        self.solver = solver;
        self.kind = kind;
        Ok(())
    }

    /// The chain as the last solve left it.
    pub fn chain(&self) -> &Chain {
        &self.chain
    }

    /// The chain, to change its limits between solves.
    pub fn chain_mut(&mut self) -> &mut Chain {
        &mut self.chain
    }

    /// Solves for `target` from the current pose.
    pub fn solve(&mut self, target: Vec3, params: &SolveParams) -> SolveReport {
        self.before.clear();
        self.before.extend_from_slice(self.chain.joints());
        self.solver.solve(&mut self.chain, target, params)
    }

    /// The joints as they were before the last solve.
    pub fn before(&self) -> &[Vec3] {
        &self.before
    }

    /// The largest distance any joint moved in the last solve.
    pub fn jump(&self) -> f32 {
        self.chain
            .joints()
            .iter()
            .zip(&self.before)
            .map(|(now, was)| now.distance(*was))
            .fold(0.0, f32::max)
    }
}

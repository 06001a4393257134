//! `lab constraints`: FABRIK and CCD with and without joint limits (the
//! FABRIK report's Table 4.5, §3.7.2).
//!
//! The report limits each of its 10 joints to a range; here every inner
//! joint of the report's chain gets a cone of [`CONE_DEG`], and the same
//! reachable targets as `lab solvers` are solved with and without it. The
//! free runs are measured against the same limits, to show how often an
//! unconstrained solver bends a joint further than the cone allows.

use serde::Serialize;

use super::solvers::{MAX_ITERATIONS, TOLERANCE_MM};
use super::{LabError, Options, Row, Table, fmt_opt, quantile, timed_solve};
use crate::ik::experiment::Setup;
use crate::ik::{JointLimit, SolveParams, SolverKind};

/// Largest bend at every inner joint in the constrained runs, degrees.
pub const CONE_DEG: f32 = 50.0;
/// A joint further outside its limit than this (degrees) counts as a
/// violation: well above the `f32` rounding of a 9 m chain's joints.
pub const VIOLATION_DEG: f32 = 0.01;
/// Targets unless `--cases` says otherwise.
pub const DEFAULT_CASES: usize = 200;

/// One solver, with or without limits.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConstraintRow {
    /// Solver name.
    pub solver: String,
    /// Whether the chain's joints were limited.
    pub constrained: bool,
    /// Targets solved.
    pub cases: usize,
    /// Mean iterations per solve.
    pub mean_iterations: f64,
    /// Median time per solve, microseconds.
    pub median_us: f64,
    /// Fraction of targets reached (0–1).
    pub success: f64,
    /// Solves whose final pose has a joint outside the cone by more than
    /// [`VIOLATION_DEG`] (for free runs: what the cone would have forbidden).
    pub violations: usize,
    /// The report's mean iterations (Table 4.5).
    pub report_iterations: Option<f64>,
    /// The report's MATLAB time per solve, milliseconds (Table 4.5).
    pub report_ms: Option<f64>,
}

impl Row for ConstraintRow {
    const COLUMNS: &'static [&'static str] = &[
        "solver",
        "constrained",
        "mean iterations",
        "median µs",
        "success",
        "violations",
        "report iterations",
        "report ms",
    ];

    fn cells(&self) -> Vec<String> {
        vec![
            self.solver.clone(),
            self.constrained.to_string(),
            format!("{:.2}", self.mean_iterations),
            format!("{:.1}", self.median_us),
            format!("{:.3}", self.success),
            self.violations.to_string(),
            fmt_opt(self.report_iterations, 3),
            fmt_opt(self.report_ms, 2),
        ]
    }
}

/// The report's Table 4.5 figures: (iterations, seconds).
fn report_figures(kind: SolverKind, constrained: bool) -> Option<(f64, f64)> {
    match (kind, constrained) {
        (SolverKind::Fabrik, false) => Some((15.461, 0.01328)),
        (SolverKind::Ccd, false) => Some((26.308, 0.12359)),
        (SolverKind::Fabrik, true) => Some((17.142, 0.03110)),
        (SolverKind::Ccd, true) => Some((26.857, 0.29281)),
        _ => None,
    }
}

/// Runs FABRIK and CCD on the report's chain, free and with cones.
pub fn run(options: &Options) -> Result<Table<ConstraintRow>, LabError> {
    let cases = options.cases_or(DEFAULT_CASES, 100_000)?;
    let repeats = options.repeats()?;
    let cases = Setup::LAB_REACHABLE.cases(options.seed(), cases);
    let cone = JointLimit::Cone {
        max: CONE_DEG.to_radians(),
    };
    let limits = vec![cone; Setup::LAB_REACHABLE.bones - 1];
    let params = SolveParams {
        tolerance: TOLERANCE_MM,
        max_iterations: MAX_ITERATIONS,
        ..SolveParams::default()
    };
    let mut rows = Vec::new();
    for kind in [SolverKind::Fabrik, SolverKind::Ccd] {
        for constrained in [false, true] {
            let mut solver = kind.build();
            let mut scratch = cases[0].chain.clone();
            let mut times = Vec::with_capacity(cases.len());
            let (mut iterations, mut reached, mut violations) = (0u64, 0usize, 0usize);
            for case in &cases {
                let mut start = case.chain.clone();
                if constrained {
                    start.set_limits(&limits)?;
                }
                let (report, mut posed, micros) = timed_solve(
                    solver.as_mut(),
                    &start,
                    case.target,
                    &params,
                    repeats,
                    &mut scratch,
                );
                times.push(micros);
                iterations += u64::from(report.iterations);
                reached += usize::from(report.reached);
                // Judge every run, free or not, against the cones.
                posed.set_limits(&limits)?;
                violations += usize::from(posed.limit_violation().to_degrees() > VIOLATION_DEG);
            }
            let figures = report_figures(kind, constrained);
            rows.push(ConstraintRow {
                solver: kind.name().to_string(),
                constrained,
                cases: cases.len(),
                mean_iterations: iterations as f64 / cases.len() as f64,
                median_us: quantile(&mut times, 0.5),
                success: reached as f64 / cases.len() as f64,
                violations,
                report_iterations: figures.map(|f| f.0),
                report_ms: figures.map(|f| f.1 * 1e3),
            });
        }
    }
    Ok(Table {
        title: format!(
            "Joint limits: FABRIK and CCD, free and with {CONE_DEG}° cones (seed {}, {} reachable targets)",
            options.seed(),
            cases.len()
        ),
        rows,
        notes: vec![
            format!(
                "The report's chain and reachable targets as in `lab solvers` (tolerance \
                 {TOLERANCE_MM} mm, at most {MAX_ITERATIONS} iterations); constrained runs limit every \
                 inner joint to a {CONE_DEG}° cone about the bone before it. Violations count solves \
                 ending with a joint more than {VIOLATION_DEG}° outside the cone (free runs too, \
                 against the same cones)."
            ),
            format!(
                "Times are medians of {repeats} runs per solve. The report columns are its Table 4.5 \
                 (MATLAB, a humanoid with range-limited joints, so the setups differ)."
            ),
        ],
    })
}

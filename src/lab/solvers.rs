//! `lab solvers`: the FABRIK report's comparison (§4.2.1, Tables 4.1–4.3).
//!
//! The report's model: a chain of 10 bones of 900 mm each, a random start
//! pose, a random target, solved to 1e-3 mm. Reachable targets are drawn
//! between 10% and 95% of the reach from the root, unreachable ones between
//! 110% and 200% (see [`Setup::LAB_REACHABLE`]).

use serde::Serialize;

use super::{LabError, Options, Row, Table, fmt_opt, quantile, timed_solve};
use crate::ik::experiment::{Case, Setup};
use crate::ik::{SolveParams, SolverKind};

/// Tolerance of the report's experiment, millimetres (§4.2.1).
pub const TOLERANCE_MM: f32 = 1e-3;
/// Iteration budget per solve: above the report's worst mean (6549, the
/// Jacobian transpose on unreachable targets), so the budget rarely decides.
pub const MAX_ITERATIONS: u32 = 10_000;
/// Targets per set unless `--cases` says otherwise.
pub const DEFAULT_CASES: usize = 200;

/// One solver on one set of targets.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SolverRow {
    /// Solver name.
    pub solver: String,
    /// `reachable` or `unreachable`.
    pub set: String,
    /// Targets solved.
    pub cases: usize,
    /// Mean iterations per solve.
    pub mean_iterations: f64,
    /// Most iterations one solve took.
    pub max_iterations: u32,
    /// Fraction of solves that succeeded (0–1): the target reached within the
    /// tolerance or, for unreachable targets, the end within the tolerance of
    /// the closest point the chain can reach (pointing straight at it).
    pub success: f64,
    /// Median time per solve, microseconds.
    pub median_us: f64,
    /// 99th percentile time per solve, microseconds.
    pub p99_us: f64,
    /// Total time over total iterations, microseconds.
    pub us_per_iteration: f64,
    /// The report's mean iterations for this method and set (Tables 4.1/4.2), if it has one.
    pub report_iterations: Option<f64>,
    /// The report's mean MATLAB time per solve, milliseconds (Tables 4.1/4.2).
    pub report_ms: Option<f64>,
    /// The report's MATLAB time per iteration, milliseconds (Table 4.3).
    pub report_ms_per_iteration: Option<f64>,
}

impl Row for SolverRow {
    const COLUMNS: &'static [&'static str] = &[
        "solver",
        "set",
        "mean iterations",
        "max iterations",
        "success",
        "median µs",
        "p99 µs",
        "µs/iteration",
        "report iterations",
        "report ms",
        "report ms/iteration",
    ];

    fn cells(&self) -> Vec<String> {
        vec![
            self.solver.clone(),
            self.set.clone(),
            format!("{:.2}", self.mean_iterations),
            self.max_iterations.to_string(),
            format!("{:.3}", self.success),
            format!("{:.1}", self.median_us),
            format!("{:.1}", self.p99_us),
            format!("{:.3}", self.us_per_iteration),
            fmt_opt(self.report_iterations, 3),
            fmt_opt(self.report_ms, 2),
            fmt_opt(self.report_ms_per_iteration, 1),
        ]
    }
}

/// The report's figures for `kind`: (Table 4.1 iterations, 4.1 seconds,
/// 4.2 iterations, 4.2 seconds, 4.3 ms per iteration). DLS is the report's
/// "Jacobian DLS"; the report has no gradient-descent or two-bone row.
pub fn report_figures(kind: SolverKind) -> Option<(f64, f64, f64, f64, f64)> {
    match kind {
        SolverKind::Fabrik => Some((15.461, 0.01328, 67.564, 0.06207, 0.8)),
        SolverKind::Ccd => Some((26.308, 0.12359, 390.135, 3.92869, 8.8)),
        SolverKind::JacobianTranspose => Some((1311.190, 12.98947, 6549.000, 33.90473, 9.9)),
        SolverKind::Dls => Some((998.648, 10.48501, 2881.667, 14.87918, 10.5)),
        SolverKind::Gradient | SolverKind::TwoBone => None,
    }
}

/// Runs every solver that can pose the report's chain on `cases` reachable
/// and `cases` unreachable targets.
pub fn run(options: &Options) -> Result<Table<SolverRow>, LabError> {
    let cases = options.cases_or(DEFAULT_CASES, 100_000)?;
    let repeats = options.repeats()?;
    let sets = [
        (
            "reachable",
            Setup::LAB_REACHABLE.cases(options.seed(), cases),
        ),
        (
            "unreachable",
            Setup::LAB_UNREACHABLE.cases(options.seed(), cases),
        ),
    ];
    let params = SolveParams {
        tolerance: TOLERANCE_MM,
        max_iterations: MAX_ITERATIONS,
        ..SolveParams::default()
    };
    let mut rows = Vec::new();
    for kind in SolverKind::ALL {
        let solver = kind.build();
        if solver.supports(&sets[0].1[0].chain).is_err() {
            continue;
        }
        for (set, cases) in &sets {
            rows.push(measure(kind, set, cases, &params, repeats));
        }
    }
    let setup = Setup::LAB_REACHABLE;
    Ok(Table {
        title: format!(
            "Solvers on the report's chain ({} bones, {} mm in all, seed {}, {} targets per set)",
            setup.bones,
            setup.bones as f32 * setup.bone_length,
            options.seed(),
            cases
        ),
        rows,
        notes: vec![
            format!(
                "Tolerance {TOLERANCE_MM} mm, at most {MAX_ITERATIONS} iterations. Start poses bend up \
                 to {}° at every joint; reachable targets lie {:.0}–{:.0}% of the reach from the root, \
                 unreachable ones {:.0}–{:.0}%.",
                setup.max_bend_deg,
                100.0 * Setup::LAB_REACHABLE.target_range.0,
                100.0 * Setup::LAB_REACHABLE.target_range.1,
                100.0 * Setup::LAB_UNREACHABLE.target_range.0,
                100.0 * Setup::LAB_UNREACHABLE.target_range.1,
            ),
            format!(
                "Times are per solve, each the median of {}; µs/iteration is total time \
                 over total iterations. Success on unreachable targets means ending as close as the \
                 chain can get (straight at the target).",
                crate::text::counted(repeats, "run")
            ),
            "The report columns are the FABRIK report's MATLAB figures (Tables 4.1 and 4.2 for \
             iterations and time per solve, 4.3 for time per iteration; its DLS is \"Jacobian \
             DLS\"). The report has no gradient-descent row, and two-bone cannot pose 10 bones. \
             Our FABRIK answers an unreachable target in one pass (the report's Algorithm 1 \
             shortcut); the report's 67.6 iterations are without it."
                .to_string(),
        ],
    })
}

/// One solver over one set of cases.
fn measure(
    kind: SolverKind,
    set: &str,
    cases: &[Case],
    params: &SolveParams,
    repeats: usize,
) -> SolverRow {
    let mut solver = kind.build();
    let mut scratch = cases[0].chain.clone();
    let mut times = Vec::with_capacity(cases.len());
    let mut iterations = 0u64;
    let mut max_iterations = 0;
    let mut successes = 0usize;
    for case in cases {
        let (report, posed, micros) = timed_solve(
            solver.as_mut(),
            &case.chain,
            case.target,
            params,
            repeats,
            &mut scratch,
        );
        times.push(micros);
        iterations += u64::from(report.iterations);
        max_iterations = max_iterations.max(report.iterations);
        successes += usize::from(succeeded(&report, &posed, case.target, params.tolerance));
    }
    let total: f64 = times.iter().sum();
    let figures = report_figures(kind);
    let reachable = set == "reachable";
    SolverRow {
        solver: kind.name().to_string(),
        set: set.to_string(),
        cases: cases.len(),
        mean_iterations: iterations as f64 / cases.len() as f64,
        max_iterations,
        success: successes as f64 / cases.len() as f64,
        median_us: quantile(&mut times, 0.5),
        p99_us: quantile(&mut times, 0.99),
        us_per_iteration: total / iterations.max(1) as f64,
        report_iterations: figures.map(|f| if reachable { f.0 } else { f.2 }),
        report_ms: figures.map(|f| 1e3 * if reachable { f.1 } else { f.3 }),
        report_ms_per_iteration: figures.map(|f| f.4),
    }
}

/// Whether a solve did all it could: reached the target, or, for a target
/// beyond the reach, ended within the tolerance (plus the `f32` rounding of
/// positions at the chain's size) of the closest point the chain can reach.
pub(crate) fn succeeded(
    report: &crate::ik::SolveReport,
    posed: &crate::ik::Chain,
    target: glam::Vec3,
    tolerance: f32,
) -> bool {
    if report.reached {
        return true;
    }
    let distance = target.distance(posed.root());
    let best_possible = distance - posed.reach();
    let rounding = 4.0 * f32::EPSILON * (posed.reach() + distance);
    best_possible > 0.0 && report.error <= best_possible + tolerance + rounding
}

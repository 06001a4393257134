//! The lab: the seeds' experiments, reproducible from one command.
//!
//! Each experiment is seeded, returns a [`Table`] of typed rows, and prints
//! as Markdown or as a JSON array of row objects. Everything but the timing
//! columns is a deterministic function of the seed; timings are medians of
//! repeated runs, so one slow run (a page fault, the other engineer's build)
//! does not move them much.
//!
//! - [`solvers`]: the FABRIK report's solver comparison (Tables 4.1–4.3);
//! - [`constraints`]: constrained versus free FABRIK and CCD (Table 4.5);
//! - [`track`]: a target on a sine trajectory (the report's Fig. 4.8);
//! - [`baked`]: the spider thesis' baked-animation spider against the IK one;
//! - [`reach`]: the thesis' arm pressing buttons on a wall;
//! - [`live`]: `track` and `reach` step by step, for the lab screen.

pub mod baked;
pub mod constraints;
pub mod live;
pub mod posing;
pub mod reach;
pub mod solvers;
pub mod track;

use std::fmt::Write as _;
use std::time::Instant;

use serde::Serialize;

use crate::config::ConfigError;
use crate::ik::{Chain, IkError, SolveParams, SolveReport, Solver};

/// Why an experiment could not run.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// An option is out of range (e.g. zero cases).
    #[error("{option}: {message}")]
    BadOption {
        /// The option, as on the command line (`--cases`).
        option: &'static str,
        /// What is wrong and what would be valid.
        message: String,
    },
    /// A shipped creature or terrain failed to load (a build defect).
    #[error("{0}")]
    Config(#[from] ConfigError),
    /// A chain could not be built or limited.
    #[error("{0}")]
    Ik(#[from] IkError),
}

/// The seed when none is given.
pub const DEFAULT_SEED: u64 = 1;

/// How an experiment runs: the seed, how many cases, how often each is timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Seed for every random choice (targets, start poses, buttons, walks);
    /// `None` uses [`DEFAULT_SEED`]. Kept optional so an experiment where a
    /// seed cannot apply (`reach` with a button file) can refuse one.
    pub seed: Option<u64>,
    /// Cases per set (targets, buttons, steps), where the experiment has a
    /// count; `None` uses the experiment's default.
    pub cases: Option<usize>,
    /// Times each timed solve or run is repeated; the median is kept.
    pub repeats: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            seed: None,
            cases: None,
            repeats: 5,
        }
    }
}

impl Options {
    /// The seed to use: the one given, or [`DEFAULT_SEED`].
    pub fn seed(&self) -> u64 {
        self.seed.unwrap_or(DEFAULT_SEED)
    }

    /// The case count to use: the one asked for, or `default`; refuses 0 and
    /// more than `most`.
    pub fn cases_or(&self, default: usize, most: usize) -> Result<usize, LabError> {
        let cases = self.cases.unwrap_or(default);
        if cases == 0 || cases > most {
            return Err(LabError::BadOption {
                option: "--cases",
                message: format!("must be from 1 to {most}, got {cases}"),
            });
        }
        Ok(cases)
    }

    /// The repeat count, checked to be from 1 to 1000.
    pub fn repeats(&self) -> Result<usize, LabError> {
        if (1..=1000).contains(&self.repeats) {
            Ok(self.repeats)
        } else {
            Err(LabError::BadOption {
                option: "--repeats",
                message: format!("must be from 1 to 1000, got {}", self.repeats),
            })
        }
    }
}

/// A row of an experiment's table: its Markdown cells, in column order.
pub trait Row: Serialize {
    /// Column headings, in order.
    const COLUMNS: &'static [&'static str];
    /// This row's cells, one per column.
    fn cells(&self) -> Vec<String>;
}

/// An experiment's result: a title, rows, and notes saying what was measured.
#[derive(Debug, Clone)]
pub struct Table<R> {
    /// Heading printed above the Markdown table.
    pub title: String,
    /// The rows.
    pub rows: Vec<R>,
    /// Lines printed under the Markdown table: setup, units, the seeds' figures.
    pub notes: Vec<String>,
}

impl<R: Row> Table<R> {
    /// The table as Markdown: a heading, the table, then the notes.
    pub fn markdown(&self) -> String {
        let mut out = format!("### {}\n\n", self.title);
        let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
        let head: Vec<String> = R::COLUMNS.iter().map(|c| (*c).to_string()).collect();
        out.push_str(&line(&head));
        out.push_str(&line(&vec!["---".to_string(); head.len()]));
        for row in &self.rows {
            out.push_str(&line(&row.cells()));
        }
        if !self.notes.is_empty() {
            out.push('\n');
            for note in &self.notes {
                // Writing to a String cannot fail.
                let _ = writeln!(out, "{note}");
            }
        }
        out
    }

    /// The rows as a JSON array of objects.
    pub fn json(&self) -> String {
        // Rows are plain structs of numbers, strings and booleans, which
        // serde_json always serialises.
        serde_json::to_string_pretty(&self.rows).expect("rows serialise")
    }
}

/// A number with `digits` decimals, or `-` when there is none.
pub(crate) fn fmt_opt(value: Option<f64>, digits: usize) -> String {
    value.map_or_else(|| "-".to_string(), |v| format!("{v:.digits$}"))
}

/// The value below which a fraction `q` of `values` lie (nearest rank), 0
/// for none; sorts `values`.
pub(crate) fn quantile(values: &mut [f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let rank = ((q.clamp(0.0, 1.0) * values.len() as f64).ceil() as usize).clamp(1, values.len());
    values[rank - 1]
}

/// One solve, timed `repeats` times from the same start pose: the report and
/// final pose of the first run (every run is identical: solvers are
/// deterministic) and the median time in microseconds.
pub(crate) fn timed_solve(
    solver: &mut dyn Solver,
    start: &Chain,
    target: glam::Vec3,
    params: &SolveParams,
    repeats: usize,
    scratch: &mut Chain,
) -> (SolveReport, Chain, f64) {
    let mut times = Vec::with_capacity(repeats);
    let mut first = None;
    for _ in 0..repeats.max(1) {
        scratch.clone_from(start);
        let begin = Instant::now();
        let report = solver.solve(scratch, target, params);
        times.push(begin.elapsed().as_secs_f64() * 1e6);
        if first.is_none() {
            first = Some((report, scratch.clone()));
        }
    }
    // The loop runs at least once, so `first` is set.
    let (report, posed) = first.expect("at least one run");
    (report, posed, quantile(&mut times, 0.5))
}

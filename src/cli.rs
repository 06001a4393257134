//! Command-line interface: parse arguments, dispatch, map errors to exit codes.
//!
//! Exit codes: 0 ok, 1 I/O or other failure, 2 bad input, 3 the run went bad
//! (NaN in the simulation, or with `--strict` a quality limit broken).
//! Nothing here panics on output: every write to stdout or stderr goes
//! through [`Out`] or [`report`], which turn a closed pipe or a full disk
//! into exit code 1.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::num::NonZeroU64;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use skitter::config::{
    self, CREATURES, ConfigError, Script, TERRAINS, load_creature_with_warnings, parse_script,
};
use skitter::headless::{self, HeadlessRun, RunLength};
use skitter::ik::SolverKind;
use skitter::lab;
use skitter::sim::Summary;
use skitter::text::printable;

/// Exit code for bad input (files, flags): the user can fix it.
const EXIT_BAD_INPUT: u8 = 2;
/// Exit code for failures that are not the input's fault (I/O, terminal).
const EXIT_FAILURE: u8 = 1;
/// Exit code for a run that finished but went bad (NaN, or a broken limit
/// under `--strict`).
const EXIT_RUN_WENT_BAD: u8 = 3;
/// The most characters of one line of output (a message names a file, a
/// field and what is wrong, each already cut to size).
const LINE_MAX_CHARS: usize = 1000;
/// The shortest `--seconds` accepted: it rounds to one step of 1/120 s.
const MIN_SECONDS: f64 = 0.0042;
/// The longest `--seconds` accepted (about 11.6 simulated days).
const MAX_SECONDS: f64 = 1e6;

/// skitter: procedural creatures walking on noise terrain, in your terminal.
#[derive(Debug, Parser)]
#[command(name = "skitter", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Commands>,
}

#[derive(Debug, Subcommand)]
enum Commands {
    /// Open the interactive viewer (the default with no subcommand).
    Run(RunArgs),
    /// Run without a terminal as fast as possible; print a JSON summary.
    Headless(HeadlessArgs),
    /// Validate creature, terrain, scene and drive-script files; one line per file.
    Check {
        /// Files to check (.toml scenes, creatures or terrains; anything else is a drive script).
        #[arg(required = true)]
        files: Vec<String>,
        /// Check terrains with this seed in place of their own (the heights
        /// checked depend on it).
        #[arg(long)]
        seed: Option<u32>,
    },
    /// List the built-in creatures and terrains.
    List,
    /// Write a commented file to start from (never over an existing file).
    New {
        #[command(subcommand)]
        what: NewWhat,
    },
    /// Run one of the seeds' experiments and print its table (Markdown, or JSON).
    Lab(LabArgs),
    /// Print the JSON Schema of creature, terrain or scene files, for TOML
    /// editors to complete and check fields (the repository ships them in
    /// schema/; see the README).
    Schema {
        /// Which kind of file.
        kind: SchemaArg,
    },
}

/// The kinds of file `skitter schema` describes.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum SchemaArg {
    /// Creature files (creatures/*.toml).
    Creature,
    /// Terrain files (terrain/*.toml).
    Terrain,
    /// Scene files (scenes/*.toml).
    Scene,
}

/// What `skitter new` writes.
#[derive(Debug, Subcommand)]
enum NewWhat {
    /// A creature: mirrored legs, poles, gait groups and parameters scaled
    /// by the README's rules of thumb; it passes `check` without warnings.
    Creature {
        /// The creature's name; the file is NAME.toml unless --out is given.
        name: String,
        /// How many legs, 2 to 12 (an odd count puts one on the centre line, behind).
        #[arg(long)]
        legs: usize,
        /// Bones a leg, 2 to 4.
        #[arg(long, default_value_t = 3)]
        bones: usize,
        /// trot (even counts), tripod (6 or 12 legs), wave or crawl; default
        /// tripod for 6 or 12 legs, trot for other even counts, wave for odd.
        #[arg(long)]
        gait: Option<config::TemplateGait>,
        /// Where to write (default NAME.toml in the current directory).
        #[arg(long, value_name = "FILE")]
        out: Option<String>,
    },
}

/// `skitter lab EXPERIMENT [--seed N] [--cases N] [--repeats N] [--json]`,
/// or `skitter lab [track|reach|baked] --tui`.
#[derive(Debug, Args)]
#[command(
    subcommand_required = false,
    after_help = "The lab screen (--tui) shows `track` (the default) or `reach` live, and \
                  `baked` opens the viewer on the baked spider; `solvers` and `constraints` are \
                  tables only."
)]
struct LabArgs {
    #[command(subcommand)]
    experiment: Option<LabExperiment>,
    /// Open the lab screen: the chain tracking its target or the arm
    /// pressing buttons, the solver switchable live, iterations and error
    /// charted. Needs an interactive terminal.
    #[arg(long, global = true)]
    tui: bool,
    /// With --tui: the solver to start with (any the rig can use; i cycles).
    #[arg(long, short = 's', global = true)]
    solver: Option<SolverKind>,
    /// Seed (any whole number from 0 to 18446744073709551615) for every
    /// random choice: targets and start poses (solvers, constraints,
    /// track), buttons (reach), where each walk starts and heads (baked).
    /// Default 1.
    #[arg(long, global = true)]
    seed: Option<u64>,
    /// Print a JSON array of row objects instead of a Markdown table.
    #[arg(long, global = true)]
    json: bool,
    /// How many cases: targets per set (solvers, constraints, default 200),
    /// tracking steps (track, 1000), walks per terrain (baked, 3), seeded
    /// buttons (reach, 12).
    #[arg(long, global = true)]
    cases: Option<usize>,
    /// Times each timed solve or walk is repeated (the median is kept),
    /// 1–1000; default 5.
    #[arg(long, global = true)]
    repeats: Option<usize>,
}

/// The experiments.
#[derive(Debug, Clone, Subcommand)]
enum LabExperiment {
    /// FABRIK report Tables 4.1–4.3: every solver on the report's 10-bone
    /// chain, reachable and unreachable targets.
    Solvers,
    /// FABRIK report Table 4.5: FABRIK and CCD with and without joint limits.
    Constraints,
    /// A target on a sine trajectory for 1000 steps: error and smoothness.
    Track,
    /// Spider thesis §5: a baked walk cycle against the IK spider on every shipped terrain
    /// without walls (the clip replays a walk on the ground's height).
    Baked,
    /// Spider thesis §4.3: an arm with a constrained elbow presses buttons on a wall.
    Reach {
        /// Button file (TOML): `[[buttons]]` tables, each with `y` (up) and
        /// `z` (right) in metres on the wall 0.45 m in front of the
        /// shoulder, pressed in order. Replaces the seeded buttons, so it
        /// goes with neither --seed nor --cases.
        #[arg(long, value_name = "FILE")]
        buttons: Option<String>,
    },
}

impl LabExperiment {
    /// The experiment's name on the command line.
    fn name(&self) -> &'static str {
        match self {
            LabExperiment::Solvers => "solvers",
            LabExperiment::Constraints => "constraints",
            LabExperiment::Track => "track",
            LabExperiment::Baked => "baked",
            LabExperiment::Reach { .. } => "reach",
        }
    }
}

/// What to simulate.
#[derive(Debug, Args, Clone, Default)]
pub struct SceneArgs {
    /// Creature file, or a built-in name (see `skitter list`). A file is
    /// meant when a file by that name exists, or the argument contains `/`
    /// or `\`, or ends in `.toml`; anything else is a built-in name.
    #[arg(long, short = 'c', default_value = "spider")]
    pub creature: String,
    /// Terrain file, or a built-in name (same rule as --creature: an
    /// existing file, or a name with `/`, `\` or `.toml`, is a file).
    #[arg(long, short = 't', default_value = "hills")]
    pub terrain: String,
    /// Solver for every leg: fabrik, gradient, two-bone, ccd, jacobian-transpose or dls.
    #[arg(long, short = 's')]
    pub solver: Option<SolverKind>,
    /// Terrain seed (0 to 4294967295) in place of the terrain file's.
    #[arg(long)]
    pub seed: Option<u32>,
    /// Scene file: a terrain and several kinds of creature, each with a
    /// count, where they start and optionally a drive script (see
    /// scenes/zoo.toml). Replaces --creature and --terrain.
    #[arg(long, conflicts_with_all = ["creature", "terrain"])]
    pub scene: Option<String>,
    /// Threads to step the creatures on, and in the viewer to draw with
    /// (default: every core). The trajectory, figures and frames are the
    /// same for any count.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
}

impl SceneArgs {
    /// Threads asked for, or one per core.
    pub fn threads(&self) -> usize {
        self.threads.map_or_else(
            || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
            usize::from,
        )
    }
}

/// A drive script, from a file or inline.
#[derive(Debug, Args, Clone, Default)]
pub struct DriveArgs {
    /// Drive script file (see `--drive` for the format).
    #[arg(long, conflicts_with = "drive")]
    script: Option<String>,
    /// Inline drive script, e.g. "forward 5s, left 2s, forward+right 3s, solver ccd, forward 10s".
    #[arg(long)]
    drive: Option<String>,
}

impl SceneArgs {
    /// The scene with no arguments: the spider on the hills, its own solver.
    pub fn default_scene() -> SceneArgs {
        SceneArgs {
            creature: "spider".into(),
            terrain: "hills".into(),
            solver: None,
            scene: None,
            threads: None,
            seed: None,
        }
    }
}

impl DriveArgs {
    /// The script asked for, parsed, if any.
    pub fn load(&self) -> Result<Option<Script>, Failure> {
        Ok(match (&self.script, &self.drive) {
            (Some(path), _) => Some(parse_script(path, &config::read_file(path)?)?),
            (None, Some(text)) => Some(parse_script("--drive", text)?),
            (None, None) => None,
        })
    }
}

/// What the viewer shows, and an optional script to play in it.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    scene: SceneArgs,
    #[command(flatten)]
    drive: DriveArgs,
    /// Show the baked spider: one walk cycle of the creature recorded on
    /// flat ground and played back with no rays and no IK, so its feet
    /// float over uneven ground (p toggles it and the IK creature). Not
    /// with a drive script, which drives the IK creature.
    #[arg(long, conflicts_with_all = ["script", "drive"])]
    baked: bool,
    /// Record the screen into this file as asciicast v2 (play it with
    /// `asciinema play FILE`). It replaces an earlier recording, never an
    /// input file or any other existing file.
    #[arg(long, value_name = "FILE.cast")]
    record: Option<String>,
}

#[derive(Debug, Args)]
struct HeadlessArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// Simulated seconds (at least 0.0042, one step, at most 1000000): the run's length
    /// without a script or --steps (default 10), and otherwise the most the
    /// run lasts: a longer script or --steps stops there.
    // Negative numbers are taken as values so they get the range message.
    #[arg(long, allow_negative_numbers = true)]
    seconds: Option<f64>,
    /// World steps to run (1/120 s each; at least 1, as a run of none has
    /// no figures, at most 120000000), with or without a script (after a
    /// script ends the creature stands).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=120_000_000))]
    steps: Option<u64>,
    #[command(flatten)]
    drive: DriveArgs,
    /// Copies of the creature, spread over the terrain (not with --scene,
    /// which says how many of each kind).
    #[arg(long, default_value_t = 1, conflicts_with = "scene", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    count: u32,
    /// Write one JSON line per step (poses, feet, IK reports) to this file.
    /// It replaces an earlier trace, never an input file or any other
    /// existing file.
    #[arg(long)]
    trace: Option<String>,
    /// With --trace, write every Nth step only (steps N, 2N, …).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = steps_apart, requires = "trace")]
    trace_every: u64,
    /// Also exit with code 3 when a quality limit is broken (foot slip over
    /// 1 mm, foot gap over 1 cm, bone error over 1e-4 m, any gait violation).
    #[arg(long)]
    strict: bool,
}

impl Cli {
    /// Runs the command the user asked for; reports a failure on stderr.
    pub fn run(self) -> ExitCode {
        match self.dispatch() {
            Ok(()) => ExitCode::SUCCESS,
            Err(failure) => {
                let code = match &failure {
                    Failure::BadInput(message) | Failure::Other(message) => {
                        report(message);
                        failure.code()
                    }
                    Failure::RunWentBad(message) => {
                        report(&format!("the run went bad: {message}"));
                        failure.code()
                    }
                    Failure::Reported(code) => *code,
                };
                ExitCode::from(code)
            }
        }
    }

    fn dispatch(self) -> Result<(), Failure> {
        match self.command {
            None => crate::viewer::run(&SceneArgs::default_scene(), None, false, None),
            Some(Commands::Run(args)) => {
                if let Some(cast) = &args.record {
                    // The scene's own files too; one that does not load
                    // fails the run with its error before anything is
                    // written.
                    let scene_files = args
                        .scene
                        .scene
                        .as_deref()
                        .and_then(|path| config::load_scene(path).ok())
                        .map(|scene| scene.files)
                        .unwrap_or_default();
                    refuse_to_overwrite(
                        OutputKind::Cast,
                        cast,
                        &args.scene,
                        &args.drive,
                        &scene_files,
                    )?;
                }
                args.drive.load().and_then(|script| {
                    crate::viewer::run(&args.scene, script, args.baked, args.record.as_deref())
                })
            }
            Some(Commands::Headless(args)) => run_headless(args),
            Some(Commands::Check { files, seed }) => check(&files, seed),
            Some(Commands::List) => list(),
            Some(Commands::New { what }) => new(what),
            Some(Commands::Lab(args)) => run_lab(&args),
            Some(Commands::Schema { kind }) => {
                let kind = match kind {
                    SchemaArg::Creature => config::SchemaKind::Creature,
                    SchemaArg::Terrain => config::SchemaKind::Terrain,
                    SchemaArg::Scene => config::SchemaKind::Scene,
                };
                let mut out = Out::new();
                out.line(config::schema(kind).trim_end())?;
                out.finish()
            }
        }
    }
}

/// Why a command failed, deciding the exit code.
#[derive(Debug)]
pub enum Failure {
    /// The user's input is at fault (exit 2).
    BadInput(String),
    /// Something else failed (exit 1).
    Other(String),
    /// The run finished but went bad (exit 3); says why.
    RunWentBad(String),
    /// Already reported (on stdout, as `check` does): exit with this code.
    Reported(u8),
}

impl Failure {
    /// The process exit code for this failure.
    fn code(&self) -> u8 {
        match self {
            Failure::BadInput(_) => EXIT_BAD_INPUT,
            Failure::Other(_) => EXIT_FAILURE,
            Failure::RunWentBad(_) => EXIT_RUN_WENT_BAD,
            Failure::Reported(code) => *code,
        }
    }
}

/// Writes `error: LINE` on stderr for each line of `message` (a file with
/// several errors gives one line each), made printable. If stderr itself
/// cannot be written (closed, full) there is nowhere left to say so; the
/// exit code still tells.
fn report(message: &str) {
    for line in message.lines() {
        to_stderr(&format!("error: {line}"));
    }
}

/// One line on stderr, made printable. A failing stderr has nowhere left to
/// report to, so its error is dropped rather than turned into a panic.
fn to_stderr(line: &str) {
    let line = printable(line, LINE_MAX_CHARS);
    let mut stderr = io::stderr().lock();
    let _ = writeln!(stderr, "{line}").and_then(|()| stderr.flush());
}

/// Standard output for results: every line checked for write errors, so a
/// closed pipe (`skitter list | head -1`) or a full disk is a failure with a
/// message (exit 1), not a panic.
struct Out {
    stdout: io::StdoutLock<'static>,
}

impl Out {
    fn new() -> Out {
        Out {
            stdout: io::stdout().lock(),
        }
    }

    /// Writes `text` and a newline.
    fn line(&mut self, text: &str) -> Result<(), Failure> {
        writeln!(self.stdout, "{text}").map_err(Self::failed)
    }

    /// Flushes what is buffered: a full disk may only show here.
    fn finish(mut self) -> Result<(), Failure> {
        self.stdout.flush().map_err(Self::failed)
    }

    fn failed(e: io::Error) -> Failure {
        Failure::Other(format!("cannot write to standard output: {e}"))
    }
}

impl From<ConfigError> for Failure {
    fn from(e: ConfigError) -> Self {
        Failure::BadInput(e.to_string())
    }
}

impl From<lab::LabError> for Failure {
    fn from(e: lab::LabError) -> Self {
        match e {
            lab::LabError::BadOption { .. } => Failure::BadInput(e.to_string()),
            other => Failure::Other(other.to_string()),
        }
    }
}

fn run_lab(args: &LabArgs) -> Result<(), Failure> {
    if args.tui {
        return open_lab_screen(args);
    }
    if args.solver.is_some() {
        return Err(Failure::BadInput(
            "--solver goes with --tui (the lab screen's first solver); the experiments run every \
             solver"
                .into(),
        ));
    }
    let Some(experiment) = &args.experiment else {
        return Err(Failure::BadInput(
            "name an experiment (solvers, constraints, track, baked, reach), or --tui for the lab \
             screen; see `skitter lab --help`"
                .into(),
        ));
    };
    let options = lab::Options {
        seed: args.seed,
        cases: args.cases,
        repeats: args.repeats.unwrap_or(lab::Options::default().repeats),
    };
    fn render<R: lab::Row>(table: &lab::Table<R>, json: bool) -> String {
        if json { table.json() } else { table.markdown() }
    }
    let text = match experiment {
        LabExperiment::Solvers => render(&lab::solvers::run(&options)?, args.json),
        LabExperiment::Constraints => render(&lab::constraints::run(&options)?, args.json),
        LabExperiment::Track => render(&lab::track::run(&options)?, args.json),
        LabExperiment::Baked => render(&lab::baked::run(&options)?, args.json),
        LabExperiment::Reach { buttons } => {
            let given = buttons.as_deref().map(load_buttons).transpose()?;
            render(&lab::reach::run(&options, given.as_deref())?, args.json)
        }
    };
    let mut out = Out::new();
    out.line(text.trim_end())?;
    out.finish()
}

/// The buttons of a `--buttons` file, as points on the lab's wall.
fn load_buttons(path: &str) -> Result<Vec<glam::Vec3>, Failure> {
    Ok(lab::reach::buttons_on_wall(&config::load_buttons(path)?))
}

/// `skitter lab [track|reach|baked] --tui`: the lab screen, or for `baked`
/// the viewer on the baked spider. Flags that only size or print tables are
/// refused, each with the reason.
fn open_lab_screen(args: &LabArgs) -> Result<(), Failure> {
    let refuse =
        |flag: &str, why: &str| Failure::BadInput(format!("{flag} does not go with --tui: {why}"));
    if args.json {
        return Err(refuse("--json", "the lab screen draws, it prints no rows"));
    }
    if args.cases.is_some() {
        return Err(refuse(
            "--cases",
            "the lab screen runs until you quit (the arm presses its 12 seeded buttons, or a \
             --buttons file's, lap after lap)",
        ));
    }
    if args.repeats.is_some() {
        return Err(refuse("--repeats", "the lab screen times nothing"));
    }
    let seed = args.seed.unwrap_or(lab::DEFAULT_SEED);
    let (rig, buttons) = match &args.experiment {
        None | Some(LabExperiment::Track) => (lab::live::Rig::Chain, None),
        Some(LabExperiment::Reach { buttons }) => {
            if buttons.is_some() && args.seed.is_some() {
                return Err(Failure::BadInput(
                    "--seed does not go with --buttons: the seed only places seeded buttons, and \
                     the file places them"
                        .into(),
                ));
            }
            let given = buttons.as_deref().map(load_buttons).transpose()?;
            (lab::live::Rig::Arm, given)
        }
        Some(LabExperiment::Baked) => {
            if args.seed.is_some() || args.solver.is_some() {
                return Err(Failure::BadInput(
                    "`lab baked --tui` opens the viewer on the baked spider, which has no seed \
                     and no solver; use `skitter run --baked --terrain NAME` to choose the ground"
                        .into(),
                ));
            }
            return crate::viewer::run(&SceneArgs::default_scene(), None, true, None);
        }
        Some(other @ (LabExperiment::Solvers | LabExperiment::Constraints)) => {
            return Err(Failure::BadInput(format!(
                "`lab {}` is a table; the lab screen (--tui) shows `track` and `reach` live, and \
                 `baked` in the viewer",
                other.name()
            )));
        }
    };
    crate::viewer::run_lab(rig, args.solver, seed, buttons)
}

fn run_headless(args: HeadlessArgs) -> Result<(), Failure> {
    let mut scene = args
        .scene
        .scene
        .as_deref()
        .map(config::load_scene)
        .transpose()?;
    if let (Some(scene), Some(seed)) = (&mut scene, args.scene.seed) {
        scene.terrain.seed = seed;
    }
    let (creature, mut warnings) = match &scene {
        Some(scene) => (scene.kinds[0].creature.clone(), Vec::new()),
        None => load_creature_with_warnings(&args.scene.creature)?,
    };
    let (terrain, terrain_warnings) = match &scene {
        Some(scene) => (scene.terrain.clone(), Vec::new()),
        None => config::load_terrain_seeded(&args.scene.terrain, args.scene.seed)?,
    };
    warnings.extend(terrain_warnings);
    for warning in warnings {
        to_stderr(&warning.to_string());
    }
    let script = args.drive.load()?;
    if let Some(trace) = &args.trace {
        let scene_files = scene.as_ref().map_or(&[][..], |s| &s.files[..]);
        refuse_to_overwrite(
            OutputKind::Trace,
            trace,
            &args.scene,
            &args.drive,
            scene_files,
        )?;
    }
    let length = match (args.seconds, args.steps) {
        // Seconds round to whole steps: less than half a step would run
        // none and report figures of nothing.
        (Some(s), _) if !(s.is_finite() && (MIN_SECONDS..=MAX_SECONDS).contains(&s)) => {
            return Err(Failure::BadInput(format!(
                "--seconds must be at least {MIN_SECONDS} (one 1/120 s step, rounded) and at \
                 most {MAX_SECONDS}, got {s}"
            )));
        }
        (Some(seconds), Some(steps)) => Some(RunLength::StepsWithin { steps, seconds }),
        (Some(s), None) => Some(RunLength::Seconds(s)),
        (None, Some(n)) => Some(RunLength::Steps(n)),
        (None, None) => None,
    };
    let run = HeadlessRun {
        creature,
        terrain,
        solver: args.scene.solver,
        length,
        script,
        count: args.count as usize,
        scene,
        threads: args.scene.threads(),
    };
    let mut trace_file = match &args.trace {
        Some(path) => Some(BufWriter::new(File::create(path).map_err(|e| {
            Failure::Other(format!("cannot create trace file {path}: {e}"))
        })?)),
        None => None,
    };
    // clap's range check (1..) makes a zero impossible; 1 is a safe fallback.
    let every = NonZeroU64::new(args.trace_every).unwrap_or(NonZeroU64::MIN);
    let summary = headless::run_with_trace_every(
        &run,
        trace_file.as_mut().map(|w| w as &mut dyn Write),
        every,
    )
    .map_err(|e| match e {
        headless::HeadlessError::Solver(message) => Failure::BadInput(message),
        headless::HeadlessError::NoSteps => Failure::BadInput(e.to_string()),
        other => Failure::Other(other.to_string()),
    })?;
    if let Some(path) = &args.trace
        && summary.steps < every.get()
    {
        // Not an error (the run and its figures are good), but an empty
        // file with no word about it looked like a failed write.
        eprintln!(
            "note: the trace {} is empty: --trace-every {} is more than the run's {} steps",
            printable(path, LINE_MAX_CHARS),
            every,
            summary.steps
        );
    }
    let json = serde_json::to_string_pretty(&summary).map_err(|e| Failure::Other(e.to_string()))?;
    let mut out = Out::new();
    out.line(&json)?;
    out.finish()?;
    match went_bad(&summary, args.strict) {
        Some(reason) => Err(Failure::RunWentBad(reason)),
        None => Ok(()),
    }
}

/// Why a finished run counts as bad, if it does: NaN anywhere in the
/// simulation, and with `strict` every broken quality limit.
fn went_bad(summary: &Summary, strict: bool) -> Option<String> {
    let mut reasons = Vec::new();
    if summary.nan_count > 0 {
        reasons.push(format!(
            "nan_count {}: the simulation produced NaN",
            summary.nan_count
        ));
    }
    if strict {
        reasons.extend(headless::quality_breaches(summary));
    }
    (!reasons.is_empty()).then(|| reasons.join("; "))
}

/// What an output file (`--trace`, `--record`) holds, by which an earlier
/// run's file is known.
#[derive(Debug, Clone, Copy)]
enum OutputKind {
    /// A JSON-lines trace (`--trace`).
    Trace,
    /// An asciicast recording (`--record`).
    Cast,
}

/// How much of an existing output file is read to know it: more than a
/// cast's header line, and a trace's first fields.
const OUTPUT_HEAD_BYTES: u64 = 1024;

impl OutputKind {
    /// Whether `head`, the start of a file, is how this kind's files start:
    /// a trace's `{"step":N,"t":T,"creatures":[`, a cast's header line
    /// (asciicast version 2, titled `skitter`). Another program's JSON
    /// that merely starts `{"step":` is not one.
    fn starts(self, head: &[u8]) -> bool {
        match self {
            OutputKind::Trace => {
                let Some(rest) = head.strip_prefix(br#"{"step":"#) else {
                    return false;
                };
                let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                let Some(rest) = rest[digits..].strip_prefix(br#","t":"#) else {
                    return false;
                };
                let number = rest
                    .iter()
                    .take_while(|b| b.is_ascii_digit() || b".eE+-".contains(b))
                    .count();
                digits > 0 && number > 0 && rest[number..].starts_with(br#","creatures":["#)
            }
            OutputKind::Cast => {
                let line = head.split(|b| *b == b'\n').next().unwrap_or_default();
                serde_json::from_slice::<serde_json::Value>(line).is_ok_and(|header| {
                    header["version"] == 2
                        && header["width"].is_u64()
                        && header["height"].is_u64()
                        && header["title"] == "skitter"
                })
            }
        }
    }

    /// The option that names a file of this kind.
    fn flag(self) -> &'static str {
        match self {
            OutputKind::Trace => "--trace",
            OutputKind::Cast => "--record",
        }
    }

    /// What a user calls a file of this kind.
    fn name(self) -> &'static str {
        match self {
            OutputKind::Trace => "skitter trace",
            OutputKind::Cast => "skitter recording (asciicast)",
        }
    }
}

/// Whether the file at `path` may be replaced by output of `kind`: it does
/// not exist, is empty, is no regular file (a pipe or a terminal, as
/// `--trace /dev/stdout`: reading it to check would wait for input, and
/// writing destroys nothing), or is an earlier run's output of that kind
/// (so running a command again replaces its own output). Anything else is
/// kept: a creature file, notes, a file of the other kind, one that
/// cannot be read to tell.
fn replaceable_output(path: &str, kind: OutputKind) -> bool {
    use std::io::Read;
    match std::fs::metadata(path) {
        // Absent (or out of sight: creating it then says why).
        Err(_) => return true,
        Ok(meta) if !meta.is_file() || meta.len() == 0 => return true,
        Ok(_) => {}
    }
    let mut head = Vec::new();
    File::open(path)
        .and_then(|file| file.take(OUTPUT_HEAD_BYTES).read_to_end(&mut head))
        .is_ok_and(|_| kind.starts(&head))
}

/// Refuses an output file (`--trace`, `--record`) that is one of the run's
/// inputs (creature, terrain, script or scene file, or a file the scene
/// reads), or any existing file that is not an earlier output of its
/// kind: creating the output would destroy it.
fn refuse_to_overwrite(
    kind: OutputKind,
    output: &str,
    scene: &SceneArgs,
    drive: &DriveArgs,
    scene_files: &[PathBuf],
) -> Result<(), Failure> {
    let Some(output_path) = canonical(output) else {
        return Ok(());
    };
    let inputs = [
        (
            "creature",
            Some(&scene.creature).filter(|a| config::is_path(a)),
        ),
        (
            "terrain",
            Some(&scene.terrain).filter(|a| config::is_path(a)),
        ),
        ("script", drive.script.as_ref()),
        ("scene", scene.scene.as_ref()),
    ];
    let read_by_scene = scene_files
        .iter()
        .map(|file| ("scene's", Some(file.to_string_lossy().into_owned())));
    let inputs = inputs
        .into_iter()
        .map(|(what, input)| (what, input.cloned()))
        .chain(read_by_scene);
    for (what, input) in inputs {
        if let Some(input) = input
            && (canonical(&input).as_ref() == Some(&output_path) || same_file(&input, output))
        {
            return Err(Failure::BadInput(format!(
                "{} {output} is the {what} file {input}; writing it would destroy that file. \
                 Choose another file",
                kind.flag()
            )));
        }
    }
    if !replaceable_output(output, kind) {
        return Err(Failure::BadInput(format!(
            "{} {output} already exists and is not a {}; writing it would destroy it. \
             Choose another file, or delete that one first",
            kind.flag(),
            kind.name()
        )));
    }
    Ok(())
}

/// Whether `a` and `b` are one file under two names (a hard link, which
/// no path spelling resolves): the same device and inode. Where that is
/// not known, only [`canonical`] paths compare.
fn same_file(a: &str, b: &str) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(a), Ok(b)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return a.dev() == b.dev() && a.ino() == b.ino();
        }
    }
    let _ = (a, b);
    false
}

/// `path` made absolute with every link resolved; for a file that does not
/// exist yet, its directory's canonical path and its name.
fn canonical(path: &str) -> Option<PathBuf> {
    if let Ok(path) = std::fs::canonicalize(path) {
        return Some(path);
    }
    let path = Path::new(path);
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(parent).ok()?.join(path.file_name()?))
}

fn check(files: &[String], seed: Option<u32>) -> Result<(), Failure> {
    let mut out = Out::new();
    let mut failed = false;
    for file in files {
        // The file name is echoed, so it is made printable like any value.
        match config::check_file_seeded(file, seed) {
            Ok((checked, warnings)) => {
                for warning in warnings {
                    out.line(&printable(&warning.to_string(), LINE_MAX_CHARS))?;
                }
                let line = format!("ok    {}: {checked}", printable(file, LINE_MAX_CHARS));
                out.line(&printable(&line, LINE_MAX_CHARS))?;
            }
            Err(e) => {
                failed = true;
                // Every error in the file, one line each.
                for line in e.lines() {
                    out.line(&printable(&format!("error {line}"), LINE_MAX_CHARS))?;
                }
            }
        }
    }
    out.finish()?;
    if failed {
        Err(Failure::Reported(EXIT_BAD_INPUT))
    } else {
        Ok(())
    }
}

fn new(what: NewWhat) -> Result<(), Failure> {
    let NewWhat::Creature {
        name,
        legs,
        bones,
        gait,
        out,
    } = what;
    let template = config::CreatureTemplate {
        gait: gait.unwrap_or(config::TemplateGait::default_for(legs)),
        name,
        legs,
        bones,
    };
    let text = template.render().map_err(|e| match e {
        config::TemplateError::Invalid(_) => Failure::Other(e.to_string()),
        other => Failure::BadInput(other.to_string()),
    })?;
    let path = out.unwrap_or_else(|| format!("{}.toml", template.name));
    // `create_new` refuses an existing file atomically: nothing is ever overwritten.
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists => Failure::BadInput(format!(
                "{path} already exists; skitter new never overwrites a file. Choose another name \
                 or --out FILE"
            )),
            _ => Failure::Other(format!("cannot create {path}: {e}")),
        })?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.flush())
        .map_err(|e| Failure::Other(format!("cannot write {path}: {e}")))?;
    let mut out = Out::new();
    out.line(&format!(
        "wrote {}: {} legs of {} bones, a {}; try `skitter check {0}` and `skitter run --creature {0}`",
        printable(&path, LINE_MAX_CHARS),
        template.legs,
        template.bones,
        template.gait
    ))?;
    out.finish()
}

/// `--trace-every`'s value: a whole number of steps, 1 or more.
fn steps_apart(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(steps) if steps >= 1 => Ok(steps),
        _ => Err(format!(
            "must be a whole number of steps, 1 or more (1 writes every step), got {text}"
        )),
    }
}

fn list() -> Result<(), Failure> {
    let mut out = Out::new();
    out.line("creatures (--creature NAME):")?;
    for b in CREATURES {
        let description = config::parse_creature(b.name, b.text)
            .ok()
            .and_then(|c| c.description)
            .unwrap_or_default();
        out.line(&format!("  {:<10} {description}", b.name))?;
    }
    out.line("terrains (--terrain NAME):")?;
    for b in TERRAINS {
        out.line(&format!("  {:<10} {}", b.name, leading_sentence(b.text)))?;
    }
    out.finish()
}

/// The first sentence of a file's leading comment (its first lines that
/// are comments, less the editor's `#:schema` line), which may run over
/// several lines: what `list` says of a terrain.
fn leading_sentence(text: &str) -> String {
    let comment = text
        .lines()
        .filter(|l| !l.starts_with("#:"))
        .take_while(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim())
        .collect::<Vec<_>>()
        .join(" ");
    match comment.find(". ") {
        Some(end) => comment[..=end].to_string(),
        None => comment,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The summary of a one-step run, to alter.
    fn summary() -> Summary {
        let run = HeadlessRun {
            creature: config::default_creature(),
            terrain: config::default_terrain(),
            solver: None,
            length: Some(RunLength::Steps(1)),
            script: None,
            count: 1,
            scene: None,
            threads: 1,
        };
        headless::run(&run, None).unwrap()
    }

    #[test]
    fn nan_makes_a_run_bad_strict_or_not() {
        let mut s = summary();
        assert_eq!(went_bad(&s, false), None);
        assert_eq!(went_bad(&s, true), None);
        s.nan_count = 3;
        let reason = went_bad(&s, false).unwrap();
        assert_eq!(reason, "nan_count 3: the simulation produced NaN");
        assert_eq!(Failure::RunWentBad(reason).code(), 3);
    }

    #[test]
    fn list_gives_each_terrain_a_whole_sentence() {
        for b in TERRAINS {
            let sentence = leading_sentence(b.text);
            assert!(sentence.len() > 20, "{}: {sentence:?}", b.name);
            assert!(sentence.ends_with('.'), "{}: {sentence:?}", b.name);
            assert!(!sentence.contains('#'), "{}: {sentence:?}", b.name);
        }
        let text = "#:schema x\n# One line: and\n# its end. Then more.\nname = \"t\"\n";
        assert_eq!(leading_sentence(text), "One line: and its end.");
    }

    #[test]
    fn trace_every_takes_whole_steps_from_one() {
        assert_eq!(steps_apart("1"), Ok(1));
        assert_eq!(steps_apart("120"), Ok(120));
        for bad in ["0", "-2", "1.5", "x", ""] {
            let err = steps_apart(bad).unwrap_err();
            assert!(err.contains("1 or more"), "{bad}: {err}");
        }
    }

    #[test]
    fn strict_names_every_broken_limit() {
        let mut s = summary();
        s.foot_slip_max = 0.002;
        s.gait_violations = 2;
        assert_eq!(went_bad(&s, false), None);
        assert_eq!(
            went_bad(&s, true).unwrap(),
            "foot_slip_max 0.002 m is over the limit of 0.001 m; \
             gait_violations 2 is over the limit of 0"
        );
        // In a scene of several kinds, the kinds that broke it are named.
        let good = summary();
        let mut bad = summary();
        bad.foot_slip_max = 0.002;
        bad.source = Some("bug.toml".into());
        s.gait_violations = 0;
        s.kinds = vec![good, bad.clone(), bad];
        assert_eq!(
            went_bad(&s, true).unwrap(),
            "foot_slip_max 0.002 m is over the limit of 0.001 m \
             (by creatures[1] bug.toml, creatures[2] bug.toml)"
        );
    }

    /// Each output replaces only its own kind: a trace is no recording,
    /// nor a recording a trace.
    #[test]
    fn an_output_replaces_only_an_earlier_output_of_its_kind() {
        let dir = std::env::temp_dir().join(format!("skitter-outputs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = |name: &str, text: &str| {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            path.to_str().unwrap().to_owned()
        };
        let cast = file(
            "a.cast",
            "{\"version\":2,\"width\":80,\"height\":24,\"timestamp\":1,\"title\":\"skitter\"}\n[0.1,\"o\",\"x\"]\n",
        );
        let trace = file(
            "a.jsonl",
            "{\"step\":12,\"t\":0.1,\"creatures\":[{\"position\":[0,0,0]}]}\n",
        );
        let early = file(
            "b.jsonl",
            "{\"step\":1,\"t\":8.333333333333333e-3,\"creatures\":[]}\n",
        );
        // Other programs' JSON that starts the same way.
        let log = file("log.json", "{\"step\":\"install\",\"t\":1}\n");
        let other_trace = file("o.jsonl", "{\"step\":3,\"t\":0.5,\"loss\":0.1}\n");
        let other_cast = file(
            "o.cast",
            "{\"version\":2,\"width\":80,\"height\":24,\"title\":\"vim\"}\n",
        );
        let creature = file("c.toml", "name = \"c\"\n");
        let missing = dir.join("none").to_str().unwrap().to_owned();
        let device = "/dev/null".to_owned();
        for (path, as_cast, as_trace) in [
            (&cast, true, false),
            (&trace, false, true),
            (&early, false, true),
            (&log, false, false),
            (&other_trace, false, false),
            (&other_cast, false, false),
            (&creature, false, false),
            (&missing, true, true),
            // A terminal or a pipe is written to, never read (it blocked).
            (&device, true, true),
        ] {
            assert_eq!(
                replaceable_output(path, OutputKind::Cast),
                as_cast,
                "{path}"
            );
            assert_eq!(
                replaceable_output(path, OutputKind::Trace),
                as_trace,
                "{path}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

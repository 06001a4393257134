//! Command-line interface: parse arguments, dispatch, map errors to exit codes.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use skitter::config::{
    self, CREATURES, ConfigError, Script, TERRAINS, check_file, load_creature, load_terrain,
    parse_script,
};
use skitter::headless::{self, HeadlessRun, RunLength};
use skitter::ik::SolverKind;

/// Exit code for bad input (files, flags): the user can fix it.
const EXIT_BAD_INPUT: u8 = 2;
/// Exit code for failures that are not the input's fault (I/O, terminal).
const EXIT_FAILURE: u8 = 1;
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
    /// Validate creature, terrain and drive-script files; one line per file.
    Check {
        /// Files to check (.toml creatures or terrains; anything else is a drive script).
        #[arg(required = true)]
        files: Vec<String>,
    },
    /// List the built-in creatures and terrains.
    List,
}

/// What to simulate.
#[derive(Debug, Args, Clone, Default)]
pub struct SceneArgs {
    /// Creature file, or a built-in name (see `skitter list`).
    #[arg(long, short = 'c', default_value = "spider")]
    pub creature: String,
    /// Terrain file, or a built-in name.
    #[arg(long, short = 't', default_value = "hills")]
    pub terrain: String,
    /// Solver for every leg: fabrik, gradient, two-bone or ccd.
    #[arg(long, short = 's')]
    pub solver: Option<SolverKind>,
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
}

#[derive(Debug, Args)]
struct HeadlessArgs {
    #[command(flatten)]
    scene: SceneArgs,
    /// Simulated seconds (more than 0, at most 1000000): the run's length
    /// without a script or --steps (default 10), and otherwise the most the
    /// run lasts: a longer script or --steps stops there.
    // Negative numbers are taken as values so they get the range message.
    #[arg(long, allow_negative_numbers = true)]
    seconds: Option<f64>,
    /// World steps to run (1/120 s each), with or without a script (after a
    /// script ends the creature stands).
    #[arg(long)]
    steps: Option<u64>,
    #[command(flatten)]
    drive: DriveArgs,
    /// Copies of the creature, spread over the terrain.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    count: u32,
    /// Write one JSON line per step (poses, feet, IK reports) to this file.
    #[arg(long)]
    trace: Option<String>,
}

impl Cli {
    /// Runs the command the user asked for.
    pub fn run(self) -> ExitCode {
        let result = match self.command {
            None => crate::viewer::run(
                &SceneArgs {
                    creature: "spider".into(),
                    terrain: "hills".into(),
                    solver: None,
                },
                None,
            ),
            Some(Commands::Run(args)) => args
                .drive
                .load()
                .and_then(|script| crate::viewer::run(&args.scene, script)),
            Some(Commands::Headless(args)) => run_headless(args),
            Some(Commands::Check { files }) => return check(&files),
            Some(Commands::List) => {
                list();
                Ok(())
            }
        };
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(Failure::BadInput(message)) => {
                eprintln!("error: {message}");
                ExitCode::from(EXIT_BAD_INPUT)
            }
            Err(Failure::Other(message)) => {
                eprintln!("error: {message}");
                ExitCode::from(EXIT_FAILURE)
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
}

impl From<ConfigError> for Failure {
    fn from(e: ConfigError) -> Self {
        Failure::BadInput(e.to_string())
    }
}

fn run_headless(args: HeadlessArgs) -> Result<(), Failure> {
    let creature = load_creature(&args.scene.creature)?;
    let terrain = load_terrain(&args.scene.terrain)?;
    let script = args.drive.load()?;
    let length = match (args.seconds, args.steps) {
        (Some(s), _) if !(s.is_finite() && s > 0.0 && s <= MAX_SECONDS) => {
            return Err(Failure::BadInput(format!(
                "--seconds must be more than 0 and at most {MAX_SECONDS}, got {s}"
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
    };
    let mut trace_file = match &args.trace {
        Some(path) => Some(BufWriter::new(File::create(path).map_err(|e| {
            Failure::Other(format!("cannot create trace file {path}: {e}"))
        })?)),
        None => None,
    };
    let summary = headless::run(&run, trace_file.as_mut().map(|w| w as &mut dyn Write)).map_err(
        |e| match e {
            headless::HeadlessError::Solver(message) => Failure::BadInput(message),
            other => Failure::Other(other.to_string()),
        },
    )?;
    let json = serde_json::to_string_pretty(&summary).map_err(|e| Failure::Other(e.to_string()))?;
    println!("{json}");
    Ok(())
}

fn check(files: &[String]) -> ExitCode {
    let mut failed = false;
    for file in files {
        match check_file(file) {
            Ok(checked) => println!("ok    {file}: {checked}"),
            Err(e) => {
                failed = true;
                println!("error {e}");
            }
        }
    }
    if failed {
        ExitCode::from(EXIT_BAD_INPUT)
    } else {
        ExitCode::SUCCESS
    }
}

fn list() {
    println!("creatures (--creature NAME):");
    for b in CREATURES {
        let description = config::parse_creature(b.name, b.text)
            .ok()
            .and_then(|c| c.description)
            .unwrap_or_default();
        println!("  {:<10} {description}", b.name);
    }
    println!("terrains (--terrain NAME):");
    for b in TERRAINS {
        let line = b
            .text
            .lines()
            .next()
            .unwrap_or("")
            .trim_start_matches('#')
            .trim();
        println!("  {:<10} {line}", b.name);
    }
}

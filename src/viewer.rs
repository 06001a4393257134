//! Opens the interactive screens: the viewer for the scene named on the
//! command line, and the lab screen.

use std::io::IsTerminal;

use glam::Vec3;
use skitter::config::Script;
use skitter::ik::SolverKind;
use skitter::lab::live::{LabScene, Rig};
use skitter::tui::{self, App, LabApp, Sources};

use crate::cli::{Failure, SceneArgs};

/// Refuses to start a screen without an interactive terminal.
fn need_terminal(instead: &str) -> Result<(), Failure> {
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        Ok(())
    } else {
        Err(Failure::Other(format!(
            "the screen needs an interactive terminal; {instead}"
        )))
    }
}

/// Opens the lab screen on `rig`, starting with `solver` (or FABRIK).
pub fn run_lab(
    rig: Rig,
    solver: Option<SolverKind>,
    seed: u64,
    buttons: Option<Vec<Vec3>>,
) -> Result<(), Failure> {
    let kind = solver.unwrap_or(SolverKind::Fabrik);
    let scene = LabScene::new(rig, kind, seed, buttons)
        .map_err(|e| Failure::Other(format!("cannot set the lab up: {e}")))?;
    if scene.solver() != kind {
        return Err(Failure::BadInput(format!(
            "--solver {kind} cannot pose the {}; choose fabrik, gradient, ccd, \
             jacobian-transpose or dls",
            rig.name()
        )));
    }
    need_terminal(
        "for the experiments' tables use `skitter lab EXPERIMENT` (see `skitter lab --help`)",
    )?;
    tui::run_lab(LabApp::new(scene)).map_err(|e| Failure::Other(format!("terminal error: {e}")))
}

/// Loads the scene (bad files fail here, before the terminal is touched) and
/// runs the viewer, playing `script` if one is given, on the baked spider
/// if `baked`.
pub fn run(
    scene: &SceneArgs,
    script: Option<Script>,
    baked: bool,
    record: Option<&str>,
) -> Result<(), Failure> {
    let sources = Sources {
        creature: scene.creature.clone(),
        terrain: scene.terrain.clone(),
        scene: scene.scene.clone(),
        seed: scene.seed,
    };
    let mut app = App::load(sources, scene.solver).map_err(|e| Failure::BadInput(e.to_string()))?;
    app.set_threads(scene.threads());
    if let Some(script) = &script {
        script.check_solvers(app.world.spec())?;
        app.play(script);
    }
    let count = app.world.creatures().len();
    if baked && count > 1 {
        return Err(Failure::BadInput(format!(
            "--baked plays one creature's recorded walk on its own; this scene holds {count} \
             creatures: use --creature NAME without --scene"
        )));
    }
    if baked {
        app.show_baked()
            .map_err(|e| Failure::Other(format!("cannot record the baked spider's clip: {e}")))?;
    }
    need_terminal("for scripts and pipes use `skitter headless` (see `skitter headless --help`)")?;
    let outcome = match record {
        Some(path) => {
            let cast = std::fs::File::create(path)
                .map_err(|e| Failure::Other(format!("cannot create the recording {path}: {e}")))?;
            tui::run_recorded(app, cast)
        }
        None => tui::run(app),
    };
    outcome.map_err(|e| Failure::Other(format!("terminal error: {e}")))
}

//! Opens the interactive viewer for the scene named on the command line.

use std::io::IsTerminal;

use skitter::config::Script;
use skitter::tui::{self, App, Sources};

use crate::cli::{Failure, SceneArgs};

/// Loads the scene (bad files fail here, before the terminal is touched) and
/// runs the viewer, playing `script` if one is given.
pub fn run(scene: &SceneArgs, script: Option<Script>) -> Result<(), Failure> {
    let sources = Sources {
        creature: scene.creature.clone(),
        terrain: scene.terrain.clone(),
    };
    let mut app = App::load(sources, scene.solver).map_err(|e| Failure::BadInput(e.to_string()))?;
    if let Some(script) = &script {
        for kind in script.solvers() {
            app.world
                .spec()
                .check_solver(kind, "the script")
                .map_err(Failure::BadInput)?;
        }
        app.play(script);
    }
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        return Err(Failure::Other(
            "the viewer needs an interactive terminal; for scripts and pipes use `skitter headless` \
             (see `skitter headless --help`)"
                .into(),
        ));
    }
    tui::run(app).map_err(|e| Failure::Other(format!("terminal error: {e}")))
}

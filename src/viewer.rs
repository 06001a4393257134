//! Opens the interactive viewer for the scene named on the command line.

use std::io::IsTerminal;

use skitter::tui::{self, App, Sources};

use crate::cli::{Failure, SceneArgs};

/// Loads the scene (bad files fail here, before the terminal is touched) and runs the viewer.
pub fn run(scene: &SceneArgs) -> Result<(), Failure> {
    let sources = Sources {
        creature: scene.creature.clone(),
        terrain: scene.terrain.clone(),
    };
    let app = App::load(sources, scene.solver).map_err(|e| Failure::BadInput(e.to_string()))?;
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        return Err(Failure::Other(
            "the viewer needs an interactive terminal; for scripts and pipes use `skitter headless` \
             (see `skitter headless --help`)"
                .into(),
        ));
    }
    tui::run(app).map_err(|e| Failure::Other(format!("terminal error: {e}")))
}

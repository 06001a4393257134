//! Opens the interactive viewer for the scene named on the command line.

use skitter::tui::{self, App, Sources};

use crate::cli::{Failure, SceneArgs};

/// Loads the scene (bad files fail here, before the terminal is touched) and runs the viewer.
pub fn run(scene: &SceneArgs) -> Result<(), Failure> {
    let sources = Sources {
        creature: scene.creature.clone(),
        terrain: scene.terrain.clone(),
    };
    let app = App::load(sources, scene.solver)?;
    tui::run(app).map_err(|e| Failure::Other(format!("terminal error: {e}")))
}

//! Placeholder until the TUI lands: keeps the binary building.
use crate::cli::{Failure, SceneArgs};
pub fn run(_scene: &SceneArgs) -> Result<(), Failure> {
    Err(Failure::Other(
        "the interactive viewer is not built yet; use `skitter headless`".into(),
    ))
}

//! Rendering: a pure function from a world, a view and a size to a grid of
//! character cells (character, ink, depth). It knows nothing of terminals;
//! the TUI copies the grid into its buffer, and tests read it directly.

mod camera;
mod draw;
mod grid;
mod terrain;

pub use camera::{Camera, Projection, ViewKind};
pub use draw::{render_pixels, render_view};
pub use grid::{Cell, Grid, Ink};

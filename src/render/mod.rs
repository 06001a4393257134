//! Rendering: a pure function from a world, a view and a size to a grid of
//! character cells (character, ink, depth). It knows nothing of terminals;
//! the TUI copies the grid into its buffer, and tests read it directly.

mod camera;
mod draw;
mod figure;
mod grid;
mod lab;
mod terrain;

pub use camera::{Camera, FAR, Framing, Projection, ViewKind, chase_up, flat_heading};
pub use draw::{render_pixels, render_view, render_walker};
pub use figure::{BakedFigure, Figure};
pub use grid::{Cell, Grid, Ink};
pub use lab::render_lab;

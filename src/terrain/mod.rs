//! Terrain: a solid world. An unbounded noise heightfield generated lazily
//! in chunks, united with (or carved by) the shapes a terrain file lists, in
//! file order: walls, overhangs, ceilings, tunnels. One set of queries
//! (signed distance, normal, closest point, ray cast) serves feet, body,
//! metrics and renderer alike.

mod heightfield;
mod noise_spec;
mod shapes;

pub use shapes::{Shape, ShapeKind, Span};

pub use heightfield::{BoxGap, GridOrigin, Ground, Heightfield, RayHit, slope_normal};
pub use noise_spec::{Fractal, NoiseSource, NoiseSpec, TerrainSpec};

//! Terrain: an unbounded noise heightfield generated lazily in chunks, with
//! one set of queries (height, normal, ray cast) used by feet, body, metrics
//! and renderer alike.

mod heightfield;
mod noise_spec;

pub use heightfield::{GridOrigin, Ground, Heightfield, RayHit};
pub use noise_spec::{Fractal, NoiseSource, NoiseSpec, TerrainSpec};

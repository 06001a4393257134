//! Terrain: a noise heightfield sampled once into a grid, with one ray cast
//! used by feet, body and camera alike.

mod heightfield;
mod noise_spec;

pub use heightfield::{Heightfield, RayHit};
pub use noise_spec::{Fractal, NoiseSource, NoiseSpec, TerrainSpec};

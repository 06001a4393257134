//! What a terrain file describes: which noise, and how it is sampled.

use noise::{Billow, Fbm, MultiFractal, NoiseFn, Perlin, RidgedMulti, Simplex};
use serde::{Deserialize, Serialize};

/// The gradient noise the fractal is built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoiseSource {
    /// Classic Perlin gradient noise.
    Perlin,
    /// Simplex noise (fewer directional artefacts).
    Simplex,
}

/// How octaves of the source noise are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fractal {
    /// Fractal Brownian motion: rolling hills.
    Fbm,
    /// Ridged multifractal: sharp crests and valleys.
    Ridged,
    /// Billow: rounded, puffy bumps.
    Billow,
    /// A flat plane at `base` height (noise ignored).
    Flat,
}

/// Noise parameters (the `[noise]` table of a terrain file).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NoiseSpec {
    /// Source noise.
    pub source: NoiseSource,
    /// Octave combination.
    pub fractal: Fractal,
    /// Spatial frequency of the first octave (cycles per metre).
    pub frequency: f64,
    /// Height scale of the noise (metres): heights span about ±amplitude.
    pub amplitude: f64,
    /// Number of octaves.
    pub octaves: usize,
    /// Frequency multiplier between octaves.
    pub lacunarity: f64,
    /// Amplitude multiplier between octaves.
    pub persistence: f64,
    /// Height added everywhere (metres).
    pub base: f64,
}

/// A validated terrain description: everything needed to build a [`super::Heightfield`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TerrainSpec {
    /// Display name.
    pub name: String,
    /// Noise seed; the same seed always gives the same terrain.
    pub seed: u32,
    /// Side lengths of the square patch along x and z (metres), centred on the origin.
    pub size: [f32; 2],
    /// Grid spacing (metres).
    pub resolution: f32,
    /// The noise.
    pub noise: NoiseSpec,
    /// Solids added to the ground or carved out of it, in file order.
    pub shapes: Vec<super::Shape>,
}

impl NoiseSpec {
    /// A sampler for this noise with `seed`: height in metres at (x, z).
    pub fn sampler(&self, seed: u32) -> Box<dyn Fn(f64, f64) -> f64 + Send + Sync> {
        let amplitude = self.amplitude;
        let base = self.base;
        match (self.fractal, self.source) {
            (Fractal::Flat, _) => Box::new(move |_, _| base),
            (Fractal::Fbm, NoiseSource::Perlin) => {
                self.wrap::<Fbm<Perlin>>(Fbm::new(seed), amplitude, base)
            }
            (Fractal::Fbm, NoiseSource::Simplex) => {
                self.wrap::<Fbm<Simplex>>(Fbm::new(seed), amplitude, base)
            }
            (Fractal::Ridged, NoiseSource::Perlin) => {
                self.wrap::<RidgedMulti<Perlin>>(RidgedMulti::new(seed), amplitude, base)
            }
            (Fractal::Ridged, NoiseSource::Simplex) => {
                self.wrap::<RidgedMulti<Simplex>>(RidgedMulti::new(seed), amplitude, base)
            }
            (Fractal::Billow, NoiseSource::Perlin) => {
                self.wrap::<Billow<Perlin>>(Billow::new(seed), amplitude, base)
            }
            (Fractal::Billow, NoiseSource::Simplex) => {
                self.wrap::<Billow<Simplex>>(Billow::new(seed), amplitude, base)
            }
        }
    }

    fn wrap<N>(
        &self,
        noise: N,
        amplitude: f64,
        base: f64,
    ) -> Box<dyn Fn(f64, f64) -> f64 + Send + Sync>
    where
        N: MultiFractal + NoiseFn<f64, 2> + Send + Sync + 'static,
    {
        let noise = noise
            .set_octaves(self.octaves)
            .set_frequency(self.frequency)
            .set_lacunarity(self.lacunarity)
            .set_persistence(self.persistence);
        Box::new(move |x, z| base + amplitude * noise.get([x, z]))
    }
}

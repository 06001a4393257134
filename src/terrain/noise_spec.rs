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

/// How far ridged and billow noise are read off their lattice by default,
/// in wavelengths of the first octave.
///
/// Gradient noise is zero at every lattice point, in every octave. Ridged
/// noise (1 − |n|) is then at its peak there and billow (2|n| − 1) at its
/// pit, and with the default lacunarity of 2 every octave's lattice contains
/// the first one's, so each first-octave lattice point is a spike or a pit
/// that no seed moves. Unshifted, one stands on the spawn point and a row of
/// them lies along the +X line creatures walk from it. A third of a cell
/// keeps that row a third of a cell away in every octave (a third doubled is
/// still a third from a whole number). Fbm is zero there and has no feature
/// to move, so it is sampled where it always was.
const LATTICE_SHIFT: f64 = 1.0 / 3.0;

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
    /// Where the noise is read for the world's origin, [x, z] metres: the
    /// height at (x, z) is the noise's at (x + offset[0], z + offset[1]).
    /// A file that gives none gets [`NoiseSpec::default_offset`].
    pub offset: [f64; 2],
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
        let base = self.base;
        match (self.fractal, self.source) {
            (Fractal::Flat, _) => Box::new(move |_, _| base),
            (Fractal::Fbm, NoiseSource::Perlin) => self.wrap(Fbm::<Perlin>::new(seed)),
            (Fractal::Fbm, NoiseSource::Simplex) => self.wrap(Fbm::<Simplex>::new(seed)),
            (Fractal::Ridged, NoiseSource::Perlin) => self.wrap(RidgedMulti::<Perlin>::new(seed)),
            (Fractal::Ridged, NoiseSource::Simplex) => self.wrap(RidgedMulti::<Simplex>::new(seed)),
            (Fractal::Billow, NoiseSource::Perlin) => self.wrap(Billow::<Perlin>::new(seed)),
            (Fractal::Billow, NoiseSource::Simplex) => self.wrap(Billow::<Simplex>::new(seed)),
        }
    }

    /// The offset a terrain file that names none gets: [`LATTICE_SHIFT`]
    /// first-octave wavelengths along both axes for ridged and billow noise,
    /// none for fbm and flat ground.
    pub fn default_offset(fractal: Fractal, frequency: f64) -> [f64; 2] {
        match fractal {
            Fractal::Ridged | Fractal::Billow if frequency > 0.0 => [LATTICE_SHIFT / frequency; 2],
            _ => [0.0; 2],
        }
    }

    /// Scales `noise` to this spec and reads it at the spec's offset.
    fn wrap<N>(&self, noise: N) -> Box<dyn Fn(f64, f64) -> f64 + Send + Sync>
    where
        N: MultiFractal + NoiseFn<f64, 2> + Send + Sync + 'static,
    {
        let noise = noise
            .set_octaves(self.octaves)
            .set_frequency(self.frequency)
            .set_lacunarity(self.lacunarity)
            .set_persistence(self.persistence);
        let (amplitude, base, [dx, dz]) = (self.amplitude, self.base, self.offset);
        Box::new(move |x, z| base + amplitude * noise.get([x + dx, z + dz]))
    }
}

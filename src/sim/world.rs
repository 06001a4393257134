//! The world: a terrain and its creatures, of one kind or several, advanced
//! by a fixed step, in parallel when it has threads to use.

use std::ops::Range;
use std::sync::Arc;

use glam::{DVec2, Vec2, Vec3};
use rayon::prelude::*;

use super::metrics::{Bounds, CreatureTrack, StepFigures};
use super::motion::stability_margin;
use super::{Command, CommandError, Metrics, Summary};
use crate::creature::{Creature, CreatureSpec, Crowding, DriveInput, KindShared};
use crate::geometry::ConvexHull;
use crate::ik::SolverKind;
use crate::terrain::{GridOrigin, Heightfield};

/// The default step: 1/120 s.
pub const DEFAULT_DT: f32 = 1.0 / 120.0;

/// Creatures stepped and measured together: one thread's unit of work and
/// one tally of figures. A fixed size (not a share of the threads), so the
/// tallies merge in the same order, and the figures come out the same to
/// the bit, however many threads step them.
const CHUNK: usize = 32;
/// Creatures a thread finds crowding for at a time: a creature's share is
/// a few neighbour look-ups, so chunks are larger than [`CHUNK`].
const CROWD_CHUNK: usize = 256;

/// `steps` steps of `dt` (an f32, as the simulation steps by it) as the
/// seconds they stand for, in f64: for a step that is a whole fraction of a
/// second (1/120), the steps divided by that many a second, exact to the
/// last digit; for any other, times the shortest decimal that reads back as
/// the step. Times and figures reported in f64 would otherwise carry the
/// f32's rounding: a one-second run reported 1.0000000521540642 s (and
/// multiplying by 1/120, step 111 read 0.9249999999999999).
fn seconds_of(steps: u64, dt: f32) -> f64 {
    if let Some(per_second) = super::clock::whole_rate(dt) {
        steps as f64 / per_second as f64
    } else {
        // An f32's shortest decimal always parses as an f64.
        steps as f64 * dt.to_string().parse().unwrap_or(f64::from(dt))
    }
}

/// How far around a creature (metres along x and z) its rays and metrics may
/// look: the terrain there is cached before each step.
fn reach_radius(spec: &CreatureSpec) -> f32 {
    let body = spec.body.size.max_element();
    let lead = spec.body.speed * spec.gait.lead;
    3.0 * spec.max_reach() + body + lead + 4.0 * spec.body.height + 1.0
}

/// Caches the ground around every place `places` lists (a frame, a point
/// in it, a radius) all at once: a round of preparations, again with a
/// larger cache for as long as one round evicts what it asked for itself.
fn prepare_terrain<I>(terrain: &mut Heightfield, places: impl Fn() -> I)
where
    I: Iterator<Item = (GridOrigin, Vec3, f32)>,
{
    loop {
        terrain.begin_round();
        for (origin, centre, radius) in places() {
            terrain.prepare_around(origin, centre, radius);
        }
        if !(terrain.crowded() && terrain.grow()) {
            break;
        }
    }
}

/// Where the creatures of one kind start.
#[derive(Debug, Clone)]
pub struct Spawn {
    /// What they are.
    pub spec: CreatureSpec,
    /// Each one's world (x, z) and heading (radians, 0 = +X,
    /// counter-clockwise seen from above).
    pub spots: Vec<(Vec2, f32)>,
}

impl Spawn {
    /// `count` creatures of `spec` on a square grid centred on world (x, z) =
    /// `centre`, spaced so their legs cannot meet, all facing `heading`.
    pub fn grid(spec: CreatureSpec, count: usize, centre: Vec2, heading: f32) -> Spawn {
        let spacing = 2.0 * spec.max_reach() + spec.body.size.x.max(spec.body.size.z) + 0.5;
        let side = (count as f32).sqrt().ceil().max(1.0) as usize;
        let spots = (0..count)
            .map(|i| {
                let cell = Vec2::new((i % side) as f32, (i / side) as f32)
                    - Vec2::splat((side - 1) as f32 * 0.5);
                (centre + cell * spacing, heading)
            })
            .collect();
        Spawn { spec, spots }
    }
}

/// One kind of creature in a world: its description, which creatures are
/// of it, and their figures.
#[derive(Debug)]
pub struct Kind {
    spec: Arc<CreatureSpec>,
    creatures: Range<usize>,
    metrics: Metrics,
    reach_radius: f32,
}

impl Kind {
    /// What creatures of this kind are.
    pub fn spec(&self) -> &Arc<CreatureSpec> {
        &self.spec
    }

    /// Their indices in [`World::creatures`] (consecutive).
    pub fn creatures(&self) -> Range<usize> {
        self.creatures.clone()
    }

    /// Figures over creatures of this kind only.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}

/// A run of creatures of one kind stepped as one unit of work.
#[derive(Debug, Clone)]
struct Chunk {
    creatures: Range<usize>,
    kind: usize,
}

/// A terrain and the creatures walking on it.
///
/// Deterministic: the same terrain, creatures, spawn spots and command
/// sequence give the same trajectory and figures, step for step, with one
/// thread or many. Nothing inside a step reads a clock or iterates an
/// unordered container; creatures are stepped in fixed chunks whose figures
/// merge in chunk order.
#[derive(Debug)]
pub struct World {
    terrain: Arc<Heightfield>,
    kinds: Vec<Kind>,
    creatures: Vec<Creature>,
    tracks: Vec<CreatureTrack>,
    chunks: Vec<Chunk>,
    tallies: Vec<Metrics>,
    dt: f32,
    metrics: Metrics,
    followed: usize,
    pool: Option<Arc<rayon::ThreadPool>>,
}

/// Why a world could not get the threads it was asked for.
#[derive(Debug, thiserror::Error)]
#[error("cannot start {threads} simulation threads: {source}")]
pub struct ThreadsError {
    threads: usize,
    source: rayon::ThreadPoolBuildError,
}

impl World {
    /// A world with `count` copies of the creature (at least one), spaced on
    /// a square grid around the world's origin, all facing +X.
    pub fn new(terrain: Arc<Heightfield>, spec: CreatureSpec, count: usize) -> World {
        World::from_spawns(
            terrain,
            vec![Spawn::grid(spec, count.max(1), Vec2::ZERO, 0.0)],
        )
    }

    /// A world with one creature standing at world (x, z) = `at`, facing
    /// `heading` radians (0 = +X, counter-clockwise seen from above).
    pub fn with_one_at(
        terrain: Arc<Heightfield>,
        spec: CreatureSpec,
        at: Vec2,
        heading: f32,
    ) -> World {
        World::from_spawns(
            terrain,
            vec![Spawn {
                spec,
                spots: vec![(at, heading)],
            }],
        )
    }

    /// A world with the creatures of every spawn, kind after kind in the
    /// given order. Each kind's rest pose is solved once and shared.
    pub fn from_spawns(mut terrain: Arc<Heightfield>, spawns: Vec<Spawn>) -> World {
        let field = Arc::make_mut(&mut terrain);
        // Cache every spawn's ground first, grown to hold them all at once:
        // spawning creature by creature into a cache smaller than their
        // spread evicted and sampled the same noise again and again.
        let radii: Vec<f32> = spawns.iter().map(|s| reach_radius(&s.spec)).collect();
        let places = || {
            spawns.iter().zip(&radii).flat_map(|(spawn, radius)| {
                spawn
                    .spots
                    .iter()
                    .map(|(at, _)| (GridOrigin::default(), Vec3::new(at.x, 0.0, at.y), *radius))
            })
        };
        let (lo, hi) = places().fold(
            (Vec2::INFINITY, Vec2::NEG_INFINITY),
            |(lo, hi), (_, at, radius)| {
                let at = Vec2::new(at.x, at.z);
                (lo.min(at - radius), hi.max(at + radius))
            },
        );
        if lo.is_finite() && hi.is_finite() {
            field.fit((hi - lo).max_element());
        }
        prepare_terrain(field, places);
        let mut kinds = Vec::with_capacity(spawns.len());
        let mut creatures = Vec::with_capacity(spawns.iter().map(|s| s.spots.len()).sum());
        let mut chunks = Vec::new();
        for (kind, spawn) in spawns.into_iter().enumerate() {
            let spec = Arc::new(spawn.spec);
            let shared = KindShared::new(&spec);
            let radius = radii[kind];
            let start = creatures.len();
            // The round above cached every spawn's ground.
            for (at, heading) in &spawn.spots {
                creatures.push(Creature::spawn(
                    spec.clone(),
                    shared.clone(),
                    field,
                    at.x,
                    at.y,
                    *heading,
                ));
            }
            let end = creatures.len();
            for first in (start..end).step_by(CHUNK) {
                chunks.push(Chunk {
                    creatures: first..(first + CHUNK).min(end),
                    kind,
                });
            }
            kinds.push(Kind {
                spec,
                creatures: start..end,
                metrics: Metrics::new(),
                reach_radius: radius,
            });
        }
        World {
            terrain,
            tracks: vec![CreatureTrack::default(); creatures.len()],
            tallies: chunks.iter().map(|_| Metrics::tally()).collect(),
            chunks,
            kinds,
            creatures,
            dt: DEFAULT_DT,
            metrics: Metrics::new(),
            followed: 0,
            pool: None,
        }
    }

    /// Steps the creatures on `threads` threads (1: on the caller's thread).
    /// The trajectory and figures are the same whatever the count.
    pub fn with_threads(mut self, threads: usize) -> Result<World, ThreadsError> {
        self.pool = if threads <= 1 {
            None
        } else {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("skitter-sim-{i}"))
                .build()
                .map_err(|source| ThreadsError { threads, source })?;
            Some(Arc::new(pool))
        };
        Ok(self)
    }

    /// The thread pool this world steps on (none: the caller's thread), to
    /// share with a world built to replace it.
    pub fn pool(&self) -> Option<&Arc<rayon::ThreadPool>> {
        self.pool.as_ref()
    }

    /// Steps the creatures on `pool` (none: on the caller's thread).
    pub fn with_pool(mut self, pool: Option<Arc<rayon::ThreadPool>>) -> World {
        self.set_pool(pool);
        self
    }

    /// Steps the creatures on `pool` from now on (none: on the caller's
    /// thread); the figures do not depend on it.
    pub fn set_pool(&mut self, pool: Option<Arc<rayon::ThreadPool>>) {
        self.pool = pool;
    }

    /// Where every creature started, kind by kind: the spawns that would
    /// build this world again (on other ground, say).
    pub fn spawns(&self) -> Vec<Spawn> {
        let spacing = self.terrain.spacing();
        self.kinds
            .iter()
            .map(|kind| Spawn {
                spec: (*kind.spec).clone(),
                spots: self.creatures[kind.creatures.clone()]
                    .iter()
                    .map(|c| {
                        let [x, _, z] = c.to_world_f64(spacing, c.start().position);
                        (Vec2::new(x as f32, z as f32), c.start().heading())
                    })
                    .collect(),
            })
            .collect()
    }

    /// Threads the world steps its creatures on.
    pub fn threads(&self) -> usize {
        self.pool
            .as_ref()
            .map_or(1, |pool| pool.current_num_threads())
    }

    /// Changes the step length (seconds); only sensible before the first step.
    pub fn with_dt(mut self, dt: f32) -> World {
        if dt.is_finite() && dt > 0.0 {
            self.dt = dt;
        }
        self
    }

    /// The step length in seconds.
    pub fn dt(&self) -> f32 {
        self.dt
    }

    /// Simulated time so far, seconds.
    pub fn time(&self) -> f64 {
        seconds_of(self.metrics.steps, self.dt)
    }

    /// The terrain.
    pub fn terrain(&self) -> &Arc<Heightfield> {
        &self.terrain
    }

    /// The description of the followed creature's kind (the only kind, in a
    /// world of one).
    pub fn spec(&self) -> &Arc<CreatureSpec> {
        &self.kinds[self.kind_of(self.followed)].spec
    }

    /// The kinds of creature, in spawn order.
    pub fn kinds(&self) -> &[Kind] {
        &self.kinds
    }

    /// Which kind creature `index` is (the last kind for an index past the
    /// end, so a world with no creatures still answers).
    pub fn kind_of(&self, index: usize) -> usize {
        self.kinds
            .iter()
            .position(|kind| kind.creatures.contains(&index))
            .unwrap_or(self.kinds.len().saturating_sub(1))
    }

    /// The creatures.
    pub fn creatures(&self) -> &[Creature] {
        &self.creatures
    }

    /// The creatures, to change them between steps (teleport, perturb,
    /// inject a fault in a test); the world steps them as it finds them.
    pub fn creatures_mut(&mut self) -> &mut [Creature] {
        &mut self.creatures
    }

    /// What the metrics remember of each creature (its path length).
    pub fn tracks(&self) -> &[CreatureTrack] {
        &self.tracks
    }

    /// The creature whose figures the live step figures
    /// ([`Metrics::last`]) show, and the viewer follows.
    pub fn followed(&self) -> usize {
        self.followed
    }

    /// The followed creature (none in a world without creatures).
    pub fn followed_creature(&self) -> Option<&Creature> {
        self.creatures.get(self.followed)
    }

    /// Follows creature `index` (wrapped into range).
    pub fn follow(&mut self, index: usize) {
        self.followed = index.checked_rem(self.creatures.len()).unwrap_or(0);
    }

    /// Caches the terrain within `radius` metres of world point `centre`
    /// (along x and z), for whatever else walks on this world's ground (the
    /// viewer's baked spider); creatures get theirs cached by [`World::step`].
    pub fn prepare_terrain_around(&mut self, centre: Vec3, radius: f32) {
        Arc::make_mut(&mut self.terrain).prepare_around(GridOrigin::default(), centre, radius);
    }

    /// Figures so far, over every creature.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// How the followed creature stands now (none in a world without
    /// creatures).
    pub fn live_figures(&self) -> Option<LiveFigures> {
        let creature = self.creatures.get(self.followed)?;
        let body = &creature.body;
        let (height, normal) = self
            .terrain
            .at(creature.origin())
            .distance_and_normal(body.position);
        let (mut hull, mut projected) = (ConvexHull::default(), Vec::new());
        Some(LiveFigures {
            body_height: height,
            tilt_deg: body.up().angle_between(normal).to_degrees(),
            margin: stability_margin(creature, &mut hull, &mut projected),
            legs: StepFigures::of(creature),
        })
    }

    /// The solver most legs of the followed creature use.
    pub fn solver(&self) -> SolverKind {
        self.creatures
            .get(self.followed)
            .map_or(self.spec().solver.kind, Creature::solver)
    }

    /// Carries out a command for every creature.
    pub fn apply(&mut self, command: Command) -> Result<(), CommandError> {
        self.apply_to(0..self.creatures.len(), command)
    }

    /// Carries out a command for the creatures of kind `kind` only (a scene
    /// drives each kind by its own script).
    pub fn apply_to_kind(&mut self, kind: usize, command: Command) -> Result<(), CommandError> {
        match self.kinds.get(kind) {
            Some(kind) => self.apply_to(kind.creatures.clone(), command),
            None => Ok(()),
        }
    }

    fn apply_to(&mut self, range: Range<usize>, command: Command) -> Result<(), CommandError> {
        let (creatures, tracks) = (&mut self.creatures[range.clone()], &mut self.tracks[range]);
        match command {
            Command::Drive { forward, turn } => {
                let clamp = |v: f32| {
                    if v.is_finite() {
                        v.clamp(-1.0, 1.0)
                    } else {
                        0.0
                    }
                };
                let input = DriveInput {
                    forward: clamp(forward),
                    turn: clamp(turn),
                };
                for creature in creatures {
                    creature.input = input;
                }
            }
            Command::Stop => {
                for creature in creatures {
                    creature.input = DriveInput::default();
                }
            }
            Command::SetSolver(kind) => {
                let mut refused = 0;
                let mut legs = 0;
                for creature in creatures {
                    refused += creature.set_solver(kind);
                    legs += creature.legs.len();
                }
                if refused > 0 {
                    return Err(CommandError::SolverRefused {
                        solver: kind,
                        refused,
                        legs,
                    });
                }
            }
            Command::Reset => {
                for (creature, track) in creatures.iter_mut().zip(tracks) {
                    creature.reset(&self.terrain);
                    track.forget();
                }
            }
        }
        Ok(())
    }

    /// Advances every creature by one fixed step and records the metrics.
    pub fn step(&mut self) {
        // The only owner in a running world, so this does not copy; queries
        // during the step then only read.
        let terrain = Arc::make_mut(&mut self.terrain);
        // A creature may move its frame during its step (`Creature::rebase`),
        // but origin + position is the same world point either way. When
        // the creatures stand wider apart than the cache holds, it grows
        // and they are prepared again, rather than evicting each other's
        // ground every step.
        let (kinds, creatures) = (&self.kinds, &self.creatures);
        prepare_terrain(terrain, || {
            kinds.iter().flat_map(|kind| {
                creatures[kind.creatures.clone()]
                    .iter()
                    .map(|c| (c.origin(), c.body.position, kind.reach_radius))
            })
        });
        if self.creatures.len() > 1 {
            self.crowd();
        }

        let terrain = &*self.terrain;
        let (dt, followed) = (self.dt, self.followed);
        let mut work = Vec::with_capacity(self.chunks.len());
        let count = self.creatures.len();
        // A chunk's creatures are of one kind: its figures so far are what
        // the chunk's tally merges into (and never beyond the world's).
        let bounds: Vec<Bounds> = self.kinds.iter().map(|k| k.metrics.bounds()).collect();
        let (mut creatures, mut tracks) = (&mut self.creatures[..], &mut self.tracks[..]);
        for (chunk, tally) in self.chunks.iter().zip(&mut self.tallies) {
            let (these, rest) = std::mem::take(&mut creatures).split_at_mut(chunk.creatures.len());
            let (their_tracks, rest_tracks) =
                std::mem::take(&mut tracks).split_at_mut(chunk.creatures.len());
            (creatures, tracks) = (rest, rest_tracks);
            let known = bounds[chunk.kind];
            work.push((chunk.creatures.start, these, their_tracks, tally, known));
        }
        let step_chunk = |(start, creatures, tracks, tally, known): (
            usize,
            &mut [Creature],
            &mut [CreatureTrack],
            &mut Metrics,
            Bounds,
        )| {
            tally.clear_tally(known);
            for (offset, (creature, track)) in creatures.iter_mut().zip(tracks).enumerate() {
                let events = creature.step(terrain, dt);
                let first = start + offset == followed;
                tally.observe(first, creature, track, &events, terrain, dt);
            }
        };
        match &self.pool {
            // A few creatures (a zoo of six kinds is six chunks of one) cost
            // less stepped in turn than handed between threads.
            Some(pool) if work.len() > 1 && count > CHUNK => {
                pool.install(|| work.into_par_iter().for_each(step_chunk));
            }
            _ => work.into_iter().for_each(step_chunk),
        }

        self.metrics.begin_step();
        for kind in &mut self.kinds {
            kind.metrics.begin_step();
        }
        for (chunk, tally) in self.chunks.iter().zip(&self.tallies) {
            let has_followed = chunk.creatures.contains(&followed);
            self.metrics.merge_step(tally, has_followed);
            self.kinds[chunk.kind]
                .metrics
                .merge_step(tally, has_followed);
        }
        self.metrics.steps += 1;
        for kind in &mut self.kinds {
            kind.metrics.steps += 1;
        }
    }

    /// Sets every creature's [`Crowding`]: a creature with another ahead
    /// within their two personal radii slows (to a stop at half that
    /// distance) and turns away from it, so creatures walk round each other
    /// rather than through. Neighbours are found in a sorted grid of cells,
    /// visited in index order, so the result does not depend on threads.
    fn crowd(&mut self) {
        let spacing = self.terrain.spacing();
        let reach = self
            .kinds
            .iter()
            .map(|kind| kind.spec.footprint_radius())
            .fold(0.0f32, f32::max);
        if reach <= 0.0 {
            return;
        }
        let cell_size = f64::from(2.0 * reach);
        let mut radius = vec![0.0f32; self.creatures.len()];
        for kind in &self.kinds {
            radius[kind.creatures.clone()].fill(kind.spec.footprint_radius());
        }
        let place_of = |c: &Creature| {
            let [x, _, z] = c.to_world_f64(spacing, c.body.position);
            DVec2::new(x, z)
        };
        let cell_of = |p: DVec2| {
            // Non-finite places fall in one far cell and meet nobody real.
            let cell = (p / cell_size).floor();
            if cell.is_finite() {
                (cell.x as i64, cell.y as i64)
            } else {
                (i64::MAX, i64::MAX)
            }
        };
        // On the pool too when there is one: with the steps shared out,
        // this was most of what one thread did alone. Collecting keeps the
        // creatures' order, and no two entries of `order` are equal (each
        // holds its creature's index), so its sort is the same either way.
        let parallel = self
            .pool
            .as_ref()
            .filter(|_| self.creatures.len() > CROWD_CHUNK);
        let (places, order) = match parallel {
            Some(pool) => pool.install(|| {
                let places: Vec<DVec2> = self.creatures.par_iter().map(place_of).collect();
                let mut order: Vec<((i64, i64), usize)> = places
                    .par_iter()
                    .enumerate()
                    .map(|(i, p)| (cell_of(*p), i))
                    .collect();
                order.par_sort_unstable();
                (places, order)
            }),
            None => {
                let places: Vec<DVec2> = self.creatures.iter().map(place_of).collect();
                let mut order: Vec<((i64, i64), usize)> = places
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (cell_of(*p), i))
                    .collect();
                order.sort_unstable();
                (places, order)
            }
        };

        // Each creature's crowding reads only the places: the creatures
        // are shared out over the pool like their steps.
        let crowding_of = |i: usize, creature: &mut Creature| {
            let here = places[i];
            let forward = creature.body.forward();
            let forward = DVec2::new(f64::from(forward.x), f64::from(forward.z));
            let forward = forward.try_normalize().unwrap_or(DVec2::X);
            let (cx, cz) = cell_of(here);
            let mut crowding = Crowding::default();
            for dx in -1..=1 {
                // The three cells of a column are neighbours in the sorted
                // order: one search finds them all, visited as before.
                let column = cx.saturating_add(dx);
                let (low, high) = (
                    (column, cz.saturating_sub(1)),
                    (column, cz.saturating_add(1)),
                );
                let from = order.partition_point(|(k, _)| *k < low);
                for &(k, j) in &order[from..] {
                    if k > high {
                        break;
                    }
                    if j == i {
                        continue;
                    }
                    let apart = places[j] - here;
                    let distance = apart.length();
                    let contact = f64::from(radius[i] + radius[j]);
                    // NaN distances (a creature gone bad) meet nobody.
                    if distance.partial_cmp(&contact) != Some(std::cmp::Ordering::Less) {
                        continue;
                    }
                    let toward = apart.try_normalize().unwrap_or(forward);
                    let ahead = forward.dot(toward);
                    if ahead <= 0.0 {
                        continue;
                    }
                    let closeness = 1.0 - distance / contact;
                    // Full stop at half the contact distance, for what
                    // lies within ±70° of straight ahead.
                    if ahead > 0.34 {
                        let keep = ((distance - 0.5 * contact) / (0.5 * contact)).clamp(0.0, 1.0);
                        crowding.throttle = crowding.throttle.min(keep as f32);
                    }
                    // Turn away from the side it is on (right when dead
                    // ahead). Left, counter-clockwise seen from above,
                    // is -z: there `perp_dot` is negative.
                    let side = forward.perp_dot(toward);
                    let away = if side > 0.0 { 1.0 } else { -1.0 };
                    crowding.turn += (away * closeness * ahead) as f32;
                }
            }
            crowding.turn = crowding.turn.clamp(-1.0, 1.0);
            creature.crowding = crowding;
        };
        let step_chunk = |(chunk, creatures): (usize, &mut [Creature])| {
            for (offset, creature) in creatures.iter_mut().enumerate() {
                crowding_of(chunk * CROWD_CHUNK + offset, creature);
            }
        };
        match &self.pool {
            Some(pool) if self.creatures.len() > CROWD_CHUNK => pool.install(|| {
                self.creatures
                    .par_chunks_mut(CROWD_CHUNK)
                    .enumerate()
                    .for_each(step_chunk);
            }),
            _ => self
                .creatures
                .chunks_mut(CROWD_CHUNK)
                .enumerate()
                .for_each(step_chunk),
        }
    }

    /// The run's figures so far, with the real time it took: over every
    /// creature, and per kind when there are several.
    pub fn summary(&self, wall_seconds: f64) -> Summary {
        let mut summary = self.summary_of(&self.metrics, 0..self.creatures.len(), wall_seconds);
        if self.kinds.len() > 1 {
            summary.creature = self
                .kinds
                .iter()
                .map(|kind| kind.spec.name.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            summary.kinds = self
                .kinds
                .iter()
                .map(|kind| {
                    let mut part = self.summary_of(&kind.metrics, kind.creatures(), wall_seconds);
                    part.creature = kind.spec.name.clone();
                    part.speed = kind.spec.walk_speed();
                    part.speed_cap = kind.spec.speed_cap();
                    part.solver = self
                        .creatures
                        .get(kind.creatures.start)
                        .map_or(kind.spec.solver.kind, Creature::solver)
                        .to_string();
                    part
                })
                .collect();
            // Each kind's solver, once each in kind order (the followed
            // creature's alone said "fabrik" for a zoo of four solvers).
            let mut solvers: Vec<&str> = Vec::new();
            for part in &summary.kinds {
                if !solvers.contains(&part.solver.as_str()) {
                    solvers.push(&part.solver);
                }
            }
            summary.solver = solvers.join(", ");
        }
        summary
    }

    /// The figures `m` of creatures `range`, as a summary.
    fn summary_of(&self, m: &Metrics, range: Range<usize>, wall_seconds: f64) -> Summary {
        let count = range.len();
        let mean =
            |values: &mut dyn Iterator<Item = f64>| values.sum::<f64>() / count.max(1) as f64;
        let creatures = &self.creatures[range.clone()];
        let seconds = self.time();
        Summary {
            creature: self.spec().name.clone(),
            terrain: self.terrain.spec().name.clone(),
            seed: self.terrain.spec().seed,
            solver: self.solver().to_string(),
            count,
            steps: m.steps,
            dt: seconds_of(1, self.dt),
            seconds,
            // With several kinds, the slowest kind's speeds (each kind's own
            // are in `kinds`).
            speed: self
                .kinds
                .iter()
                .map(|k| k.spec.walk_speed())
                .fold(f32::INFINITY, f32::min),
            speed_cap: self
                .kinds
                .iter()
                .map(|k| k.spec.speed_cap())
                .fold(f32::INFINITY, f32::min),
            distance: mean(&mut self.tracks[range].iter().map(|t| t.odometer)),
            displacement: mean(
                &mut creatures
                    .iter()
                    .map(|c| f64::from(c.body.position.distance(c.start().position))),
            ),
            foot_steps: m.foot_steps,
            gait_violations: m.gait_violations,
            max_lifted_seen: m.max_lifted_seen,
            foot_slip_max: m.foot_slip_max,
            foot_gap_max: m.foot_gap_max,
            footless_seconds_max: m.footless_max,
            penetration_max: m.penetration_max,
            // Infinite only when nothing was observed yet.
            body_clearance_min: finite_or_zero(m.body_clearance_min),
            joint_clearance_min: finite_or_zero(m.joint_clearance_min),
            bone_clearance_min: (!self.terrain.shapes().is_empty())
                .then(|| finite_or_zero(m.bone_clearance_min)),
            time_on_walls: m.wall_time / count.max(1) as f64,
            time_on_ceilings: m.ceiling_time / count.max(1) as f64,
            ik_error_max: m.ik_error_max,
            // The histogram gives its bin's upper edge, which can pass the
            // largest error itself (errors just under the tolerance fill
            // the bin whose edge is the tolerance).
            ik_error_p99: m.ik_errors.quantile(0.99).min(m.ik_error_max),
            ik_iterations_mean: m.ik_iterations_mean(),
            bone_error_max: m.bone_error_max,
            // Infinite only when nothing was observed yet; NaN stays NaN.
            body_height_min: finite_or_zero(m.body_height_min),
            body_height_mean: m.body_height_mean(),
            tilt_error_max_deg: m.tilt_error_max_deg,
            nan_count: m.nan_count,
            ik_repairs: m.ik_repairs,
            body_accel_max: m.motion.body_accel_max,
            tilt_rate_max: m.motion.tilt_rate_max,
            stability_margin_min: Some(m.motion.stability_margin_min)
                .filter(|margin| !margin.is_infinite()),
            unstable_fraction: m.motion.unstable_fraction(),
            leg_crossings: m.motion.leg_crossings,
            leg_body_intersections: m.motion.leg_body_intersections,
            foot_speed_max: m.motion.foot_speed_max,
            touchdown_speed_max: m.motion.touchdown_speed_max,
            wall_seconds,
            step_micros_mean: if m.steps == 0 {
                0.0
            } else {
                wall_seconds * 1e6 / m.steps as f64
            },
            realtime_factor: if wall_seconds > 0.0 {
                seconds / wall_seconds
            } else {
                0.0
            },
            scene: None,
            source: None,
            kinds: Vec::new(),
        }
    }
}

/// A minimum over a run, 0 when nothing was observed (still infinite); NaN
/// stays NaN.
fn finite_or_zero(min: f32) -> f32 {
    if min.is_infinite() { 0.0 } else { min }
}

/// How the followed creature stands now, worked out afresh from its state
/// (see [`World::live_figures`]): the stats panel's live rows, right for
/// a creature just followed, before any step has measured it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LiveFigures {
    /// Body height above the surface under it (metres).
    pub body_height: f32,
    /// Angle between the body's up and the surface's normal under it
    /// (degrees).
    pub tilt_deg: f32,
    /// Its stability margin, with three or more feet down.
    pub margin: Option<f32>,
    /// Its legs' solves and its planted feet's slip.
    pub legs: StepFigures,
}

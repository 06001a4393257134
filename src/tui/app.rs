//! The viewer's state and what each action does to it. No terminal here:
//! the event loop feeds actions and elapsed time in, the UI reads it out.

use std::collections::VecDeque;
use std::sync::Arc;

use glam::Vec2;

use super::input::{KEYS, WALKING_NOTE};
use super::watch::FileWatch;
use crate::config::{ConfigError, Scene, Script, load_creature, load_scene, load_terrain_seeded};
use crate::creature::CreatureSpec;
use crate::ik::SolverKind;
use crate::lab::LabError;
use crate::lab::baked::{Playback, record_spec};
use crate::render::{Camera, ViewKind};
use crate::sim::{Command, CommandError, FixedStep, FollowedRecord, Spawn, Timeline, World};
use crate::terrain::{Heightfield, TerrainSpec};
use crate::text::{MESSAGE_MAX_CHARS, VALUE_MAX_CHARS, printable};

/// Samples kept for the sparklines (one per frame).
pub const HISTORY: usize = 240;
/// World steps the gait diagram remembers (4 s at the default step).
pub const GAIT_HISTORY: usize = 480;
/// How long one press of a turn key keeps turning (seconds); held keys
/// auto-repeat faster than this, so holding turns continuously.
pub const TURN_HOLD: f64 = 0.4;
/// Throttle change per press of W or S.
pub const THROTTLE_STEP: f32 = 0.5;
/// Most simulation steps run to catch up in one frame.
const MAX_CATCH_UP: u32 = 30;
/// Most time a frame spends stepping, seconds: with more creatures than
/// the machine steps in real time, fewer steps run a frame (and simulated
/// time falls behind) so keys and redraws still come several times a
/// second.
const STEP_BUDGET: f64 = 0.05;

/// Why the scene named on the command line cannot be shown.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LoadError {
    /// A creature or terrain file is missing or invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The requested solver cannot pose some leg.
    #[error("{0}")]
    Solver(String),
}

/// Something the user asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Action {
    /// Faster forward (or slower backward).
    Faster,
    /// Slower forward (or faster backward).
    Slower,
    /// Turn left (+1) or right (-1) for a moment.
    Turn(f32),
    /// Stand still.
    Stop,
    /// Pause or resume.
    TogglePause,
    /// One step while paused.
    SingleStep,
    /// Next solver the legs can use.
    CycleSolver,
    /// Next view.
    CycleView,
    /// Follow the next (+1) or previous (-1) creature.
    FollowNext(isize),
    /// Run the simulation faster (+1) or slower (-1) than real time.
    Rate(i32),
    /// Show leg N (from 0) of the followed creature in the leg inspector,
    /// or close it.
    Inspect(Option<usize>),
    /// Inspect the next leg.
    InspectNext,
    /// One view or all four.
    ToggleSplit,
    /// Text characters or half-block pixels (double vertical resolution, in colour).
    ToggleHiRes,
    /// Zoom in (factor > 1) or out.
    Zoom(f32),
    /// Pan by this many screen steps (x right, y up).
    Pan(Vec2),
    /// Follow the creature or stay put.
    ToggleFollow,
    /// Generate the terrain again with the next seed.
    NewSeed,
    /// The baked spider (a recorded clip played back, no rays, no IK) or
    /// the IK one.
    ToggleBaked,
    /// Re-read the creature and terrain files.
    Reload,
    /// Show or hide the key help.
    ToggleHelp,
    /// Scroll the open help by this many rows (a page, or to an end).
    ScrollHelp(i32),
    /// Leave.
    Quit,
    /// Close the help, else the leg inspector, if one is open; else leave
    /// (Esc).
    Back,
}

/// A line for the user at the bottom of the screen.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    /// The text (already safe to print).
    pub text: String,
    /// Whether it reports a problem.
    pub is_error: bool,
    /// Seconds it has been on screen.
    pub age: f64,
}

/// How long a notice stays (seconds): news goes after a few seconds; a
/// problem stays long enough to read a file:line:column and act on it.
pub const NOTICE_SECONDS: f64 = 4.0;
/// How long an error notice stays (seconds).
pub const ERROR_NOTICE_SECONDS: f64 = 15.0;

impl Notice {
    /// A notice of `text`, made safe to print.
    pub fn new(text: impl Into<String>, is_error: bool) -> Notice {
        // Several errors come one a line; the notice is one line.
        let text = text.into().lines().collect::<Vec<_>>().join("  ·  ");
        Notice {
            text: printable(&text, MESSAGE_MAX_CHARS),
            is_error,
            age: 0.0,
        }
    }

    /// Ages the notice in `slot` by `elapsed` seconds and clears it once it
    /// has been shown long enough.
    pub fn expire(slot: &mut Option<Notice>, elapsed: f64) {
        if let Some(notice) = slot {
            notice.age += elapsed.max(0.0);
            let lasts = if notice.is_error {
                ERROR_NOTICE_SECONDS
            } else {
                NOTICE_SECONDS
            };
            if notice.age >= lasts {
                *slot = None;
            }
        }
    }
}

/// Real-time figures for the stats panel (zero in tests, so frames are deterministic).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timings {
    /// Simulation steps per real second, smoothed.
    pub steps_per_second: f64,
    /// Real time per frame, milliseconds, smoothed.
    pub frame_ms: f64,
    /// Time to render the views, milliseconds, smoothed.
    pub render_ms: f64,
}

/// Where the scene came from, for reloading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sources {
    /// Creature file or built-in name.
    pub creature: String,
    /// Terrain file or built-in name.
    pub terrain: String,
    /// A scene file, shown instead of the creature on the terrain.
    pub scene: Option<String>,
    /// Seed in place of the terrain file's (`--seed`, or the last `g`),
    /// kept across reloads.
    pub seed: Option<u32>,
}

impl Sources {
    /// The files among the sources (built-in names are not files), to
    /// watch for saves.
    pub fn files(&self) -> Vec<std::path::PathBuf> {
        let named = [Some(&self.creature), Some(&self.terrain)]
            .into_iter()
            .flatten()
            .filter(|arg| crate::config::is_path(arg))
            .chain(self.scene.as_ref());
        named.map(std::path::PathBuf::from).collect()
    }
}

/// A scene file, its terrain's seed replaced by `seed` (`--seed`) if given.
fn load_seeded_scene(path: &str, seed: Option<u32>) -> Result<Scene, ConfigError> {
    let mut scene = load_scene(path)?;
    if let Some(seed) = seed {
        scene.terrain.seed = seed;
    }
    Ok(scene)
}

/// The viewer's whole state.
#[derive(Debug)]
pub struct App {
    /// The simulation.
    pub world: World,
    /// Where the scene came from.
    pub sources: Sources,
    /// Solver forced from the command line, re-applied after reloads.
    pub forced_solver: Option<SolverKind>,
    /// The camera all views share.
    pub camera: Camera,
    /// The view shown when not split.
    pub view: ViewKind,
    /// Whether all four views are shown.
    pub split: bool,
    /// Whether views are drawn in half-block pixels instead of characters.
    pub hires: bool,
    /// Whether the simulation is paused.
    pub paused: bool,
    /// Whether the help overlay is up.
    pub show_help: bool,
    /// Rows of the help overlay scrolled past.
    pub help_scroll: u16,
    /// Whether the user asked to leave.
    pub quit: bool,
    /// Throttle in [-1, 1].
    pub throttle: f32,
    /// Current rudder in [-1, 1].
    pub turn: f32,
    turn_until: f64,
    /// Real time since start, seconds.
    pub time: f64,
    clock: FixedStep,
    /// The last message for the user.
    pub notice: Option<Notice>,
    /// Mean IK iterations per frame, for the sparkline.
    pub iterations_history: VecDeque<f32>,
    /// The followed creature's legs in the air (bit per leg, at most 64
    /// legs) after each of the last `GAIT_HISTORY` steps: the gait diagram.
    pub gait_history: VecDeque<u64>,
    /// Wall time one world step takes, seconds (smoothed; 0 before the
    /// first): what [`STEP_BUDGET`] is shared out by.
    step_cost: f64,
    /// Largest IK error per frame (metres), for the sparkline.
    pub error_history: VecDeque<f32>,
    /// Real-time figures.
    pub timings: Timings,
    /// A drive script being played, if any.
    script: Option<Timeline>,
    /// The creature, terrain and scene files, reloaded when saved.
    watch: FileWatch,
    /// Index into [`SIM_RATES`]: how fast simulated time runs.
    rate: usize,
    /// A scene's own scripts, per kind (`None` for kinds the keys drive).
    kind_scripts: Vec<Option<Timeline>>,
    /// The baked spider, when it is shown instead of the IK one (which
    /// then waits where it was).
    pub baked: Option<Playback>,
    /// The followed creature's figures since it was followed (the stats
    /// panel's maxima).
    pub followed: FollowedRecord,
}

/// Simulation rates relative to real time (`[` and `]` step through them).
pub const SIM_RATES: [f64; 5] = [0.25, 0.5, 1.0, 2.0, 4.0];
/// Index of real time in [`SIM_RATES`].
const SIM_REAL_TIME: usize = 2;

/// Metres around the baked spider whose terrain is kept cached.
const BAKED_GROUND_RADIUS: f32 = 12.0;

impl App {
    /// A viewer for `creature` on `terrain`.
    pub fn new(
        creature: CreatureSpec,
        terrain: TerrainSpec,
        sources: Sources,
        solver: Option<SolverKind>,
    ) -> App {
        let world = World::new(Arc::new(Heightfield::generate(&terrain)), creature, 1);
        let clock = FixedStep::new(f64::from(world.dt()), MAX_CATCH_UP);
        let mut app = App {
            world,
            sources,
            forced_solver: solver,
            camera: Camera::default(),
            view: ViewKind::Top,
            split: false,
            hires: false,
            paused: false,
            show_help: false,
            help_scroll: 0,
            quit: false,
            throttle: 0.0,
            turn: 0.0,
            turn_until: 0.0,
            time: 0.0,
            clock,
            notice: None,
            iterations_history: VecDeque::with_capacity(HISTORY),
            gait_history: VecDeque::with_capacity(GAIT_HISTORY),
            step_cost: 0.0,
            error_history: VecDeque::with_capacity(HISTORY),
            timings: Timings::default(),
            script: None,
            watch: FileWatch::default(),
            rate: SIM_REAL_TIME,
            kind_scripts: Vec::new(),
            baked: None,
            followed: FollowedRecord::default(),
        };
        app.apply_forced_solver();
        app.watch = FileWatch::new(app.sources.files());
        app
    }

    /// Loads the scene named on the command line; a file that does not parse,
    /// or a solver that cannot pose the creature's legs, is refused here,
    /// before any terminal is touched.
    pub fn load(sources: Sources, solver: Option<SolverKind>) -> Result<App, LoadError> {
        if let Some(path) = &sources.scene {
            let scene = load_seeded_scene(path, sources.seed)?;
            if let Some(kind) = solver {
                for scene_kind in &scene.kinds {
                    scene_kind
                        .creature
                        .check_solver(kind, "--solver")
                        .map_err(LoadError::Solver)?;
                }
            }
            let first = scene.kinds[0].creature.clone();
            let mut app = App::new(first, scene.terrain.clone(), sources, solver);
            app.show_scene(&scene);
            return Ok(app);
        }
        let creature = load_creature(&sources.creature)?;
        let terrain = load_terrain_seeded(&sources.terrain, sources.seed)?.0;
        if let Some(kind) = solver {
            creature
                .check_solver(kind, "--solver")
                .map_err(LoadError::Solver)?;
        }
        Ok(App::new(creature, terrain, sources, solver))
    }

    /// Steps the world on `threads` threads from now on (the figures do not
    /// depend on it); a pool that cannot start leaves one thread, and says so.
    pub fn set_threads(&mut self, threads: usize) {
        let pool = if threads <= 1 {
            None
        } else {
            match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
                Ok(pool) => Some(Arc::new(pool)),
                Err(e) => {
                    self.notify_error(format!("cannot start {threads} simulation threads: {e}"));
                    None
                }
            }
        };
        self.world.set_pool(pool);
    }

    /// Shows `scene`: its creatures on its ground, each kind with its own
    /// solver and script (the keys drive the kinds without a script).
    fn show_scene(&mut self, scene: &Scene) {
        let spawns = scene
            .kinds
            .iter()
            .map(|kind| Spawn {
                spec: kind.creature.clone(),
                spots: kind.spots.clone(),
            })
            .collect();
        self.rebuild(spawns, &scene.terrain);
        // The scene's own file, and every file it read: a saved script or
        // creature file reloads the scene as its own file would.
        let mut files = self.sources.files();
        for file in &scene.files {
            if !files.contains(file) {
                files.push(file.clone());
            }
        }
        self.watch = FileWatch::new(files);
        for (index, kind) in scene.kinds.iter().enumerate() {
            if let Some(solver) = kind.solver.filter(|_| self.forced_solver.is_none())
                && let Err(e) = self.world.apply_to_kind(index, Command::SetSolver(solver))
            {
                self.notify_error(e.to_string());
            }
        }
        let now = self.world.metrics().steps;
        let dt = self.world.dt();
        self.kind_scripts = scene
            .kinds
            .iter()
            .map(|kind| {
                kind.script
                    .as_ref()
                    .map(|script| Timeline::from_script(script, dt).delayed(now))
            })
            .collect();
        self.send_drive();
    }

    /// Shows leg `leg` of the followed creature in the inspector (drawn in
    /// `#`, its details in the stats panel), or closes the inspector.
    fn inspect(&mut self, leg: Option<usize>) {
        let legs = self.world.followed_creature().map_or(0, |c| c.legs.len());
        match leg {
            Some(leg) if leg < legs => {
                self.camera.inspect = Some(leg);
                let name = self.world.spec().legs[leg].name.clone();
                self.notify(format!(
                    "inspecting leg {}: {name} (0 or Tab past the last closes)",
                    leg + 1
                ));
            }
            Some(leg) => self.notify_error(format!(
                "no leg {}: this creature has {legs} (1 to {legs}; 0 closes the inspector)",
                leg + 1
            )),
            None => {
                self.camera.inspect = None;
                self.notify("leg inspector closed");
            }
        }
    }

    /// Follows the next (`step` 1) or previous (-1) creature.
    fn follow_next(&mut self, step: isize) {
        let count = self.world.creatures().len();
        if count <= 1 {
            self.notify("only one creature to follow");
            return;
        }
        let next = (self.world.followed() as isize + step).rem_euclid(count as isize) as usize;
        self.world.follow(next);
        self.camera.follow = true;
        self.forget_followed();
        let kind = self.world.kind_of(next);
        let name = self.world.kinds()[kind].spec().name.clone();
        self.notify(format!(
            "following creature {} of {count}: {name}",
            next + 1
        ));
    }

    fn apply_forced_solver(&mut self) {
        if let Some(kind) = self.forced_solver
            && let Err(e) = self.world.apply(Command::SetSolver(kind))
        {
            self.notify_error(e.to_string());
        }
    }

    fn notify(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice::new(text, false));
    }

    fn notify_error(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice::new(text, true));
    }

    /// Carries out one user action.
    pub fn handle(&mut self, action: Action) {
        // While the help is open, the up/down keys scroll it.
        if self.show_help {
            let scroll = match action {
                Action::Faster | Action::Pan(Vec2 { y: 1.0, .. }) => Some(-1),
                Action::Slower | Action::Pan(Vec2 { y: -1.0, .. }) => Some(1),
                Action::ScrollHelp(rows) => Some(rows),
                _ => None,
            };
            if let Some(step) = scroll {
                let limit = super::ui::help_scroll_limit(KEYS, WALKING_NOTE);
                let step = step.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
                self.help_scroll = self.help_scroll.saturating_add_signed(step).min(limit);
                return;
            }
        }
        if matches!(
            action,
            Action::Faster | Action::Slower | Action::Turn(_) | Action::Stop
        ) {
            self.take_followed_off_script();
        }
        match action {
            Action::Faster => self.set_throttle(self.throttle + THROTTLE_STEP),
            Action::Slower => self.set_throttle(self.throttle - THROTTLE_STEP),
            Action::Turn(direction) => {
                self.turn = direction.clamp(-1.0, 1.0);
                self.turn_until = self.time + TURN_HOLD;
                self.send_drive();
            }
            Action::Stop => {
                self.throttle = 0.0;
                self.turn = 0.0;
                self.send_drive();
            }
            Action::TogglePause => {
                self.paused = !self.paused;
                // Resuming must not replay the time spent paused.
                self.clock.reset();
            }
            Action::SingleStep => {
                if self.paused {
                    self.step_world(1);
                } else {
                    self.notify("`.` steps once while paused; press space to pause");
                }
            }
            Action::CycleSolver if self.baked.is_some() => {
                let name = self.creature_name();
                self.notify(format!(
                    "the baked {name} uses no solver: it replays a clip (p for the IK {name})"
                ));
            }
            Action::CycleSolver => self.cycle_solver(),
            Action::CycleView => {
                if self.split {
                    self.split = false;
                }
                self.view = self.view.next();
            }
            Action::ToggleSplit => self.split = !self.split,
            Action::ToggleHiRes => self.hires = !self.hires,
            Action::Zoom(factor) => {
                self.camera.zoom = (self.camera.zoom * factor).clamp(0.05, 20.0)
            }
            Action::Pan(steps) => {
                // One step is a metre at zoom 1, less when zoomed in.
                self.camera.pan += steps / self.camera.clamped_zoom();
            }
            Action::ToggleFollow => {
                let focus = match &self.baked {
                    Some(baked) => self.camera.focus_on(Some(baked.pose().body.position)),
                    None => self.camera.focus(&self.world),
                };
                self.camera.follow = !self.camera.follow;
                self.camera.anchor = focus;
                if self.camera.follow {
                    // Following means the creature at the centre: a pan
                    // made while looking around is dropped.
                    self.camera.pan = Vec2::ZERO;
                }
                self.notify(if self.camera.follow {
                    "camera follows the creature"
                } else {
                    "camera stays put"
                });
            }
            Action::NewSeed => self.new_seed(),
            Action::FollowNext(step) => self.follow_next(step),
            Action::Inspect(leg) => self.inspect(leg),
            Action::InspectNext => {
                let next = self.camera.inspect.map_or(0, |leg| leg + 1);
                let legs = self.world.followed_creature().map_or(0, |c| c.legs.len());
                self.inspect((next < legs).then_some(next));
            }
            Action::Rate(step) => {
                let last = SIM_RATES.len() as i64 - 1;
                self.rate = (self.rate as i64 + i64::from(step)).clamp(0, last) as usize;
                self.notify(format!("simulation at {}× real time", self.rate()));
            }
            Action::ToggleBaked => {
                let name = self.creature_name();
                let count = self.world.creatures().len();
                if self.baked.take().is_some() {
                    // The IK creature waited: its record stands; the
                    // sparklines and gait diagram held the clip's.
                    self.restart_histories();
                    self.notify(format!("the IK {name}, where it was"));
                } else if count > 1 {
                    // The clip stands in for one creature walking alone:
                    // among others it would hide them, and follow none.
                    self.notify(format!(
                        "the baked playback shows one creature on its own, not one of {count}: \
                         try `skitter run --creature {name}`"
                    ));
                } else if let Err(e) = self.show_baked() {
                    self.notify_error(format!("cannot record the baked {name}'s clip: {e}"));
                }
            }
            Action::Reload => self.reload(),
            Action::ToggleHelp => {
                self.show_help = !self.show_help;
                self.help_scroll = 0;
            }
            // Page keys mean nothing with the help closed.
            Action::ScrollHelp(_) => {}
            // Esc closes what is open over the views, the help first, then
            // the leg inspector; with nothing open it quits.
            Action::Back if self.show_help => self.show_help = false,
            Action::Back if self.camera.inspect.is_some() => self.camera.inspect = None,
            Action::Quit | Action::Back => self.quit = true,
        }
    }

    /// A drive key pressed while following a creature whose kind walks a
    /// scene script: the kind leaves its script (until the scene is
    /// reloaded) for the keys, and the key then acts on every kind they
    /// drive. The first kind to leave takes the keys from its creature's
    /// own throttle and rudder (`w` on a creature walking at full speed
    /// keeps it there; `a` turns it as it walks); a later one joins the
    /// kinds already on the keys, at their throttle, and the notice names
    /// them.
    fn take_followed_off_script(&mut self) {
        let kind = self.world.kind_of(self.world.followed());
        let on_keys: Vec<usize> = (0..self.world.kinds().len())
            .filter(|&k| k != kind && self.kind_scripts.get(k).is_none_or(Option::is_none))
            .collect();
        let Some(slot) = self.kind_scripts.get_mut(kind) else {
            return;
        };
        if slot.take().is_none() {
            return;
        }
        if on_keys.is_empty()
            && let Some(creature) = self.world.followed_creature()
        {
            self.throttle = creature.input.forward;
            self.turn = creature.input.turn;
        }
        let name = self.creature_name();
        let count = self.world.kinds()[kind].creatures().len();
        let mut text = if count == 1 {
            format!("the {name} left its scene script: the keys drive it")
        } else {
            format!("the {count} {name}s left their scene script: the keys drive them")
        };
        if !on_keys.is_empty() {
            let names: Vec<String> = on_keys
                .iter()
                .map(|&k| self.world.kinds()[k].spec().name.clone())
                .collect();
            text.push_str(&format!(" with the {}", names.join(", the ")));
        }
        self.notify(text);
    }

    fn set_throttle(&mut self, throttle: f32) {
        self.throttle = throttle.clamp(-1.0, 1.0);
        self.send_drive();
    }

    fn send_drive(&mut self) {
        let command = Command::Drive {
            forward: self.throttle,
            turn: self.turn,
        };
        // Drive commands are always accepted. A scene's kinds with their own
        // script follow it, not the keys.
        if self.kind_scripts.iter().all(Option::is_none) {
            let _ = self.world.apply(command);
            return;
        }
        for kind in 0..self.world.kinds().len() {
            if self.kind_scripts.get(kind).is_none_or(Option::is_none) {
                let _ = self.world.apply_to_kind(kind, command);
            }
        }
    }

    fn cycle_solver(&mut self) {
        let mut kind = self.world.solver();
        for _ in 0..SolverKind::ALL.len() {
            kind = kind.next();
            match self.world.apply(Command::SetSolver(kind)) {
                Ok(()) => {
                    self.forced_solver = Some(kind);
                    let count = self.world.creatures().len();
                    self.notify(if count > 1 {
                        format!("solver: {kind}, for all {count} creatures (kept when the scene reloads)")
                    } else {
                        format!("solver: {kind}")
                    });
                    return;
                }
                Err(CommandError::SolverRefused { refused, legs, .. }) if refused == legs => {
                    continue;
                }
                Err(e) => {
                    self.forced_solver = Some(kind);
                    self.notify_error(e.to_string());
                    return;
                }
            }
        }
    }

    fn rebuild(&mut self, spawns: Vec<Spawn>, terrain: &TerrainSpec) {
        let pool = self.world.pool().cloned();
        let followed = self.world.followed();
        self.world =
            World::from_spawns(Arc::new(Heightfield::generate(terrain)), spawns).with_pool(pool);
        self.world.follow(followed);
        self.kind_scripts.clear();
        self.clock.reset();
        // Another world: its steps' cost is measured afresh.
        self.step_cost = 0.0;
        self.forget_followed();
        self.apply_forced_solver();
        self.send_drive();
        // The baked spider follows the scene: a new clip from the new
        // creature, played on the new ground.
        if self.baked.is_some()
            && let Err(e) = self.show_baked()
        {
            self.baked = None;
            let name = self.creature_name();
            self.notify_error(format!("cannot record the baked {name}'s clip: {e}"));
        }
    }

    /// Shows the baked spider: records a clip of the creature walking
    /// straight on flat ground and plays it from where the IK creature
    /// stands, facing its way, at full throttle (the speed it was recorded
    /// at, so its feet glide only where the ground is not flat).
    pub fn show_baked(&mut self) -> Result<(), LabError> {
        let clip = Arc::new(record_spec((**self.world.spec()).clone())?);
        let creature = &self.world.creatures()[self.world.followed()];
        let at = creature.to_world_f64(self.world.terrain().spacing(), creature.body.position);
        let (start, heading) = (
            glam::Vec2::new(at[0] as f32, at[2] as f32),
            creature.body.heading(),
        );
        self.world
            .prepare_terrain_around(glam::Vec3::new(start.x, 0.0, start.y), BAKED_GROUND_RADIUS);
        self.baked = Some(Playback::new(
            clip,
            start,
            heading,
            &self.world.terrain().world(),
        ));
        self.throttle = 1.0;
        self.send_drive();
        self.iterations_history.clear();
        self.error_history.clear();
        self.gait_history.clear();
        let name = self.creature_name();
        self.notify(format!(
            "the baked {name}: a recorded walk cycle, no rays, no IK (w/s change its speed, not \
             the clip's: its feet glide; p for the IK {name})"
        ));
        Ok(())
    }

    /// The kind the baked walk is recorded from, for messages about it
    /// (the thesis's spider only when the creature is the spider).
    fn creature_name(&self) -> String {
        sanitize(&self.world.spec().name)
    }

    fn new_seed(&mut self) {
        let mut terrain = self.world.terrain().spec().clone();
        terrain.seed = terrain.seed.wrapping_add(1);
        // Kept as if given with `--seed`: saving an edited file, or `r`,
        // reloads onto the ground the author chose, not the file's.
        self.sources.seed = Some(terrain.seed);
        if self.sources.scene.is_some() {
            // A scene starts again on the new ground, its kinds on their
            // scripts (a rebuild of where they stood dropped the scripts).
            self.reload();
            if self.notice.as_ref().is_some_and(|n| n.is_error) {
                return;
            }
        } else {
            let spawns = self.world.spawns();
            self.rebuild(spawns, &terrain);
        }
        self.notify(format!(
            "terrain {} with seed {}",
            terrain.name, terrain.seed
        ));
    }

    fn reload(&mut self) {
        if let Some(path) = self.sources.scene.clone() {
            match load_seeded_scene(&path, self.sources.seed) {
                Ok(scene) => {
                    self.show_scene(&scene);
                    self.notify(format!(
                        "reloaded scene {}: every creature from its start",
                        scene.name
                    ));
                }
                Err(e) => {
                    self.notify_error(format!("reload failed, keeping the running scene: {e}"))
                }
            }
            return;
        }
        let loaded = load_creature(&self.sources.creature).and_then(|creature| {
            load_terrain_seeded(&self.sources.terrain, self.sources.seed)
                .map(|(terrain, _)| (creature, terrain))
        });
        match loaded {
            Ok((creature, terrain)) => {
                let name = format!("{} on {}", creature.name, terrain.name);
                // The edited creature stands where the old one was, facing
                // its way: an author tuning a leg keeps looking at the spot.
                let (at, heading) = self
                    .world
                    .followed_creature()
                    .map(|c| {
                        let [x, _, z] =
                            c.to_world_f64(self.world.terrain().spacing(), c.body.position);
                        (Vec2::new(x as f32, z as f32), c.body.heading())
                    })
                    .filter(|(at, heading)| at.is_finite() && heading.is_finite())
                    .unwrap_or((Vec2::ZERO, 0.0));
                self.rebuild(
                    vec![Spawn {
                        spec: creature,
                        spots: vec![(at, heading)],
                    }],
                    &terrain,
                );
                self.notify(format!("reloaded {name}"));
            }
            Err(e) => self.notify_error(format!(
                "reload failed, keeping the running creature and terrain: {e}"
            )),
        }
    }

    /// Advances real time by `elapsed` seconds: expires held turns and runs
    /// the simulation steps that are due (none while paused); returns how
    /// many ran.
    pub fn advance(&mut self, elapsed: f64) -> u32 {
        self.time += elapsed.max(0.0);
        Notice::expire(&mut self.notice, elapsed);
        if self.watch.saved(elapsed) {
            self.reload();
        }
        if self.turn != 0.0 && self.time >= self.turn_until {
            self.turn = 0.0;
            self.send_drive();
        }
        if self.paused {
            return 0;
        }
        // The same fixed steps, more or fewer of them per real second: a
        // slowed or hastened run is step for step the run at real time.
        let due = self.clock.advance(elapsed.max(0.0) * self.rate());
        let affordable = if self.step_cost > 0.0 {
            ((STEP_BUDGET / self.step_cost) as u32).clamp(1, MAX_CATCH_UP)
        } else {
            MAX_CATCH_UP
        };
        let due = due.min(affordable);
        if self.step_cost > 0.0 || self.baked.is_some() || due == 0 {
            self.step_world(due);
            return due;
        }
        // What a step costs is not known yet: one at a time within the
        // budget (30 steps of 100 000 spiders held the first frame 8 s).
        let started = std::time::Instant::now();
        let mut done = 0;
        while done < due {
            self.run_steps(1);
            done += 1;
            if started.elapsed().as_secs_f64() > STEP_BUDGET {
                break;
            }
        }
        self.sample_sparklines();
        done
    }

    /// How fast simulated time runs relative to real time.
    pub fn rate(&self) -> f64 {
        SIM_RATES[self.rate.min(SIM_RATES.len() - 1)]
    }

    /// A digest of what the views show of the world: every creature's body
    /// pose and feet (and the baked spider's), to a tenth of a millimetre,
    /// far below a cell. Equal digests mean the pictures are the same, so
    /// the event loop can skip redrawing creatures standing still (whose
    /// springs still settle in the last bits).
    pub fn picture_digest(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        let mut add = |v: glam::Vec3| {
            for x in v.to_array() {
                ((x * 1e4).round() as i64).hash(&mut hasher);
            }
        };
        for creature in self.world.creatures() {
            let origin = creature.origin();
            add(glam::Vec3::new(origin.x as f32, 0.0, origin.z as f32));
            add(creature.body.position);
            add(creature.body.up());
            add(creature.body.forward());
            for leg in &creature.legs {
                add(leg.chain.end());
            }
        }
        if let Some(baked) = &self.baked {
            let pose = baked.pose();
            add(pose.body.position);
            for joint in pose.legs.iter().filter_map(|leg| leg.last()) {
                add(*joint);
            }
        }
        self.world.followed().hash(&mut hasher);
        hasher.finish()
    }

    /// Plays a drive script from the current step on, exactly as `skitter
    /// headless` would: the same script gives the same trajectory. Keys still
    /// work meanwhile; the script's next item takes over again.
    pub fn play(&mut self, script: &Script) {
        let timeline =
            Timeline::from_script(script, self.world.dt()).delayed(self.world.metrics().steps);
        self.script = Some(timeline);
        self.notify(format!(
            "playing a script of {:.1} s",
            script.total_seconds()
        ));
    }

    /// Whether a script is playing.
    pub fn playing(&self) -> bool {
        self.script.is_some()
    }

    /// Applies the scene's per-kind script cues due before the next step.
    fn cue_kind_scripts(&mut self) {
        for (kind, slot) in self.kind_scripts.iter_mut().enumerate() {
            if let Some(timeline) = slot {
                let (_, outcome) = timeline.apply_due_to_kind(&mut self.world, kind);
                if let Err(e) = outcome {
                    self.notice = Some(Notice::new(e.to_string(), true));
                }
            }
        }
    }

    /// Applies the script's cues that are due before the next step.
    fn cue_script(&mut self) {
        let Some(timeline) = self.script.as_mut() else {
            return;
        };
        let (applied, outcome) = timeline.apply_due(&mut self.world);
        let finished = timeline.finished();
        if applied > 0 {
            // Show what the script asked for, and hold its turn until its
            // next item rather than for a key press's moment.
            if let Some(creature) = self.world.followed_creature() {
                self.throttle = creature.input.forward;
                self.turn = creature.input.turn;
            }
            self.turn_until = f64::INFINITY;
        }
        if let Err(e) = outcome {
            self.notify_error(e.to_string());
        }
        if finished {
            self.script = None;
            self.turn_until = self.time;
            self.notify("script finished");
        }
    }

    /// Starts the followed creature's record afresh (another is followed,
    /// or the world was rebuilt): its maxima, its sparklines, and its gait
    /// diagram from where its feet are now.
    fn forget_followed(&mut self) {
        self.followed = FollowedRecord::default();
        self.restart_histories();
    }

    /// Empties the sparklines and starts the gait diagram from where the
    /// followed creature's feet are now.
    fn restart_histories(&mut self) {
        self.iterations_history.clear();
        self.error_history.clear();
        self.gait_history.clear();
        self.record_gait();
    }

    /// Adds which of the followed creature's feet are in the air to the
    /// gait diagram.
    fn record_gait(&mut self) {
        let Some(creature) = self.world.followed_creature() else {
            return;
        };
        let lifted = creature
            .legs
            .iter()
            .enumerate()
            .fold(0u64, |bits, (i, leg)| {
                bits | (u64::from(!leg.is_grounded()) << i.min(63))
            });
        if self.gait_history.len() == GAIT_HISTORY {
            self.gait_history.pop_front();
        }
        self.gait_history.push_back(lifted);
    }

    /// Runs `steps` simulation steps and records the figures for the sparklines.
    pub fn step_world(&mut self, steps: u32) {
        if steps == 0 {
            return;
        }
        if self.baked.is_some() {
            self.step_baked(steps);
            return;
        }
        self.run_steps(steps);
        self.sample_sparklines();
    }

    /// Runs `steps` (at least one) world steps, recording the followed
    /// creature's figures and gait and what a step costs.
    fn run_steps(&mut self, steps: u32) {
        let started = std::time::Instant::now();
        for _ in 0..steps {
            self.cue_script();
            self.cue_kind_scripts();
            self.world.step();
            self.followed.add(&self.world.metrics().last);
            self.record_gait();
        }
        let cost = started.elapsed().as_secs_f64() / f64::from(steps.max(1));
        self.step_cost = if self.step_cost > 0.0 {
            0.8 * self.step_cost + 0.2 * cost
        } else {
            cost
        };
    }

    /// The sparklines' sample for a frame: the followed creature's last
    /// step.
    fn sample_sparklines(&mut self) {
        let last = self.world.metrics().last;
        push_bounded(&mut self.iterations_history, last.ik_iterations_mean);
        push_bounded(&mut self.error_history, last.ik_error_max);
    }

    /// Runs `steps` steps of the baked spider at the current throttle and
    /// rudder; its sparkline records the planted feet's gap.
    fn step_baked(&mut self, steps: u32) {
        let turn_rate = self.turn * self.world.spec().body.turn_rate;
        for _ in 0..steps {
            let Some(baked) = self.baked.as_mut() else {
                return;
            };
            let position = baked.pose().body.position;
            self.world
                .prepare_terrain_around(position, BAKED_GROUND_RADIUS);
            let Some(baked) = self.baked.as_mut() else {
                return;
            };
            baked.step(&self.world.terrain().world(), self.throttle, turn_rate);
            if self.gait_history.len() == GAIT_HISTORY {
                self.gait_history.pop_front();
            }
            let lifted = baked
                .pose()
                .planted
                .iter()
                .enumerate()
                .fold(0u64, |bits, (i, planted)| {
                    bits | (u64::from(!planted) << i.min(63))
                });
            self.gait_history.push_back(lifted);
        }
        if let Some(baked) = &self.baked {
            push_bounded(&mut self.iterations_history, 0.0);
            push_bounded(&mut self.error_history, baked.feet().gap_now);
        }
    }

    /// The views on screen, in order.
    pub fn visible_views(&self) -> Vec<ViewKind> {
        if self.split {
            ViewKind::ALL.to_vec()
        } else {
            vec![self.view]
        }
    }
}

fn push_bounded(history: &mut VecDeque<f32>, value: f32) {
    if history.len() == HISTORY {
        history.pop_front();
    }
    history.push_back(value);
}

/// `text` safe for the viewer: control characters escaped (names from
/// files cannot take over the terminal) and long values cut; see
/// [`crate::text::printable`].
pub fn sanitize(text: &str) -> String {
    printable(text, VALUE_MAX_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{default_creature, default_terrain};

    fn app() -> App {
        let sources = Sources {
            creature: "spider".into(),
            terrain: "hills".into(),
            scene: None,
            seed: None,
        };
        App::new(default_creature(), default_terrain(), sources, None)
    }

    #[test]
    fn throttle_steps_and_turns_expire() {
        let mut app = app();
        app.handle(Action::Faster);
        app.handle(Action::Faster);
        app.handle(Action::Faster);
        assert_eq!(app.throttle, 1.0);
        app.handle(Action::Turn(1.0));
        assert_eq!(app.turn, 1.0);
        app.advance(TURN_HOLD / 2.0);
        assert_eq!(app.turn, 1.0);
        app.advance(TURN_HOLD);
        assert_eq!(app.turn, 0.0);
        assert_eq!(app.world.creatures()[0].input.forward, 1.0);
        app.handle(Action::Stop);
        assert_eq!(app.world.creatures()[0].input.forward, 0.0);
    }

    /// Advances real time frame by frame, as the event loop does.
    fn run_frames(app: &mut App, seconds: f64) {
        for _ in 0..(seconds * 60.0).round() as usize {
            app.advance(1.0 / 60.0);
        }
    }

    #[test]
    fn fixed_steps_follow_real_time_and_pause_stops_them() {
        let mut app = app();
        run_frames(&mut app, 0.5);
        // Half a second is 60 steps; the sum of 30 frame times in floating
        // point may fall a hair short, leaving the 60th for the next frame.
        let steps = app.world.metrics().steps;
        assert!((59..=60).contains(&steps), "{steps}");
        app.handle(Action::TogglePause);
        run_frames(&mut app, 1.0);
        assert_eq!(app.world.metrics().steps, steps);
        app.handle(Action::SingleStep);
        assert_eq!(app.world.metrics().steps, steps + 1);
        app.handle(Action::TogglePause);
        app.advance(1.0 / 120.0 + 1e-9);
        assert_eq!(
            app.world.metrics().steps,
            steps + 2,
            "no paused time was replayed"
        );
    }

    #[test]
    fn a_frame_adds_one_sparkline_sample_however_many_steps_it_runs() {
        let mut app = app();
        // The first frame: the step's cost is not known yet, so it steps
        // one at a time within the budget (all 30 due, on any machine
        // that steps a spider in under 1.6 ms).
        app.advance(1.0);
        let steps = app.world.metrics().steps;
        assert!((1..=30).contains(&steps), "{steps}");
        assert_eq!(app.iterations_history.len(), 1);
        assert_eq!(app.followed.steps, steps);
        app.advance(0.05);
        assert_eq!(app.iterations_history.len(), 2);
    }

    #[test]
    fn the_baked_spider_leaves_the_ik_creatures_record_as_it_was() {
        let mut app = app();
        run_frames(&mut app, 1.0);
        let record = app.followed;
        assert!(record.steps >= 119, "{record:?}");
        app.handle(Action::ToggleBaked);
        assert!(app.baked.is_some());
        run_frames(&mut app, 0.5);
        app.handle(Action::ToggleBaked);
        assert!(app.baked.is_none());
        assert_eq!(app.followed, record);
        assert!(app.iterations_history.is_empty());
    }

    #[test]
    fn a_long_stall_is_not_replayed() {
        let mut app = app();
        app.advance(10.0);
        assert_eq!(app.world.metrics().steps, u64::from(MAX_CATCH_UP));
    }

    #[test]
    fn solver_cycle_skips_solvers_the_legs_cannot_use() {
        let mut app = app();
        assert_eq!(app.world.solver(), SolverKind::Fabrik);
        app.handle(Action::CycleSolver);
        assert_eq!(app.world.solver(), SolverKind::Gradient);
        app.handle(Action::CycleSolver);
        assert_eq!(
            app.world.solver(),
            SolverKind::Ccd,
            "two-bone cannot pose three bones"
        );
        app.handle(Action::CycleSolver);
        assert_eq!(app.world.solver(), SolverKind::JacobianTranspose);
        app.handle(Action::CycleSolver);
        assert_eq!(app.world.solver(), SolverKind::Dls);
        app.handle(Action::CycleSolver);
        assert_eq!(app.world.solver(), SolverKind::Fabrik);
    }

    #[test]
    fn reload_failure_keeps_the_running_creature() {
        let mut app = app();
        run_frames(&mut app, 1.0);
        let steps = app.world.metrics().steps;
        app.sources.creature = "/nonexistent/creature.toml".into();
        app.handle(Action::Reload);
        let notice = app.notice.clone().unwrap();
        assert!(notice.is_error);
        assert!(
            notice.text.contains("/nonexistent/creature.toml"),
            "{}",
            notice.text
        );
        assert_eq!(app.world.metrics().steps, steps, "the world was kept");
    }

    #[test]
    fn new_seed_changes_the_terrain() {
        let mut app = app();
        let seed = app.world.terrain().spec().seed;
        app.handle(Action::NewSeed);
        assert_eq!(app.world.terrain().spec().seed, seed + 1);
        assert!(
            app.notice
                .unwrap()
                .text
                .contains(&format!("seed {}", seed + 1))
        );
    }

    #[test]
    fn the_baked_walk_is_named_for_its_creature() {
        let octopod = crate::config::load_creature("octopod").expect("a shipped creature");
        let sources = Sources {
            creature: "octopod".into(),
            terrain: "hills".into(),
            scene: None,
            seed: None,
        };
        let mut app = App::new(octopod, default_terrain(), sources, None);
        app.handle(Action::ToggleBaked);
        let shown = app.notice.clone().expect("a notice").text;
        assert!(shown.starts_with("the baked octopod:"), "{shown}");
        app.handle(Action::ToggleBaked);
        let back = app.notice.clone().expect("a notice").text;
        assert_eq!(back, "the IK octopod, where it was");
    }

    #[test]
    fn a_new_seed_survives_a_reload() {
        let mut app = app();
        let seed = app.world.terrain().spec().seed;
        app.handle(Action::NewSeed);
        app.handle(Action::Reload);
        assert_eq!(app.world.terrain().spec().seed, seed + 1);
    }

    #[test]
    fn sanitize_escapes_control_characters_and_cuts_long_names() {
        assert_eq!(sanitize("spi\x1b[2Jder\n"), "spi\\u{1b}[2Jder\\n");
        assert_eq!(sanitize(&"s".repeat(90)), format!("{}…", "s".repeat(80)));
    }

    #[test]
    fn notices_escape_control_characters() {
        let mut app = app();
        app.notify_error("reload failed: unknown leg `\x1b]0;title\x07`");
        let notice = app.notice.as_ref().unwrap();
        assert_eq!(
            notice.text,
            "reload failed: unknown leg `\\u{1b}]0;title\\u{7}`"
        );
    }

    /// A file's several errors came one a line, and the notice showed the
    /// line breaks as a literal `\n`.
    #[test]
    fn a_notice_of_several_errors_separates_them_on_its_one_line() {
        let mut app = app();
        app.notify_error("a.toml:1:2: body.speed: bad\na.toml:3:4: legs: bad");
        assert_eq!(
            app.notice.as_ref().unwrap().text,
            "a.toml:1:2: body.speed: bad  ·  a.toml:3:4: legs: bad"
        );
    }
}

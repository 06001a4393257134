//! The lab screen's state, its keys and what each does. No terminal here:
//! the event loop feeds keys and elapsed time in, [`super::lab_ui`] draws it.

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::input::pressed;

use super::app::{Notice, Timings};
use crate::lab::live::{LabScene, Rig, STEPS_PER_SECOND};
use crate::render::{Camera, ViewKind};
use crate::sim::FixedStep;

/// Rates the lab can run at, relative to real time (`[` and `]` step through them).
pub const RATES: [f64; 7] = [0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0];
/// Index of real time in [`RATES`].
const REAL_TIME: usize = 4;
/// Most steps run to catch up in one frame.
const MAX_CATCH_UP: u32 = 30;
/// Zoom factor per press of + or -.
const ZOOM_STEP: f32 = 1.25;

/// Something the user asked the lab screen for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LabAction {
    /// Next solver that can pose the rig.
    CycleSolver,
    /// The other rig: the chain or the arm.
    SwitchRig,
    /// Joint limits on or off.
    ToggleLimits,
    /// Pause or resume.
    TogglePause,
    /// One step while paused.
    SingleStep,
    /// Run faster (+1) or slower (-1) than real time.
    Rate(i32),
    /// Next view.
    CycleView,
    /// One view or all four.
    ToggleSplit,
    /// Zoom in (factor > 1) or out.
    Zoom(f32),
    /// Start the rig again from its start pose.
    Restart,
    /// Next seed: another start pose and trajectory, or other buttons.
    NewSeed,
    /// Show or hide the key help.
    ToggleHelp,
    /// Scroll the key help down (+1) or up (-1) a row.
    ScrollHelp(i32),
    /// Leave.
    Quit,
    /// Close the help if it is open, else leave (Esc).
    Back,
}

/// The action a key press asks for on the lab screen, if any. Letters mean
/// the same in either case, as in the viewer; the keys the two screens share
/// (`i`, space, `.`, `v`, `o`, `+`/`-`, `g`, `?`, `q`) mean the same.
pub fn lab_action_for(key: KeyEvent) -> Option<LabAction> {
    Some(match pressed(key)? {
        KeyCode::Char('i') => LabAction::CycleSolver,
        KeyCode::Char('m') | KeyCode::Tab => LabAction::SwitchRig,
        KeyCode::Char('c') => LabAction::ToggleLimits,
        KeyCode::Char(' ') => LabAction::TogglePause,
        KeyCode::Char('.') => LabAction::SingleStep,
        KeyCode::Char(']') => LabAction::Rate(1),
        KeyCode::Char('[') => LabAction::Rate(-1),
        KeyCode::Char('v') => LabAction::CycleView,
        KeyCode::Char('o') => LabAction::ToggleSplit,
        KeyCode::Char('+') | KeyCode::Char('=') => LabAction::Zoom(ZOOM_STEP),
        KeyCode::Char('-') | KeyCode::Char('_') => LabAction::Zoom(1.0 / ZOOM_STEP),
        KeyCode::Char('r') => LabAction::Restart,
        KeyCode::Char('g') => LabAction::NewSeed,
        KeyCode::Char('?') | KeyCode::F(1) => LabAction::ToggleHelp,
        KeyCode::Char('j') | KeyCode::Down => LabAction::ScrollHelp(1),
        KeyCode::Char('k') | KeyCode::Up => LabAction::ScrollHelp(-1),
        KeyCode::Char('q') => LabAction::Quit,
        KeyCode::Esc => LabAction::Back,
        _ => return None,
    })
}

/// Key help for the lab screen: (keys, what they do).
pub const LAB_KEYS: &[(&str, &str)] = &[
    ("i", "next solver (every one that can pose the rig)"),
    ("m Tab", "chain tracking a sine / arm pressing buttons"),
    ("c", "joint limits on / off"),
    ("space", "pause / resume"),
    (".", "one step while paused"),
    ("[ ]", "slower / faster than real time"),
    ("v", "next view"),
    ("o", "overview: all four views at once"),
    ("+/-", "zoom in / out"),
    ("r", "restart from the start pose"),
    ("g", "generate: next seed (start pose, trajectory, buttons)"),
    ("?", "this help"),
    ("j/k ↑/↓", "scroll this help"),
    ("q/Esc", "quit (Esc closes this help first)"),
];

/// What the lab screen shows, for the help overlay.
pub const LAB_NOTE: &str = "The rig is re-solved every step from its previous pose, as in \
     `skitter lab track` and `lab reach`: the target moves, the solver gets its per-step budget \
     (100 iterations for the chain, 20 for the arm). Charts show the last 10 s: iterations per \
     step, and the error left beyond what the chain can do. `x` is the target, `O` the end \
     (green when it reached), `.` its recent path; the chain's dotted circle is its reach, the \
     arm's buttons are `+` waiting, `@` being pressed, `*` pressed this lap; `#` is the root.";

/// The lab screen's whole state.
#[derive(Debug)]
pub struct LabApp {
    /// The experiment.
    pub scene: LabScene,
    /// Zoom for every view (the framing fits the rig).
    pub camera: Camera,
    /// The view shown when not split.
    pub view: ViewKind,
    /// Whether all four views are shown.
    pub split: bool,
    /// Whether the lab is paused.
    pub paused: bool,
    /// Whether the help overlay is up.
    pub show_help: bool,
    /// Rows of the help overlay scrolled past.
    pub help_scroll: u16,
    /// Whether the user asked to leave.
    pub quit: bool,
    /// Index into [`RATES`].
    pub rate: usize,
    clock: FixedStep,
    /// The last message for the user.
    pub notice: Option<Notice>,
    /// Real-time figures.
    pub timings: Timings,
}

impl LabApp {
    /// A lab screen on `scene`, in the view that shows it best (see
    /// [`LabScene::best_view`]), at real time.
    pub fn new(scene: LabScene) -> LabApp {
        LabApp {
            view: scene.best_view(),
            scene,
            camera: Camera::default(),
            split: false,
            paused: false,
            show_help: false,
            help_scroll: 0,
            quit: false,
            rate: REAL_TIME,
            clock: FixedStep::new(1.0 / STEPS_PER_SECOND, MAX_CATCH_UP),
            notice: None,
            timings: Timings::default(),
        }
    }

    /// The rate relative to real time.
    pub fn rate(&self) -> f64 {
        RATES[self.rate.min(RATES.len() - 1)]
    }

    fn notify(&mut self, text: impl Into<String>, is_error: bool) {
        self.notice = Some(Notice::new(text, is_error));
    }

    /// Carries out one user action.
    pub fn handle(&mut self, action: LabAction) {
        match action {
            LabAction::CycleSolver => {
                let kind = self.scene.cycle_solver();
                self.notify(format!("solver: {kind}"), false);
            }
            LabAction::SwitchRig => {
                let outcome = self.scene.switch_rig();
                self.view = self.scene.best_view();
                self.report(outcome, |scene| format!("rig: {}", scene.rig().name()));
            }
            LabAction::ToggleLimits => {
                let limited = !self.scene.limited();
                let outcome = self.scene.set_limited(limited);
                self.report(outcome, |scene| {
                    format!(
                        "joint limits {}",
                        if scene.limited() { "on" } else { "off" }
                    )
                });
            }
            LabAction::TogglePause => {
                self.paused = !self.paused;
                // Resuming must not replay the time spent paused.
                self.clock.reset();
            }
            LabAction::SingleStep => {
                if self.paused {
                    self.scene.step();
                } else {
                    self.notify("`.` steps once while paused; press space to pause", false);
                }
            }
            LabAction::Rate(change) => {
                let index = self.rate as i32 + change;
                self.rate = index.clamp(0, RATES.len() as i32 - 1) as usize;
                self.clock.reset();
                self.notify(format!("rate {}× real time", self.rate()), false);
            }
            LabAction::CycleView => {
                self.split = false;
                self.view = self.view.next();
            }
            LabAction::ToggleSplit => self.split = !self.split,
            LabAction::Zoom(factor) => {
                self.camera.zoom = (self.camera.zoom * factor).clamp(0.05, 20.0)
            }
            LabAction::Restart => {
                let outcome = self.scene.restart();
                self.report(outcome, |_| "restarted from the start pose".to_string());
            }
            LabAction::NewSeed => {
                let outcome = self.scene.next_seed();
                self.report(outcome, |scene| format!("seed {}", scene.seed()));
            }
            LabAction::ToggleHelp => {
                self.show_help = !self.show_help;
                self.help_scroll = 0;
            }
            LabAction::ScrollHelp(step) => {
                // Only the help scrolls; with it closed the keys do nothing.
                if self.show_help {
                    let limit = super::ui::help_scroll_limit(LAB_KEYS, LAB_NOTE);
                    self.help_scroll = self
                        .help_scroll
                        .saturating_add_signed(step.clamp(-1, 1) as i16)
                        .min(limit);
                }
            }
            LabAction::Back if self.show_help => self.show_help = false,
            LabAction::Quit | LabAction::Back => self.quit = true,
        }
    }

    /// Tells the user what an action did, or why it failed.
    fn report<E: std::fmt::Display>(
        &mut self,
        outcome: Result<(), E>,
        done: impl Fn(&LabScene) -> String,
    ) {
        match outcome {
            Ok(()) => {
                let text = done(&self.scene);
                self.notify(text, false);
            }
            Err(e) => self.notify(e.to_string(), true),
        }
    }

    /// Advances real time by `elapsed` seconds: runs the steps that are due
    /// at the current rate (none while paused); returns how many ran.
    pub fn advance(&mut self, elapsed: f64) -> u32 {
        Notice::expire(&mut self.notice, elapsed);
        if self.paused {
            return 0;
        }
        let due = self.clock.advance(elapsed.max(0.0) * self.rate());
        for _ in 0..due {
            self.scene.step();
        }
        due
    }

    /// The views on screen, in order.
    pub fn visible_views(&self) -> Vec<ViewKind> {
        if self.split {
            ViewKind::ALL.to_vec()
        } else {
            vec![self.view]
        }
    }

    /// The rig, in a few words.
    pub fn describe(&self) -> &'static str {
        match self.scene.rig() {
            Rig::Chain => "chain, 10 bones, 900 mm",
            Rig::Arm => "arm, 0.30 + 0.27 + 0.09 m",
        }
    }
}

/// The solver in use and how many `i` cycles through, e.g. `ccd (3 of 5)`.
pub fn solver_line(scene: &LabScene) -> String {
    let usable = scene.usable_solvers();
    let at = usable
        .iter()
        .position(|k| *k == scene.solver())
        .map_or(0, |i| i + 1);
    format!("{} ({at} of {})", scene.solver(), usable.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ik::SolverKind;
    use ratatui::crossterm::event::KeyModifiers;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn app(rig: Rig) -> LabApp {
        LabApp::new(LabScene::new(rig, SolverKind::Fabrik, 1, None).unwrap())
    }

    #[test]
    fn keys_map_to_lab_actions_in_either_case() {
        assert_eq!(
            lab_action_for(key(KeyCode::Char('i'))),
            Some(LabAction::CycleSolver)
        );
        assert_eq!(
            lab_action_for(key(KeyCode::Char('M'))),
            Some(LabAction::SwitchRig)
        );
        assert_eq!(
            lab_action_for(key(KeyCode::Tab)),
            Some(LabAction::SwitchRig)
        );
        assert_eq!(
            lab_action_for(key(KeyCode::Char(']'))),
            Some(LabAction::Rate(1))
        );
        assert_eq!(lab_action_for(key(KeyCode::Esc)), Some(LabAction::Back));
        assert_eq!(lab_action_for(key(KeyCode::Char('w'))), None);
        for c in 'a'..='z' {
            assert_eq!(
                lab_action_for(key(KeyCode::Char(c))),
                lab_action_for(key(KeyCode::Char(c.to_ascii_uppercase()))),
                "{c}"
            );
        }
    }

    #[test]
    fn the_help_lists_exactly_the_letters_that_act() {
        let listed = crate::tui::input::tests::letters_listed(LAB_KEYS);
        let acting: Vec<char> = ('a'..='z')
            .filter(|c| lab_action_for(key(KeyCode::Char(*c))).is_some())
            .collect();
        assert_eq!(listed, acting);
    }

    #[test]
    fn the_lab_runs_at_sixty_steps_a_second_at_the_chosen_rate() {
        let mut lab = app(Rig::Chain);
        for _ in 0..60 {
            lab.advance(1.0 / 60.0);
        }
        let steps = lab.scene.steps();
        assert!((59..=60).contains(&steps), "{steps}");
        lab.handle(LabAction::Rate(-1));
        assert_eq!(lab.rate(), 0.5);
        for _ in 0..60 {
            lab.advance(1.0 / 60.0);
        }
        let half = lab.scene.steps() - steps;
        assert!((29..=31).contains(&half), "{half}");
        lab.handle(LabAction::TogglePause);
        assert_eq!(lab.advance(1.0), 0);
        lab.handle(LabAction::SingleStep);
        assert_eq!(lab.scene.steps(), steps + half + 1);
        for _ in 0..10 {
            lab.handle(LabAction::Rate(1));
        }
        assert_eq!(lab.rate(), 4.0, "the fastest rate holds");
    }

    #[test]
    fn solver_cycle_visits_every_solver_that_can_pose_the_rig() {
        for rig in [Rig::Chain, Rig::Arm] {
            let mut lab = app(rig);
            let mut seen = vec![lab.scene.solver()];
            for _ in 0..4 {
                lab.handle(LabAction::CycleSolver);
                lab.scene.step();
                seen.push(lab.scene.solver());
            }
            // Two-bone poses neither 10 bones nor 3.
            assert_eq!(
                seen,
                [
                    SolverKind::Fabrik,
                    SolverKind::Gradient,
                    SolverKind::Ccd,
                    SolverKind::JacobianTranspose,
                    SolverKind::Dls,
                ],
                "{rig:?}"
            );
            lab.handle(LabAction::CycleSolver);
            assert_eq!(lab.scene.solver(), SolverKind::Fabrik);
            assert_eq!(lab.notice.as_ref().unwrap().text, "solver: fabrik");
        }
    }

    #[test]
    fn rig_limits_restart_and_seed_keys_change_the_scene() {
        let mut lab = app(Rig::Chain);
        for _ in 0..30 {
            lab.scene.step();
        }
        lab.handle(LabAction::SwitchRig);
        assert_eq!(lab.scene.rig(), Rig::Arm);
        assert_eq!(lab.scene.steps(), 0, "a new rig starts afresh");
        assert!(lab.scene.buttons().is_some());
        lab.handle(LabAction::ToggleLimits);
        assert!(!lab.scene.limited());
        assert!(lab.scene.chain().limits().is_empty());
        lab.handle(LabAction::ToggleLimits);
        assert_eq!(lab.scene.chain().limits().len(), 2);
        lab.handle(LabAction::NewSeed);
        assert_eq!(lab.scene.seed(), 2);
        assert_eq!(lab.notice.as_ref().unwrap().text, "seed 2");
        lab.scene.step();
        lab.handle(LabAction::Restart);
        assert_eq!(lab.scene.steps(), 0);
        lab.handle(LabAction::Quit);
        assert!(lab.quit);
    }

    #[test]
    fn the_solver_line_counts_the_usable_solvers() {
        let mut lab = app(Rig::Arm);
        lab.handle(LabAction::CycleSolver);
        lab.handle(LabAction::CycleSolver);
        assert_eq!(solver_line(&lab.scene), "ccd (3 of 5)");
    }
}

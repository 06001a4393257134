//! The fixed-step simulation: a [`World`] of creatures on a terrain, driven by
//! [`Command`]s, measured by [`Metrics`]. The TUI and the headless runner are
//! two faces over this one type.

mod clock;
mod command;
mod metrics;
mod motion;
mod pace;
mod timeline;
mod world;

pub use clock::{FixedStep, whole_rate};
pub use command::{Command, CommandError};
pub use metrics::{CreatureTrack, FollowedRecord, LogHistogram, Metrics, StepFigures, Summary};
pub use motion::{CreatureMotion, MotionFigures, MotionMemory, stability_margin};
pub use pace::{Pace, fastest_kept_speed, flat_ground_pace, round_down_significant};
pub use timeline::{Cue, Timeline};
pub use world::{DEFAULT_DT, Kind, LiveFigures, Spawn, ThreadsError, World};

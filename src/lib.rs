//! skitter: a terminal procedural creature simulator.
//!
//! A creature (a body with legs, described in TOML) walks over noise terrain:
//! rays find footholds, a gait decides which legs may step, the body aligns to
//! the ground and every leg is posed by inverse kinematics. The simulation is a
//! fixed-step [`sim::World`]; the TUI and the headless runner are two faces
//! over it.
//!
//! Layering (see `docs/architecture.md`): [`ik`], [`terrain`], [`creature`] and [`sim`]
//! know nothing of terminals; rendering is a pure function from a world to a
//! character grid; the TUI maps keys to commands and draws.

#![warn(missing_docs)]

pub mod config;
pub mod creature;
pub mod geometry;
pub mod headless;
pub mod ik;
pub mod lab;
pub mod math;
pub mod render;
pub mod sim;
pub mod terrain;
pub mod text;
pub mod tui;

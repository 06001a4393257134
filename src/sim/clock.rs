//! Fixed-step accounting: real time in, a whole number of simulation steps out.

/// The steps a second that `dt` stands for, when it is a whole rate's
/// reciprocal rounded to `f32` (1/120 s is 0.0083333338 s): counts and
/// times of such steps are then exact in integers. `None` for any other
/// step, which is taken as it is.
pub fn whole_rate(dt: f32) -> Option<u64> {
    let per_second = (1.0 / f64::from(dt)).round();
    // Below 2^53 the f64 holds the whole number exactly.
    ((1.0..9.0e15).contains(&per_second) && (1.0 / per_second) as f32 == dt)
        .then_some(per_second as u64)
}

/// Accumulates elapsed real time and says how many fixed steps are due.
///
/// The TUI feeds it frame times; the simulation then advances by exactly that
/// many steps of `dt`, so how fast frames are drawn never changes the
/// trajectory. After a long stall (a suspended terminal), at most
/// `max_catch_up` steps run and the rest of the backlog is dropped instead of
/// freezing the UI while it catches up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedStep {
    dt: f64,
    accumulated: f64,
    max_catch_up: u32,
}

impl FixedStep {
    /// A clock stepping every `dt` seconds, running at most `max_catch_up` steps per call.
    pub fn new(dt: f64, max_catch_up: u32) -> Self {
        FixedStep {
            dt,
            accumulated: 0.0,
            max_catch_up: max_catch_up.max(1),
        }
    }

    /// Adds `elapsed` seconds and returns how many steps are now due.
    pub fn advance(&mut self, elapsed: f64) -> u32 {
        if elapsed.is_finite() && elapsed > 0.0 {
            self.accumulated += elapsed;
        }
        let due = (self.accumulated / self.dt).floor();
        let steps = due.min(f64::from(self.max_catch_up)) as u32;
        self.accumulated -= due * self.dt;
        steps
    }

    /// Forgets accumulated time (e.g. when unpausing).
    pub fn reset(&mut self) {
        self.accumulated = 0.0;
    }

    /// The step length.
    pub fn dt(&self) -> f64 {
        self.dt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_steps_come_out_and_remainders_carry() {
        let mut clock = FixedStep::new(0.01, 100);
        assert_eq!(clock.advance(0.025), 2);
        assert_eq!(clock.advance(0.006), 1);
        assert_eq!(clock.advance(0.0), 0);
    }

    #[test]
    fn long_stalls_are_capped_not_replayed() {
        let mut clock = FixedStep::new(0.01, 5);
        assert_eq!(clock.advance(10.0), 5);
        assert_eq!(clock.advance(0.001), 0);
    }

    #[test]
    fn bad_elapsed_times_are_ignored() {
        let mut clock = FixedStep::new(0.01, 5);
        assert_eq!(clock.advance(f64::NAN), 0);
        assert_eq!(clock.advance(-1.0), 0);
    }
}

//! The gait rule: which grounded legs may start a step now.
//!
//! The spider thesis' diagonal rule, generalised: legs are arranged in groups,
//! and a leg may lift only while every leg of every other group is grounded,
//! and never more than `max_lifted` legs at once.

/// A grounded leg that wants to step, and how badly.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepCandidate {
    /// Leg index.
    pub leg: usize,
    /// Larger is more urgent (e.g. distance past the threshold; overreach wins).
    pub urgency: f32,
}

/// The rule's inputs for one decision.
#[derive(Debug, Clone, Copy)]
pub struct GaitRule<'a> {
    /// Group index of every leg.
    pub group_of: &'a [usize],
    /// Whether every leg is currently in the air.
    pub lifted: &'a [bool],
    /// Most legs in the air at once.
    pub max_lifted: usize,
}

impl GaitRule<'_> {
    /// Whether `leg` may lift given the legs lifted now.
    pub fn allows(&self, leg: usize, lifted: &[bool]) -> bool {
        let count = lifted.iter().filter(|l| **l).count();
        count < self.max_lifted
            && !lifted[leg]
            && lifted
                .iter()
                .enumerate()
                .all(|(other, up)| !*up || self.group_of[other] == self.group_of[leg])
    }

    /// Whether the legs lifted now break the rule (for the metrics).
    pub fn violated(&self) -> bool {
        let count = self.lifted.iter().filter(|l| **l).count();
        let mut groups = self
            .lifted
            .iter()
            .enumerate()
            .filter(|(_, up)| **up)
            .map(|(leg, _)| self.group_of[leg]);
        let first = groups.next();
        count > self.max_lifted || groups.any(|g| Some(g) != first)
    }
}

/// Picks which candidates start stepping. Returns the chosen legs, most
/// urgent first (ties broken by leg index, so the choice is deterministic).
///
/// Groups step as groups. With no leg in the air, the group of the most
/// urgent candidate steps: all its candidates, up to `max_lifted`. While a
/// group is in the air, more of its legs may join only if no leg of another
/// group is waiting; otherwise the group in the air could keep lifting legs
/// one after another, never be all grounded, and starve the others until a
/// foot fell out of reach.
pub fn choose_steps(rule: &GaitRule<'_>, candidates: &mut [StepCandidate]) -> Vec<usize> {
    candidates.sort_by(|a, b| b.urgency.total_cmp(&a.urgency).then(a.leg.cmp(&b.leg)));
    let group_in_air = rule
        .lifted
        .iter()
        .position(|up| *up)
        .map(|leg| rule.group_of[leg]);
    let stepping_group = match (group_in_air, candidates.first()) {
        (_, None) => return Vec::new(),
        (Some(group), _) => {
            if candidates.iter().any(|c| rule.group_of[c.leg] != group) {
                return Vec::new();
            }
            group
        }
        (None, Some(most_urgent)) => rule.group_of[most_urgent.leg],
    };
    let mut lifted = rule.lifted.to_vec();
    let mut chosen = Vec::new();
    for candidate in candidates.iter() {
        if rule.group_of[candidate.leg] == stepping_group && rule.allows(candidate.leg, &lifted) {
            lifted[candidate.leg] = true;
            chosen.push(candidate.leg);
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spider: legs 0 FL, 1 FR, 2 BL, 3 BR; diagonals {FL, BR} and {FR, BL}.
    const SPIDER_GROUPS: [usize; 4] = [0, 1, 1, 0];

    fn candidates(legs: &[(usize, f32)]) -> Vec<StepCandidate> {
        legs.iter()
            .map(|&(leg, urgency)| StepCandidate { leg, urgency })
            .collect()
    }

    #[test]
    fn a_diagonal_steps_together() {
        let rule = GaitRule {
            group_of: &SPIDER_GROUPS,
            lifted: &[false; 4],
            max_lifted: 2,
        };
        let chosen = choose_steps(&rule, &mut candidates(&[(0, 0.3), (3, 0.2), (1, 0.1)]));
        assert_eq!(chosen, vec![0, 3]);
    }

    #[test]
    fn a_group_in_the_air_may_grow_while_nobody_else_waits() {
        let rule = GaitRule {
            group_of: &SPIDER_GROUPS,
            lifted: &[true, false, false, false],
            max_lifted: 2,
        };
        let chosen = choose_steps(&rule, &mut candidates(&[(3, 0.5)]));
        assert_eq!(chosen, vec![3]);
    }

    #[test]
    fn a_waiting_leg_stops_the_group_in_the_air_from_growing() {
        // Leg 0's group is up and leg 1 (other group) waits, so leg 3 (leg
        // 0's partner) may not keep the group in the air longer.
        let rule = GaitRule {
            group_of: &SPIDER_GROUPS,
            lifted: &[true, false, false, false],
            max_lifted: 2,
        };
        let chosen = choose_steps(&rule, &mut candidates(&[(1, 5.0), (2, 4.0), (3, 9.0)]));
        assert_eq!(chosen, Vec::<usize>::new());
    }

    #[test]
    fn tied_legs_lift_as_a_whole_tripod() {
        let tripods = [0, 1, 1, 0, 0, 1];
        let rule = GaitRule {
            group_of: &tripods,
            lifted: &[false; 6],
            max_lifted: 3,
        };
        let all: Vec<(usize, f32)> = (0..6).map(|leg| (leg, 1.0)).collect();
        assert_eq!(choose_steps(&rule, &mut candidates(&all)), vec![0, 3, 4]);
    }

    #[test]
    fn most_urgent_group_goes_first_and_max_lifted_caps() {
        let rule = GaitRule {
            group_of: &SPIDER_GROUPS,
            lifted: &[false; 4],
            max_lifted: 1,
        };
        let chosen = choose_steps(&rule, &mut candidates(&[(0, 0.3), (2, 0.9), (1, 0.5)]));
        assert_eq!(chosen, vec![2]);
        let rule = GaitRule {
            max_lifted: 2,
            ..rule
        };
        assert_eq!(
            choose_steps(&rule, &mut candidates(&[(0, 0.3), (2, 0.9), (1, 0.5)])),
            vec![2, 1]
        );
    }

    #[test]
    fn ties_break_by_leg_index() {
        let rule = GaitRule {
            group_of: &[0, 1],
            lifted: &[false, false],
            max_lifted: 1,
        };
        assert_eq!(
            choose_steps(&rule, &mut candidates(&[(1, 0.5), (0, 0.5)])),
            vec![0]
        );
    }

    #[test]
    fn violations_are_detected() {
        let ok = GaitRule {
            group_of: &SPIDER_GROUPS,
            lifted: &[true, false, false, true],
            max_lifted: 2,
        };
        assert!(!ok.violated());
        let mixed = GaitRule {
            group_of: &SPIDER_GROUPS,
            lifted: &[true, true, false, false],
            max_lifted: 2,
        };
        assert!(mixed.violated());
        let too_many = GaitRule {
            group_of: &[0, 0, 0],
            lifted: &[true, true, true],
            max_lifted: 2,
        };
        assert!(too_many.violated());
    }
}

//! `skitter new creature`: a commented creature file to start from, laid out
//! by the README's rules of thumb, that passes `check` without warnings and
//! walks.
//!
//! Legs come in mirrored pairs along the body (`left_1` at the front); an odd
//! count puts the last leg on the centre line behind the body, a tail prop
//! that closes the support polygon the way a stool's third leg does (at the
//! front it would sit where the body walks into the ground ahead of it).
//! Sizes scale with one reach (the sum of a leg's bones); the speed is set
//! below what the gait can carry, measured by the same [`CreatureSpec`] the
//! simulation runs, then lowered to what the creature walks on flat ground
//! (the pace `check` measures) where its balance slows it; the lead centres
//! each stance on its rest point.

use std::fmt::{self, Write as _};
use std::str::FromStr;

use super::creature::parse_creature_with_warnings;
use crate::creature::CreatureSpec;

/// Which legs lift together, and in what order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemplateGait {
    /// Two alternating groups, each leg's neighbours (beside and behind it)
    /// in the other one: diagonal pairs on four legs. Even leg counts.
    Trot,
    /// Alternating triangles of three legs (front and back on one side, the
    /// middle on the other). Six or twelve legs.
    Tripod,
    /// A ripple from tail to head: one leg a side lifts at a time, the sides
    /// half a wave apart, in the listed order. Any leg count.
    Wave,
    /// One leg at a time, back to front on the left, then on the right: the
    /// slowest and steadiest. Any leg count.
    Crawl,
}

impl TemplateGait {
    /// Every gait, in the order `--help` lists them.
    pub const ALL: [TemplateGait; 4] = [
        TemplateGait::Trot,
        TemplateGait::Tripod,
        TemplateGait::Wave,
        TemplateGait::Crawl,
    ];

    /// The gait's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            TemplateGait::Trot => "trot",
            TemplateGait::Tripod => "tripod",
            TemplateGait::Wave => "wave",
            TemplateGait::Crawl => "crawl",
        }
    }

    /// The gait used when none is asked for: a tripod on 6 or 12 legs, a
    /// trot on other even counts, a wave on odd ones (a trot needs every leg
    /// paired).
    pub fn default_for(legs: usize) -> TemplateGait {
        if legs.is_multiple_of(6) {
            TemplateGait::Tripod
        } else if legs.is_multiple_of(2) {
            TemplateGait::Trot
        } else {
            TemplateGait::Wave
        }
    }
}

impl fmt::Display for TemplateGait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TemplateGait {
    type Err = TemplateError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TemplateGait::ALL
            .into_iter()
            .find(|g| g.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| TemplateError::UnknownGait(s.to_string()))
    }
}

/// Why a template cannot be made: each names what would be valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// The creature's name cannot name a file.
    #[error(
        "the name {0:?} cannot name a creature file; use letters, digits, `_` and `-` \
         (at most 64), e.g. `beetle`"
    )]
    BadName(String),
    /// Too few or too many legs for a template.
    #[error("--legs must be from {min} to {max} for a template, got {0}", min = TEMPLATE_LEGS.0, max = TEMPLATE_LEGS.1)]
    BadLegCount(usize),
    /// Too few or too many bones a leg.
    #[error("--bones must be from {min} to {max} a leg, got {0}", min = TEMPLATE_BONES.0, max = TEMPLATE_BONES.1)]
    BadBoneCount(usize),
    /// No such gait.
    #[error("unknown gait {0:?}; valid: trot, tripod, wave, crawl")]
    UnknownGait(String),
    /// The gait cannot be laid out on this many legs.
    #[error("a {gait} cannot be laid out on {legs} legs: {why}")]
    GaitNeeds {
        /// The gait asked for.
        gait: TemplateGait,
        /// The leg count asked for.
        legs: usize,
        /// What the gait needs, and what to use instead.
        why: String,
    },
    /// The template failed its own checks: a bug, reported rather than
    /// written out.
    #[error("the template for these options does not pass `check` ({0}); please report it")]
    Invalid(String),
}

/// Leg counts a template can be made for (inclusive).
pub const TEMPLATE_LEGS: (usize, usize) = (2, 12);
/// Bones a leg a template can have (inclusive).
pub const TEMPLATE_BONES: (usize, usize) = (2, 4);

/// What `skitter new creature` was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreatureTemplate {
    /// The creature's name (also its file's, `NAME.toml`).
    pub name: String,
    /// How many legs (mirrored pairs, plus a centre leg if odd).
    pub legs: usize,
    /// Bones a leg.
    pub bones: usize,
    /// Gait.
    pub gait: TemplateGait,
}

/// A leg's reach (sum of its bones), metres: everything else scales with it.
const REACH: f32 = 0.96;
/// Ride height as a share of the reach (the spider's 0.32 m on 0.96 m).
const HEIGHT_SHARE: f32 = 0.33;
/// How far out from the body's side a foot rests, as a share of the reach.
const SPREAD_SHARE: f32 = 0.4;
/// Gap along the body between neighbouring feet on one side, as a share of
/// the reach.
const GAP_SHARE: f32 = 0.5;
/// How far an odd count's tail foot stands behind the last pair's, beyond
/// one gap, as a share of the reach.
const TAIL_BEHIND: f32 = 0.1;
/// Stride (`step_threshold`) as a share of the reach when no neighbour
/// limits it (the spider's 0.18 m on 0.96 m).
const STRIDE_SHARE: f32 = 0.19;
/// Stride as a share of the gap to the neighbouring foot: under the 0.7 at
/// which `check` warns that feet may cross.
const STRIDE_OF_GAP: f32 = 0.5;
/// Full-throttle speed asked for before the gait's cap, m/s per metre of reach.
const SPEED_PER_REACH: f32 = 0.95;
/// The speed kept under the gait's cap, as a share of it.
const SPEED_OF_CAP: f32 = 0.9;
/// The share of its speed a template walks at on flat ground (well over
/// what `check` warns below, see `PACE_WARNING_SHARE`).
const TEMPLATE_PACE_SHARE: f32 = 0.9;
/// Speeds tried, each the pace the last one walked at, before giving up.
const PACE_TRIES: usize = 4;

/// Bone lengths, hip to foot, as shares of the reach: the outer bones equal
/// and the hip bone a little shorter, so the leg folds close to its hip.
fn bone_shares(bones: usize) -> &'static [f32] {
    match bones {
        2 => &[0.47, 0.53],
        3 => &[0.3, 0.35, 0.35],
        _ => &[0.22, 0.26, 0.26, 0.26],
    }
}

/// One leg of the layout, in the body frame.
struct Leg {
    name: String,
    mirror: Option<String>,
    mount: [f32; 3],
    rest: [f32; 3],
    pole: [f32; 3],
}

impl CreatureTemplate {
    /// Checks the options: a name that can name a file, leg and bone counts
    /// in range, and a gait that can be laid out on the legs.
    pub fn validate(&self) -> Result<(), TemplateError> {
        let name_ok = !self.name.is_empty()
            && self.name.len() <= 64
            && self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !name_ok {
            return Err(TemplateError::BadName(self.name.clone()));
        }
        if !(TEMPLATE_LEGS.0..=TEMPLATE_LEGS.1).contains(&self.legs) {
            return Err(TemplateError::BadLegCount(self.legs));
        }
        if !(TEMPLATE_BONES.0..=TEMPLATE_BONES.1).contains(&self.bones) {
            return Err(TemplateError::BadBoneCount(self.bones));
        }
        let needs = |why: &str| TemplateError::GaitNeeds {
            gait: self.gait,
            legs: self.legs,
            why: why.to_string(),
        };
        match self.gait {
            TemplateGait::Trot if self.legs % 2 == 1 => Err(needs(
                "a trot lifts each leg with its diagonal partner, so every leg needs one; \
                 use an even count, or wave or crawl",
            )),
            TemplateGait::Tripod if !self.legs.is_multiple_of(6) => Err(needs(
                "a tripod lifts triangles of three legs (front and back on one side, the \
                 middle on the other), so it needs 6 or 12 legs; use trot for other even \
                 counts, wave or crawl for odd ones",
            )),
            _ => Ok(()),
        }
    }

    /// The commented creature file. It is checked here with the loader the
    /// simulation uses: it parses with no warning, or this is an error.
    pub fn render(&self) -> Result<String, TemplateError> {
        self.validate()?;
        // First with a provisional speed, to measure what the gait can carry.
        let wanted = SPEED_PER_REACH * REACH;
        let draft = self.text(wanted, 0.0);
        // The draft may ask for more than the cap (that warning is the point).
        let spec = parse_creature_with_warnings(&format!("{}.toml", self.name), &draft)
            .map_err(|e| TemplateError::Invalid(e.to_string()))?
            .0;
        let speed = round_to(wanted.min(SPEED_OF_CAP * spec.speed_cap()), 0.01);
        // The stance is centred on the rest point when lead ≈ stride / (2 × speed).
        let stride = spec.gait.step_threshold;
        let text_at = |speed: f32| self.text(speed, round_to(stride / (2.0 * speed), 0.01));
        // Some gaits wait between steps for the body's balance (a
        // four-legged crawl walked 64% of the speed its strides carry):
        // walked on flat ground, the creature is slowed to its pace.
        let found = crate::sim::fastest_kept_speed(
            speed,
            TEMPLATE_PACE_SHARE,
            PACE_TRIES,
            &super::trial::flat_ground(),
            |speed| self.parse(&text_at(speed)),
        )?;
        match found {
            Some((speed, _)) => Ok(text_at(speed)),
            None => Err(TemplateError::Invalid(format!(
                "no speed found that the {} walks at on flat ground",
                self.name
            ))),
        }
    }

    /// Parses `text` as the loader does, refusing any warning.
    fn parse(&self, text: &str) -> Result<CreatureSpec, TemplateError> {
        let (spec, warnings) = parse_creature_with_warnings(&format!("{}.toml", self.name), text)
            .map_err(|e| TemplateError::Invalid(e.to_string()))?;
        match warnings.first() {
            Some(warning) => Err(TemplateError::Invalid(warning.to_string())),
            None => Ok(spec),
        }
    }

    /// Mirrored pairs, front to back, and the centre leg behind if the count
    /// is odd.
    fn layout(&self) -> Vec<Leg> {
        let pairs = self.legs / 2;
        let gap = GAP_SHARE * REACH;
        // Rounded as the file shows it, so rest.y is exactly -height.
        let height = round_to(HEIGHT_SHARE * REACH, 0.01);
        let half_width = 0.18 * REACH;
        let mut legs = Vec::new();
        // An odd count's tail stands behind the pairs: they move forward so
        // the feet's centroid is under the body's middle (three legs
        // centred would put the body's centre on the line between the pair,
        // balanced on an edge with nothing to spare).
        let ahead = if self.legs % 2 == 1 {
            (0.5 * (pairs as f32 - 1.0) * gap + gap + TAIL_BEHIND * REACH) / self.legs as f32
        } else {
            0.0
        };
        for i in 0..pairs {
            // Feet evenly spaced, centred on the body's middle.
            let x = round_to((0.5 * (pairs as f32 - 1.0) - i as f32) * gap + ahead, 0.01);
            let mount = [
                round_to(0.8 * x, 0.01),
                0.0,
                -round_to(0.8 * half_width, 0.01),
            ];
            let rest = [
                x,
                -height,
                -round_to(half_width + SPREAD_SHARE * REACH, 0.01),
            ];
            legs.push(Leg {
                name: format!("left_{}", i + 1),
                mirror: Some(format!("right_{}", i + 1)),
                mount,
                rest,
                pole: [
                    x,
                    round_to(0.6 * REACH, 0.01),
                    round_to(1.2 * rest[2], 0.01),
                ],
            });
        }
        if self.legs % 2 == 1 {
            // Behind the last pair by one gap, on the centre line.
            let back = if pairs == 0 {
                0.0
            } else {
                -0.5 * (pairs as f32 - 1.0) * gap + ahead
            };
            let mount_x = round_to(back - 0.2 * REACH, 0.01);
            let rest_x = round_to(back - gap - TAIL_BEHIND * REACH, 0.01);
            legs.push(Leg {
                name: "tail".into(),
                mirror: None,
                mount: [mount_x, 0.0, 0.0],
                rest: [rest_x, -height, 0.0],
                pole: [
                    round_to(1.2 * rest_x, 0.01),
                    round_to(0.6 * REACH, 0.01),
                    0.0,
                ],
            });
        }
        legs
    }

    /// The legs' names in spec order: each pair's left then right, the tail last.
    fn names(&self) -> (Vec<String>, Vec<String>, Option<String>) {
        let pairs = self.legs / 2;
        let left = (1..=pairs).map(|i| format!("left_{i}")).collect();
        let right = (1..=pairs).map(|i| format!("right_{i}")).collect();
        let tail = (self.legs % 2 == 1).then(|| "tail".to_string());
        (left, right, tail)
    }

    /// The gait's groups (front of each side first in `left`/`right`), the
    /// most legs up at once, and whether the groups step in the listed order.
    fn groups(&self) -> (Vec<Vec<String>>, bool) {
        let (left, right, tail) = self.names();
        let pairs = left.len();
        match self.gait {
            TemplateGait::Trot => {
                // Alternating: a leg's neighbours beside and behind it go with the other group.
                let mut a = Vec::new();
                let mut b = Vec::new();
                for i in 0..pairs {
                    let (l, r) = (left[i].clone(), right[i].clone());
                    if i % 2 == 0 {
                        a.push(l);
                        b.push(r);
                    } else {
                        a.push(r);
                        b.push(l);
                    }
                }
                (vec![a, b], false)
            }
            TemplateGait::Tripod => {
                let mut groups = Vec::new();
                for segment in (0..pairs).step_by(3) {
                    let (l, r) = (&left[segment..segment + 3], &right[segment..segment + 3]);
                    groups.push(vec![l[0].clone(), r[1].clone(), l[2].clone()]);
                    groups.push(vec![r[0].clone(), l[1].clone(), r[2].clone()]);
                }
                (groups, false)
            }
            TemplateGait::Wave => {
                // Back to front by the left leg, each with the right leg half
                // a side ahead of it (modulo the side), so the two sides
                // ripple half a wave apart and every leg is in one group.
                let mut groups = Vec::new();
                if let Some(tail) = tail {
                    groups.push(vec![tail]);
                }
                if pairs == 1 {
                    groups.push(vec![left[0].clone()]);
                    groups.push(vec![right[0].clone()]);
                } else {
                    let half = pairs.div_ceil(2);
                    for i in (0..pairs).rev() {
                        groups.push(vec![left[i].clone(), right[(i + half) % pairs].clone()]);
                    }
                }
                (groups, true)
            }
            TemplateGait::Crawl => {
                let mut groups = Vec::new();
                if let Some(tail) = tail {
                    groups.push(vec![tail]);
                }
                for side in [&left, &right] {
                    for leg in side.iter().rev() {
                        groups.push(vec![leg.clone()]);
                    }
                }
                (groups, true)
            }
        }
    }

    /// The file's text at a full-throttle `speed` and a `lead`.
    fn text(&self, speed: f32, lead: f32) -> String {
        let legs = self.layout();
        let pairs = self.legs / 2;
        let gap = GAP_SHARE * REACH;
        let height = round_to(HEIGHT_SHARE * REACH, 0.01);
        let stride = if pairs >= 2 {
            (STRIDE_OF_GAP * gap).min(STRIDE_SHARE * REACH)
        } else {
            STRIDE_SHARE * REACH
        };
        let stride = round_to(stride, 0.01);
        let (groups, listed) = self.groups();
        let max_lifted = groups.iter().map(Vec::len).max().unwrap_or(1);
        let front = legs.iter().map(|l| l.mount[0]).fold(0.0, f32::max);
        let back = legs.iter().map(|l| l.mount[0]).fold(0.0, f32::min);
        let length = round_to((front - back) + 0.3 * REACH, 0.01);
        let width = round_to(0.36 * REACH, 0.01);
        let body_height = round_to(0.16 * REACH, 0.01);
        let orientation = if self.legs >= 3 { "feet" } else { "ground" };
        let bones = bone_shares(self.bones)
            .iter()
            .map(|s| format!("{}", round_to(s * REACH, 0.001)))
            .collect::<Vec<_>>()
            .join(", ");
        let mut t = String::new();
        // Writing into a String cannot fail, so the results of write! are ignored.
        let _ = writeln!(
            t,
            "# {name}: {legs} legs of {bones_n} bones, a {gait}. Made by `skitter new creature`;\n\
             # check it with `skitter check {name}.toml`, watch it with\n\
             # `skitter run --creature {name}.toml`. Units: metres, seconds, degrees.\n\
             # Body frame: +x forward, +y up, +z right (left legs have negative z).\n\
             # docs/authoring.md explains every choice below.\n\
             name = \"{name}\"\n\
             description = \"{legs} legs of {bones_n} bones, {gait}\"\n\
             \n\
             [body]",
            name = self.name,
            legs = self.legs,
            bones_n = self.bones,
            gait = self.gait,
        );
        let orient_why = if self.legs >= 3 {
            "body up from the plane through the feet"
        } else {
            "two feet make no plane: follow the ground"
        };
        for (setting, comment) in [
            (
                format!("size = [{length}, {body_height}, {width}]"),
                "length (x), height (y), width (z)",
            ),
            (
                format!("height = {height}"),
                "ride height: rest feet sit at y = -height",
            ),
            (
                format!("speed = {speed}"),
                "m/s at full throttle: what it walks on flat ground, under the gait's cap",
            ),
            ("turn_rate = 50".into(), "degrees per second"),
            (format!("orientation = \"{orientation}\""), orient_why),
        ] {
            commented(&mut t, &setting, comment);
        }
        let _ = writeln!(t, "\n[solver]");
        commented(
            &mut t,
            "kind = \"fabrik\"",
            "fabrik, gradient, two-bone, ccd, jacobian-transpose, dls",
        );
        commented(
            &mut t,
            "tolerance = 1e-4",
            "metres; at most 1/100 of the shortest bone",
        );
        commented(&mut t, "max_iterations = 32", "per leg and step");
        let _ = writeln!(t, "\n[gait]");
        for (setting, comment) in [
            (
                format!("step_threshold = {stride}"),
                "the stride: a foot steps this far behind its foothold",
            ),
            (
                format!("step_height = {}", round_to(0.12 * REACH, 0.01)),
                "peak lift of a swinging foot",
            ),
            (
                "step_duration = 0.2".into(),
                "seconds a swing takes at walking speeds",
            ),
            (
                format!("lead = {lead}"),
                "about stride / (2 × speed): stances centred on rest",
            ),
            (
                format!("max_lifted = {max_lifted}"),
                "most feet in the air at once: the largest group",
            ),
        ] {
            commented(&mut t, &setting, comment);
        }
        if listed {
            commented(
                &mut t,
                "order = \"listed\"",
                "groups lift one after another, in this order",
            );
        }
        let _ = writeln!(t, "groups = [");
        for group in &groups {
            let names = group
                .iter()
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", ");
            let _ = writeln!(t, "    [{names}],");
        }
        let _ = writeln!(t, "]");
        for (i, leg) in legs.iter().enumerate() {
            let _ = writeln!(t);
            if i == 0 {
                let _ = writeln!(
                    t,
                    "# Front to back. `mirror` adds the same leg reflected to the right (z negated)."
                );
            }
            if leg.mirror.is_none() {
                let _ = writeln!(
                    t,
                    "# On the centre line behind the body: the third corner of the feet's support."
                );
            }
            let _ = writeln!(t, "[[legs]]\nname = \"{}\"", leg.name);
            if let Some(mirror) = &leg.mirror {
                let _ = writeln!(t, "mirror = \"{mirror}\"");
            }
            commented(
                &mut t,
                &format!("mount = {}", vec3(leg.mount)),
                "hip, on the body",
            );
            commented(
                &mut t,
                &format!("rest = {}", vec3(leg.rest)),
                "foot at rest on level ground",
            );
            commented(&mut t, &format!("bones = [{bones}]"), "hip to foot");
            commented(
                &mut t,
                &format!("pole = {}", vec3(leg.pole)),
                "knees bend toward it: up and out",
            );
        }
        t
    }
}

/// Column where comments after a setting start.
const COMMENT_COLUMN: usize = 32;

/// `setting`, then `# comment` lined up at [`COMMENT_COLUMN`].
fn commented(t: &mut String, setting: &str, comment: &str) {
    let pad = COMMENT_COLUMN
        .saturating_sub(setting.chars().count())
        .max(1);
    // Writing into a String cannot fail.
    let _ = writeln!(t, "{setting}{:pad$}# {comment}", "");
}

/// `[x, y, z]` as TOML, each number as short as it reads.
fn vec3(v: [f32; 3]) -> String {
    format!("[{}, {}, {}]", v[0], v[1], v[2])
}

/// `value` rounded to a multiple of `step`, so the file reads as a person
/// would write it.
fn round_to(value: f32, step: f32) -> f32 {
    let rounded = (value / step).round() * step;
    // Printing goes through the shortest decimal, so round in decimal too.
    let digits = (-step.log10()).ceil().max(0.0) as i32;
    let scale = 10f32.powi(digits);
    let clean = (rounded * scale).round() / scale;
    if clean == 0.0 { 0.0 } else { clean }
}

//! Tracking solves of up to four legs at once, one leg per SIMD lane.
//!
//! A leg's pass is a serial chain of square roots and divisions: each
//! joint's placement waits for the one before it. Legs are independent, so
//! four of them laid across the lanes of one register (every x coordinate
//! in one, every y in another) take the same chain of instructions as one
//! leg. The arithmetic is the tracking solve's own, operation for
//! operation in the same order, so each lane's pose comes out bit for bit
//! as [`Tracked::iterate`] leaves it; a lane whose leg has finished keeps
//! its pose while the others go on.

use glam::{BVec4A, Vec4};

use super::tracking::{MAX_JOINTS, Tracked};
use super::{Chain, SolveParams, SolveReport, SolverKind};
use glam::Vec3;

/// Legs solved together.
pub const LANES: usize = 4;

/// One coordinate of every joint, a lane per leg.
type Coordinate<const N: usize> = [Vec4; N];

/// One chain's solve for [`solve_tracking_lanes`]: the chain, its
/// solver, its target and the solve's parameters.
pub type LaneJob<'a> = (&'a mut Chain, SolverKind, Vec3, SolveParams);

/// The tracking solve ([`super::solve_tracking`]) of up to [`LANES`]
/// chains at once: for each job, its report, or `None` with the chain
/// untouched (for its own general solver). Chains of the same solver and
/// joint count share the lanes; any other iterates on its own.
pub fn solve_tracking_lanes(
    jobs: &mut [Option<LaneJob<'_>>; LANES],
) -> [Option<SolveReport>; LANES] {
    let mut tracked: [Option<Tracked>; LANES] = [None; LANES];
    for (slot, job) in tracked.iter_mut().zip(jobs.iter()) {
        if let Some((chain, kind, target, params)) = job {
            *slot = Tracked::new(*kind, chain, *target, params);
        }
    }
    let iterations = iterate_lanes(&mut tracked);
    let mut reports = [None; LANES];
    for ((report, job), (lane, done)) in reports
        .iter_mut()
        .zip(jobs.iter_mut())
        .zip(tracked.iter_mut().zip(iterations))
    {
        if let (Some((chain, ..)), Some(lane), Some(done)) = (job, lane, done) {
            *report = lane.finish(chain, done);
        }
    }
    reports
}

/// [`Tracked::iterate`] for every lane at once, leaving each lane's pose
/// in its `Tracked`. Lanes must share a joint count; one that does not
/// (legs of different lengths of chain) iterates on its own.
fn iterate_lanes(lanes: &mut [Option<Tracked>; LANES]) -> [Option<u32>; LANES] {
    let mut results = [None; LANES];
    let Some(first) = lanes.iter().position(Option::is_some) else {
        return results;
    };
    let (count, kind) = lanes[first]
        .as_ref()
        .map_or((0, SolverKind::Fabrik), |t| (t.joint_count, t.kind));
    let mut together = [false; LANES];
    for (l, lane) in lanes.iter_mut().enumerate() {
        match lane {
            Some(t) if t.joint_count == count && t.kind == kind => together[l] = true,
            Some(t) => results[l] = t.iterate(),
            None => {}
        }
    }
    // Legs of two and three bones, the common ones, get code of their own
    // joint count: their coordinates stay in registers and every loop
    // over the joints unrolls.
    match count {
        3 => iterate_together::<3>(lanes, together, first, kind, &mut results),
        4 => iterate_together::<4>(lanes, together, first, kind, &mut results),
        _ => iterate_together::<MAX_JOINTS>(lanes, together, first, kind, &mut results),
    }
    results
}

/// The lanes marked `together` (`first` among them, whose joint count the
/// others share: at most `N`) iterated at once, solved by `kind`; each
/// one's result goes in `results`.
fn iterate_together<const N: usize>(
    lanes: &mut [Option<Tracked>; LANES],
    mut together: [bool; LANES],
    first: usize,
    kind: SolverKind,
    results: &mut [Option<u32>; LANES],
) {
    // Absent lanes carry a copy of the first, so they compute nothing odd.
    let refs: [&Tracked; LANES] = std::array::from_fn(|l| {
        let lane = if together[l] { l } else { first };
        // `first` is the first present lane, and only present lanes are
        // `together`: this never fails.
        lanes[lane].as_ref().expect("a present lane")
    });
    let gather = |f: fn(&Tracked, usize) -> f32, k: usize| {
        Vec4::new(f(refs[0], k), f(refs[1], k), f(refs[2], k), f(refs[3], k))
    };
    // A count the code is specialised for is a constant to the compiler.
    let count = if N < MAX_JOINTS {
        N
    } else {
        refs[0].joint_count
    };
    let last = count - 1;
    let (mut x, mut y, mut z): (Coordinate<N>, Coordinate<N>, Coordinate<N>) =
        ([Vec4::ZERO; N], [Vec4::ZERO; N], [Vec4::ZERO; N]);
    let mut lengths = [Vec4::ZERO; N];
    for k in 0..count {
        x[k] = gather(|t, k| t.pose[k].x, k);
        y[k] = gather(|t, k| t.pose[k].y, k);
        z[k] = gather(|t, k| t.pose[k].z, k);
        lengths[k] = gather(|t, k| t.lengths[k], k);
    }
    let target = [
        gather(|t, _| t.to_target.x, 0),
        gather(|t, _| t.to_target.y, 0),
        gather(|t, _| t.to_target.z, 0),
    ];
    let aim = gather(|t, _| t.aim, 0);
    let floor = gather(|t, _| t.floor, 0);
    let epsilon_sq = gather(|t, _| t.epsilon_sq, 0);
    let budget: [u32; LANES] = std::array::from_fn(|l| refs[l].budget);

    let distance = |x: &Coordinate<N>, y: &Coordinate<N>, z: &Coordinate<N>| {
        let (dx, dy, dz) = (
            x[last] - target[0],
            y[last] - target[1],
            z[last] - target[2],
        );
        (dx * dx + dy * dy + dz * dz).sqrt()
    };
    let mut error = distance(&x, &y, &z);
    let mut iterations = [0u32; LANES];
    let mut active: [bool; LANES] = std::array::from_fn(|l| together[l] && error[l] > aim[l]);
    for l in 0..LANES {
        if together[l] && !active[l] {
            results[l] = Some(0);
        }
    }
    loop {
        let left = active.iter().filter(|a| **a).count();
        if left == 0 {
            break;
        }
        if left == 1 && kind == SolverKind::Ccd {
            // One leg still sweeping pays for four in lanes: it goes on
            // alone. The same arithmetic, so the same pose. (Not FABRIK,
            // whose pass alone turns a bone with no direction where the
            // lanes stop.)
            let l = active.iter().position(|a| *a).expect("one lane is left");
            if let Some(t) = lanes[l].as_mut() {
                for k in 0..count {
                    t.pose[k] = glam::Vec3A::new(x[k][l], y[k][l], z[k][l]);
                }
                results[l] = t.iterate_on(iterations[l], error[l]);
                together[l] = false;
            }
            break;
        }
        for l in 0..LANES {
            if active[l] && iterations[l] == budget[l] {
                active[l] = false;
            } else if active[l] {
                iterations[l] += 1;
            }
        }
        let moving = BVec4A::new(active[0], active[1], active[2], active[3]);
        let failed = if kind == SolverKind::Fabrik {
            let (mut nx, mut ny, mut nz) = (x, y, z);
            let failed = pass(&mut nx, &mut ny, &mut nz, &lengths, target, last);
            for k in 1..count {
                x[k] = Vec4::select(moving, nx[k], x[k]);
                y[k] = Vec4::select(moving, ny[k], y[k]);
                z[k] = Vec4::select(moving, nz[k], z[k]);
            }
            failed
        } else {
            // A sweep turns only the moving lanes: in place.
            sweep(&mut x, &mut y, &mut z, target, epsilon_sq, moving, last)
        };
        let previous = error;
        error = Vec4::select(moving, distance(&x, &y, &z), error);
        let failed = failed.bitmask();
        for l in 0..LANES {
            if !active[l] {
                continue;
            }
            if failed & (1 << l) != 0 || (error[l] > aim[l] && previous[l] - error[l] <= floor[l]) {
                active[l] = false;
            } else if error[l] <= aim[l] {
                active[l] = false;
                results[l] = Some(iterations[l]);
            }
        }
    }
    for (l, lane) in lanes.iter_mut().enumerate() {
        if let Some(t) = lane
            && together[l]
        {
            for k in 0..count {
                t.pose[k] = glam::Vec3A::new(x[k][l], y[k][l], z[k][l]);
            }
        }
    }
}

/// One FABRIK pass in every lane (see `fabrik::pass_f32`, whose
/// arithmetic this repeats): the lanes where a bone had no direction.
fn pass<const N: usize>(
    x: &mut Coordinate<N>,
    y: &mut Coordinate<N>,
    z: &mut Coordinate<N>,
    lengths: &Coordinate<N>,
    target: [Vec4; 3],
    last: usize,
) -> BVec4A {
    let degenerate = Vec4::splat(1e-30);
    let mut failed = BVec4A::FALSE;
    let (mut px, mut py, mut pz) = (target[0], target[1], target[2]);
    x[last] = px;
    y[last] = py;
    z[last] = pz;
    for k in (1..last).rev() {
        let (ox, oy, oz) = (x[k] - px, y[k] - py, z[k] - pz);
        let len_sq = ox * ox + oy * oy + oz * oz;
        failed |= len_sq.cmple(degenerate);
        let scale = lengths[k] / len_sq.sqrt();
        px += ox * scale;
        py += oy * scale;
        pz += oz * scale;
        (x[k], y[k], z[k]) = (px, py, pz);
    }
    let (mut px, mut py, mut pz) = (x[0], y[0], z[0]);
    for k in 1..=last {
        let (ox, oy, oz) = (x[k] - px, y[k] - py, z[k] - pz);
        let len_sq = ox * ox + oy * oy + oz * oz;
        failed |= len_sq.cmple(degenerate);
        let scale = lengths[k - 1] / len_sq.sqrt();
        px += ox * scale;
        py += oy * scale;
        pz += oz * scale;
        (x[k], y[k], z[k]) = (px, py, pz);
    }
    failed
}

/// One CCD sweep in the `moving` lanes (see `ccd::turn_f32` and the
/// tracking solve's sweep, whose arithmetic this repeats; the other lanes
/// keep their poses): the lanes, among `moving`, where a turn would be
/// within about 0.1° of a half turn.
fn sweep<const N: usize>(
    x: &mut Coordinate<N>,
    y: &mut Coordinate<N>,
    z: &mut Coordinate<N>,
    target: [Vec4; 3],
    epsilon_sq: Vec4,
    moving: BVec4A,
    last: usize,
) -> BVec4A {
    let mut failed = BVec4A::FALSE;
    for pivot in (0..last).rev() {
        let (ox, oy, oz) = (x[pivot], y[pivot], z[pivot]);
        let (ex, ey, ez) = (x[last] - ox, y[last] - oy, z[last] - oz);
        let (tx, ty, tz) = (target[0] - ox, target[1] - oy, target[2] - oz);
        let end_sq = ex * ex + ey * ey + ez * ez;
        let target_sq = tx * tx + ty * ty + tz * tz;
        let usable = end_sq.cmpgt(epsilon_sq) & target_sq.cmpgt(epsilon_sq);
        let lengths = (end_sq * target_sq).sqrt();
        let dot = ex * tx + ey * ty + ez * tz;
        let opposite = dot.cmplt(Vec4::splat(-1.0 + 1e-6) * lengths) & usable & moving;
        failed |= opposite;
        let turning = usable & !opposite & moving;
        let (cx, cy, cz) = (ey * tz - ty * ez, ez * tx - tz * ex, ex * ty - tx * ey);
        let r = (lengths * (lengths + dot)).recip();
        let inv_lengths = r * (lengths + dot);
        for j in pivot + 1..=last {
            let (vx, vy, vz) = (x[j] - ox, y[j] - oy, z[j] - oz);
            let along = (cx * vx + cy * vy + cz * vz) * r;
            let nx = ox + (vx * dot + (cy * vz - vy * cz)) * inv_lengths + cx * along;
            let ny = oy + (vy * dot + (cz * vx - vz * cx)) * inv_lengths + cy * along;
            let nz = oz + (vz * dot + (cx * vy - vx * cy)) * inv_lengths + cz * along;
            x[j] = Vec4::select(turning, nx, x[j]);
            y[j] = Vec4::select(turning, ny, y[j]);
            z[j] = Vec4::select(turning, nz, z[j]);
        }
    }
    failed
}

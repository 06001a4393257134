//! World-step benchmarks: 1, 1000 and 10 000 walking spiders on the default
//! hills, stepped on 1 and 2 threads; one spider's 40 s walk on the hills
//! and on each solid terrain (`spider_step`); and building a world of
//! 1000 and 10 000 spiders (`world_new`).
//!
//! `cargo bench --bench sim`; the figure to read is time per step divided by
//! the spider count (criterion reports it as throughput too), and the ratio
//! of the 1-thread to the 2-thread time (parallel efficiency is that ratio
//! over 2).

use std::sync::Arc;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use skitter::config::{default_creature, default_terrain};
use skitter::sim::{Command, World};
use skitter::terrain::Heightfield;

fn bench_world_step(c: &mut Criterion) {
    let terrain = Arc::new(Heightfield::generate(&default_terrain()));
    let mut group = c.benchmark_group("world_step");
    for count in [1usize, 1000, 10_000] {
        for threads in [1usize, 2] {
            if count == 1 && threads > 1 {
                // One creature is one chunk: a second thread has nothing to do.
                continue;
            }
            let mut world = World::new(terrain.clone(), default_creature(), count)
                .with_threads(threads)
                .expect("two threads start on any machine this runs on");
            world
                .apply(Command::Drive {
                    forward: 1.0,
                    turn: 0.15,
                })
                .expect("driving never fails");
            // Walk for a second first so every gait phase is represented.
            for _ in 0..120 {
                world.step();
            }
            group.throughput(Throughput::Elements(count as u64));
            group.bench_function(
                BenchmarkId::new(format!("spiders-{threads}-threads"), count),
                |b| b.iter(|| world.step()),
            );
        }
    }
    group.finish();
}

/// One spider walking forward for 40 s (4800 steps) from the spawn, on the
/// hills and on each solid terrain: the whole walk is one iteration, so a
/// climb, a ceiling and an edge count as often as they happen. Time per
/// element is the mean spider-step.
fn bench_spider_step(c: &mut Criterion) {
    const STEPS: u64 = 4800;
    let mut group = c.benchmark_group("spider_step");
    for name in ["hills", "wall", "overhang", "canyon"] {
        let spec = skitter::config::load_terrain(name).expect("shipped terrain");
        let terrain = Arc::new(Heightfield::generate(&spec));
        group.throughput(Throughput::Elements(STEPS));
        group.bench_function(BenchmarkId::new("forward-40s", name), |b| {
            b.iter_batched(
                || {
                    let mut world = World::new(terrain.clone(), default_creature(), 1);
                    world
                        .apply(Command::Drive {
                            forward: 1.0,
                            turn: 0.0,
                        })
                        .expect("driving never fails");
                    world
                },
                |mut world| {
                    for _ in 0..STEPS {
                        world.step();
                    }
                    world
                },
                criterion::BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

/// Building a world of 1000 and 10 000 spiders on fresh hills: the terrain
/// around every spawn sampled, each creature stood on its footholds. Time
/// per element is the start-up cost per spider; it should not grow with
/// the count.
fn bench_world_new(c: &mut Criterion) {
    let spec = default_terrain();
    let mut group = c.benchmark_group("world_new");
    for count in [1000usize, 10_000] {
        group.throughput(Throughput::Elements(count as u64));
        group.bench_function(BenchmarkId::new("spiders", count), |b| {
            b.iter_batched(
                || Arc::new(Heightfield::generate(&spec)),
                |terrain| World::new(terrain, default_creature(), count),
                criterion::BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20);
    targets = bench_world_step, bench_spider_step, bench_world_new
}
criterion_main!(benches);

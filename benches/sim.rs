//! World-step benchmarks: 1, 100 and 1000 walking spiders on the default hills.
//!
//! `cargo bench --bench sim`; the figure to read is time per step divided by
//! the spider count (criterion reports it as throughput too).

use std::sync::Arc;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use skitter::config::{default_creature, default_terrain};
use skitter::sim::{Command, World};
use skitter::terrain::Heightfield;

fn bench_world_step(c: &mut Criterion) {
    let terrain = Arc::new(Heightfield::generate(&default_terrain()));
    let mut group = c.benchmark_group("world-step");
    for count in [1usize, 100, 1000] {
        let mut world = World::new(terrain.clone(), default_creature(), count);
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
        group.bench_function(BenchmarkId::new("spiders", count), |b| {
            b.iter(|| world.step())
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
    targets = bench_world_step
}
criterion_main!(benches);

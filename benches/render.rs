//! Rendering benchmarks: one view at 200 × 60 for each kind of view, and whole
//! TUI frames (views, stats panel, hint bar) on ratatui's TestBackend.
//!
//! `cargo bench --bench render`

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use skitter::config::{default_creature, default_terrain};
use skitter::render::{Camera, ViewKind, render_view};
use skitter::tui::{Action, App, Sources, draw};

const WIDTH: usize = 200;
const HEIGHT: usize = 60;

/// The threads `skitter run` uses by default: one per core.
fn every_core() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

fn walking_app() -> App {
    let sources = Sources {
        creature: "spider".into(),
        terrain: "hills".into(),
        scene: None,
        seed: None,
    };
    let mut app = App::new(default_creature(), default_terrain(), sources, None);
    app.handle(Action::Faster);
    app.handle(Action::Faster);
    app.step_world(240);
    app
}

fn bench_render(c: &mut Criterion) {
    let mut app = walking_app();
    let camera = Camera::default();
    let mut views = c.benchmark_group("view-200x60");
    for view in ViewKind::ALL {
        views.bench_function(BenchmarkId::from_parameter(view.name()), |b| {
            b.iter(|| black_box(render_view(&app.world, view, &camera, WIDTH, HEIGHT)))
        });
    }
    views.finish();

    // Solid worlds: every view of the spider 12 s into its walk (on the
    // wall; in the room under the overhang's ceiling; in the canyon; on a
    // wall 5 cm thick, thinner than a cell, which the sections look at
    // more closely).
    let mut solids = c.benchmark_group("solid-view-200x60");
    for terrain in ["wall", "overhang", "canyon", "knife"] {
        let spec = if terrain == "knife" {
            skitter::config::parse_terrain(
                "knife",
                "name = \"knife\"\n[noise]\nfractal = \"flat\"\n[[shapes]]\nkind = \"box\"\n\
                 center = [5.0, 1.0, 0.0]\nsize = [0.05, 2.0, 40.0]\n",
            )
            .expect("a valid terrain")
        } else {
            skitter::config::load_terrain(terrain).expect("shipped terrain")
        };
        let sources = Sources {
            creature: "spider".into(),
            terrain: terrain.into(),
            scene: None,
            seed: None,
        };
        let mut app = App::new(default_creature(), spec, sources, None);
        app.handle(Action::Faster);
        app.handle(Action::Faster);
        app.step_world(12 * 120);
        // As `skitter run` draws by default: on every core.
        app.set_threads(every_core());
        for view in ViewKind::ALL {
            solids.bench_function(BenchmarkId::new(terrain, view.name()), |b| {
                b.iter(|| black_box(render_view(&app.world, view, &camera, WIDTH, HEIGHT)))
            });
        }
        // And on one (`--threads 1`).
        app.set_threads(1);
        let view = ViewKind::Perspective;
        solids.bench_function(BenchmarkId::new(terrain, "perspective-1-thread"), |b| {
            b.iter(|| black_box(render_view(&app.world, view, &camera, WIDTH, HEIGHT)))
        });
    }
    solids.finish();

    let mut frames = c.benchmark_group("tui-frame-200x60");
    let mut terminal =
        Terminal::new(TestBackend::new(WIDTH as u16, HEIGHT as u16)).expect("test backend");
    for (name, split, view, hires) in [
        ("top", false, ViewKind::Top, false),
        ("perspective", false, ViewKind::Perspective, false),
        ("split", true, ViewKind::Top, false),
        (
            "perspective-half-blocks",
            false,
            ViewKind::Perspective,
            true,
        ),
    ] {
        app.split = split;
        app.view = view;
        app.hires = hires;
        frames.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                terminal
                    .draw(|f| draw(f, &app))
                    .expect("drawing to a test backend cannot fail");
            })
        });
    }
    frames.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30);
    targets = bench_render
}
criterion_main!(benches);

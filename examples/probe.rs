use glam::Vec3;
fn main() {
    let spec = skitter::config::load_terrain("overhang").unwrap();
    let field = skitter::terrain::Heightfield::generate(&spec);
    let g = field.world();
    for y in [0.0f32, 0.05, 0.12, 0.2, 0.3, 0.48] {
        let p = Vec3::new(4.85, y, -0.46);
        println!("{p}: {:?} inside {}", g.distance_and_normal(p), g.inside(p));
    }
}

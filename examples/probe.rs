use glam::Vec3;
fn main() {
    let spec = skitter::config::load_terrain("overhang").unwrap();
    let field = skitter::terrain::Heightfield::generate(&spec);
    let g = field.world();
    let mut bad = 0;
    for i in 0..20 {
        for j in 0..20 {
            for k in 0..16 {
                let o = Vec3::new(4.0 + i as f32 * 0.1, 1.0 + j as f32 * 0.1, -0.3);
                let a = k as f32 / 16.0 * std::f32::consts::TAU;
                let d = Vec3::new(a.cos(), a.sin(), 0.1);
                if let Some(hit) = g.raycast(o, d, 3.0) {
                    let p = hit.point;
                    let off = g.signed_distance(p).abs();
                    if off > 0.01 && bad < 10 {
                        bad += 1;
                        println!("{o} {d} -> {p} d={off} t={}", hit.distance);
                    }
                }
            }
        }
    }
}

use glam::Vec3;
use skitter::sim::{Command, World};
fn main() {
    let spec = skitter::config::load_terrain("wall").unwrap();
    let field = std::sync::Arc::new(skitter::terrain::Heightfield::generate(&spec));
    let mut world = World::new(field, skitter::config::default_creature(), 1);
    world
        .apply(Command::Drive {
            forward: 1.0,
            turn: 0.0,
        })
        .unwrap();
    for _ in 0..40 * 120 {
        world.step();
        let c = &world.creatures()[0];
        if c.body.position.y > 1.2 && c.body.up().x < -0.9 {
            println!(
                "body {} up {} fwd {}",
                c.body.position,
                c.body.up(),
                c.body.forward()
            );
            for l in &c.legs {
                println!("  foot {} grounded {}", l.foot, l.is_grounded());
            }
            break;
        }
    }
}

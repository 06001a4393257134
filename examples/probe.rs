use skitter::sim::{Command, World};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let spec = skitter::config::load_terrain(&args[1]).unwrap();
    let creature = skitter::config::load_creature(&args[2]).unwrap();
    let at: f32 = args[3].parse().unwrap();
    let field = std::sync::Arc::new(skitter::terrain::Heightfield::generate(&spec));
    let mut world = World::new(field, creature, 1);
    world
        .apply(Command::Drive {
            forward: 1.0,
            turn: 0.0,
        })
        .unwrap();
    for _ in 0..(at * 120.0) as usize {
        world.step();
    }
    let c = &world.creatures()[0];
    println!(
        "body {} up {} fwd {}",
        c.body.position,
        c.body.up(),
        c.body.forward()
    );
    for (l, s) in c.legs.iter().zip(&c.spec().legs) {
        let hip = c.body.to_world(s.mount);
        let rest = c.body.to_world(s.rest);
        let stretch = l.foot.distance(hip) / s.reach();
        let trail = (l.foot - rest).reject_from_normalized(c.body.up()).length();
        println!(
            "  {:8} g={} foot {:.2} des {:.2} stretch {:.2} trail {:.2} off {:.3} pull {}",
            s.name,
            l.is_grounded(),
            l.foot,
            l.desired,
            stretch,
            trail,
            l.foot.distance(l.desired),
            l.pull
        );
    }
}

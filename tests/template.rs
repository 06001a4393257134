//! `skitter new creature`: every template loads, checks without warnings and
//! walks forward cleanly; impossible combinations are refused.

use skitter::config::{
    CROSSING_WARNING_SHARE, CreatureTemplate, PACE_WARNING_SHARE, TemplateError, TemplateGait,
    default_terrain, load_terrain, parse_creature_with_warnings,
};
use skitter::headless::{self, HeadlessRun, RunLength};

/// The template for `legs` legs of `bones` bones walking `gait`.
fn template(legs: usize, bones: usize, gait: TemplateGait) -> CreatureTemplate {
    CreatureTemplate {
        name: format!("t{legs}_{bones}_{gait}"),
        legs,
        bones,
        gait,
    }
}

/// `spec` walking forward on the default hills for `seconds`.
fn walk(spec: skitter::creature::CreatureSpec, seconds: f64) -> skitter::sim::Summary {
    let run = HeadlessRun {
        creature: spec,
        terrain: default_terrain(),
        solver: None,
        length: Some(RunLength::Seconds(seconds)),
        script: None,
        count: 1,
        scene: None,
        threads: 1,
    };
    headless::run(&run, None).unwrap()
}

/// Loads the template, asserts it checks without warnings and walks forward
/// on the default hills for 4 simulated seconds with no quality breach.
fn assert_walks(t: &CreatureTemplate) {
    let text = t.render().unwrap_or_else(|e| panic!("{t:?}: {e}"));
    let (spec, warnings) = parse_creature_with_warnings("t.toml", &text)
        .unwrap_or_else(|e| panic!("{t:?}: {e}\n{text}"));
    assert!(warnings.is_empty(), "{t:?}: {warnings:?}");
    assert_eq!(spec.legs.len(), t.legs, "{t:?}");
    assert!(spec.legs.iter().all(|l| l.bones.len() == t.bones), "{t:?}");
    // Nor does `check`'s walk on flat ground find it short of its speed.
    let flat = skitter::terrain::Heightfield::generate(&load_terrain("flat").unwrap());
    let pace = skitter::sim::flat_ground_pace(&spec, std::sync::Arc::new(flat));
    assert!(pace.share() >= PACE_WARNING_SHARE, "{t:?}: {pace:?}");
    assert!(
        pace.crossing
            .is_none_or(|(_, _, share)| share < CROSSING_WARNING_SHARE),
        "{t:?}: {pace:?}"
    );
    let summary = walk(spec, 4.0);
    let breaches = headless::quality_breaches(&summary);
    assert!(breaches.is_empty(), "{t:?}: {breaches:?}\n{text}");
    assert_eq!(summary.nan_count, 0, "{t:?}");
    // Speeding up takes a moment; a third of full speed over 4 s is walking.
    assert!(
        summary.displacement > 4.0 * f64::from(summary.speed) / 3.0,
        "{t:?}: {} m at {} m/s\n{text}",
        summary.displacement,
        summary.speed
    );
}

#[test]
fn every_leg_count_and_gait_walks() {
    for legs in 2..=12 {
        for gait in TemplateGait::ALL {
            let t = template(legs, 3, gait);
            if t.validate().is_ok() {
                assert_walks(&t);
            }
        }
    }
}

/// Three legs were laid out with the pair level with the body's centre:
/// it stood balanced on the line between them, and walking it was off its
/// feet' support 54% of the time. Odd counts now have their feet centred
/// under the body, tail included.
#[test]
fn odd_counts_stand_and_walk_inside_their_feet() {
    for legs in [3, 5, 7, 9, 11] {
        let t = template(legs, 3, TemplateGait::Wave);
        let text = t.render().unwrap();
        let (spec, _) = parse_creature_with_warnings("t.toml", &text).unwrap();
        let feet: Vec<f32> = spec.legs.iter().map(|l| l.rest.x).collect();
        let centroid = feet.iter().sum::<f32>() / feet.len() as f32;
        assert!(
            centroid.abs() < 0.02,
            "{legs} legs: feet centred at x = {centroid}"
        );
        let summary = walk(spec, 10.0);
        assert!(
            summary.stability_margin_min.is_some_and(|m| m > 0.0)
                && summary.unstable_fraction == 0.0,
            "{legs} legs: margin {:?} m, unstable {}",
            summary.stability_margin_min,
            summary.unstable_fraction
        );
    }
}

#[test]
fn two_and_four_bone_legs_walk() {
    for (legs, gait) in [
        (4, TemplateGait::Trot),
        (6, TemplateGait::Tripod),
        (5, TemplateGait::Wave),
    ] {
        for bones in [2, 4] {
            assert_walks(&template(legs, bones, gait));
        }
    }
}

#[test]
fn impossible_combinations_are_refused() {
    let err = template(5, 3, TemplateGait::Trot).validate().unwrap_err();
    assert!(
        matches!(err, TemplateError::GaitNeeds { legs: 5, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("even count"), "{err}");
    let err = template(4, 3, TemplateGait::Tripod).validate().unwrap_err();
    assert!(err.to_string().contains("6 or 12 legs"), "{err}");
    assert_eq!(
        template(13, 3, TemplateGait::Wave).validate(),
        Err(TemplateError::BadLegCount(13))
    );
    assert_eq!(
        template(4, 1, TemplateGait::Trot).validate(),
        Err(TemplateError::BadBoneCount(1))
    );
    let bad_name = CreatureTemplate {
        name: "../evil".into(),
        ..template(4, 3, TemplateGait::Trot)
    };
    assert!(matches!(
        bad_name.validate(),
        Err(TemplateError::BadName(_))
    ));
    assert_eq!(
        "gallop".parse::<TemplateGait>(),
        Err(TemplateError::UnknownGait("gallop".into()))
    );
    assert_eq!("Tripod".parse::<TemplateGait>(), Ok(TemplateGait::Tripod));
}

#[test]
fn a_template_is_commented_with_its_gait_laid_out() {
    let text = template(6, 3, TemplateGait::Tripod).render().unwrap();
    assert!(
        text.starts_with("# t6_3_tripod: 6 legs of 3 bones, a tripod."),
        "{text}"
    );
    assert!(text.contains("groups = [\n    [\"left_1\", \"right_2\", \"left_3\"],\n    [\"right_1\", \"left_2\", \"right_3\"],\n]"), "{text}");
    assert!(text.contains("mirror = \"right_2\""), "{text}");
    // Odd counts get one leg on the centre line, behind.
    let text = template(5, 3, TemplateGait::Wave).render().unwrap();
    assert!(
        text.contains("name = \"tail\"\nmount = [") && text.contains("order = \"listed\""),
        "{text}"
    );
}

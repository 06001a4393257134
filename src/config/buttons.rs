//! Button files for `skitter lab reach --buttons FILE`: where the buttons sit
//! on the wall in front of the arm.
//!
//! ```toml
//! # Each button: y (up) and z (right of the shoulder), metres, on the wall.
//! [[buttons]]
//! y = 0.10
//! z = -0.20
//! ```
//!
//! The wall's distance is the experiment's (`lab::reach::WALL_X`); a file
//! says only where on it each button is, in the order they are pressed.

use glam::Vec2;
use serde::Deserialize;
use toml::Spanned;

use super::error::{ConfigError, Source};
use super::fields::Check;

/// Most buttons one file may list (the lab's limit for seeded buttons too).
pub const MAX_BUTTONS: usize = 10_000;
/// Largest distance of a button from the shoulder's line along the wall,
/// metres, up or across. The arm reaches 0.66 m; a coordinate beyond this is
/// almost surely in centimetres or millimetres.
pub const MAX_BUTTON_OFFSET: f64 = 2.0;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ButtonsFile {
    buttons: Option<Spanned<Vec<ButtonEntry>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ButtonEntry {
    y: Spanned<f64>,
    z: Spanned<f64>,
}

/// Parses and validates a button file: each button's (y, z) on the wall, in
/// the order they are to be pressed.
pub fn parse_buttons(name: &str, text: &str) -> Result<Vec<Vec2>, ConfigError> {
    let src = Source::new(name, text);
    let file: ButtonsFile = toml::from_str(text).map_err(|e| src.from_toml(&e))?;
    let check = Check::new(&src);
    let Some(list) = &file.buttons else {
        return Err(src.error(
            None,
            "buttons",
            "no buttons: list each as a [[buttons]] table with y and z in metres (e.g. \
             `[[buttons]]` then `y = 0.1` and `z = -0.2`)",
        ));
    };
    let entries = list.get_ref();
    if entries.is_empty() || entries.len() > MAX_BUTTONS {
        return Err(check.at(
            list,
            "buttons",
            format!(
                "must list from 1 to {MAX_BUTTONS} buttons, got {}",
                entries.len()
            ),
        ));
    }
    entries
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let coordinate = |value: &Spanned<f64>, axis: &str| {
                check
                    .number_in(
                        value,
                        -MAX_BUTTON_OFFSET,
                        MAX_BUTTON_OFFSET,
                        &format!("buttons[{i}].{axis}"),
                        "metres from the shoulder along the wall",
                    )
                    .map(|v| v as f32)
            };
            Ok(Vec2::new(
                coordinate(&entry.y, "y")?,
                coordinate(&entry.z, "z")?,
            ))
        })
        .collect()
}

/// Reads and parses a button file.
pub fn load_buttons(path: &str) -> Result<Vec<Vec2>, ConfigError> {
    parse_buttons(path, &super::read_file(path)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buttons_are_read_in_order() {
        let text = "[[buttons]]\ny = 0.1\nz = -0.2\n\n[[buttons]]\ny = -0.05\nz = 0\n";
        let buttons = parse_buttons("b.toml", text).unwrap();
        assert_eq!(buttons, vec![Vec2::new(0.1, -0.2), Vec2::new(-0.05, 0.0)]);
    }

    #[test]
    fn a_coordinate_out_of_range_is_located_and_named() {
        let text = "[[buttons]]\ny = 0.1\nz = 0.2\n\n[[buttons]]\ny = 35\nz = 0.2\n";
        let err = parse_buttons("b.toml", text).unwrap_err();
        assert_eq!(
            err.to_string(),
            "b.toml:6:5: buttons[1].y: must be a number from -2 to 2 \
             (metres from the shoulder along the wall), got 35"
        );
    }

    #[test]
    fn missing_and_unknown_fields_are_refused() {
        let err = parse_buttons("b.toml", "[[buttons]]\ny = 0.1\n").unwrap_err();
        assert_eq!(err.line, Some(1), "{err}");
        assert!(err.message.contains("missing field `z`"), "{err}");
        // Which button: the header it is missing from names it.
        let text = "[[buttons]]\ny = 0.1\nz = 0\n[[buttons]]\ny = 0.2\n";
        let err = parse_buttons("b.toml", text).unwrap_err();
        assert_eq!(err.line, Some(4), "{err}");
        assert_eq!(err.field.as_deref(), Some("buttons[1]"), "{err}");
        let err = parse_buttons("b.toml", "[[buttons]]\ny = 0.1\nz = 0\nx = 1\n").unwrap_err();
        assert_eq!((err.line, err.column), (Some(4), Some(1)), "{err}");
        assert!(err.message.contains("unknown field `x`"), "{err}");
        let err = parse_buttons("b.toml", "[[buttons]]\ny = \"up\"\nz = 0\n").unwrap_err();
        assert_eq!(err.field.as_deref(), Some("buttons[0].y"), "{err}");
        assert_eq!(err.line, Some(2), "{err}");
    }

    #[test]
    fn a_file_without_buttons_says_how_to_write_one() {
        for text in ["", "# nothing\n", "buttons = []\n"] {
            let err = parse_buttons("b.toml", text).unwrap_err();
            assert!(err.to_string().contains("buttons"), "{err}");
        }
        let err = parse_buttons("b.toml", "").unwrap_err();
        assert!(err.message.contains("[[buttons]]"), "{err}");
    }
}

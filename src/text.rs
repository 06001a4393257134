//! Making text from outside (file names, field values, messages that echo
//! them) safe to print on a terminal.

/// The most characters of an echoed value worth printing: enough to
/// recognise it, short enough that a pasted file cannot flood the screen.
pub const VALUE_MAX_CHARS: usize = 80;

/// The most characters of a whole message (which may list valid values and
/// echo a value of up to [`VALUE_MAX_CHARS`]).
pub const MESSAGE_MAX_CHARS: usize = 400;

/// `text` made safe to print: every control character (and every invisible
/// character that reorders or hides text: bidirectional overrides, zero-width
/// marks) is escaped the way Rust writes it (`\u{1b}`, `\n`), so an input
/// cannot move the cursor, retitle the terminal or break a one-line message;
/// and the result is cut to at most `max_chars` characters plus `…` when longer.
///
/// Escapes are never split, so the cut may come a few characters early.
pub fn printable(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(4 * max_chars));
    let mut count = 0;
    for c in text.chars() {
        let piece_start = out.len();
        if hides_or_controls(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
        let piece = out[piece_start..].chars().count();
        if count + piece > max_chars {
            out.truncate(piece_start);
            out.push('…');
            return out;
        }
        count += piece;
    }
    out
}

/// Control characters, and format characters that change how the text
/// around them is shown.
fn hides_or_controls(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{200B}'..='\u{200F}' // zero-width space, joiners, direction marks
            | '\u{202A}'..='\u{202E}' // bidirectional embeddings and overrides
            | '\u{2066}'..='\u{2069}' // bidirectional isolates
            | '\u{FEFF}') // zero-width no-break space
}

/// `n` of `noun`, in the plural unless one: `1 step`, `3 steps`.
pub fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(
            printable("leg\u{1b}]0;pwned\u{7}", 80),
            "leg\\u{1b}]0;pwned\\u{7}"
        );
        assert_eq!(printable("a\nb\tc\r", 80), "a\\nb\\tc\\r");
        assert_eq!(printable("evil\u{202E}txt.exe", 80), "evil\\u{202e}txt.exe");
        // Printable text, including non-ASCII, is untouched.
        assert_eq!(printable("back_rihgt é ü 日本", 80), "back_rihgt é ü 日本");
        assert_eq!(printable("", 80), "");
    }

    #[test]
    fn long_text_is_cut_at_max_chars_with_an_ellipsis() {
        let long = "x".repeat(200);
        let cut = printable(&long, VALUE_MAX_CHARS);
        assert_eq!(cut, format!("{}…", "x".repeat(80)));
        assert_eq!(cut.chars().count(), 81);
        // Exactly at the limit: nothing cut.
        assert_eq!(printable(&"é".repeat(80), 80), "é".repeat(80));
        assert_eq!(
            printable(&"é".repeat(81), 80),
            format!("{}…", "é".repeat(80))
        );
        // An escape that would cross the limit is left out whole.
        assert_eq!(printable("abc\u{1b}", 8), "abc…");
        assert_eq!(printable("abc\u{1b}", 9), "abc\\u{1b}");
    }
}

//! Errors for bad input files: where (file, line, column), which field, what
//! is wrong and what would be valid.

use std::fmt;
use std::ops::Range;

/// A problem with an input file, precise enough to fix without guessing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ConfigError {
    /// The file, as the user named it (or `<built-in NAME>`).
    pub file: String,
    /// 1-based line, where known.
    pub line: Option<usize>,
    /// 1-based column (in characters), where known.
    pub column: Option<usize>,
    /// The field at fault (e.g. `legs[2].bones`), where known.
    pub field: Option<String>,
    /// What is wrong, and what would be valid.
    pub message: String,
    /// The file's further errors, after this one in file order, so one run
    /// of `check` shows everything to fix (each has no `more` of its own).
    /// Boxed so a single error stays small to pass around.
    pub more: Box<[ConfigError]>,
}

impl ConfigError {
    /// An error about the whole of `file` (no line, column or field).
    pub fn whole_file(file: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError {
            file: file.into(),
            line: None,
            column: None,
            field: None,
            message: message.into(),
            more: Box::default(),
        }
    }

    /// This error and the further ones in the same file, in file order, each
    /// shown on its own (without `more`).
    pub fn all(&self) -> impl Iterator<Item = &ConfigError> {
        std::iter::once(self).chain(self.more.iter())
    }

    /// Each error (this one, then `more`) shown on a line of its own.
    pub fn lines(&self) -> Vec<String> {
        self.all().map(|e| OneLine(e).to_string()).collect()
    }

    /// How many errors this holds (itself and `more`).
    pub fn count(&self) -> usize {
        1 + self.more.len()
    }

    /// One error holding `errors` in file order (errors without a line after
    /// those with one; repeats dropped), or `None` if there are none.
    pub fn combine(errors: Vec<ConfigError>) -> Option<ConfigError> {
        let mut flat: Vec<ConfigError> = Vec::new();
        for mut error in errors {
            let more = std::mem::take(&mut error.more);
            for e in std::iter::once(error).chain(more.into_vec()) {
                if !flat.contains(&e) {
                    flat.push(e);
                }
            }
        }
        // A stable sort keeps errors at one spot in the order they were found.
        flat.sort_by_key(|e| (e.line.is_none(), e.line, e.column));
        let mut flat = flat.into_iter();
        let mut first = flat.next()?;
        first.more = flat.collect();
        Some(first)
    }
}

/// Collects a file's errors as validation goes on, so independent problems
/// are all reported, not only the first.
#[derive(Debug, Default)]
pub(crate) struct Errors {
    list: Vec<ConfigError>,
}

impl Errors {
    /// Records `error` (with any errors it carries).
    pub fn push(&mut self, error: ConfigError) {
        self.list.push(error);
    }

    /// Whether an error about `field` is recorded already.
    pub fn names(&self, field: &str) -> bool {
        self.list.iter().any(|e| e.field.as_deref() == Some(field))
    }

    /// How many errors are recorded so far.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// The value of `result`, or `None` with its error recorded.
    pub fn ok<T>(&mut self, result: Result<T, ConfigError>) -> Option<T> {
        result.map_err(|e| self.push(e)).ok()
    }

    /// `Err` with everything recorded so far (which is then cleared), if
    /// anything was; `Ok` otherwise. A checkpoint before checks that need
    /// everything before them sound.
    pub fn finish(&mut self) -> Result<(), ConfigError> {
        match ConfigError::combine(std::mem::take(&mut self.list)) {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// Everything recorded, as one error. Called where validation stops
    /// because a value is missing, which only happens after its error was
    /// recorded; should that ever not hold, the file is still refused, with
    /// a message saying validation stopped, rather than accepted or panicking.
    pub fn fail(self, file: &str) -> ConfigError {
        ConfigError::combine(self.list).unwrap_or_else(|| {
            ConfigError::whole_file(file, "validation stopped without naming a problem")
        })
    }
}

impl fmt::Display for ConfigError {
    /// `file:line:column: field: message`, every part that may echo input
    /// made printable (control characters escaped, long values cut); each
    /// further error follows on a line of its own.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_one(f)?;
        for error in self.more.iter() {
            f.write_str("\n")?;
            error.fmt_one(f)?;
        }
        Ok(())
    }
}

/// One error without its `more`.
struct OneLine<'a>(&'a ConfigError);

impl fmt::Display for OneLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_one(f)
    }
}

impl ConfigError {
    /// This error alone, on one line.
    fn fmt_one(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::text::{MESSAGE_MAX_CHARS, VALUE_MAX_CHARS, printable};
        f.write_str(&printable(&self.file, VALUE_MAX_CHARS))?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        f.write_str(": ")?;
        if let Some(field) = &self.field {
            write!(f, "{}: ", printable(field, VALUE_MAX_CHARS))?;
        }
        f.write_str(&printable(&self.message, MESSAGE_MAX_CHARS))
    }
}

/// A value that works but probably not as its author expects: located like
/// an error, shown as `warning FILE:LINE:COL: field: message`, never fatal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning(pub ConfigError);

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "warning {}", self.0)
    }
}

/// A file's text with its display name: turns byte spans into line and column.
#[derive(Debug, Clone)]
pub struct Source<'a> {
    /// Display name.
    pub name: &'a str,
    /// Full text.
    pub text: &'a str,
}

impl<'a> Source<'a> {
    /// A source named `name` holding `text`.
    pub fn new(name: &'a str, text: &'a str) -> Self {
        Source { name, text }
    }

    /// 1-based line and column of byte offset `offset`.
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let before = &self.text[..floor_char_boundary(self.text, offset)];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        (line, column)
    }

    /// An error located at `span`, about `field`.
    pub fn error(
        &self,
        span: Option<Range<usize>>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> ConfigError {
        let (line, column) = match span {
            Some(span) => {
                let (line, column) = self.line_column(span.start);
                (Some(line), Some(column))
            }
            None => (None, None),
        };
        let field = field.into();
        ConfigError {
            file: self.name.to_string(),
            line,
            column,
            field: (!field.is_empty()).then_some(field),
            message: message.into(),
            more: Box::default(),
        }
    }

    /// A TOML syntax or type error, with the field recovered from the source
    /// (serde's messages name the problem but not the key path).
    pub fn from_toml(&self, err: &toml::de::Error) -> ConfigError {
        let span = err.span();
        let field = span
            .as_ref()
            .map(|s| self.field_at(s.start))
            .unwrap_or_default();
        let mut message = plain_types(err.message().trim());
        if message == "floating-point number overflowed" {
            // TOML refuses it before the field's own check, which says what
            // would do; it had no range at all.
            message.push_str(
                ": a number past ±1.8e308 is no field's value; give one in the field's range \
                 (`skitter check` names it once the number is finite)",
            );
        }
        // Only a header TOML refused as a duplicate: a missing field is
        // also reported at its table's header, and the hint misled there.
        let duplicate = message.starts_with("duplicate");
        if let Some(hint) = span
            .as_ref()
            .filter(|_| duplicate)
            .and_then(|s| self.table_hint(s.start))
        {
            message = format!("{message}: {hint}");
        }
        self.error(span, field, message)
    }

    /// Every syntax error TOML reported (`errors`, from a recovering
    /// parse), unless one array or inline table was left open: then the
    /// parser reads the lines after it as more of its elements and reports
    /// a cascade of errors there (61 for one missing `]`, the first on the
    /// next line, under the next key's name). That case is one error at
    /// the bracket left open, saying where it should have closed, after
    /// any errors before it; the cascade is counted, not listed.
    pub fn syntax_errors(&self, errors: &[toml::de::Error]) -> Vec<ConfigError> {
        // (A file that parsed is not scanned: every load of a good file
        // comes through here.)
        if errors.is_empty() {
            return Vec::new();
        }
        let start = |e: &toml::de::Error| e.span().map_or(usize::MAX, |s| s.start);
        let open = self
            .unclosed_bracket()
            .filter(|open| errors.iter().any(|e| start(e) >= open.next_line));
        let Some(open) = open else {
            return self.without_follow_ons(errors.iter().map(|e| self.from_toml(e)).collect());
        };
        let cascade = errors.iter().filter(|e| start(e) >= open.next_line).count();
        let mut found: Vec<ConfigError> = errors
            .iter()
            .filter(|e| start(e) < open.opener)
            .map(|e| self.from_toml(e))
            .collect();
        let (line, _) = self.line_column(open.next_line);
        let next = self.text[open.next_line..].lines().next().unwrap_or("");
        let next = next.split('#').next().unwrap_or("").trim();
        let (closer, what) = if open.bracket == '[' {
            (']', "array")
        } else {
            ('}', "inline table")
        };
        let mut message = format!(
            "this `{}` opens an {what} that is never closed: add `{closer}` before line {line} (`{}`)",
            open.bracket,
            crate::text::printable(next, crate::text::VALUE_MAX_CHARS),
        );
        if cascade > 1 {
            message.push_str(&format!(
                "; the {cascade} syntax errors the lines after it gave follow from it and are not listed"
            ));
        }
        found.push(self.error(
            Some(open.opener..open.opener + 1),
            self.field_at(open.opener),
            message,
        ));
        found
    }

    /// `found` without the errors a table written twice brings after it:
    /// TOML refuses the second header, then every key under it as a
    /// duplicate of the first table's (six more lines for a `[legs]`
    /// written where `[[legs]]` was meant). The header's error, which says
    /// what to write, counts them instead.
    fn without_follow_ons(&self, found: Vec<ConfigError>) -> Vec<ConfigError> {
        let mut kept: Vec<ConfigError> = Vec::with_capacity(found.len());
        // The table whose second header was refused: its name, where its
        // error is in `kept`, and how many keys followed it.
        let mut twice: Option<(String, usize, usize)> = None;
        for error in found {
            let follows = twice.as_ref().is_some_and(|(table, _, _)| {
                error.message == "duplicate key"
                    && error
                        .field
                        .as_deref()
                        .and_then(|f| f.strip_prefix(table.as_str()))
                        .is_some_and(|rest| rest.starts_with('.'))
            });
            if follows {
                if let Some((_, _, count)) = twice.as_mut() {
                    *count += 1;
                }
                continue;
            }
            if let Some((_, at, count)) = twice.take() {
                note_follow_ons(&mut kept[at], count);
            }
            if error.message.starts_with("duplicate key: ")
                && let Some(table) = error.line.and_then(|line| self.header_on(line))
            {
                twice = Some((table, kept.len(), 0));
            }
            kept.push(error);
        }
        if let Some((_, at, count)) = twice {
            note_follow_ons(&mut kept[at], count);
        }
        kept
    }

    /// The table a header on line `line` (1-based) names, `[name]` or
    /// `[[name]]`.
    fn header_on(&self, line: usize) -> Option<String> {
        let text = self.text.lines().nth(line.checked_sub(1)?)?;
        table_header(text).map(|(name, _)| name.to_string())
    }

    /// The array or inline table still open when a line that can only
    /// start a new entry begins (`key = …` or a table header): where its
    /// bracket is, and where that line starts. Strings and comments are
    /// skipped; an array may rightly run over several lines.
    fn unclosed_bracket(&self) -> Option<Unclosed> {
        let text = self.text;
        let bytes = text.as_bytes();
        let mut open: Vec<(usize, char)> = Vec::new();
        let mut i = 0;
        let mut line_start = true;
        while i < bytes.len() {
            if line_start {
                line_start = false;
                let line_end = text[i..].find('\n').map_or(text.len(), |k| i + k);
                let line = &text[i..line_end];
                // (An inline table may hold keys on lines of its own.)
                if let Some(&(opener, bracket)) = open.last()
                    && starts_an_entry(line, bracket == '[')
                {
                    return Some(Unclosed {
                        opener,
                        bracket,
                        next_line: i,
                    });
                }
                // A header outside any value: not a bracket of a value.
                if open.is_empty() && line.trim_start().starts_with('[') {
                    i = line_end;
                    continue;
                }
            }
            match bytes[i] {
                b'\n' => line_start = true,
                b'#' => {
                    i = text[i..].find('\n').map_or(text.len(), |k| i + k);
                    continue;
                }
                quote @ (b'"' | b'\'') => {
                    i = string_end(text, i, quote);
                    continue;
                }
                b'[' => open.push((i, '[')),
                b'{' => open.push((i, '{')),
                b']' | b'}' => {
                    open.pop();
                }
                _ => {}
            }
            i += 1;
        }
        None
    }

    /// What a table header at `offset` that TOML refused most likely meant:
    /// `[legs]` written for one of the `[[legs]]` entries, or a table
    /// written twice where a list of them was meant.
    fn table_hint(&self, offset: usize) -> Option<String> {
        let offset = floor_char_boundary(self.text, offset.min(self.text.len()));
        let line_start = self.text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let (name, _) = table_header(self.text[line_start..].lines().next()?)?;
        let list = format!("[[{name}]]");
        let single_at = self
            .text
            .lines()
            .position(|l| table_header(l) == Some((name, false)));
        let listed = self
            .text
            .lines()
            .any(|l| table_header(l) == Some((name, true)));
        Some(match (single_at, listed) {
            (Some(at), true) => format!(
                "`[{name}]` on line {} names one table, but `{list}` makes `{name}` a \
                 list; start every entry with `{list}`",
                at + 1
            ),
            (Some(_), false) => {
                format!("a table is written once; for several, start each with `{list}`")
            }
            (None, _) => return None,
        })
    }

    /// Best-effort key path of the line containing `offset`: the enclosing
    /// table header plus the key on that line.
    fn field_at(&self, offset: usize) -> String {
        let offset = floor_char_boundary(self.text, offset.min(self.text.len()));
        let line_start = self.text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let line_end = self.text[offset..]
            .find('\n')
            .map_or(self.text.len(), |i| offset + i);
        let line = &self.text[line_start..line_end];
        let key = line
            .split_once('=')
            .map(|(k, _)| k.trim().trim_matches('"').to_string())
            .filter(|k| !k.is_empty() && !k.starts_with('['));
        let headers: Vec<(&str, bool)> = self.text[..line_start]
            .lines()
            .filter_map(table_header)
            .collect();
        // An array of tables (`[[legs]]`) is named with its entry's index,
        // as the validation's own errors name it (`legs[2]`).
        let header = headers.last().map(|&(name, list)| {
            if list {
                let index = headers.iter().filter(|h| **h == (name, true)).count() - 1;
                format!("{name}[{index}]")
            } else {
                name.to_string()
            }
        });
        // On a header line itself, the table it starts (a field missing
        // from `[[buttons]]` is reported there: it was named nothing).
        if let Some((name, list)) = table_header(line) {
            return if list {
                let index = headers.iter().filter(|h| **h == (name, true)).count();
                format!("{name}[{index}]")
            } else {
                name.to_string()
            };
        }
        match (header, key) {
            (Some(h), Some(k)) => format!("{h}.{k}"),
            (None, Some(k)) => k,
            (Some(h), None) => h,
            (None, None) => String::new(),
        }
    }
}

/// A bracket left open (see [`Source::unclosed_bracket`]).
struct Unclosed {
    /// Byte offset of the `[` or `{`.
    opener: usize,
    /// Which bracket.
    bracket: char,
    /// Byte offset of the line that shows it was left open.
    next_line: usize,
}

/// Whether `line` can only begin a new entry, never continue an array: a
/// table header naming a table, or (`keys`) a key and `=` (an array's
/// element on a line of its own is a value: a number, a string, a nested
/// array of values, never a bare word).
fn starts_an_entry(line: &str, keys: bool) -> bool {
    let line = line.split('#').next().unwrap_or("").trim();
    let bare = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ' '))
            && s.trim()
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
    };
    if let Some((key, _)) = line.split_once('=').filter(|_| keys) {
        let key = key.trim();
        let quoted = key.len() >= 2 && key.starts_with('"') && key.ends_with('"');
        return bare(key) || quoted;
    }
    let header = line
        .strip_prefix("[[")
        .and_then(|l| l.strip_suffix("]]"))
        .or_else(|| line.strip_prefix('[').and_then(|l| l.strip_suffix(']')));
    header.is_some_and(bare)
}

/// The byte offset just past the string that opens at `start` with
/// `quote` (basic `"` with escapes, literal `'`, or either tripled for a
/// multi-line string); the end of the line (or text) if it never closes.
fn string_end(text: &str, start: usize, quote: u8) -> usize {
    let bytes = text.as_bytes();
    let triple = bytes.get(start..start + 3) == Some(&[quote; 3]);
    let mut i = start + if triple { 3 } else { 1 };
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == b'"' => i += 1,
            b'\n' if !triple => return i,
            b if b == quote => {
                if !triple {
                    return i + 1;
                }
                if bytes.get(i..i + 3) == Some(&[quote; 3]) {
                    return i + 3;
                }
            }
            _ => {}
        }
        i += 1;
    }
    text.len()
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// `message` with the Rust type names serde's errors end in (`expected
/// f32`) said in the words a file's author knows.
fn plain_types(message: &str) -> String {
    const PLAIN: [(&str, &str); 9] = [
        ("expected f32", "expected a number"),
        ("expected f64", "expected a number"),
        ("expected u8", "expected a whole number"),
        ("expected u16", "expected a whole number"),
        ("expected u32", "expected a whole number"),
        ("expected u64", "expected a whole number"),
        ("expected usize", "expected a whole number"),
        ("expected i64", "expected a whole number"),
        ("expected a boolean", "expected true or false"),
    ];
    let mut plain = message.to_string();
    // A section given as a value (`body = 3`): serde names the loader's
    // own type (`expected struct BodyFile`), which means nothing in a file.
    if let Some(at) = plain.rfind("expected struct ") {
        let name_end = plain[at + "expected struct ".len()..]
            .find(|c: char| !c.is_alphanumeric() && c != '_')
            .map_or(plain.len(), |end| at + "expected struct ".len() + end);
        plain.replace_range(at..name_end, "expected a table of fields");
    }
    for (rust, words) in PLAIN {
        if let Some(at) = plain.rfind(rust)
            && plain[at + rust.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric())
        {
            plain.replace_range(at..at + rust.len(), words);
        }
    }
    plain
}

/// The table a header line names and whether it is an entry of a list
/// (`[[legs]]`), with any comment after it left out (`[gait] # slow`);
/// `None` for any other line.
fn table_header(line: &str) -> Option<(&str, bool)> {
    let line = line.split('#').next()?.trim();
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    Some(
        match inner.strip_prefix('[').and_then(|i| i.strip_suffix(']')) {
            Some(name) => (name.trim(), true),
            None => (inner.trim(), false),
        },
    )
}

/// Adds to a table header's error how many duplicate keys under it were
/// left out (see `Source::without_follow_ons`).
fn note_follow_ons(error: &mut ConfigError, count: usize) {
    match count {
        0 => {}
        1 => error.message.push_str(
            "; the duplicate-key error of the key under it follows from it and is not listed",
        ),
        _ => error.message.push_str(&format!(
            "; the {count} duplicate-key errors of the keys under it follow from it and are not listed"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_errors_name_types_in_plain_words() {
        assert_eq!(
            plain_types("invalid type: integer `3`, expected struct BodyFile"),
            "invalid type: integer `3`, expected a table of fields"
        );
        assert_eq!(
            plain_types("invalid type: string \"x\", expected struct GaitFile for key"),
            "invalid type: string \"x\", expected a table of fields for key"
        );
        assert_eq!(
            plain_types("invalid type: string \"tall\", expected f32"),
            "invalid type: string \"tall\", expected a number"
        );
        assert_eq!(
            plain_types("invalid type: floating point `1.5`, expected u32"),
            "invalid type: floating point `1.5`, expected a whole number"
        );
        assert_eq!(
            plain_types("invalid type: integer `1`, expected a boolean"),
            "invalid type: integer `1`, expected true or false"
        );
        // Only the type names themselves.
        let message = "invalid length 2, expected an array of length 3";
        assert_eq!(plain_types(message), message);
        assert_eq!(plain_types("expected f32s"), "expected f32s");
    }

    #[test]
    fn line_and_column_are_one_based_and_count_characters() {
        let src = Source::new("f.toml", "a = 1\nbé = 2\n");
        assert_eq!(src.line_column(0), (1, 1));
        assert_eq!(src.line_column(6), (2, 1));
        // The second '=' follows the two-byte 'é': column counts characters, not bytes.
        assert_eq!(src.line_column(src.text.rfind('=').unwrap()), (2, 4));
    }

    #[test]
    fn display_names_file_line_column_and_field() {
        let src = Source::new("creatures/x.toml", "[body]\nspeed = -1\n");
        let err = src.error(Some(15..17), "body.speed", "must be positive");
        assert_eq!(
            err.to_string(),
            "creatures/x.toml:2:9: body.speed: must be positive"
        );
        let err = src.error(None, "", "cannot read");
        assert_eq!(err.to_string(), "creatures/x.toml: cannot read");
    }

    #[test]
    fn display_escapes_control_characters_and_cuts_long_values() {
        let err = ConfigError {
            file: "x\u{1b}]0;title\u{7}.toml".into(),
            line: Some(3),
            column: Some(1),
            field: Some(format!("legs[0].{}", "n".repeat(100))),
            message: "unknown leg `\u{1b}]0;owned\u{7}`\nnext line".into(),
            more: Box::default(),
        };
        let shown = err.to_string();
        assert!(!shown.chars().any(char::is_control), "{shown:?}");
        assert_eq!(
            shown,
            format!(
                "x\\u{{1b}}]0;title\\u{{7}}.toml:3:1: legs[0].{}…: \
                 unknown leg `\\u{{1b}}]0;owned\\u{{7}}`\\nnext line",
                "n".repeat(72)
            )
        );
    }

    /// Brackets inside every kind of string, and in comments, open
    /// nothing; one left open in a value is found at its line's next entry.
    #[test]
    fn only_brackets_outside_strings_and_comments_are_left_open() {
        let text = "a = \"x [ \\\" [\"\nb = 'y ['\nc = \"\"\"\n[ \"\" [\n\"\"\"\n\
                    d = '\'\'[\n\'\'\'\n# [ comment\n[table]\ne = [1,\n  2]\n";
        toml::from_str::<toml::Table>(text).expect("the fixture is valid TOML");
        let src = Source::new("t.toml", text);
        assert!(src.unclosed_bracket().is_none(), "{text}");
        let text = format!("{text}f = [1, 2\ng = 3\n");
        let src = Source::new("t.toml", &text);
        let open = src.unclosed_bracket().expect("f's array is left open");
        assert_eq!(open.opener, text.find("[1, 2\n").unwrap());
        assert_eq!(open.next_line, text.find("g = 3").unwrap());
        assert_eq!(open.bracket, '[');
    }

    #[test]
    fn toml_errors_recover_the_field() {
        let text = "[body]\nspeed = \"fast\"\n";
        let err = toml::from_str::<toml::Table>("x = ").unwrap_err();
        let src = Source::new("t.toml", "x = ");
        assert_eq!(src.from_toml(&err).line, Some(1));
        let src = Source::new("t.toml", text);
        assert_eq!(src.field_at(text.find("fast").unwrap()), "body.speed");
    }
}

//! Field checks shared by every file kind: each failure names the field, says
//! what was given and what would be valid, and points at the value's span.

use std::ops::Range;

use glam::Vec3;
use serde::Deserialize;
use toml::Spanned;
use toml::de::{DeTable, DeValue, ValueDeserializer};

use super::error::{ConfigError, Errors, Source};

/// Where element `index` of the flat array of numbers spanning `array` in
/// `text` is: its characters between commas, blanks and comments left
/// out. `None` when the span is not such an array or is shorter.
fn element_span(text: &str, array: Range<usize>, index: usize) -> Option<Range<usize>> {
    let inner = text.get(array.clone())?.strip_prefix('[')?;
    let start = array.start + 1;
    let mut offset = 0;
    for (k, piece) in inner.split(',').enumerate() {
        if k == index {
            // The element is the piece's first token: before a `]`, a
            // comment or a line break.
            let lead = piece.len() - piece.trim_start().len();
            let token = piece.trim_start();
            let end = token
                .find(|c: char| c.is_whitespace() || c == ']' || c == '#')
                .unwrap_or(token.len());
            if end == 0 || token.starts_with('[') {
                return None;
            }
            let from = start + offset + lead;
            return Some(from..from + end);
        }
        // A comment may hold commas: give up rather than miscount.
        if piece.contains('#') {
            return None;
        }
        offset += piece.len() + 1;
    }
    None
}

/// Validates spanned values against one source.
pub(super) struct Check<'a> {
    pub src: &'a Source<'a>,
}

impl<'a> Check<'a> {
    pub fn new(src: &'a Source<'a>) -> Self {
        Check { src }
    }

    /// An error pointing at `value`.
    pub fn at<T>(
        &self,
        value: &Spanned<T>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> ConfigError {
        self.src.error(Some(value.span()), field, message)
    }

    /// An error pointing at element `index` of the array `value` (its
    /// number, not the array's `[`), or at the array if the element
    /// cannot be found in the text.
    pub fn at_element<T>(
        &self,
        value: &Spanned<Vec<T>>,
        index: usize,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> ConfigError {
        let span = element_span(self.src.text, value.span(), index).unwrap_or(value.span());
        self.src.error(Some(span), field, message)
    }

    /// An error pointing at `value` if there is one, at the file otherwise.
    pub fn at_opt<T>(
        &self,
        value: Option<&Spanned<T>>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> ConfigError {
        self.src.error(value.map(Spanned::span), field, message)
    }

    /// A finite number greater than zero.
    pub fn positive(
        &self,
        value: &Spanned<f32>,
        field: &str,
        unit: &str,
    ) -> Result<f32, ConfigError> {
        self.finite_where(
            value,
            field,
            |v| v > 0.0,
            &format!("must be a positive number ({unit})"),
        )
    }

    /// A finite number in `lo..=hi`.
    pub fn within(
        &self,
        value: &Spanned<f32>,
        (lo, hi): (f32, f32),
        field: &str,
        unit: &str,
    ) -> Result<f32, ConfigError> {
        self.finite_where(
            value,
            field,
            |v| (lo..=hi).contains(&v),
            &format!("must be a number from {lo} to {hi} ({unit})"),
        )
    }

    /// A finite number zero or greater.
    pub fn non_negative(
        &self,
        value: &Spanned<f32>,
        field: &str,
        unit: &str,
    ) -> Result<f32, ConfigError> {
        self.finite_where(
            value,
            field,
            |v| v >= 0.0,
            &format!("must be zero or a positive number ({unit})"),
        )
    }

    fn finite_where(
        &self,
        value: &Spanned<f32>,
        field: &str,
        valid: impl Fn(f32) -> bool,
        requirement: &str,
    ) -> Result<f32, ConfigError> {
        let v = *value.get_ref();
        if v.is_finite() && valid(v) {
            Ok(v)
        } else if v.is_infinite()
            && let Some(written) = self.src.text.get(value.span())
            && written.trim().trim_start_matches(['+', '-']) != "inf"
        {
            // Past f32's range (`1e300`): say what was written, not `inf`.
            Err(self.at(
                value,
                field,
                format!(
                    "{requirement}, got {}, too large (at most about 3.4e38)",
                    written.trim()
                ),
            ))
        } else {
            Err(self.at(
                value,
                field,
                format!("{requirement}, got {}", Number(f64::from(v))),
            ))
        }
    }

    /// An optional positive number with a default.
    pub fn positive_or(
        &self,
        value: Option<&Spanned<f32>>,
        default: f32,
        field: &str,
        unit: &str,
    ) -> Result<f32, ConfigError> {
        value.map_or(Ok(default), |v| self.positive(v, field, unit))
    }

    /// An integer in `lo..=hi`.
    pub fn int_in(
        &self,
        value: &Spanned<i64>,
        lo: i64,
        hi: i64,
        field: &str,
    ) -> Result<i64, ConfigError> {
        let v = *value.get_ref();
        if (lo..=hi).contains(&v) {
            Ok(v)
        } else {
            Err(self.at(
                value,
                field,
                format!("must be a whole number from {lo} to {hi}, got {v}"),
            ))
        }
    }

    /// A finite number in `lo..=hi`.
    pub fn number_in(
        &self,
        value: &Spanned<f64>,
        lo: f64,
        hi: f64,
        field: &str,
        unit: &str,
    ) -> Result<f64, ConfigError> {
        let v = *value.get_ref();
        if v.is_finite() && (lo..=hi).contains(&v) {
            Ok(v)
        } else {
            Err(self.at(
                value,
                field,
                format!(
                    "must be a number from {lo} to {hi} ({unit}), got {}",
                    Number(v)
                ),
            ))
        }
    }
}

/// A TOML array of exactly `N` numbers (a point, a size, an offset).
/// Read as a plain `[T; N]`, serde takes the first `N` elements and drops
/// the rest, so `mount = [0.1, 0.0, -0.1, 7.0]` passed as `[0.1, 0.0,
/// -0.1]`: any other length is refused here, at the array.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Exactly<const N: usize, T>(pub [T; N]);

impl<'de, const N: usize, T: Deserialize<'de> + Copy + Default> Deserialize<'de> for Exactly<N, T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor<const N: usize, T>(std::marker::PhantomData<T>);
        impl<'de, const N: usize, T: Deserialize<'de> + Copy + Default> serde::de::Visitor<'de>
            for Visitor<N, T>
        {
            type Value = Exactly<N, T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "an array of {N} numbers")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                seq: A,
            ) -> Result<Self::Value, A::Error> {
                exactly(seq, &self).map(Exactly)
            }
        }
        deserializer.deserialize_seq(Visitor(std::marker::PhantomData))
    }
}

/// The `N` elements of `seq`, refused as `expected` (by its length) when it
/// holds fewer or more.
pub(super) fn exactly<'de, const N: usize, T, A>(
    mut seq: A,
    expected: &dyn serde::de::Expected,
) -> Result<[T; N], A::Error>
where
    T: Deserialize<'de> + Copy + Default,
    A: serde::de::SeqAccess<'de>,
{
    use serde::de::Error;
    let mut values = [T::default(); N];
    for (i, slot) in values.iter_mut().enumerate() {
        *slot = seq
            .next_element()?
            .ok_or_else(|| A::Error::invalid_length(i, expected))?;
    }
    let mut length = N;
    while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
        length += 1;
    }
    if length > N {
        return Err(A::Error::invalid_length(length, expected));
    }
    Ok(values)
}

/// A vector whose three components are finite.
pub(super) fn finite_vec3(
    check: &Check<'_>,
    value: &Spanned<Exactly<3, f32>>,
    field: &str,
) -> Result<Vec3, ConfigError> {
    let v = Vec3::from_array(value.get_ref().0);
    if v.is_finite() {
        Ok(v)
    } else {
        Err(check.at(
            value,
            field,
            format!(
                "must be three finite numbers [x, y, z] in metres, got {}",
                Numbers(&v.as_dvec3().to_array())
            ),
        ))
    }
}

/// Where an error about a missing top-level key points: line 1, column 1.
const FILE_START: Range<usize> = 0..0;

/// A TOML document's top-level table, read so that every problem in it can
/// be reported: syntax errors all at once (the parser recovers), then each
/// section deserialized on its own, so a type error in one leg does not hide
/// one in the next.
pub(super) struct Document<'i> {
    table: DeTable<'i>,
    /// Keys taken so far; whatever is left at the end is unknown.
    taken: Vec<&'static str>,
}

impl<'i> Document<'i> {
    /// Parses `src`, or fails with every syntax error in it.
    pub fn parse(src: &Source<'i>) -> Result<Document<'i>, ConfigError> {
        let (table, syntax) = DeTable::parse_recoverable(src.text);
        if let Some(error) = ConfigError::combine(src.syntax_errors(&syntax)) {
            return Err(error);
        }
        Ok(Document {
            table: table.into_inner(),
            taken: Vec::new(),
        })
    }

    /// Whether the document has a top-level `key`.
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    fn get(&self, key: &str) -> Option<&Spanned<DeValue<'i>>> {
        value_in(&self.table, key)
    }

    /// The section `key` if present (`Some(None)` if absent), or `None` with
    /// its errors recorded.
    pub fn optional<T: Deserialize<'i>>(
        &mut self,
        src: &Source<'_>,
        key: &'static str,
        errors: &mut Errors,
    ) -> Option<Option<T>> {
        self.taken.push(key);
        match self.get(key) {
            None => Some(None),
            Some(value) => deserialize(src, key, value.clone(), errors).map(Some),
        }
    }

    /// The section `key`, or `None` with an error recorded (missing, or
    /// its own errors). A missing one is placed at the file's start, where
    /// top-level keys go; `needed` says which files need it (`every
    /// creature file needs it`), and may say more.
    pub fn required<T: Deserialize<'i>>(
        &mut self,
        src: &Source<'_>,
        key: &'static str,
        needed: &str,
        errors: &mut Errors,
    ) -> Option<T> {
        match self.optional(src, key, errors)? {
            Some(value) => Some(value),
            None => {
                errors.push(src.error(
                    Some(FILE_START),
                    key,
                    format!("missing field `{key}`; {needed}"),
                ));
                None
            }
        }
    }

    /// [`Document::required_array`] for an array a file may leave out:
    /// `None` when it is absent (still one of the keys an unknown one is
    /// told it could be: a misspelt `[[shape]]` was offered every key but
    /// `shapes`).
    #[allow(clippy::type_complexity)]
    pub fn optional_array<T: Deserialize<'i>>(
        &mut self,
        src: &Source<'_>,
        key: &'static str,
        errors: &mut Errors,
    ) -> Option<(Range<usize>, Vec<Option<Spanned<T>>>)> {
        if self.has(key) {
            self.required_array(src, key, errors)
        } else {
            self.taken.push(key);
            None
        }
    }

    /// The array of tables `key` (its span and each entry, `None` for an
    /// entry with errors, which are recorded), or `None` if it is missing or
    /// not an array.
    #[allow(clippy::type_complexity)]
    pub fn required_array<T: Deserialize<'i>>(
        &mut self,
        src: &Source<'_>,
        key: &'static str,
        errors: &mut Errors,
    ) -> Option<(Range<usize>, Vec<Option<Spanned<T>>>)> {
        self.taken.push(key);
        let Some(value) = self.get(key) else {
            errors.push(src.error(
                Some(FILE_START),
                key,
                format!("missing field `{key}`; add at least one [[{key}]] table"),
            ));
            return None;
        };
        let DeValue::Array(items) = value.get_ref() else {
            errors.push(src.error(
                Some(value.span()),
                key,
                format!("must be an array of tables ([[{key}]] sections)"),
            ));
            return None;
        };
        let entries = items
            .iter()
            .enumerate()
            .map(|(i, item)| deserialize(src, &format!("{key}[{i}]"), item.clone(), errors))
            .collect();
        Some((value.span(), entries))
    }

    /// Where the value at `path` (table keys from the top, e.g. `["body",
    /// "speed"]`) is in the text, if the document has it.
    pub fn span_of(&self, path: &[&str]) -> Option<Range<usize>> {
        let (first, rest) = path.split_first()?;
        let mut value = self.get(first)?;
        for key in rest {
            let DeValue::Table(table) = value.get_ref() else {
                return None;
            };
            value = value_in(table, key)?;
        }
        Some(value.span())
    }

    /// The `[[legs]]` table that gives leg `name` (its own, or its twin's
    /// through `mirror`): its index, and where its `key` is in the text.
    pub fn leg_key_span(&self, name: &str, key: &str) -> Option<(usize, Range<usize>)> {
        let DeValue::Array(legs) = self.get("legs")?.get_ref() else {
            return None;
        };
        legs.iter().enumerate().find_map(|(index, leg)| {
            let DeValue::Table(table) = leg.get_ref() else {
                return None;
            };
            let names = |wanted: &str| {
                value_in(table, wanted).is_some_and(
                    |v| matches!(v.get_ref(), DeValue::String(s) if s.as_ref() == name),
                )
            };
            (names("name") || names("mirror"))
                .then(|| value_in(table, key).map(|v| (index, v.span())))
                .flatten()
        })
    }

    /// Records an error for every top-level key no section took.
    pub fn refuse_unknown(&self, src: &Source<'_>, kind: super::SchemaKind, errors: &mut Errors) {
        let expected = self
            .taken
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ");
        for (key, _) in self.table.iter() {
            let name = key.get_ref().as_ref();
            if !self.taken.contains(&name) {
                // A table's field written above the table (or before any
                // table header) reads as the top level's.
                let home = super::table_holding(kind, name)
                    .map(|table| {
                        format!("; `{name}` is a field of {table}: write it under that header")
                    })
                    .unwrap_or_default();
                errors.push(src.error(
                    Some(key.span()),
                    name,
                    format!("unknown field `{name}`, expected one of {expected}{home}"),
                ));
            }
        }
    }
}

/// The value of `key` in `table`, with its place in the text.
fn value_in<'t, 'i>(table: &'t DeTable<'i>, key: &str) -> Option<&'t Spanned<DeValue<'i>>> {
    table
        .iter()
        .find(|(k, _)| k.get_ref().as_ref() == key)
        .map(|(_, v)| v)
}

/// Most keys of one table dropped while looking for its further errors.
const MAX_RETRIES: usize = 64;

/// Deserializes one value of the document, spans kept, recording every
/// error in it: after an error inside a table, the key at fault is dropped
/// and the table read again, so a type error in one field does not hide one
/// in the next; what is left is returned so its values are still checked
/// (the errors recorded refuse the file). `field` is the value's path. The
/// errors name every bad key (a missing field after a dropped key is not reported: it is
/// almost always the dropped key itself).
fn deserialize<'i, T: Deserialize<'i>>(
    src: &Source<'_>,
    field: &str,
    mut value: Spanned<DeValue<'i>>,
    errors: &mut Errors,
) -> Option<T> {
    let mut dropped: Vec<String> = Vec::new();
    for _ in 0..MAX_RETRIES {
        let error = match T::deserialize(ValueDeserializer::from(value.clone())) {
            // With keys dropped, the errors recorded refuse the file; the
            // rest of the table is still returned so its values get checked.
            Ok(parsed) => return Some(parsed),
            Err(error) => error,
        };
        // Once a key was dropped, a missing field is most likely that key
        // (dropped for its type, or misspelt as the unknown one): saying so
        // again would only echo the error already recorded.
        if !dropped.is_empty() && error.message().starts_with("missing field") {
            return None;
        }
        let mut located = src.from_toml(&error);
        let (Some(span), DeValue::Table(table)) = (error.span(), value.get_mut()) else {
            located.field = Some(field.to_string());
            errors.push(located);
            return None;
        };
        let culprit = table
            .iter()
            .find(|(key, field)| {
                key.span().contains(&span.start)
                    || (field.span().start <= span.start && span.end <= field.span().end)
            })
            .map(|(key, _)| key.get_ref().to_string());
        let Some(culprit) = culprit else {
            located.field = Some(field.to_string());
            errors.push(located);
            return None;
        };
        // The path is known here, where the source's guess at it cannot
        // count array entries.
        located.field = Some(format!("{field}.{culprit}"));
        errors.push(located);
        table.remove(culprit.as_str());
        dropped.push(culprit);
    }
    None
}

/// A number as an error echoes it: as written for everyday sizes, in
/// exponent form past 1e15 (`1e300`, not three hundred digits). A value
/// read into an `f32` is shown as that `f32` (`1e30`, not the
/// `1.0000000150474662e30` its widening to `f64` spells).
pub(super) struct Number(pub f64);

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let narrow = self.0 as f32;
        let big = self.0.abs() >= 1e15;
        match (f64::from(narrow) == self.0, big) {
            (true, true) => write!(f, "{narrow:e}"),
            (true, false) => write!(f, "{narrow}"),
            (false, true) => write!(f, "{:e}", self.0),
            (false, false) => write!(f, "{}", self.0),
        }
    }
}

/// Numbers as an error echoes them: `[1, -1, 0]`, each as [`Number`] shows
/// it (not `Vec3(1.0, -1.0, 0.0)`).
pub(super) struct Numbers<'a>(pub &'a [f64]);

impl std::fmt::Display for Numbers<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[")?;
        for (k, v) in self.0.iter().enumerate() {
            if k > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{}", Number(*v))?;
        }
        write!(f, "]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_echoed_as_written_not_as_widened_or_debug_printed() {
        // An f32 read from a file, widened to f64, is shown as the f32.
        assert_eq!(Number(f64::from(1e30f32)).to_string(), "1e30");
        assert_eq!(Number(f64::from(-0.34f32)).to_string(), "-0.34");
        // A genuine f64 keeps its own digits; huge ones take an exponent.
        assert_eq!(Number(0.1).to_string(), "0.1");
        assert_eq!(Number(1e300).to_string(), "1e300");
        assert_eq!(Number(f64::NAN).to_string(), "NaN");
        assert_eq!(
            Numbers(&[1.0, -1.0, f64::from(1e30f32)]).to_string(),
            "[1, -1, 1e30]"
        );
    }

    /// An element is found by its place among the commas, on one line or
    /// several; an array it cannot read safely (a comment with commas, a
    /// nested array, too few elements) gives no span, and the error points
    /// at the whole array instead.
    #[test]
    fn an_element_is_found_between_the_commas() {
        let text = "bones = [0.28, -0.34,0.34]";
        let array = 8..text.len();
        let at = |i| element_span(text, array.clone(), i).map(|r| &text[r]);
        assert_eq!(at(0), Some("0.28"));
        assert_eq!(at(1), Some("-0.34"));
        assert_eq!(at(2), Some("0.34"));
        assert_eq!(at(3), None);
        let text = "b = [\n  0.1, # hip\n  -2,\n]";
        let array = 4..text.len();
        assert_eq!(
            element_span(text, array.clone(), 0).map(|r| &text[r]),
            Some("0.1")
        );
        assert_eq!(
            element_span(text, array.clone(), 1),
            None,
            "after a comment"
        );
        let text = "p = [[1, 2], [3]]";
        assert_eq!(element_span(text, 4..text.len(), 0), None);
    }
}

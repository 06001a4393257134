//! Field checks shared by every file kind: each failure names the field, says
//! what was given and what would be valid, and points at the value's span.

use glam::Vec3;
use toml::Spanned;

use super::error::{ConfigError, Source};

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
        } else {
            Err(self.at(value, field, format!("{requirement}, got {v}")))
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
                format!("must be a number from {lo} to {hi} ({unit}), got {v}"),
            ))
        }
    }
}

/// A vector whose three components are finite.
pub(super) fn finite_vec3(
    check: &Check<'_>,
    value: &Spanned<[f32; 3]>,
    field: &str,
) -> Result<Vec3, ConfigError> {
    let v = Vec3::from_array(*value.get_ref());
    if v.is_finite() {
        Ok(v)
    } else {
        Err(check.at(
            value,
            field,
            format!("must be three finite numbers [x, y, z] in metres, got {v:?}"),
        ))
    }
}

//! Watching the files a screen was started with, so an edit saved in an
//! editor shows up without a key press.
//!
//! Polling, a few times a second, of each file's modification time and
//! length: no platform notification service, nothing to set up, and a save
//! that writes a file in several goes (or replaces it) is reported once it
//! has stood still for [`SETTLE_SECONDS`].

use std::path::PathBuf;
use std::time::SystemTime;

/// How often files are looked at, seconds.
pub const POLL_SECONDS: f64 = 0.25;
/// How long a changed file must stay unchanged before it counts as saved.
pub const SETTLE_SECONDS: f64 = 0.2;

/// What a file looked like when last seen: `None` when it could not be read
/// (being replaced, or gone).
type Stamp = Option<(SystemTime, u64)>;

fn stamp(path: &PathBuf) -> Stamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// Watches a set of files for saves.
#[derive(Debug, Default)]
pub struct FileWatch {
    files: Vec<(PathBuf, Stamp)>,
    /// A change seen but not yet settled: the stamp it changed to, and how
    /// long it has stayed so.
    changing: Option<(Vec<Stamp>, f64)>,
    since_poll: f64,
}

impl FileWatch {
    /// Watches `paths` from their current state.
    pub fn new(paths: impl IntoIterator<Item = PathBuf>) -> FileWatch {
        FileWatch {
            files: paths
                .into_iter()
                .map(|path| {
                    let now = stamp(&path);
                    (path, now)
                })
                .collect(),
            changing: None,
            since_poll: 0.0,
        }
    }

    /// Advances `elapsed` seconds; true once when a change has settled (the
    /// caller reloads then).
    pub fn saved(&mut self, elapsed: f64) -> bool {
        self.since_poll += elapsed.max(0.0);
        if self.files.is_empty() || self.since_poll < POLL_SECONDS {
            return false;
        }
        let waited = std::mem::take(&mut self.since_poll);
        let now: Vec<Stamp> = self.files.iter().map(|(path, _)| stamp(path)).collect();
        let seen = self.files.iter().map(|(_, s)| *s);
        if now.iter().copied().eq(seen) {
            self.changing = None;
            return false;
        }
        match &mut self.changing {
            Some((pending, stood)) if *pending == now => {
                *stood += waited;
                if *stood >= SETTLE_SECONDS {
                    for ((_, seen), new) in self.files.iter_mut().zip(now) {
                        *seen = new;
                    }
                    self.changing = None;
                    return true;
                }
                false
            }
            _ => {
                self.changing = Some((now, 0.0));
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_save_is_reported_once_after_it_settles() {
        let dir = std::env::temp_dir().join(format!("skitter-watch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.toml");
        std::fs::write(&path, "one").unwrap();
        let mut watch = FileWatch::new([path.clone(), dir.join("missing.toml")]);
        assert!(!watch.saved(1.0), "nothing changed");
        std::fs::write(&path, "two, longer").unwrap();
        assert!(!watch.saved(0.1), "not polled yet");
        assert!(!watch.saved(0.2), "seen changing, not settled");
        assert!(watch.saved(0.3), "settled");
        assert!(!watch.saved(1.0), "reported once");
        // A file that appears is a change too; one that vanishes and comes
        // back the same is not, once it is back.
        std::fs::write(dir.join("missing.toml"), "now here").unwrap();
        assert!(!watch.saved(0.3));
        assert!(watch.saved(0.3));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

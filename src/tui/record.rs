//! Recordings of a screen as asciicast v2 (the format `asciinema play` and
//! asciinema.org take): a JSON header line, then one `[seconds, "o", text]`
//! line per frame with exactly the bytes the terminal was sent.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::time::Instant;

use serde::Serialize;

/// The first line of a cast.
#[derive(Debug, Serialize)]
struct Header<'a> {
    version: u8,
    width: u16,
    height: u16,
    timestamp: u64,
    title: &'a str,
    env: Env,
}

/// The environment a cast was made in, as players expect it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "UPPERCASE")]
struct Env {
    term: String,
}

/// A terminal output that also records what it writes: everything goes to
/// `out` as usual, and each flush (ratatui flushes once per frame) becomes
/// one output event of the cast, timed from the start.
pub struct Recorder<W: Write> {
    out: W,
    cast: BufWriter<File>,
    pending: Vec<u8>,
    started: Instant,
}

impl<W: Write> Recorder<W> {
    /// Starts a cast in `cast` for a `width` × `height` terminal titled
    /// `title`, passing every byte through to `out`.
    pub fn new(out: W, cast: File, width: u16, height: u16, title: &str) -> io::Result<Self> {
        let mut cast = BufWriter::new(cast);
        let header = Header {
            version: 2,
            width,
            height,
            timestamp: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            title,
            env: Env {
                term: std::env::var("TERM").unwrap_or_else(|_| "xterm-256color".into()),
            },
        };
        serde_json::to_writer(&mut cast, &header)?;
        cast.write_all(b"\n")?;
        Ok(Recorder {
            out,
            cast,
            pending: Vec::new(),
            started: Instant::now(),
        })
    }

    /// Writes what is pending as one event. Bytes that are not UTF-8 (a
    /// terminal sequence cut mid-character cannot happen here: a frame is
    /// flushed whole) are replaced rather than dropped.
    fn record_pending(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let seconds = (self.started.elapsed().as_secs_f64() * 1e6).round() / 1e6;
        let text = String::from_utf8_lossy(&self.pending);
        serde_json::to_writer(&mut self.cast, &(seconds, "o", text.as_ref()))?;
        self.cast.write_all(b"\n")?;
        self.cast.flush()?;
        self.pending.clear();
        Ok(())
    }
}

impl<W: Write> Write for Recorder<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.out.write(buf)?;
        self.pending.extend_from_slice(&buf[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()?;
        self.record_pending()
    }
}

impl<W: Write> Drop for Recorder<W> {
    fn drop(&mut self) {
        // The last frame, if it was never flushed; nowhere to report a
        // failure at this point, and the cast so far is already on disk.
        let _ = self.record_pending();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cast_is_a_header_then_one_event_per_flush() {
        let path = std::env::temp_dir().join(format!("skitter-cast-{}.cast", std::process::id()));
        let mut screen = Vec::new();
        {
            let file = File::create(&path).unwrap();
            let mut recorder = Recorder::new(&mut screen, file, 80, 24, "test").unwrap();
            recorder.write_all(b"\x1b[2Jhello").unwrap();
            recorder.flush().unwrap();
            recorder.write_all("world ✓".as_bytes()).unwrap();
            recorder.flush().unwrap();
            recorder.flush().unwrap(); // nothing new: no event
        }
        assert_eq!(screen, "\x1b[2Jhelloworld ✓".as_bytes());
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(lines[0]["version"], 2);
        assert_eq!(lines[0]["width"], 80);
        assert_eq!(lines[0]["height"], 24);
        assert_eq!(lines[0]["title"], "test");
        assert_eq!(lines[1][1], "o");
        assert_eq!(lines[1][2], "\u{1b}[2Jhello");
        assert_eq!(lines[2][2], "world ✓");
        let (t1, t2) = (lines[1][0].as_f64().unwrap(), lines[2][0].as_f64().unwrap());
        assert!(0.0 <= t1 && t1 <= t2, "{t1} {t2}");
    }
}

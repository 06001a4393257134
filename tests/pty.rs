//! The real binary in a pseudo-terminal: it draws, obeys keys, quits with
//! exit code 0 and leaves the alternate screen.

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

const ROWS: u16 = 40;
const COLS: u16 = 120;

struct Session {
    screen: Arc<Mutex<vt100::Parser>>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("open a pseudo-terminal");
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_skitter"));
        command.args(args);
        command.env("TERM", "xterm-256color");
        command.cwd(env!("CARGO_MANIFEST_DIR"));
        let child = pty.slave.spawn_command(command).expect("spawn skitter");
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().unwrap();
        let writer = Arc::new(Mutex::new(pty.master.take_writer().unwrap()));
        let screen = Arc::new(Mutex::new(vt100::Parser::new(ROWS, COLS, 0)));
        let (screen_in, writer_in) = (screen.clone(), writer.clone());
        // Keep the master alive as long as the reader thread runs.
        let master = pty.master;
        std::thread::spawn(move || {
            let _master = master;
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                // Answer cursor-position queries as a terminal would.
                if buf[..n].windows(4).any(|w| w == b"\x1b[6n") {
                    let _ = writer_in.lock().unwrap().write_all(b"\x1b[1;1R");
                }
                screen_in.lock().unwrap().process(&buf[..n]);
            }
        });
        Session {
            screen,
            writer,
            child,
        }
    }

    fn text(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    fn wait_for(&self, needle: &str) -> String {
        self.wait_until(needle, true)
    }

    /// Waits until `needle` is off the screen.
    fn wait_for_no(&self, needle: &str) -> String {
        self.wait_until(needle, false)
    }

    fn wait_until(&self, needle: &str, shown: bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let text = self.text();
            if text.contains(needle) == shown {
                return text;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {needle:?} to be {}; screen:\n{text}",
                if shown { "shown" } else { "gone" }
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn press(&self, keys: &str) {
        let mut writer = self.writer.lock().unwrap();
        writer.write_all(keys.as_bytes()).unwrap();
        writer.flush().unwrap();
    }

    fn wait_exit(&mut self) -> portable_pty::ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "skitter did not exit; screen:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[test]
fn viewer_walks_switches_views_and_solvers_and_quits_cleanly() {
    let mut s = Session::start(&[]);
    let first = s.wait_for("top view");
    assert!(first.contains("creature spider (4 legs)"), "{first}");
    assert!(
        s.screen.lock().unwrap().screen().alternate_screen(),
        "the viewer draws on the alternate screen"
    );

    s.press("ww");
    s.wait_for("throttle +100%");
    s.wait_for("speed    0.90 m/s");

    s.press("v");
    s.wait_for("side view");
    s.press("i");
    s.wait_for("solver: gradient");
    s.press("O");
    s.wait_for("perspective view");
    s.press("?");
    s.wait_for("keys (? or Esc to close)");
    // Esc closes the help; the viewer goes on (it used to quit).
    s.press("\x1b");
    s.wait_for_no("Esc to close");
    s.press(" ");
    s.wait_for("PAUSED");

    s.press("q");
    let status = s.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    // Give the reader a moment to take in the last bytes.
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        !s.screen.lock().unwrap().screen().alternate_screen(),
        "left the alternate screen"
    );
}

#[test]
fn a_broken_reload_shows_the_error_and_keeps_running() {
    let dir = std::env::temp_dir().join(format!("skitter-pty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let creature = dir.join("spider.toml");
    let original = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/creatures/spider.toml"
    ))
    .unwrap();
    std::fs::write(&creature, &original).unwrap();
    let mut s = Session::start(&[
        "run",
        "--creature",
        creature.to_str().unwrap(),
        "--terrain",
        "flat",
    ]);
    s.wait_for("terrain  flat");
    std::fs::write(
        &creature,
        original.replace("speed = 0.9", "speed = \"fast\""),
    )
    .unwrap();
    s.press("r");
    let text = s.wait_for("reload failed, keeping the running creature");
    assert!(text.contains("body.speed"), "{text}");
    s.press("w");
    s.wait_for("throttle +50%");
    s.press("q");
    assert!(s.wait_exit().success());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_files_fail_before_the_terminal_is_touched() {
    let mut s = Session::start(&["run", "--creature", "no-such-creature"]);
    let status = s.wait_exit();
    assert_eq!(status.exit_code(), 2);
    std::thread::sleep(Duration::from_millis(200));
    let text = s.text();
    assert!(text.contains("not a built-in creature"), "{text}");
    assert!(!s.screen.lock().unwrap().screen().alternate_screen());
}

#[test]
fn lab_screen_switches_solvers_and_rigs_live_and_quits_cleanly() {
    let mut s = Session::start(&["lab", "--tui"]);
    let first = s.wait_for("iterations per step");
    assert!(first.contains("chain, 10 bones, 900 mm"), "{first}");
    assert!(first.contains("error beyond reach"), "{first}");
    s.press("i");
    s.wait_for("solver: gradient");
    s.wait_for("gradient (2 of 5)");
    s.press("m");
    s.wait_for("arm, 0.30 + 0.27 + 0.09 m");
    s.wait_for("buttons ");
    s.press("c");
    s.wait_for("joint limits off");
    s.press("q");
    assert!(s.wait_exit().success());
}

#[test]
fn the_baked_spider_walks_in_the_viewer() {
    let mut s = Session::start(&["run", "--baked"]);
    let first = s.wait_for("BAKED");
    assert!(first.contains("baked: no rays, no IK"), "{first}");
    s.wait_for("foot gap");
    s.press("p");
    s.wait_for("the IK spider, where it was");
    s.press("q");
    assert!(s.wait_exit().success());
}

#[test]
fn a_recording_is_an_asciicast_of_what_the_viewer_drew() {
    let path = std::env::temp_dir().join(format!("skitter-record-{}.cast", std::process::id()));
    let mut s = Session::start(&["run", "--record", path.to_str().unwrap()]);
    s.wait_for("stats");
    s.press("w");
    s.wait_for("throttle +50%");
    s.press("q");
    assert!(s.wait_exit().success());
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let header = &lines[0];
    assert_eq!(header["version"], 2);
    assert_eq!(header["width"], u64::from(COLS));
    assert_eq!(header["height"], u64::from(ROWS));
    let events = &lines[1..];
    assert!(events.len() >= 2, "{} events", events.len());
    let mut last = 0.0;
    for event in events {
        let time = event[0].as_f64().unwrap();
        assert!(time >= last, "times go forward");
        last = time;
        assert_eq!(event[1], "o");
    }
    // Played back, the frames show the viewer and the key's effect.
    let mut screen = vt100::Parser::new(ROWS, COLS, 0);
    for event in events {
        screen.process(event[2].as_str().unwrap().as_bytes());
    }
    let shown = screen.screen().contents();
    assert!(shown.contains("stats"), "{shown}");
    assert!(shown.contains("throttle +50%"), "{shown}");
}

/// Runs `skitter ARGS` in the repository without a terminal and returns
/// its stderr, asserting exit code 2 (bad input, refused before the
/// screen opens).
fn refused(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_skitter"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_recording_never_overwrites_an_input() {
    let stderr = refused(&[
        "run",
        "--creature",
        "creatures/spider.toml",
        "--record",
        "creatures/spider.toml",
    ]);
    assert!(
        stderr.contains("--record creatures/spider.toml is the creature file"),
        "{stderr}"
    );
}

/// The built-in spider reads no file, so `--record creatures/spider.toml`
/// was no input and turned the repository's spider into an asciicast.
#[test]
fn a_recording_never_overwrites_a_file_that_is_not_one() {
    let stderr = refused(&["run", "--record", "creatures/spider.toml"]);
    assert!(
        stderr.contains(
            "--record creatures/spider.toml already exists and is not a skitter recording"
        ),
        "{stderr}"
    );
}

#[test]
fn saving_the_creature_file_reloads_it_and_a_broken_save_keeps_the_creature() {
    let dir = std::env::temp_dir().join(format!("skitter-pty-watch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mine.toml");
    let spider = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("creatures/spider.toml"),
    )
    .unwrap();
    std::fs::write(&file, &spider).unwrap();
    let mut s = Session::start(&["run", "--creature", file.to_str().unwrap()]);
    s.wait_for("creature spider");
    std::fs::write(
        &file,
        spider.replace("name = \"spider\"", "name = \"edited\""),
    )
    .unwrap();
    s.wait_for("creature edited");
    s.wait_for("reloaded edited on hills");
    std::fs::write(&file, spider.replace("speed = 0.9", "speed = -0.9")).unwrap();
    let screen = s.wait_for("reload failed");
    assert!(screen.contains("mine.toml:10:9"), "{screen}");
    assert!(
        screen.contains("creature edited"),
        "the running creature stays: {screen}"
    );
    s.press("q");
    assert!(s.wait_exit().success());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A solid world in the real viewer: at four times real speed the spider
/// walks into the overhang, up its back wall and onto the ceiling; the
/// side view draws the solid, and the stats count time on walls and
/// ceilings.
#[test]
fn the_spider_walks_onto_the_overhangs_ceiling_in_the_viewer() {
    let mut s = Session::start(&["run", "-t", "overhang"]);
    s.wait_for("terrain  overhang");
    s.wait_for("climb    wall 0.0 s  ceiling 0.0 s");
    s.press("ww]]v");
    s.wait_for("side view");
    s.wait_for("rate 4×");
    let deadline = Instant::now() + Duration::from_secs(30);
    let upside_down = loop {
        let text = s.text();
        if text.contains("climb") && !text.contains("ceiling 0.0 s") {
            break text;
        }
        assert!(
            Instant::now() < deadline,
            "never reached the ceiling:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        upside_down.contains('%'),
        "the solid is drawn:\n{upside_down}"
    );
    s.press("q");
    assert!(s.wait_exit().success());
}

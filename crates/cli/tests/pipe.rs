//! A closed output pipe (`isabridge ... | head`) ends every command quietly: exit 0, nothing on
//! stderr.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn fixture(p: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(p).to_str().unwrap().to_string()
}

/// The command lines tested: each writes far more than a pipe holds (64 KiB on Linux), so it is
/// still writing when the reader goes.
fn commands() -> Vec<Vec<String>> {
    let amd = fixture("amd/bin/cl_math.gfx1013-w32.o");
    let nv = fixture("nvidia/bin/fp64.sm86.cubin");
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        s(&["disasm", &amd]),
        s(&["disasm", "--json", &amd]),
        s(&["disasm", "--control", &nv]),
        s(&["disasm", "--isa", "gfx1013", &amd]),
        s(&["census", "--json", &fixture("amd/bin")]),
        s(&["census", &fixture("amd/bin"), &fixture("nvidia/bin")]),
        s(&["help", "census"]),
    ]
}

fn check(args: &[String], lines: usize) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_isabridge"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    {
        let mut r = BufReader::new(out);
        for _ in 0..lines {
            let mut l = String::new();
            r.read_line(&mut l).unwrap();
        }
        // The reader is dropped here: the pipe's reading end is closed.
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stderr), "", "{args:?}");
}

/// `isabridge ... | head -1`: one line read, then the pipe closed.
#[test]
fn closed_pipe_after_one_line_is_exit_0() {
    for c in commands() {
        check(&c, 1);
    }
}

/// A pipe closed before the command writes anything.
#[test]
fn pipe_closed_before_output_is_exit_0() {
    for c in commands() {
        check(&c, 0);
    }
}

/// The HTML report is written even when stdout's reader has gone.
#[test]
fn census_html_is_written_when_stdout_closes() {
    let html = std::env::temp_dir().join(format!("isabridge-pipe-{}.html", std::process::id()));
    let _ = std::fs::remove_file(&html);
    let args = ["census".to_string(), "--html".into(), html.to_str().unwrap().into(), fixture("amd/bin"), fixture("nvidia/bin")];
    check(&args, 0);
    let report = std::fs::read_to_string(&html).unwrap_or_default();
    let _ = std::fs::remove_file(&html);
    assert!(report.contains("id=\"matrix\""), "no report written");
}

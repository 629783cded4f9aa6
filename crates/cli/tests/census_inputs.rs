//! `isabridge census` inputs and exit status: a missing path, inputs that all fail, some that
//! fail, symbolic-link loops, directories that cannot be read.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(p)
}

fn census(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_isabridge")).arg("census").arg("--json").args(args).output().unwrap()
}

/// A fresh directory under the system's temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let d = std::env::temp_dir().join(format!("isabridge-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TempDir(d)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        // Directories made unreadable by a test are opened up again first.
        #[cfg(unix)]
        open_up(&self.0);
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Makes every directory under `d` (links not followed) readable again.
#[cfg(unix)]
fn open_up(d: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(entries) = std::fs::read_dir(d) else { return };
    for e in entries.flatten() {
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = std::fs::set_permissions(e.path(), std::fs::Permissions::from_mode(0o755));
            open_up(&e.path());
        }
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: stderr {}", stderr(o)))
}

/// A PATH that does not exist: exit 2, its name and the reason on stderr, nothing on stdout
/// (the paths that do exist are not counted: a typo does not give a quietly partial census).
#[test]
fn missing_path_exits_2_with_its_name() {
    let tiny = fixture("cli/tiny.gfx1013.o");
    let o = census(&[&tiny, Path::new("/nonexistent/corpus")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    assert_eq!(stderr(&o).trim_end(), "isabridge: /nonexistent/corpus: No such file or directory (os error 2)");
}

/// Every input failing is exit 2 (the JSON with each file's error is still written); an empty
/// directory is exit 2 too: there was nothing to count.
#[test]
fn all_inputs_failing_exits_2() {
    let o = census(&[&fixture("cli/x86.o"), &fixture("cli/amd_no_code.gfx1013.o")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("x86.o: ELF for machine 62"), "{err}");
    assert!(err.contains("amd_no_code.gfx1013.o: ELF has no code section"), "{err}");
    assert!(err.ends_with("isabridge: none of the 2 inputs could be read\n"), "{err}");
    assert_eq!(json(&o)["failed_files"], 2);

    let o = census(&[&fixture("cli/x86.o")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).ends_with("isabridge: the input could not be read\n"), "{}", stderr(&o));

    let t = TempDir::new("empty");
    let o = census(&[&t.0]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert!(stderr(&o).contains("no input files in "), "{}", stderr(&o));
}

/// Some inputs failing: exit 1, each one and the count on stderr, the census of the rest on
/// stdout.
#[test]
fn some_inputs_failing_exits_1_and_names_them() {
    let o = census(&[&fixture("cli")]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 5, "{err}");
    assert!(err.ends_with("isabridge: 4 of 5 inputs could not be read\n"), "{err}");
    let v = json(&o);
    assert_eq!(v["failed_files"], 4);
    assert_eq!(v["per_isa"]["gfx1013"]["instructions"], 3);
}

/// A symbolic-link loop (`a/loop -> ..`), a second link to the same file and the same file
/// named twice: every file is counted once, and the walk ends.
#[cfg(unix)]
#[test]
fn symlink_loop_counts_each_file_once() {
    let t = TempDir::new("loop");
    let a = t.0.join("a");
    std::fs::create_dir(&a).unwrap();
    std::fs::copy(fixture("cli/tiny.gfx1013.o"), a.join("tiny.gfx1013.o")).unwrap();
    std::os::unix::fs::symlink("..", a.join("loop")).unwrap();
    std::os::unix::fs::symlink(a.join("tiny.gfx1013.o"), t.0.join("also-tiny.o")).unwrap();
    std::os::unix::fs::symlink(&t.0, a.join("up")).unwrap();
    let o = census(&[&t.0, &a.join("tiny.gfx1013.o"), &a]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(v["per_isa"]["gfx1013"]["instructions"], 3);
}

/// A dangling symbolic link and a directory the process may not read are reported on stderr
/// and in the census as failed inputs (exit 1); the rest is counted. As root, reading is not
/// refused, so the command runs as user `nobody` then.
#[cfg(unix)]
#[test]
fn unreadable_directory_and_dangling_link_are_reported() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let t = TempDir::new("unreadable");
    std::fs::set_permissions(&t.0, std::fs::Permissions::from_mode(0o755)).unwrap();
    let files = t.0.join("files");
    std::fs::create_dir(&files).unwrap();
    std::fs::set_permissions(&files, std::fs::Permissions::from_mode(0o755)).unwrap();
    let tiny = files.join("tiny.gfx1013.o");
    std::fs::copy(fixture("cli/tiny.gfx1013.o"), &tiny).unwrap();
    std::fs::set_permissions(&tiny, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::os::unix::fs::symlink(files.join("nowhere"), files.join("dangling")).unwrap();
    let locked = files.join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::copy(fixture("cli/x86.o"), locked.join("x86.o")).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_isabridge"));
    if std::fs::read_dir(&locked).is_ok() {
        // Privileged: the same command as an unprivileged user, from a copy it may run (the
        // build directory may be private).
        let bin = t.0.join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::fs::copy(env!("CARGO_BIN_EXE_isabridge"), bin.join("isabridge")).unwrap();
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(bin.join("isabridge"), std::fs::Permissions::from_mode(0o755)).unwrap();
        cmd = Command::new(bin.join("isabridge"));
        cmd.uid(65534).gid(65534);
    }
    cmd.args(["census", "--json"]).arg(t.0.join("files")).current_dir("/");
    let o = match cmd.output() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("SKIPPED: cannot run the command as an unprivileged user: {e}");
            return;
        }
    };
    let err = stderr(&o);
    if err.contains("tiny.gfx1013.o: Permission denied") {
        eprintln!("SKIPPED: user nobody cannot read the temporary directory: {err}");
        return;
    }
    assert_eq!(o.status.code(), Some(1), "{err}");
    let d = files.display();
    assert!(err.contains(&format!("isabridge: {d}/locked: cannot read directory: Permission denied")), "{err}");
    assert!(err.contains(&format!("isabridge: {d}/dangling: broken symbolic link: No such file or directory")), "{err}");
    assert!(err.ends_with("isabridge: 2 of 3 inputs could not be read\n"), "{err}");
    let v = json(&o);
    assert_eq!(v["failed_files"], 2);
    assert_eq!(v["per_isa"]["gfx1013"]["instructions"], 3);
    assert!(v["files"].as_array().unwrap().iter().any(|f| f["path"].as_str().unwrap().ends_with("/locked") && f["error"].is_string()));
}

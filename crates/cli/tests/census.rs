//! `isabridge census` over the bundled corpora: a JSON snapshot, malformed files reported
//! without stopping the run, and the HTML report rendered by headless Chromium.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn census(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_isabridge")).current_dir(root()).arg("census").args(args).output().unwrap()
}

/// The census of fixtures/amd/bin and fixtures/nvidia/bin equals the committed snapshot.
/// Regenerate with `UPDATE_CENSUS_SNAPSHOT=1 cargo test -p isabridge-cli --test census`.
#[test]
fn json_snapshot_of_bundled_corpora() {
    let out = census(&["--json", "fixtures/amd/bin", "fixtures/nvidia/bin"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let full: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The snapshot keeps the totals and one line per shader (the full JSON is 5 MB).
    let mut shaders = Vec::new();
    for f in full["files"].as_array().unwrap() {
        for s in f["shaders"].as_array().unwrap() {
            shaders.push(format!(
                "{} {} {} insts={} blocks={} edges={} data={}",
                f["path"].as_str().unwrap(),
                s["name"].as_str().unwrap(),
                s["wave"].as_str().unwrap(),
                s["counts"]["instructions"],
                s["cfg"]["blocks"],
                s["cfg"]["edges"],
                s["counts"]["data_bytes"]
            ));
        }
    }
    let view = serde_json::json!({
        "schema_version": full["schema_version"],
        "failed_files": full["failed_files"],
        "shaders_per_isa": full["shaders_per_isa"],
        "per_isa": full["per_isa"],
        "shaders": shaders,
    });
    let got = serde_json::to_string_pretty(&view).unwrap() + "\n";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/census_corpus.json");
    if std::env::var_os("UPDATE_CENSUS_SNAPSHOT").is_some() {
        std::fs::write(&path, &got).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap();
    assert!(got == want, "census JSON differs from tests/census_corpus.json");
    assert_eq!(full["schema_version"], 1);
    assert_eq!(full["files"].as_array().unwrap().len(), 51);
    assert_eq!(full["failed_files"], 0);
}

#[test]
fn malformed_files_are_reported_and_the_run_goes_on() {
    let out = census(&["--json", "fixtures/cli"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("x86.o: ELF for machine 62"), "{err}");
    assert!(err.contains("amd_no_code.gfx1013.o: ELF has no code section"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["failed_files"], 4);
    // tiny.gfx1013.o still counted: 3 instructions.
    assert_eq!(v["per_isa"]["gfx1013"]["instructions"], 3);
    // A raw dump with --isa: every file is read as gfx1013; the truncated one still yields a
    // linear-sweep census with its CFG error.
    let out = census(&["--json", "--isa", "gfx1013", "fixtures/cli/invalid_word.gfx1013.bin"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["failed_files"], 0);
    assert!(v["files"][0]["shaders"][0]["cfg"]["error"].is_string());
}

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser"].into_iter().find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
}

/// The HTML report opens in headless Chromium with no network and its charts render: the DOM
/// Chromium builds holds the SVG bars and the feature matrix.
#[test]
fn html_report_renders_in_headless_chromium() {
    let Some(chrome) = chromium() else {
        assert!(std::env::var_os("CI").is_none(), "CI must install chromium (tools/install_oracles.sh)");
        eprintln!("SKIPPED: chromium is not installed (apt-get install -y chromium)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("isabridge-census-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let html = dir.join("report.html");
    let out = census(&["--html", html.to_str().unwrap(), "fixtures/amd/bin", "fixtures/nvidia/bin"]);
    assert!(out.status.success());
    let profile = dir.join("profile");
    let shot = dir.join("shot.png");
    let dom = Command::new(chrome)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", html.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&dom.stdout);
    for isa in ["gfx1013", "gfx1201", "sm50", "sm86"] {
        assert!(dom.contains(&format!("id=\"opcodes-{isa}\"")), "no opcode chart for {isa}");
    }
    assert!(dom.matches("class=\"bar\"").count() > 100);
    assert!(dom.contains("id=\"matrix\""));
    assert!(dom.contains("s_waitcnt") && dom.contains("IMAD"));
    let s = Command::new(chrome)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg("--window-size=1000,1200")
        .arg(format!("file://{}", html.display()))
        .output()
        .unwrap();
    let png = std::fs::read(&shot).unwrap_or_default();
    assert!(png.starts_with(b"\x89PNG"), "no screenshot: {}", String::from_utf8_lossy(&s.stderr));
    // Rendered charts paint blue bars: the screenshot is not one flat colour.
    assert!(png.len() > 10_000, "screenshot is {} bytes", png.len());
    let _ = std::fs::remove_dir_all(&dir);
}

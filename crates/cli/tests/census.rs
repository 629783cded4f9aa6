//! `isabridge census` over the bundled corpora: a JSON snapshot, malformed files reported
//! without stopping the run, and the HTML report rendered by headless Chromium (with counts
//! of up to seven digits never cut). Inputs and exit status: census_inputs.rs.

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
    // Exit status 1: the census is written, some inputs could not be read.
    assert_eq!(out.status.code(), Some(1));
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
    let dom = dump_dom(chrome, &profile, &html);
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

/// The DOM of `html` once headless Chromium has loaded it (and run its scripts).
fn dump_dom(chrome: &str, profile: &Path, html: &Path) -> String {
    let o = Command::new(chrome)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--window-size=1000,1200")
        .arg("--dump-dom")
        .arg(format!("file://{}", html.display()))
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Measures, in the page, that every count of a chart and of the feature matrix fits inside its
/// cell and its chart: the text's box (a DOM range over it) within the element's box, the
/// element within the chart, and nothing clipped (scroll width within client width). Writes
/// one line per problem, then `checked N`, into `<pre id="geometry">`.
const GEOMETRY: &str = r#"<script>
addEventListener("load", () => {
  const bad = [];
  let n = 0;
  const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5 && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
  for (const el of document.querySelectorAll(".chart .num, td.on")) {
    const r = document.createRange();
    r.selectNodeContents(el);
    const text = r.getBoundingClientRect(), cell = el.getBoundingClientRect();
    const box = (el.closest(".chart") || el.closest("table")).getBoundingClientRect();
    n++;
    if (text.width <= 0 || !inside(text, cell) || !inside(cell, box) || el.scrollWidth > el.clientWidth)
      bad.push(`${el.textContent}: text ${text.left}-${text.right}, cell ${cell.left}-${cell.right}, chart ${box.left}-${box.right}`);
  }
  const pre = document.createElement("pre");
  pre.id = "geometry";
  pre.textContent = bad.concat([`checked ${n}`]).join("\n");
  document.body.appendChild(pre);
});
</script>"#;

/// Counts of six and seven digits (a raw gfx1013 dump of 1,000,000 `s_nop 0`, 150,000
/// `s_mov_b32 s0, s1` and an `s_endpgm`) fit inside their cells in Chromium's layout, in the
/// bar charts and the feature matrix.
#[test]
fn html_report_never_cuts_large_counts() {
    let Some(chrome) = chromium() else {
        assert!(std::env::var_os("CI").is_none(), "CI must install chromium (tools/install_oracles.sh)");
        eprintln!("SKIPPED: chromium is not installed (apt-get install -y chromium)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("isabridge-census-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let raw = dir.join("big.gfx1013.bin");
    let mut words = Vec::with_capacity(4 * 1_150_001);
    for _ in 0..1_000_000 {
        words.extend_from_slice(&0xBF80_0000u32.to_le_bytes());
    }
    for _ in 0..150_000 {
        words.extend_from_slice(&0xBE80_0301u32.to_le_bytes());
    }
    words.extend_from_slice(&0xBF81_0000u32.to_le_bytes());
    std::fs::write(&raw, words).unwrap();
    let html = dir.join("report.html");
    let out = census(&["--quiet", "--isa", "gfx1013", "--html", html.to_str().unwrap(), raw.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = std::fs::read_to_string(&html).unwrap();
    assert!(report.contains(">1000000<") && report.contains(">150000<"), "counts missing from the report");
    let probe = dir.join("probe.html");
    std::fs::write(&probe, report.replace("</body>", &format!("{GEOMETRY}</body>"))).unwrap();
    let dom = dump_dom(chrome, &dir.join("profile"), &probe);
    let tag = "<pre id=\"geometry\">";
    let start = dom.find(tag).expect("the geometry script did not run") + tag.len();
    let geometry = &dom[start..start + dom[start..].find("</pre>").unwrap()];
    let checked: usize = geometry.lines().last().and_then(|l| l.strip_prefix("checked ")).unwrap().parse().unwrap();
    assert!(checked >= 6, "{geometry}");
    assert_eq!(geometry.lines().count(), 1, "counts cut:\n{geometry}");
    let _ = std::fs::remove_dir_all(&dir);
}

//! Decode-only timing over the AMD corpus: `cargo run --release --example decode_speed`.
use isabridge_decoder::{elf, Isa};
fn main() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/amd/bin");
    let mut secs = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if let Ok(o) = elf::read(&std::fs::read(e.path()).unwrap()) {
            if o.isa == Isa::Gfx1013 { secs.extend(o.sections.into_iter().map(|s| s.data)); }
        }
    }
    let p = Isa::Gfx1013.plugin();
    let t = std::time::Instant::now();
    let mut n = 0u64;
    for _ in 0..std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(200) {
        for s in &secs {
            let mut off = 0;
            while off < s.len() {
                off += match p.decode(&s[off..], 0) { Ok(d) => d.len as usize, Err(_) => 4 };
                n += 1;
            }
        }
    }
    let dt = t.elapsed().as_secs_f64();
    println!("dyn IsaPlugin::decode: {n} instructions in {dt:.3} s: {:.1} M/s", n as f64 / dt / 1e6);
    // The same loop on the concrete plugin (no virtual call).
    let g = &isabridge_decoder::amd::GFX10;
    let t = std::time::Instant::now();
    let mut n = 0u64;
    for _ in 0..std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(200) {
        for s in &secs {
            let mut off = 0;
            while off < s.len() {
                off += match g.decode_inst(&s[off..], 0) { Ok(d) => d.len as usize, Err(_) => 4 };
                n += 1;
            }
        }
    }
    let dt = t.elapsed().as_secs_f64();
    println!("Amd::decode_inst: {n} instructions in {dt:.3} s: {:.1} M/s", n as f64 / dt / 1e6);
}

//! Decode-only timing over the AMD corpus, no harness:
//! `cargo run --release -p isabridge-decoder --example decode_speed -- [PASSES] [ISA] [PATH]`
//! (defaults: 200 passes, both ISAs, every path; `AMD_CORPUS=DIR` reads another corpus folder). Paths: `decode` (`dyn IsaPlugin::decode`, one
//! call per instruction), `decode_inst` (the same on the concrete plugin, no virtual call),
//! `block` (`dyn IsaPlugin::decode_block`, one call per run of decodable instructions), `ids`
//! (`dyn IsaPlugin::decode_block_ids`: the same, recording offset, identity and length only;
//! not in the default set).
use isabridge_decoder::{amd, elf, Decoded, InstId, Isa};

/// Every code section of the corpus objects of one ISA.
fn corpus(isa: Isa) -> Vec<Vec<u8>> {
    let dir = std::env::var("AMD_CORPUS")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/amd/bin").to_string());
    let mut paths: Vec<_> = std::fs::read_dir(dir).into_iter().flatten().flatten().map(|e| e.path()).collect();
    paths.sort();
    let mut secs = Vec::new();
    for p in paths {
        if let Ok(o) = std::fs::read(&p).map_err(|_| ()).and_then(|b| elf::read(&b).map_err(|_| ())) {
            if o.isa == isa {
                secs.extend(o.sections.into_iter().map(|s| s.data));
            }
        }
    }
    secs
}

/// What the checksum takes of one decoded instruction: its identity (lengths, literals
/// included, decide where the walk goes next, so they are all used already).
fn sum_of(d: &Decoded) -> u64 {
    d.ienc as u64
}

/// One pass of `path` over the sections; returns the number of instructions (undecodable
/// words count as one each and are stepped over) and a checksum of every decoded
/// instruction's identity (so that no decode can be skipped).
fn pass(isa: Isa, path: &str, secs: &[Vec<u8>], buf: &mut Vec<Decoded>, ids: &mut Vec<InstId>) -> (u64, u64) {
    let p = isa.plugin();
    let mut n = 0u64;
    let mut sum = 0u64;
    for s in secs {
        let mut off = 0;
        match path {
            "decode" => {
                while off < s.len() {
                    off += match p.decode(&s[off..], off as u64) {
                        Ok(d) => {
                            sum = sum.wrapping_add(sum_of(&d));
                            d.len as usize
                        }
                        Err(_) => 4,
                    };
                    n += 1;
                }
            }
            "decode_inst" => {
                while off < s.len() {
                    let r = match isa {
                        Isa::Gfx1013 => amd::GFX10.decode_inst(&s[off..], off as u64),
                        _ => amd::GFX12.decode_inst(&s[off..], off as u64),
                    };
                    off += match r {
                        Ok(d) => {
                            sum = sum.wrapping_add(sum_of(&d));
                            d.len as usize
                        }
                        Err(_) => 4,
                    };
                    n += 1;
                }
            }
            "ids" => {
                while off < s.len() {
                    ids.clear();
                    off += p.decode_block_ids(&s[off..], off as u64, ids);
                    n += ids.len() as u64;
                    sum = ids.iter().fold(sum, |a, d| a.wrapping_add(d.ienc as u64));
                    if off < s.len() {
                        off += 4;
                        n += 1;
                    }
                }
            }
            _ => {
                while off < s.len() {
                    buf.clear();
                    off += p.decode_block(&s[off..], off as u64, buf);
                    n += buf.len() as u64;
                    sum = buf.iter().fold(sum, |a, d| a.wrapping_add(sum_of(d)));
                    if off < s.len() {
                        off += 4;
                        n += 1;
                    }
                }
            }
        }
    }
    (n, sum)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let passes: u32 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(200);
    let isas: Vec<Isa> = match args.get(2).and_then(|a| Isa::from_name(a)) {
        Some(i) => vec![i],
        None => vec![Isa::Gfx1013, Isa::Gfx1201],
    };
    let paths: Vec<&str> = match args.get(3) {
        Some(p) => vec![p.as_str()],
        None => vec!["decode", "decode_inst", "block"],
    };
    for isa in isas {
        let secs = corpus(isa);
        let mut buf = Vec::with_capacity(1 << 16);
        let mut ids = Vec::with_capacity(1 << 16);
        pass(isa, "block", &secs, &mut buf, &mut ids); // tables built and warm before timing
        for path in &paths {
            let t = std::time::Instant::now();
            let (mut n, mut sum) = (0u64, 0u64);
            for _ in 0..passes {
                let (k, s) = pass(isa, path, &secs, &mut buf, &mut ids);
                n += k;
                sum = sum.wrapping_add(s);
            }
            let dt = t.elapsed().as_secs_f64();
            println!("{isa} {path}: {n} instructions in {dt:.3} s: {:.1} M/s (checksum {sum:#x})", n as f64 / dt / 1e6);
        }
    }
}

//! AMD code-object metadata: the `NT_AMDGPU_METADATA` note (a MessagePack map) and the wave
//! sizes it names.
//!
//! Two kinds of metadata carry a wave size:
//! - HSA (`amdhsa.kernels`): each kernel map has `.symbol` (`<name>.kd`) and `.wavefront_size`.
//! - PAL (`amdpal.pipelines`): each pipeline's `.hardware_stages` maps a stage (`.cs`, `.ps`,
//!   `.vs`, `.gs`, `.hs`, ...) to its `.entry_point_symbol`, and either names the stage's
//!   `.wavefront_size` directly or leaves it to the register settings in `.registers`: on gfx10+
//!   a stage runs wave32 when its W32_EN bit is set, wave64 when it is clear (the register values
//!   in [`pal_w32_bit`]).
//!
//! The MessagePack reader is the small subset these notes use (nil, booleans, integers, floats,
//! strings, binary, arrays, maps); extension types are skipped over.

use crate::load::WaveSize;

/// A MessagePack value, borrowing strings from the note.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    /// nil.
    Nil,
    /// true / false.
    Bool(bool),
    /// Any integer (negative fixint, int8..int64, uint8..uint64 that fits).
    Int(i128),
    /// float32 / float64.
    Float(f64),
    /// A UTF-8 string (invalid UTF-8 is kept as binary).
    Str(&'a str),
    /// Binary data, or a string that is not UTF-8.
    Bin(&'a [u8]),
    /// An array.
    Array(Vec<Value<'a>>),
    /// A map, entries in stored order.
    Map(Vec<(Value<'a>, Value<'a>)>),
    /// An extension value (type, data).
    Ext(i8, &'a [u8]),
}

impl<'a> Value<'a> {
    /// The value under string key `k` of a map.
    pub fn get(&self, k: &str) -> Option<&Value<'a>> {
        match self {
            Value::Map(m) => m.iter().find(|(x, _)| *x == Value::Str(k)).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&'a str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The integer, if this is one.
    pub fn as_int(&self) -> Option<i128> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
}

/// Why a MessagePack buffer could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MsgpackError {
    /// The buffer ended inside a value.
    #[error("msgpack: truncated at byte {0}")]
    Truncated(usize),
    /// 0xc1, the one byte MessagePack never uses.
    #[error("msgpack: invalid byte {0:#04x} at {1}")]
    Invalid(u8, usize),
    /// Nesting deeper than [`MAX_DEPTH`].
    #[error("msgpack: nested too deep")]
    TooDeep,
}

/// Deepest nesting accepted (the metadata nests about 6 deep).
pub const MAX_DEPTH: usize = 64;

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], MsgpackError> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.b.len()).ok_or(MsgpackError::Truncated(self.at))?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn uint(&mut self, n: usize) -> Result<u64, MsgpackError> {
        Ok(self.take(n)?.iter().fold(0u64, |a, &x| a << 8 | x as u64))
    }

    fn str_or_bin(s: &'a [u8]) -> Value<'a> {
        match std::str::from_utf8(s) {
            Ok(s) => Value::Str(s),
            Err(_) => Value::Bin(s),
        }
    }

    fn items(&mut self, n: u64, depth: usize) -> Result<Vec<Value<'a>>, MsgpackError> {
        // Every item takes at least one byte: a count larger than what is left is truncated.
        if n > (self.b.len() - self.at) as u64 {
            return Err(MsgpackError::Truncated(self.at));
        }
        (0..n).map(|_| self.value(depth + 1)).collect()
    }

    fn pairs(&mut self, n: u64, depth: usize) -> Result<Vec<(Value<'a>, Value<'a>)>, MsgpackError> {
        if n.saturating_mul(2) > (self.b.len() - self.at) as u64 {
            return Err(MsgpackError::Truncated(self.at));
        }
        (0..n).map(|_| Ok((self.value(depth + 1)?, self.value(depth + 1)?))).collect()
    }

    fn value(&mut self, depth: usize) -> Result<Value<'a>, MsgpackError> {
        if depth > MAX_DEPTH {
            return Err(MsgpackError::TooDeep);
        }
        let at = self.at;
        let t = self.take(1)?[0];
        Ok(match t {
            0x00..=0x7f => Value::Int(t as i128),
            0x80..=0x8f => Value::Map(self.pairs((t & 0x0f) as u64, depth)?),
            0x90..=0x9f => Value::Array(self.items((t & 0x0f) as u64, depth)?),
            0xa0..=0xbf => Self::str_or_bin(self.take((t & 0x1f) as usize)?),
            0xc0 => Value::Nil,
            0xc1 => return Err(MsgpackError::Invalid(t, at)),
            0xc2 => Value::Bool(false),
            0xc3 => Value::Bool(true),
            0xc4..=0xc6 => {
                let n = self.uint(1 << (t - 0xc4))? as usize;
                Value::Bin(self.take(n)?)
            }
            0xc7..=0xc9 => {
                let n = self.uint(1 << (t - 0xc7))? as usize;
                let ty = self.take(1)?[0] as i8;
                Value::Ext(ty, self.take(n)?)
            }
            0xca => Value::Float(f32::from_bits(self.uint(4)? as u32) as f64),
            0xcb => Value::Float(f64::from_bits(self.uint(8)?)),
            0xcc..=0xcf => Value::Int(self.uint(1 << (t - 0xcc))? as i128),
            0xd0 => Value::Int(self.uint(1)? as u8 as i8 as i128),
            0xd1 => Value::Int(self.uint(2)? as u16 as i16 as i128),
            0xd2 => Value::Int(self.uint(4)? as u32 as i32 as i128),
            0xd3 => Value::Int(self.uint(8)? as i64 as i128),
            0xd4..=0xd8 => {
                let ty = self.take(1)?[0] as i8;
                Value::Ext(ty, self.take(1 << (t - 0xd4))?)
            }
            0xd9..=0xdb => {
                let n = self.uint(1 << (t - 0xd9))? as usize;
                Self::str_or_bin(self.take(n)?)
            }
            0xdc | 0xdd => {
                let n = self.uint(if t == 0xdc { 2 } else { 4 })?;
                Value::Array(self.items(n, depth)?)
            }
            0xde | 0xdf => {
                let n = self.uint(if t == 0xde { 2 } else { 4 })?;
                Value::Map(self.pairs(n, depth)?)
            }
            0xe0..=0xff => Value::Int(t as i8 as i128),
        })
    }
    /// Steps over one value at `depth` without building it; the same checks and errors as
    /// [`Self::value`]. Iterative: `left[k]` counts the items still to step over at depth
    /// `depth + k`.
    fn skip(&mut self, depth: usize) -> Result<(), MsgpackError> {
        // Scalars (most values) without the container stack.
        match self.b.get(self.at) {
            Some(0x80..=0x9f | 0xdc..=0xdf) | None => {}
            Some(_) if depth > MAX_DEPTH => {}
            Some(&t) => {
                let n = match t {
                    0x00..=0x7f | 0xc0 | 0xc2 | 0xc3 | 0xe0..=0xff => 0,
                    0xa0..=0xbf => (t & 0x1f) as usize,
                    0xca => 4,
                    0xcb => 8,
                    0xcc..=0xcf => 1 << (t - 0xcc),
                    0xd0..=0xd3 => 1 << (t - 0xd0),
                    0xd9 => {
                        self.at += 1;
                        return self.uint(1).and_then(|n| self.take(n as usize)).map(|_| ());
                    }
                    _ => return self.skip_nested(depth),
                };
                self.at += 1;
                return self.take(n).map(|_| ());
            }
        }
        self.skip_nested(depth)
    }

    /// [`Self::skip`] for any value, containers included.
    fn skip_nested(&mut self, depth: usize) -> Result<(), MsgpackError> {
        let mut left = [0u64; MAX_DEPTH + 2];
        let mut k = 0usize;
        left[0] = 1;
        loop {
            while left[k] == 0 {
                if k == 0 {
                    return Ok(());
                }
                k -= 1;
            }
            left[k] -= 1;
            if depth + k > MAX_DEPTH {
                return Err(MsgpackError::TooDeep);
            }
            let at = self.at;
            let t = *self.b.get(at).ok_or(MsgpackError::Truncated(at))?;
            self.at += 1;
            let (n, items) = match t {
                0x00..=0x7f | 0xc0 | 0xc2 | 0xc3 | 0xe0..=0xff => continue,
                0x80..=0x8f => (0, (t & 0x0f) as u64 * 2),
                0x90..=0x9f => (0, (t & 0x0f) as u64),
                0xa0..=0xbf => ((t & 0x1f) as usize, 0),
                0xc1 => return Err(MsgpackError::Invalid(t, at)),
                0xc4..=0xc6 => (self.uint(1 << (t - 0xc4))? as usize, 0),
                0xc7..=0xc9 => {
                    let n = self.uint(1 << (t - 0xc7))? as usize;
                    self.take(1)?;
                    (n, 0)
                }
                0xca => (4, 0),
                0xcb => (8, 0),
                0xcc..=0xcf => (1 << (t - 0xcc), 0),
                0xd0..=0xd3 => (1 << (t - 0xd0), 0),
                0xd4..=0xd8 => {
                    self.take(1)?;
                    (1 << (t - 0xd4), 0)
                }
                0xd9..=0xdb => (self.uint(1 << (t - 0xd9))? as usize, 0),
                0xdc | 0xdd => (0, self.uint(if t == 0xdc { 2 } else { 4 })?),
                0xde | 0xdf => (0, self.uint(if t == 0xde { 2 } else { 4 })?.saturating_mul(2)),
            };
            if n > 0 {
                self.take(n)?;
            } else if items > 0 {
                // Every item takes at least one byte.
                if items > (self.b.len() - self.at) as u64 {
                    return Err(MsgpackError::Truncated(self.at));
                }
                k += 1;
                left[k] = items;
            }
        }
    }
}

impl<'a> Reader<'a> {
    /// Reads the header of a map (`map`) or array at `depth` when the next value is one: its
    /// count; None (nothing read) for any other value. The checks of [`Self::value`].
    fn open(&mut self, map: bool, depth: usize) -> Result<Option<u64>, MsgpackError> {
        if depth > MAX_DEPTH {
            return Err(MsgpackError::TooDeep);
        }
        let Some(&t) = self.b.get(self.at) else { return Err(MsgpackError::Truncated(self.at)) };
        let save = self.at;
        self.at += 1;
        let n = match (t, map) {
            (0x80..=0x8f, true) | (0x90..=0x9f, false) => (t & 0x0f) as u64,
            (0xdc, false) | (0xde, true) => self.uint(2)?,
            (0xdd, false) | (0xdf, true) => self.uint(4)?,
            _ => {
                self.at = save;
                return Ok(None);
            }
        };
        if (if map { n.saturating_mul(2) } else { n }) > (self.b.len() - self.at) as u64 {
            return Err(MsgpackError::Truncated(self.at));
        }
        Ok(Some(n))
    }

    /// The next value if it is a UTF-8 string; any other value is stepped over (None).
    fn str_or_skip(&mut self, depth: usize) -> Result<Option<&'a str>, MsgpackError> {
        match self.b.get(self.at) {
            Some(0xa0..=0xbf | 0xd9..=0xdb) => match self.value(depth)? {
                Value::Str(s) => Ok(Some(s)),
                _ => Ok(None),
            },
            _ => self.skip(depth).map(|_| None),
        }
    }

    /// The bytes of the next value if it is a string (not checked for UTF-8: callers compare them
    /// with ASCII keys); any other value is stepped over (None).
    fn key_or_skip(&mut self, depth: usize) -> Result<Option<&'a [u8]>, MsgpackError> {
        let n = match self.b.get(self.at) {
            Some(&t @ 0xa0..=0xbf) => {
                self.at += 1;
                (t & 0x1f) as usize
            }
            Some(&t @ 0xd9..=0xdb) => {
                self.at += 1;
                self.uint(1 << (t - 0xd9))? as usize
            }
            _ => return self.skip(depth).map(|_| None),
        };
        self.take(n).map(Some)
    }

    /// The next value if it is an integer; any other value is stepped over (None).
    fn int_or_skip(&mut self, depth: usize) -> Result<Option<i128>, MsgpackError> {
        match self.b.get(self.at) {
            Some(0x00..=0x7f | 0xcc..=0xd3 | 0xe0..=0xff) => Ok(self.value(depth)?.as_int()),
            _ => self.skip(depth).map(|_| None),
        }
    }

    /// `amdhsa.kernels` at `depth`: what [`entry_waves`] reads of each kernel map.
    fn hsa_kernels(&mut self, depth: usize, out: &mut Vec<(String, WaveSize, MetaSource)>) -> Result<(), MsgpackError> {
        let Some(n) = self.open(false, depth)? else { return self.skip(depth) };
        let d = depth + 1;
        for _ in 0..n {
            let Some(m) = self.open(true, d)? else {
                self.skip(d)?;
                continue;
            };
            // First occurrence of each key wins, as in `Value::get`.
            let (mut symbol, mut name, mut wave) = (None, None, None);
            for _ in 0..m {
                match self.key_or_skip(d + 1)? {
                    Some(b".symbol") if symbol.is_none() => symbol = Some(self.str_or_skip(d + 1)?),
                    Some(b".name") if name.is_none() => name = Some(self.str_or_skip(d + 1)?),
                    Some(b".wavefront_size") if wave.is_none() => wave = Some(self.int_or_skip(d + 1)?),
                    _ => self.skip(d + 1)?,
                }
            }
            let name = symbol.flatten().map(|s| s.strip_suffix(".kd").unwrap_or(s)).or(name.flatten());
            if let (Some(n), Some(w)) = (name, wave.flatten().and_then(wave_of)) {
                out.push((n.to_string(), w, MetaSource::HsaMetadata));
            }
        }
        Ok(())
    }

    /// `amdpal.pipelines` at `depth`: each pipeline's stages and the W32_EN registers.
    fn pal_pipelines(&mut self, depth: usize, out: &mut Vec<(String, WaveSize, MetaSource)>) -> Result<(), MsgpackError> {
        const REGS: [u32; 3] = [0xa2d5, 0xa1b6, 0x2e00];
        let Some(n) = self.open(false, depth)? else { return self.skip(depth) };
        let d = depth + 1;
        for _ in 0..n {
            let Some(m) = self.open(true, d)? else {
                self.skip(d)?;
                continue;
            };
            let (mut regs_seen, mut stages_seen) = (false, false);
            let mut regs: [Option<u64>; 3] = [None; 3];
            let mut stages: Vec<(&str, &str, Option<i128>)> = Vec::new();
            for _ in 0..m {
                match self.key_or_skip(d + 1)? {
                    Some(b".registers") if !regs_seen => {
                        regs_seen = true;
                        let Some(k) = self.open(true, d + 1)? else {
                            self.skip(d + 1)?;
                            continue;
                        };
                        for _ in 0..k {
                            let key = self.int_or_skip(d + 2)?;
                            match REGS.iter().position(|&r| key == Some(r as i128)) {
                                Some(i) if regs[i].is_none() => {
                                    regs[i] = Some(self.int_or_skip(d + 2)?.map_or(0, |v| v as u64))
                                }
                                _ => self.skip(d + 2)?,
                            }
                        }
                    }
                    Some(b".hardware_stages") if !stages_seen => {
                        stages_seen = true;
                        let Some(k) = self.open(true, d + 1)? else {
                            self.skip(d + 1)?;
                            continue;
                        };
                        for _ in 0..k {
                            let stage = self.str_or_skip(d + 2)?;
                            let Some(sm) = self.open(true, d + 2)? else {
                                self.skip(d + 2)?;
                                continue;
                            };
                            let (mut sym, mut wave) = (None, None);
                            for _ in 0..sm {
                                match self.key_or_skip(d + 3)? {
                                    Some(b".entry_point_symbol") if sym.is_none() => sym = Some(self.str_or_skip(d + 3)?),
                                    Some(b".wavefront_size") if wave.is_none() => wave = Some(self.int_or_skip(d + 3)?),
                                    _ => self.skip(d + 3)?,
                                }
                            }
                            if let (Some(stage), Some(Some(sym))) = (stage, sym) {
                                stages.push((stage, sym, wave.flatten()));
                            }
                        }
                    }
                    _ => self.skip(d + 1)?,
                }
            }
            for (stage, sym, wave) in stages {
                if let Some(w) = wave.and_then(wave_of) {
                    out.push((sym.to_string(), w, MetaSource::PalWavefrontSize));
                } else if let Some((r, bit)) = pal_w32_bit(stage) {
                    let v = REGS.iter().position(|&x| x == r).and_then(|i| regs[i]).unwrap_or(0);
                    let w = if v >> bit & 1 != 0 { WaveSize::W32 } else { WaveSize::W64 };
                    out.push((sym.to_string(), w, MetaSource::PalRegisters));
                }
            }
        }
        Ok(())
    }
}

/// Reads one MessagePack value from the front of `b`.
pub fn parse(b: &[u8]) -> Result<Value<'_>, MsgpackError> {
    Reader { b, at: 0 }.value(0)
}

/// ELF note type of the AMDGPU metadata note (owner `AMDGPU`).
pub const NT_AMDGPU_METADATA: u32 = 32;

/// Calls `f` with each HSA kernel's name and metadata map (`amdhsa.kernels` in the
/// NT_AMDGPU_METADATA notes of `file`): the name is `.symbol` without `.kd`, else `.name`;
/// kernels with neither and notes that do not parse are skipped.
pub fn for_each_kernel_map(file: &object::File<'_>, mut f: impl FnMut(&str, &Value<'_>)) {
    use object::{Object, ObjectSection};
    for sec in file.sections().filter(|s| s.kind() == object::SectionKind::Note) {
        let Ok(data) = sec.data() else { continue };
        for desc in notes(data, "AMDGPU", NT_AMDGPU_METADATA) {
            let Ok(root) = parse(desc) else { continue };
            let Some(Value::Array(ks)) = root.get("amdhsa.kernels") else { continue };
            for k in ks {
                let name = k
                    .get(".symbol")
                    .and_then(Value::as_str)
                    .map(|s| s.strip_suffix(".kd").unwrap_or(s))
                    .or_else(|| k.get(".name").and_then(Value::as_str));
                if let Some(name) = name {
                    f(name, k);
                }
            }
        }
    }
}

/// The descriptor of every note in an ELF note section (little-endian) with owner `owner` and
/// type `ty`. A malformed tail ends the walk.
pub fn notes<'a>(data: &'a [u8], owner: &str, ty: u32) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut at = 0usize;
    let u32_at = |i: usize| data.get(i..i + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let pad = |n: usize| n.div_ceil(4) * 4;
    while let (Some(namesz), Some(descsz), Some(t)) = (u32_at(at), u32_at(at + 4), u32_at(at + 8)) {
        let name_at = at + 12;
        let desc_at = name_at + pad(namesz as usize);
        let end = desc_at + pad(descsz as usize);
        let (Some(name), Some(desc)) = (data.get(name_at..name_at + namesz as usize), data.get(desc_at..desc_at + descsz as usize))
        else {
            break;
        };
        if t == ty && name.strip_suffix(b"\0").unwrap_or(name) == owner.as_bytes() {
            out.push(desc);
        }
        at = end;
    }
    out
}

/// PAL register and bit that enable wave32 for a hardware stage on gfx10+ (register numbers are
/// dword offsets as in the `.registers` map): `.hs`/`.gs`/`.vs` VGT_SHADER_STAGES_EN (0xa2d5)
/// bits 21/22/23, `.ps` SPI_PS_IN_CONTROL (0xa1b6) bit 15, `.cs` COMPUTE_DISPATCH_INITIATOR
/// (0x2e00) bit 15. Other stages (`.ls`, `.es`, merged into `.hs`/`.gs` since gfx9) have none.
pub fn pal_w32_bit(stage: &str) -> Option<(u32, u32)> {
    Some(match stage {
        ".hs" => (0xa2d5, 21),
        ".gs" => (0xa2d5, 22),
        ".vs" => (0xa2d5, 23),
        ".ps" => (0xa1b6, 15),
        ".cs" => (0x2e00, 15),
        _ => return None,
    })
}

/// Where a wave size in the metadata came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MetaSource {
    /// HSA `amdhsa.kernels[].wavefront_size`.
    HsaMetadata,
    /// PAL `.hardware_stages.<stage>.wavefront_size`.
    PalWavefrontSize,
    /// PAL: the stage's W32_EN register bit.
    PalRegisters,
}

fn wave_of(n: i128) -> Option<WaveSize> {
    match n {
        32 => Some(WaveSize::W32),
        64 => Some(WaveSize::W64),
        _ => None,
    }
}

/// Entry-point symbol -> wave size named by the metadata `m` (the note's root map). HSA kernels
/// are keyed by their function name (`.symbol` without `.kd`, else `.name`).
pub fn entry_waves(m: &Value<'_>) -> Vec<(String, WaveSize, MetaSource)> {
    let mut out = Vec::new();
    if let Some(Value::Array(ks)) = m.get("amdhsa.kernels") {
        for k in ks {
            let name = k
                .get(".symbol")
                .and_then(Value::as_str)
                .map(|s| s.strip_suffix(".kd").unwrap_or(s))
                .or_else(|| k.get(".name").and_then(Value::as_str));
            let w = k.get(".wavefront_size").and_then(Value::as_int).and_then(wave_of);
            if let (Some(n), Some(w)) = (name, w) {
                out.push((n.to_string(), w, MetaSource::HsaMetadata));
            }
        }
    }
    if let Some(Value::Array(ps)) = m.get("amdpal.pipelines") {
        for p in ps {
            let reg = |r: u32| -> u64 {
                match p.get(".registers") {
                    Some(Value::Map(rs)) => rs
                        .iter()
                        .find(|(k, _)| k.as_int() == Some(r as i128))
                        .and_then(|(_, v)| v.as_int())
                        .map(|v| v as u64)
                        .unwrap_or(0),
                    _ => 0,
                }
            };
            let Some(Value::Map(stages)) = p.get(".hardware_stages") else { continue };
            for (stage, st) in stages {
                let Some(stage) = stage.as_str() else { continue };
                let Some(sym) = st.get(".entry_point_symbol").and_then(Value::as_str) else { continue };
                if let Some(w) = st.get(".wavefront_size").and_then(Value::as_int).and_then(wave_of) {
                    out.push((sym.to_string(), w, MetaSource::PalWavefrontSize));
                } else if let Some((r, bit)) = pal_w32_bit(stage) {
                    let w = if reg(r) >> bit & 1 != 0 { WaveSize::W32 } else { WaveSize::W64 };
                    out.push((sym.to_string(), w, MetaSource::PalRegisters));
                }
            }
        }
    }
    out
}

/// [`entry_waves`] of the note `b` read in one pass without building a tree (the notes of large
/// objects hold mostly kernel argument lists that the wave size does not need): the same answer
/// as `entry_waves(&parse(b)?)`, and an error exactly when [`parse`] gives one.
pub fn entry_waves_in(b: &[u8]) -> Result<Vec<(String, WaveSize, MetaSource)>, MsgpackError> {
    let mut r = Reader { b, at: 0 };
    let (mut hsa, mut pal) = (Vec::new(), Vec::new());
    let Some(n) = r.open(true, 0)? else {
        r.skip(0)?;
        return Ok(hsa);
    };
    let (mut seen_k, mut seen_p) = (false, false);
    for _ in 0..n {
        match r.key_or_skip(1)? {
            Some(b"amdhsa.kernels") if !seen_k => {
                seen_k = true;
                r.hsa_kernels(1, &mut hsa)?;
            }
            Some(b"amdpal.pipelines") if !seen_p => {
                seen_p = true;
                r.pal_pipelines(1, &mut pal)?;
            }
            _ => r.skip(1)?,
        }
    }
    hsa.extend(pal);
    Ok(hsa)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_and_containers() {
        // {"a": [1, -1, 200, -200, 65536, true, nil], "b": "xy", 7: 1.5}
        let b = [
            0x83, 0xa1, b'a', 0x97, 0x01, 0xff, 0xcc, 200, 0xd1, 0xff, 0x38, 0xce, 0, 1, 0, 0, 0xc3, 0xc0, 0xa1, b'b',
            0xa2, b'x', b'y', 0x07, 0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0,
        ];
        let v = parse(&b).unwrap();
        assert_eq!(
            v.get("a"),
            Some(&Value::Array(vec![
                Value::Int(1),
                Value::Int(-1),
                Value::Int(200),
                Value::Int(-200),
                Value::Int(65536),
                Value::Bool(true),
                Value::Nil
            ]))
        );
        assert_eq!(v.get("b").and_then(Value::as_str), Some("xy"));
        match &v {
            Value::Map(m) => assert_eq!(m[2], (Value::Int(7), Value::Float(1.5))),
            _ => panic!(),
        }
    }

    #[test]
    fn truncated_and_hostile_input_is_an_error() {
        assert_eq!(parse(&[0xa5, b'a']), Err(MsgpackError::Truncated(1)));
        assert_eq!(parse(&[0xdd, 0xff, 0xff, 0xff, 0xff]), Err(MsgpackError::Truncated(5)));
        assert_eq!(parse(&[0xc1]), Err(MsgpackError::Invalid(0xc1, 0)));
        assert_eq!(parse(&[0x91; 100]), Err(MsgpackError::TooDeep));
        assert_eq!(parse(&[]), Err(MsgpackError::Truncated(0)));
        for b in [&[0xa5, b'a'][..], &[0xdd, 0xff, 0xff, 0xff, 0xff], &[0xc1], &[0x91; 100], &[]] {
            assert_eq!(entry_waves_in(b).map(|_| ()), parse(b).map(|_| ()));
        }
    }

    #[test]
    fn pal_stage_wavefront_size_key_wins_over_registers() {
        // {"amdpal.pipelines": [{".hardware_stages": {".ps": {".entry_point_symbol": "p",
        //   ".wavefront_size": 32}}, ".registers": {}}]}
        let mut b = vec![0x81, 0xb0];
        b.extend_from_slice(b"amdpal.pipelines");
        b.extend_from_slice(&[0x91, 0x82, 0xb0]);
        b.extend_from_slice(b".hardware_stages");
        b.extend_from_slice(&[0x81, 0xa3]);
        b.extend_from_slice(b".ps");
        b.extend_from_slice(&[0x82, 0xb3]);
        b.extend_from_slice(b".entry_point_symbol");
        b.extend_from_slice(&[0xa1, b'p', 0xaf]);
        b.extend_from_slice(b".wavefront_size");
        b.push(32);
        b.push(0xaa);
        b.extend_from_slice(b".registers");
        b.push(0x80);
        let v = parse(&b).unwrap();
        assert_eq!(entry_waves(&v), vec![("p".to_string(), WaveSize::W32, MetaSource::PalWavefrontSize)]);
        assert_eq!(entry_waves_in(&b), Ok(entry_waves(&v)));
    }
}

//! Owned MessagePack values and their encoding: the body of the `NT_AMDGPU_METADATA` note a
//! gfx1201 code object carries ([`super::hsaco`]). Values read from a gfx1013 object's note
//! ([`isabridge_analysis::amdmeta::Value`]) convert with [`Msg::from_value`], so keys this crate
//! does not know (`.args`' `.address_space`, `.uniform_work_group_size`, ...) pass through.
//!
//! Encoding follows the MessagePack specification, smallest form first: positive integers as
//! fixint / uint8 / uint16 / uint32 / uint64, negative ones as negative fixint / int8 ... int64,
//! strings as fixstr / str8 / str16 / str32, arrays and maps as fix / 16 / 32 forms, floats as
//! float64.

use isabridge_analysis::amdmeta::Value;

/// A MessagePack value that owns its strings.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    /// nil.
    Nil,
    /// true / false.
    Bool(bool),
    /// An integer (what fits 64 bits signed or unsigned is encoded).
    Int(i128),
    /// A float (encoded as float64).
    Float(f64),
    /// A UTF-8 string.
    Str(String),
    /// Binary data.
    Bin(Vec<u8>),
    /// An array.
    Array(Vec<Msg>),
    /// A map, entries in order.
    Map(Vec<(Msg, Msg)>),
}

impl Msg {
    /// A string value.
    pub fn str(s: &str) -> Msg {
        Msg::Str(s.to_string())
    }

    /// The owned copy of a value read from a note; extension values become nil.
    pub fn from_value(v: &Value<'_>) -> Msg {
        match v {
            Value::Nil | Value::Ext(..) => Msg::Nil,
            Value::Bool(b) => Msg::Bool(*b),
            Value::Int(i) => Msg::Int(*i),
            Value::Float(f) => Msg::Float(*f),
            Value::Str(s) => Msg::Str(s.to_string()),
            Value::Bin(b) => Msg::Bin(b.to_vec()),
            Value::Array(xs) => Msg::Array(xs.iter().map(Msg::from_value).collect()),
            Value::Map(m) => Msg::Map(m.iter().map(|(k, v)| (Msg::from_value(k), Msg::from_value(v))).collect()),
        }
    }

    /// The value under string key `k` of a map.
    pub fn get(&self, k: &str) -> Option<&Msg> {
        match self {
            Msg::Map(m) => m.iter().find(|(x, _)| matches!(x, Msg::Str(s) if s == k)).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Sets string key `k` of a map to `v` (replacing the first entry of that key, else
    /// appending); nothing for a value that is not a map.
    pub fn set(&mut self, k: &str, v: Msg) {
        if let Msg::Map(m) = self {
            match m.iter_mut().find(|(x, _)| matches!(x, Msg::Str(s) if s == k)) {
                Some(e) => e.1 = v,
                None => m.push((Msg::str(k), v)),
            }
        }
    }

    /// Sets `k` to `v` only when the map has no entry for `k`.
    pub fn set_default(&mut self, k: &str, v: Msg) {
        if self.get(k).is_none() {
            self.set(k, v);
        }
    }

    /// Appends the MessagePack encoding of the value to `out`.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        match self {
            Msg::Nil => out.push(0xc0),
            Msg::Bool(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
            Msg::Int(i) => int(*i, out),
            Msg::Float(f) => {
                out.push(0xcb);
                out.extend_from_slice(&f.to_bits().to_be_bytes());
            }
            Msg::Str(s) => {
                let n = s.len();
                if n < 32 {
                    out.push(0xa0 | n as u8);
                } else {
                    sized(n, [0xd9, 0xda, 0xdb], out);
                }
                out.extend_from_slice(s.as_bytes());
            }
            Msg::Bin(b) => {
                sized(b.len(), [0xc4, 0xc5, 0xc6], out);
                out.extend_from_slice(b);
            }
            Msg::Array(xs) => {
                header(xs.len(), 0x90, [0xdc, 0xdd], out);
                xs.iter().for_each(|x| x.encode_into(out));
            }
            Msg::Map(m) => {
                header(m.len(), 0x80, [0xde, 0xdf], out);
                for (k, v) in m {
                    k.encode_into(out);
                    v.encode_into(out);
                }
            }
        }
    }

    /// The MessagePack encoding of the value.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode_into(&mut out);
        out
    }
}

fn int(i: i128, out: &mut Vec<u8>) {
    if (0..128).contains(&i) {
        out.push(i as u8);
    } else if i >= 0 {
        let v = i.min(u64::MAX as i128) as u64;
        if v <= u8::MAX as u64 {
            out.extend_from_slice(&[0xcc, v as u8]);
        } else if v <= u16::MAX as u64 {
            out.push(0xcd);
            out.extend_from_slice(&(v as u16).to_be_bytes());
        } else if v <= u32::MAX as u64 {
            out.push(0xce);
            out.extend_from_slice(&(v as u32).to_be_bytes());
        } else {
            out.push(0xcf);
            out.extend_from_slice(&v.to_be_bytes());
        }
    } else if i >= -32 {
        out.push(i as i8 as u8);
    } else {
        let v = i.max(i64::MIN as i128) as i64;
        if v >= i8::MIN as i64 {
            out.extend_from_slice(&[0xd0, v as i8 as u8]);
        } else if v >= i16::MIN as i64 {
            out.push(0xd1);
            out.extend_from_slice(&(v as i16).to_be_bytes());
        } else if v >= i32::MIN as i64 {
            out.push(0xd2);
            out.extend_from_slice(&(v as i32).to_be_bytes());
        } else {
            out.push(0xd3);
            out.extend_from_slice(&v.to_be_bytes());
        }
    }
}

/// A length prefix of 8, 16 or 32 bits with the tag of each width.
fn sized(n: usize, tags: [u8; 3], out: &mut Vec<u8>) {
    if n <= u8::MAX as usize {
        out.extend_from_slice(&[tags[0], n as u8]);
    } else if n <= u16::MAX as usize {
        out.push(tags[1]);
        out.extend_from_slice(&(n as u16).to_be_bytes());
    } else {
        out.push(tags[2]);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    }
}

/// An array or map header: the fix form under 16 entries, else 16 or 32 bits.
fn header(n: usize, fix: u8, tags: [u8; 2], out: &mut Vec<u8>) {
    if n < 16 {
        out.push(fix | n as u8);
    } else if n <= u16::MAX as usize {
        out.push(tags[0]);
        out.extend_from_slice(&(n as u16).to_be_bytes());
    } else {
        out.push(tags[1]);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use isabridge_analysis::amdmeta::parse;

    #[test]
    fn encoding_reads_back_through_the_note_reader() {
        let long = "x".repeat(300);
        let v = Msg::Map(vec![
            (Msg::str("a"), Msg::Array(vec![Msg::Int(1), Msg::Int(-1), Msg::Int(200), Msg::Int(-200), Msg::Int(65536), Msg::Int(1 << 40)])),
            (Msg::str("b"), Msg::Bool(true)),
            (Msg::str("c"), Msg::Float(1.5)),
            (Msg::str(&long), Msg::Nil),
            (Msg::str("d"), Msg::Array((0..20).map(Msg::Int).collect())),
        ]);
        let b = v.encode();
        assert_eq!(Msg::from_value(&parse(&b).unwrap()), v);
        // Spot checks of the smallest forms (MessagePack specification).
        assert_eq!(Msg::Int(127).encode(), [0x7f]);
        assert_eq!(Msg::Int(128).encode(), [0xcc, 0x80]);
        assert_eq!(Msg::Int(-32).encode(), [0xe0]);
        assert_eq!(Msg::Int(-33).encode(), [0xd0, 0xdf]);
        assert_eq!(Msg::str("ab").encode(), [0xa2, b'a', b'b']);
    }

    #[test]
    fn set_replaces_or_appends() {
        let mut m = Msg::Map(vec![(Msg::str("k"), Msg::Int(1))]);
        m.set("k", Msg::Int(2));
        m.set("j", Msg::Int(3));
        m.set_default("k", Msg::Int(9));
        assert_eq!(m, Msg::Map(vec![(Msg::str("k"), Msg::Int(2)), (Msg::str("j"), Msg::Int(3))]));
    }
}

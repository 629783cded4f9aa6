//! Decode, print and re-encode arbitrary bytes as sm86: the checks of `nvidia_check.rs`.
#![no_main]
#[path = "nvidia_check.rs"]
mod nvidia_check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| nvidia_check::check(isabridge_decoder::Isa::Sm86, data));

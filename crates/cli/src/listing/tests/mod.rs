//! The engine against the library's plain listing (`isabridge_decoder::disasm`), byte for byte.

mod amd;
mod amd_probe;
mod nvidia;

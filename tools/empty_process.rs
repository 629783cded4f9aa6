//! The process floor of the disassembler benchmarks: a program that does nothing, built the way
//! `tools/build_cli.sh` builds the release command (static musl where possible). No program,
//! however fast, finishes sooner from fork to exit on the same host, so a reference tool's time
//! divided by this program's is the best ratio any disassembler could reach on that file.
fn main() {}

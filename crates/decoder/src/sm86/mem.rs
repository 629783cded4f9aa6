//! Memory, texture, barrier and other non-ALU instructions: nvdisasm shows no `.reuse` on them
//! (checked on the fuzz set: never printed for these mnemonics whatever the reuse bits).

/// Mnemonics that never print `.reuse`.
pub const NO_REUSE: &[&str] = &[
    "AL2P", "ALD", "AST", "ATOM", "ATOMG", "ATOMS", "B2R", "BAR", "BMOV", "BREAK", "BREV", "CCTL", "CCTLL", "CCTLT",
    "CS2R", "CSMTEST", "ERRBAR", "F2F", "F2I", "FCHK", "FLO", "FOOTPRINT", "FRND", "GETLMEMBASE", "I2F", "I2FP",
    "IMMA", "IPA", "ISBERD", "LD", "LDC", "LDG", "LDGDEPBAR", "LDGSTS", "LDL", "LDS", "LDSM", "LDTRAM", "LEPC",
    "MATCH", "MEMBAR", "MOV", "MOVM", "MUFU", "NANOSLEEP", "NOP", "OUT", "PIXLD", "PMTRIG", "POPC", "QSPC", "R2UR",
    "REDUX", "S2R", "S2UR", "SETCTAID", "SHFL", "ST", "STG", "STL", "STS", "SUATOM", "SULD", "SUQUERY", "SURED",
    "SUST", "TEX", "TLD", "TLD4", "TMML", "TXD", "TXQ", "UBMSK", "UBREV", "UCLEA", "UFLO", "UIADD3", "UIMAD",
    "UISETP", "ULDC", "ULEA", "ULOP3", "UMOV", "UP2UR", "UPLOP3", "UPOPC", "UPRMT", "UR2UP", "USEL", "USGXT",
    "USHF", "VOTE", "VOTEU", "RED",
];

/// Drops `.reuse` from instructions that never show it.
pub fn strip_reuse(name: &str, t: &mut crate::nvidia::Text) {
    if NO_REUSE.binary_search(&name).is_ok() || NO_REUSE.contains(&name) {
        for o in t.ops.iter_mut() {
            if o.contains(".reuse") {
                *o = o.replace(".reuse", "");
            }
        }
    }
}

//! The shared IR of isabridge (filled by the IR issue).

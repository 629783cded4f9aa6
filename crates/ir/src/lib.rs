//! isabridge's shared IR: an SSA IR whose operations carry their exact semantics (rounding,
//! denormals, saturation, NaN rules, AMD float modes and modifiers), the pass pipeline, a text
//! form, a validator and a reference interpreter. The machine level (decoded instructions and
//! their CFGs) is `isabridge-analysis`.

pub mod accuracy;
pub mod builder;
pub mod eval;
pub mod interp;
pub mod ir;
pub mod module;
pub mod ops;
pub mod passes;
pub mod soft;
pub mod text;
pub mod types;
pub mod validate;

pub use builder::Builder;
pub use ir::{Block, Function, InstData, Reg, Terminator, Value};
pub use module::Module;
pub use ops::Op;
pub use types::{Scalar, Type};

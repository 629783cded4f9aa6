//! SPIR-V emission (rspirv) for a first compute subset of the IR; see [`emit`] for what it
//! covers and the binding layout. Everything outside the subset is [`EmitError::Unsupported`],
//! naming the block, value and operation.

mod emit;

mod amd_bvh;
mod amd_cube;
mod amd_dot;
mod amd_float;
mod amd_format;
mod amd_memory;
mod amd_private;
mod amd_trig;
mod approx_series;
mod atomic;
mod barrier;
mod calls;
mod exchange_batch;
mod f64;
mod f64_roots;
mod fblockdot;
mod fence;
mod float;
mod float_class;
mod halt;
mod heap;
mod helper_fn;
mod image;
mod image_load;
mod image_sample;
mod int64_float;
mod int_widths;
mod int_ops;
mod int8_words;
mod lane_loop;
mod lane_mask;
mod local_memory;
mod loop_guard;
mod multi_wave;
mod regs;
mod trap;
mod warp;
mod wave;
mod wave_union;

pub use emit::{emit, EmitError, Kernel, CONSTANT_BANK_BYTES, CONSTANT_BINDING, OUTPUTS_BINDING, PARAMS_BINDING};
pub use amd_bvh::RAY_NODE_TRAP;
pub use calls::{link_calls, CALL_DEPTH_TRAP, MOST_PENDING_CALLS, RETURN_SITE_TRAP};
pub use amd_format::FORMAT_TRAP;
pub use amd_private::PRIVATE_SEGMENT_TRAP;
pub use barrier::BARRIER_COUNT_TRAP;
pub use halt::HALT_TRAP;
pub use loop_guard::LOOP_LIMIT_TRAP;
pub use image::IMAGE_TRAP;
pub use multi_wave::DIVERGENT_WAVES_TRAP;
pub use trap::TRAP_BINDING;
pub use emit::{emit_with, EmitOptions};
pub use heap::{MemoryModel, HEAP_BASE_OFFSET, HEAP_BINDING, HEAP_FAULT_WORD, HEAP_HEADER_WORDS};

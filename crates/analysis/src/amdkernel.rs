//! The AMD HSA kernel ABI read from a code object: each kernel's descriptor (`<name>.kd`, 64
//! bytes) and its entry in the metadata note (`amdhsa.kernels`: arguments with offsets, sizes
//! and kinds, hidden arguments included), and the initial register state the hardware and the
//! HSA runtime give a wave of it.
//!
//! Descriptor layout (LLVM AMDGPUUsage, "Kernel Descriptor"): group_segment_fixed_size (u32 at
//! 0), private_segment_fixed_size (u32 at 4), kernarg_size (u32 at 8),
//! kernel_code_entry_byte_offset (i64 at 16), compute_pgm_rsrc3 (44), compute_pgm_rsrc1 (48),
//! compute_pgm_rsrc2 (52), kernel_code_properties (u16 at 56).
//!
//! Initial SGPRs, in order: the user SGPRs that kernel_code_properties enables (private segment
//! buffer 4, dispatch pointer 2, queue pointer 2, kernarg segment pointer 2, dispatch id 2,
//! flat scratch init 2, private segment size 1), then the system SGPRs rsrc2 enables
//! (workgroup id X, Y, Z, workgroup info, private segment wave byte offset). Initial VGPRs
//! (gfx10): work-item id X in v0, Y in v1, Z in v2, as many as rsrc2's ENABLE_VGPR_WORKITEM_ID
//! says (0: X, 1: X and Y, 2: X, Y and Z).

use crate::amdmeta::{self, Value};
use object::{Object, ObjectSection, ObjectSymbol};

/// Why a code object's kernels could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KernelError {
    /// The ELF reader refused the file.
    #[error("{0}")]
    Elf(String),
    /// No kernel of that name (the names there are listed).
    #[error("no kernel {name} in the code object (kernels: {known})")]
    NoKernel {
        /// The name asked for.
        name: String,
        /// The kernels the object has, comma-separated.
        known: String,
    },
    /// The descriptor is cut off or lies outside its section.
    #[error("kernel {0}: the kernel descriptor is truncated")]
    Descriptor(String),
}

/// One initial SGPR value the dispatch provides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SgprInput {
    /// Private segment buffer descriptor, dword n (0..4).
    PrivateSegmentBuffer(u8),
    /// Dispatch packet address, dword n (0 low, 1 high).
    DispatchPtr(u8),
    /// Queue address, dword n.
    QueuePtr(u8),
    /// Kernel argument segment address, dword n.
    KernargSegmentPtr(u8),
    /// Dispatch id, dword n.
    DispatchId(u8),
    /// Flat scratch initialisation, dword n.
    FlatScratchInit(u8),
    /// Private segment size per work-item.
    PrivateSegmentSize,
    /// Workgroup id in dimension 0, 1 or 2.
    WorkgroupId(u8),
    /// Workgroup information (ordered append term count and so on).
    WorkgroupInfo,
    /// The wave's byte offset into the private segment.
    PrivateSegmentWaveOffset,
}

/// What a kernel argument is, as the metadata's `.value_kind` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgKind {
    /// A pointer to a global buffer.
    GlobalBuffer,
    /// A value passed by value.
    ByValue,
    /// A hidden argument (`hidden_*`), by its name without the prefix.
    Hidden(String),
    /// Any other kind (dynamic shared pointer, image, sampler, pipe, queue ...), by name.
    Other(String),
}

/// One kernel argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelArg {
    /// Byte offset in the kernel argument segment.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// Kind.
    pub kind: ArgKind,
    /// The source-level type name, when the metadata gives one.
    pub type_name: String,
}

/// A kernel: its descriptor's fields and its metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// Kernel (function symbol) name.
    pub name: String,
    /// Workgroup shared memory (LDS) the kernel uses, in bytes.
    pub group_segment_size: u32,
    /// Scratch bytes per work-item.
    pub private_segment_size: u32,
    /// Kernel argument segment size in bytes.
    pub kernarg_size: u32,
    /// compute_pgm_rsrc1.
    pub rsrc1: u32,
    /// compute_pgm_rsrc2.
    pub rsrc2: u32,
    /// kernel_code_properties.
    pub properties: u16,
    /// Arguments in declaration order, hidden ones last (empty without metadata).
    pub args: Vec<KernelArg>,
}

impl Kernel {
    /// Runs as a wave of 64 lanes (kernel_code_properties bit 10 clear).
    pub fn wave64(&self) -> bool {
        self.properties & (1 << 10) == 0
    }

    /// The kernel calls functions whose stack size the compiler could not bound (recursion,
    /// indirect calls): kernel_code_properties bit 11, USES_DYNAMIC_STACK (code object v5,
    /// AMDGPUUsage "Kernel Descriptor"); the runtime then sizes the stack itself.
    pub fn uses_dynamic_stack(&self) -> bool {
        self.properties & (1 << 11) != 0
    }

    /// The float MODE register at entry: rsrc1's FLOAT_ROUND_MODE (bits 12-15) and
    /// FLOAT_DENORM_MODE (16-19) become MODE bits 0-7, ENABLE_DX10_CLAMP (21) bit 8,
    /// ENABLE_IEEE_MODE (23) bit 9.
    pub fn mode(&self) -> u32 {
        let r = self.rsrc1;
        (r >> 12 & 0xff) | (r >> 21 & 1) << 8 | (r >> 23 & 1) << 9
    }

    /// The SGPRs loaded at entry, s0 first.
    pub fn sgpr_inputs(&self) -> Vec<SgprInput> {
        self.sgpr_inputs_of(false)
    }

    /// The SGPRs loaded at entry with architected SGPRs (gfx12): the workgroup ids the
    /// descriptor enables ([`Kernel::workgroup_ids`]) come in TTMP registers, not in SGPRs.
    pub fn architected_sgpr_inputs(&self) -> Vec<SgprInput> {
        self.sgpr_inputs_of(true)
    }

    /// Which workgroup ids (X, Y, Z) the descriptor enables (rsrc2 bits 7-9).
    pub fn workgroup_ids(&self) -> [bool; 3] {
        [0, 1, 2].map(|d| self.rsrc2 >> (7 + d) & 1 != 0)
    }

    fn sgpr_inputs_of(&self, architected: bool) -> Vec<SgprInput> {
        let p = self.properties;
        let mut v = Vec::new();
        let mut add = |on: bool, n: u8, f: fn(u8) -> SgprInput| {
            if on {
                v.extend((0..n).map(f));
            }
        };
        add(p & 1 != 0, 4, SgprInput::PrivateSegmentBuffer);
        add(p & 2 != 0, 2, SgprInput::DispatchPtr);
        add(p & 4 != 0, 2, SgprInput::QueuePtr);
        add(p & 8 != 0, 2, SgprInput::KernargSegmentPtr);
        add(p & 16 != 0, 2, SgprInput::DispatchId);
        add(p & 32 != 0, 2, SgprInput::FlatScratchInit);
        if p & 64 != 0 {
            v.push(SgprInput::PrivateSegmentSize);
        }
        // USER_SGPR_COUNT (rsrc2 bits 1-5) counts the user SGPRs; the enables above name them.
        let user = (self.rsrc2 >> 1 & 31) as usize;
        v.truncate(user);
        while v.len() < user {
            v.push(SgprInput::PrivateSegmentSize);
        }
        let r = self.rsrc2;
        for d in 0..3u8 {
            if !architected && r >> (7 + d) & 1 != 0 {
                v.push(SgprInput::WorkgroupId(d));
            }
        }
        if r >> 10 & 1 != 0 {
            v.push(SgprInput::WorkgroupInfo);
        }
        if r & 1 != 0 {
            v.push(SgprInput::PrivateSegmentWaveOffset);
        }
        v
    }

    /// How many work-item id VGPRs are loaded at entry (1 to 3).
    pub fn workitem_ids(&self) -> u32 {
        (self.rsrc2 >> 11 & 3).min(2) + 1
    }
}

/// Every HSA kernel of an AMD code object, in symbol-table order.
pub fn kernels(bytes: &[u8]) -> Result<Vec<Kernel>, KernelError> {
    let file = object::File::parse(bytes).map_err(|e| KernelError::Elf(e.to_string()))?;
    let mut meta: Vec<(String, Vec<KernelArg>)> = Vec::new();
    amdmeta::for_each_kernel_map(&file, |name, k| {
        let mut args = Vec::new();
        if let Some(Value::Array(xs)) = k.get(".args") {
            for a in xs {
                let int = |key: &str| a.get(key).and_then(Value::as_int).unwrap_or(0) as u32;
                let kind = match a.get(".value_kind").and_then(Value::as_str).unwrap_or("") {
                    "global_buffer" => ArgKind::GlobalBuffer,
                    "by_value" => ArgKind::ByValue,
                    s => match s.strip_prefix("hidden_") {
                        Some(h) => ArgKind::Hidden(h.to_string()),
                        None => ArgKind::Other(s.to_string()),
                    },
                };
                let type_name = a.get(".type_name").and_then(Value::as_str).unwrap_or("").to_string();
                args.push(KernelArg { offset: int(".offset"), size: int(".size"), kind, type_name });
            }
        }
        meta.push((name.to_string(), args));
    });
    let mut out = Vec::new();
    for y in file.symbols() {
        let Ok(n) = y.name() else { continue };
        let Some(k) = n.strip_suffix(".kd") else { continue };
        let Some(si) = y.section_index() else { continue };
        let sec = file.section_by_index(si).map_err(|e| KernelError::Elf(e.to_string()))?;
        let data = sec.data().map_err(|e| KernelError::Elf(e.to_string()))?;
        let at = y.address().checked_sub(sec.address()).ok_or_else(|| KernelError::Descriptor(k.into()))? as usize;
        let kd = data.get(at..at + 64).ok_or_else(|| KernelError::Descriptor(k.into()))?;
        let u32_at = |i: usize| u32::from_le_bytes([kd[i], kd[i + 1], kd[i + 2], kd[i + 3]]);
        let args = meta.iter().find(|(m, _)| m == k).map(|(_, a)| a.clone()).unwrap_or_default();
        out.push(Kernel {
            name: k.to_string(),
            group_segment_size: u32_at(0),
            private_segment_size: u32_at(4),
            kernarg_size: u32_at(8),
            rsrc1: u32_at(48),
            rsrc2: u32_at(52),
            properties: u16::from_le_bytes([kd[56], kd[57]]),
            args,
        });
    }
    Ok(out)
}

/// The kernel named `name`, or the only kernel when `name` is None.
pub fn kernel(bytes: &[u8], name: Option<&str>) -> Result<Kernel, KernelError> {
    let ks = kernels(bytes)?;
    let known = || ks.iter().map(|k| k.name.as_str()).collect::<Vec<_>>().join(", ");
    match name {
        Some(n) => ks.iter().find(|k| k.name == n).cloned().ok_or_else(|| KernelError::NoKernel { name: n.into(), known: known() }),
        None if ks.len() == 1 => Ok(ks[0].clone()),
        None => Err(KernelError::NoKernel { name: "(none given: use --kernel)".into(), known: known() }),
    }
}

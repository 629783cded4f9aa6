//! gfx1201 code objects: the AMDHSA `.hsaco` ELF (kernel descriptors, metadata) around translated code.

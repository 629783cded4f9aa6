"""Minimal ELF64 reader for CUDA cubins (stdlib only)."""
import struct


class Section:
    def __init__(self, index, name, type_, flags, offset, size, data):
        self.index, self.name, self.type, self.flags = index, name, type_, flags
        self.offset, self.size, self.data = offset, size, data


class Symbol:
    def __init__(self, name, value, size, info, shndx):
        self.name, self.value, self.size, self.info, self.shndx = name, value, size, info, shndx

    @property
    def is_func(self):
        return (self.info & 0xF) == 2


def _cstr(blob, off):
    end = blob.index(b"\0", off)
    return blob[off:end].decode("utf-8", "replace")


class Cubin:
    def __init__(self, data: bytes):
        if data[:4] != b"\x7fELF" or data[4] != 2:
            raise ValueError("not an ELF64 file")
        self.data = data
        self.e_flags = struct.unpack_from("<I", data, 0x30)[0]
        shoff = struct.unpack_from("<Q", data, 0x28)[0]
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        raw = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
        stroff = raw[shstrndx][4]
        self.sections = []
        for i, (name, typ, flags, _addr, off, size, _link, _info, _al, _es) in enumerate(raw):
            body = data[off:off + size] if typ != 8 else b""
            self.sections.append(Section(i, _cstr(data, stroff + name), typ, flags, off, size, body))
        self.symbols = []
        for s in self.sections:
            if s.type == 2:  # SHT_SYMTAB
                strtab = self.sections[raw[s.index][6]].data
                for k in range(0, len(s.data), 24):
                    name, info, _other, shndx, value, size = struct.unpack_from("<IBBHQQ", s.data, k)
                    self.symbols.append(Symbol(_cstr(strtab, name), value, size, info, shndx))

    def code_sections(self):
        """Executable sections (SHF_EXECINSTR) in file order."""
        return [s for s in self.sections if s.flags & 0x4 and s.size]

    def functions_in(self, sec):
        """Sorted (offset, name) of function symbols defined in section sec."""
        fs = sorted({(y.value, y.name) for y in self.symbols if y.shndx == sec.index and y.is_func})
        if not fs or fs[0][0] != 0:
            fs.insert(0, (0, sec.name[len(".text."):] if sec.name.startswith(".text.") else sec.name))
        return fs

"""Batched nvdisasm 12.8 oracle for raw instruction words.

Texts are normalized to the address the word would have as the first instruction of a
code section (sm86: 0x0; sm50: 0x8, slot 1 of the first bundle): nvdisasm prints branch
targets as absolute addresses, so every batch is disassembled at two base addresses and
the numbers that move with the base are rebased to that canonical address.
"""
import re

from . import nvdis, order

SHIFT = 0x100000
_HEXTOK = re.compile(r"-?0x[0-9a-f]+")


class Oracle:
    def __init__(self, arch, batch=15000):
        self.arch = arch
        self.batch = batch
        self.calls = 0
        self.words = 0
        self.bisections = 0
        # every distinct mnemonic string printed (suffix-order learning, nvspec.order)
        self.mnemonics = set()

    # --- layout -------------------------------------------------------------------
    def _blob(self, words):
        if self.arch == 86:
            return b"".join(w.to_bytes(16, "little") for w in words)
        out = bytearray()
        for k in range(0, len(words), 3):
            grp = list(words[k:k + 3]) + [nvdis.SM50_NOP] * (3 - len(words[k:k + 3]))
            out += nvdis.SM50_FILL_CTRL.to_bytes(8, "little")
            for w in grp:
                out += w.to_bytes(8, "little")
        return bytes(out)

    def _addr(self, i):
        return i * 16 if self.arch == 86 else (i // 3) * 32 + 8 + (i % 3) * 8

    def _index(self, addr):
        if self.arch == 86:
            return addr // 16
        return (addr // 32) * 3 + (addr % 32) // 8 - 1

    def _canon(self):
        return 0 if self.arch == 86 else 8

    # --- running ------------------------------------------------------------------
    def _run(self, words, base):
        extra = ("-base", hex(base)) if base else ()
        self.calls += 1
        rc, out, err = nvdis.run_raw(self._blob(words), self.arch, extra)
        return rc, out, err

    def _texts(self, words, base):
        rc, out, err = self._run(words, base)
        if rc != 0:
            return None, err
        res = [""] * len(words)
        for e in nvdis.parse_listing(out, self.arch):
            i = self._index(e["offset"] - base)
            if 0 <= i < len(words):
                res[i] = nvdis.clean_text(e["text"])
        return res, None

    def disasm(self, words):
        """Return a list: text (str) for accepted words, None for illegal ones."""
        res = []
        for k in range(0, len(words), self.batch):
            res += self._disasm_batch(list(words[k:k + self.batch]))
        for t in res:
            if t:
                self.mnemonics.add(order.mnemonic(t))
        return res

    def _disasm_batch(self, words):
        self.words += len(words)
        fill = nvdis.SM50_NOP if self.arch == 50 else nvdis.SM86_NOP
        illegal = set()
        cur = list(words)
        for _ in range(6):
            t0, err = self._texts(cur, 0)
            if t0 is not None:
                break
            bad = nvdis.illegal_offsets(err)
            idx = {self._index(a) for a in bad} - illegal
            if not idx:
                # failure without an address (seen for some words that are only rejected in a
                # later pass): bisect to isolate them.
                if len(words) == 1:
                    return [None]
                self.bisections += 1
                h = len(words) // 2
                out = self._disasm_batch(cur[:h]) + self._disasm_batch(cur[h:])
                return [None if i in illegal else t for i, t in enumerate(out)]
            illegal |= idx
            for i in idx:
                cur[i] = fill
        else:
            raise RuntimeError("nvdisasm keeps failing")
        t1, err = self._texts(cur, SHIFT)
        if t1 is None:
            raise RuntimeError("shifted run failed: " + err[:400])
        out = []
        for i, (a, b) in enumerate(zip(t0, t1)):
            if i in illegal:
                out.append(None)
                continue
            if a != b:
                a = self._rebase(a, b, self._addr(i) - self._canon())
            out.append(a)
        return out

    @staticmethod
    def _rebase(a, b, delta):
        ta, tb = _HEXTOK.findall(a), _HEXTOK.findall(b)
        if len(ta) != len(tb):
            return a
        parts = _HEXTOK.split(a)
        toks = []
        for x, y in zip(ta, tb):
            if x != y and int(y, 16) - int(x, 16) == SHIFT:
                v = int(x, 16) - delta
                toks.append(("0x%x" % v) if v >= 0 else ("-0x%x" % -v) + "!")  # '!' marks wrap
            else:
                toks.append(x)
        return "".join(p + (toks[k] if k < len(toks) else "") for k, p in enumerate(parts))

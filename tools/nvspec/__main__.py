"""python3 -m nvspec --arch 50|86 : probe nvdisasm 12.8, write isa-specs/nvidia/sm<arch>.xml,
fixtures/nvidia/fuzz/sm<arch>.tsv and isa-specs/nvidia/sm<arch>.stats.json (deterministic)."""
import argparse
import json
import os
import random
import re

from . import probe, model, emit
from .order import learn as learn_suffix_order
from .oracle import Oracle
from .textparse import parse, tokens

ROOT = probe.ROOT
_NUM = re.compile(r"^[-+]?0x[0-9a-f]+$")


def numfmt(f, fd):
    ex_tok = tokens(f["ops"][fd["op"]])[1][fd["tok"]][1]
    toks = []
    for b in fd["bits"]:
        u = f["flips"].get(b)
        if u is None:
            toks.append(None)
            continue
        _, _, o = parse(u)
        t = tokens(o[fd["op"]])[1] if len(o) > fd["op"] else []
        toks.append(t[fd["tok"]][1] if len(t) > fd["tok"] else None)
    allt = [ex_tok] + [t for t in toks if t]
    if any(("." in t or "INF" in t or "NAN" in t) for t in allt):
        return "F", 1
    top = toks[-1] if toks else None
    fmt = "S" if top and top.startswith("-") != ex_tok.startswith("-") else "U"
    scale = 1
    if toks and toks[0] and _NUM.match(toks[0]) and _NUM.match(ex_tok):
        d = abs(int(toks[0], 16) - int(ex_tok, 16))
        if d and d & (d - 1) == 0:
            scale = d
    return fmt, scale



def finish_forms(arch, orc, forms, names):
    """The steps after the analysis: operand spellings, number formats, form names (unique
    against `names`, which it extends), print order, reuse flags."""
    probe.enumerate_mods(arch, orc, forms)
    probe.enumerate_small_operands(arch, orc, forms)
    for f in forms:
        f["base"] = f["mnemonic"].split(".")[0]
        for fd in f["fields"]:
            if fd["kind"] == "tok" and tokens(f["ops"][fd["op"]])[1][fd["tok"]][0] == "num":
                fd["numfmt"], fd["scale"] = numfmt(f, fd)
        model.name_fields(f)
        nm = "%s_%03x" % (f["base"], probe.opval(arch, f["example"]))
        names[nm] = names.get(nm, 0) + 1
        f["enc_name"] = nm if names[nm] == 1 else "%s_%d" % (nm, names[nm] - 1)
        order = [fd for fd in f["fields"] if fd["kind"] in ("PRED_NEG", "PRED")]
        order += sorted((fd for fd in f["fields"] if fd["kind"] == "mod"), key=lambda x: x["pos"])
        order += sorted((fd for fd in f["fields"] if fd["kind"] in ("prefix", "tok", "val")),
                        key=lambda x: (x["op"], x["kind"] != "prefix", x.get("tok", x.get("tokpos", 0))))
        for fd in order:
            if fd["kind"] == "tok" and fd["op"] == 0 and fd["name"] in ("RD", "PD", "URD", "UPD", "BD"):
                fd["role"] = "out"
        f["print_order"] = order
    probe.probe_reuse(arch, orc, forms)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", type=int, choices=(50, 86), required=True)
    ap.add_argument("--backgrounds", type=int, default=24)
    ap.add_argument("--examples", type=int, default=2)
    ap.add_argument("--fuzz-per-form", type=int, default=6)
    ap.add_argument("--fuzz-random", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=20260101)
    ap.add_argument("--closure-rounds", type=int, default=3)
    ap.add_argument("--siblings", action="store_true",
                    help="also try opcode values no background reached on their siblings' examples")
    ap.add_argument("--value-fields", action="store_true",
                    help="turn operand value sets (wait sets, half selectors) into fields")
    a = ap.parse_args()
    arch = a.arch
    rng = random.Random(a.seed + arch)
    orc = Oracle(arch)
    seeds = probe.load_seeds(arch)
    probe.log("sm%d: %d distinct corpus words" % (arch, len(seeds)))
    ex, accepted, nseeds = probe.discover(arch, orc, seeds, rng, a.backgrounds)
    examples = []
    for key in sorted(ex):
        examples += ex[key][:a.examples]
    probe.log("sm%d: %d (opcode value, mnemonic) keys, %d examples" % (arch, len(ex), len(examples)))
    forms = probe.analyse(arch, orc, examples)
    # merge identical forms (same identifier) keeping the first (corpus seeds come first)
    merged, seen = [], set()
    for f in forms:
        if not f["mnemonic"]:
            continue
        key = (frozenset(f["mask_bits"]), f["example"] & sum(1 << b for b in f["mask_bits"]))
        if key in seen:
            continue
        seen.add(key)
        merged.append(f)
    forms = merged
    probe.log("sm%d: %d forms after merging" % (arch, len(forms)))
    # Closure: corpus words that no form matches, and accepted words one structural bit away
    # from an example, become examples themselves (a bit is structural when flipping it from
    # *that* example changes the shape, so the other shapes need their own examples).
    index = probe.FormIndex(arch)
    for f in forms:
        index.add(f)
    fresh = forms
    for rnd in range(a.closure_rounds):
        pool = (nseeds if rnd == 0 else []) + probe.struct_flips(fresh)
        new_ex = probe.closure_examples(arch, index, pool)
        if not new_ex:
            break
        fresh = [f for f in probe.analyse(arch, orc, new_ex) if f["mnemonic"] and index.add(f)]
        forms += fresh
        probe.log("sm%d: closure round %d: %d examples, %d new forms (%d in all)" % (arch, rnd + 1, len(new_ex), len(fresh), len(forms)))
    if a.siblings:
        # Opcode values that still have no form: examples from their siblings, analysed after
        # all the others (so the forms found before stay as they were), with their own closure.
        covered = {probe.opval(arch, f["example"]) for f in forms}
        sib = probe.sibling_examples(arch, orc, ex, accepted, covered)
        probe.log("sm%d: %d keys from sibling opcode values: %s" % (arch, len(sib), " ".join("%03x:%s" % k for k in sib)))
        fresh = [f for f in probe.analyse(arch, orc, [e for k in sib for e in ex[k][:a.examples]])
                 if f["mnemonic"] and index.add(f)]
        forms += fresh
        for rnd in range(a.closure_rounds):
            new_ex = probe.closure_examples(arch, index, probe.struct_flips(fresh))
            if not new_ex:
                break
            fresh = [f for f in probe.analyse(arch, orc, new_ex) if f["mnemonic"] and index.add(f)]
            forms += fresh
        probe.log("sm%d: %d forms with the siblings'" % (arch, len(forms)))
    # operand value fields (DEPBAR wait sets, IADD3 half selectors): their bits leave the
    # identifier, so forms that differed only in those values become one
    nv = probe.value_fields(arch, orc, forms) if a.value_fields else 0
    merged, seen = [], set()
    for f in forms:
        key = (frozenset(f["mask_bits"]), f["example"] & sum(1 << b for b in f["mask_bits"]))
        if key not in seen:
            seen.add(key)
            merged.append(f)
    forms = merged
    nz = probe.omit_zero_numbers(arch, orc, forms) if a.value_fields else 0
    probe.log("sm%d: %d operand value fields, %d forms; %d trailing numbers left out at zero" % (arch, nv, len(forms), nz))
    finish_forms(arch, orc, forms, {})
    prov = ("Generated by `python3 -m nvspec --arch %d` (tools/nvspec) from nvdisasm 12.8.55 "
            "(triton 3.3.1 wheel) probes, seeded with fixtures/nvidia ptxas 12.9 cubins; "
            "seed %d, %d backgrounds." % (arch, a.seed, a.backgrounds))
    os.makedirs(os.path.join(ROOT, "isa-specs", "nvidia"), exist_ok=True)
    suffix_order = learn_suffix_order(orc.mnemonics)
    xml_path = os.path.join(ROOT, "isa-specs", "nvidia", "sm%d.xml" % arch)
    emit.emit(arch, forms, xml_path, prov, suffix_order)
    if arch == 86:
        # register/predicate fields left short by the classification (nvspec.widen)
        from .widen import widen
        widen(arch, xml_path, orc)
    # fuzzed valid words
    nb = probe.NBITS[arch]
    cands = []
    for f in forms:
        mask = sum(1 << b for b in f["mask_bits"])
        val = f["example"] & mask
        for _ in range(a.fuzz_per_form):
            cands.append(val | (rng.getrandbits(nb) & ~mask))
    cands += [rng.getrandbits(nb) for _ in range(a.fuzz_random)]
    res = orc.disasm(cands)
    lines, seen = [], set()
    for w, t in zip(cands, res):
        if not t or "!" in t.split(" ")[-1] or w in seen:
            continue
        seen.add(w)
        if arch == 86:
            hexs = "0x%016x 0x%016x" % (w & (2**64 - 1), w >> 64)
        else:
            hexs = "0x%016x 0x%016x" % (0x001F8000FC0007E0, w)
        lines.append(hexs + "\t" + t)
    fz = os.path.join(ROOT, "fixtures", "nvidia", "fuzz")
    os.makedirs(fz, exist_ok=True)
    with open(os.path.join(fz, "sm%d.tsv" % arch), "w") as out:
        out.write("".join(l + "\n" for l in lines))
    rnd = res[-a.fuzz_random:]
    from . import verify
    idx = verify.index_forms(forms)
    pairs = [(w, t) for w, t in zip(cands, res) if t and "!" not in t.split(" ")[-1]]
    nf, mf, af, badf = verify.check(idx, pairs[:len(pairs) - sum(t is not None for t in rnd)])
    rpairs = [(w, t) for w, t in zip(cands[-a.fuzz_random:], rnd) if t is not None and "!" not in t.split(" ")[-1]]
    nr, mr, ar, badr = verify.check(idx, rpairs)
    with open(os.path.join(ROOT, "isa-specs", "nvidia", "sm%d.mismatches.txt" % arch), "w") as out:
        for base in sorted(badf, key=lambda b: -len(badf[b])):
            out.write("%s %d\n" % (base, len(badf[base])))
            for x in badf[base][:3]:
                out.write("    %r\n" % (x,))
    stats = {
        "arch": arch,
        "corpus_words": len(seeds),
        "opcode_values_accepted": len(accepted),
        "opcode_mnemonic_keys": len(ex),
        "forms": len(forms),
        "mnemonics_accepted": len({b for _, b in ex if b}),
        "mnemonics_missing_from_spec": sorted({b for _, b in ex if b} - {f["base"] for f in forms}),
        "instructions": len({f["base"] for f in forms}),
        "fuzz_lines": len(lines),
        "random_words_tried": a.fuzz_random,
        "random_words_accepted": sum(t is not None for t in rnd),
        "oracle_processes": orc.calls,
        "model_check_form_fuzz": {"words": nf, "form_matched": mf, "text_agrees": af},
        "model_check_random_words": {"words": nr, "form_matched": mr, "text_agrees": ar},
        "oracle_words": orc.words,
        "oracle_bisections": orc.bisections,
    }
    with open(os.path.join(ROOT, "isa-specs", "nvidia", "sm%d.stats.json" % arch), "w") as out:
        json.dump(stats, out, indent=1, sort_keys=True)
        out.write("\n")
    probe.log(json.dumps(stats))


if __name__ == "__main__":
    main()

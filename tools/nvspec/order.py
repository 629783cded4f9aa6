"""Suffix order per mnemonic, learned from every text nvdisasm printed while probing.

nvdisasm prints an instruction's modifiers in a fixed order per mnemonic, whatever the order of
the fields in the word; a form's print template keeps the order of its example word. Every
mnemonic string the oracle returned is split into its suffixes; suffix `a` is *seen before* `b`
when `a` precedes `b` in some text. The strongly connected components of that relation are the
suffixes whose relative order nvdisasm does not fix (e.g. the destination and source types of
`F2F`); the components are ranked in topological order. A printer sorts the suffixes of a
rendered mnemonic stably by rank (equal ranks keep the template's order).

Placeholder spellings (`INVALID6`, `???3`) are left out: the same spelling comes from different
fields, so their position says nothing; the printer ranks them like the other values of the
field that printed them.
"""
import re

_PLACEHOLDER = re.compile(r"^(INVALID\w*|\?\?\?\d+)$")


def mnemonic(text):
    t = text.strip()
    if t.startswith("@"):
        t = t.split(" ", 1)[1] if " " in t else ""
    return t.split(" ", 1)[0]


def learn(mnemonics):
    """mnemonics: iterable of distinct mnemonic strings (`TEX.SCR.B.F16`). Returns
    {base: [(suffix, rank), ...]} with ranks 0, 1, ... (several suffixes may share one)."""
    before, pos = {}, {}
    for m in sorted(set(mnemonics)):
        parts = m.split(".")
        base, suf = parts[0], [p for p in parts[1:] if p and not _PLACEHOLDER.match(p)]
        g = before.setdefault(base, {})
        ps = pos.setdefault(base, {})
        for i, s in enumerate(suf):
            g.setdefault(s, set())
            ps.setdefault(s, []).append((i + 0.5) / len(suf))
        for i, a in enumerate(suf):
            for b in suf[i + 1:]:
                if a != b:
                    g[a].add(b)
    return {base: _rank(g, {s: sum(v) / len(v) for s, v in pos[base].items()})
            for base, g in sorted(before.items()) if g}


def _rank(g, avg):
    nodes = sorted(g)
    # Tarjan's strongly connected components (iterative).
    index, low, comp, stack, on = {}, {}, {}, [], set()
    ncomp = [0]
    counter = [0]

    def visit(v0):
        work = [(v0, iter(sorted(g[v0])))]
        index[v0] = low[v0] = counter[0]
        counter[0] += 1
        stack.append(v0)
        on.add(v0)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(g[nxt]))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp[x] = ncomp[0]
                    if x == v:
                        break
                ncomp[0] += 1

    for v in nodes:
        if v not in index:
            visit(v)
    # Condensed graph, topological order (Kahn).
    n = ncomp[0]
    succ = [set() for _ in range(n)]
    indeg = [0] * n
    for a in nodes:
        for b in g[a]:
            ca, cb = comp[a], comp[b]
            if ca != cb and cb not in succ[ca]:
                succ[ca].add(cb)
                indeg[cb] += 1
    # Among components that may come next, the one printed earliest on average (suffixes never
    # seen together, e.g. the values of one field, land next to each other).
    key = [min((round(avg[v], 6), v) for v in nodes if comp[v] == c) for c in range(n)]
    ready = sorted((c for c in range(n) if indeg[c] == 0), key=lambda c: key[c])
    rank = {}
    r = 0
    while ready:
        c = ready.pop(0)
        rank[c] = r
        r += 1
        for d in sorted(succ[c], key=lambda c: key[c]):
            indeg[d] -= 1
            if indeg[d] == 0:
                ready.append(d)
        ready.sort(key=lambda c: key[c])
    return [(v, rank[comp[v]]) for v in sorted(nodes, key=lambda v: (rank[comp[v]], v))]

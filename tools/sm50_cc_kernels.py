# The sm_50 kernels of fixtures/nvidia/lift/cc.sm50.ptx: one entry k_<name>(in, out, n) per body;
# thread i reads in[i] = (a, b, c), forms x = {a, b} and y = {c, yh} (yh = b when c % 4 == 0,
# else a ^ c) as u64 and f64, and writes out[i] = (r0, r1) (the atomic kernels use out[i].r1 as
# their memory word). crates/decoder/tests/sm50_cc.rs
# computes each body from the PTX ISA's definitions and compares.
import sys
bodies = {}
# each body: inputs %a %b %c (u32), %x %y (u64: x={a,b}, y={c, yh}), outputs %r0 %r1 (u32)
bodies['sub64'] = "sub.s64 %z, %x, %y; mov.b64 {%r0,%r1}, %z;"
bodies['neg64'] = "neg.s64 %z, %x; mov.b64 {%r0,%r1}, %z;"
bodies['subc96'] = "sub.cc.u32 %r0, %a, %c; subc.cc.u32 %r1, %b, %yh; subc.u32 %t0, %c, %a; xor.b32 %r1, %r1, %t0;"
def setp(ty):
    s = ""
    for i, c in enumerate(["eq","ne","lt","le","gt","ge"]):
        s += f"setp.{c}.{ty} %p, %x, %y; selp.u32 %t0, {1<<i}, 0, %p; or.b32 %acc, %acc, %t0;"
    return s
bodies['setp64'] = "mov.u32 %acc, 0;" + setp("s64") + "mov.u32 %r0, %acc; mov.u32 %acc, 0;" + setp("u64") + "mov.u32 %r1, %acc;"
def setv(ty):
    s = ""
    for i, c in enumerate(["eq","ne","lt","le","gt","ge"]):
        s += f"set.{c}.u32.{ty} %t0, %x, %y; and.b32 %t0, %t0, {1<<i}; or.b32 %acc, %acc, %t0;"
    return s
bodies['set64'] = "mov.u32 %acc, 0;" + setv("s64") + "mov.u32 %r0, %acc; mov.u32 %acc, 0;" + setv("u64") + "mov.u32 %r1, %acc;"
bodies['shl64'] = "and.b32 %t0, %c, 63; shl.b64 %z, %x, %t0; mov.b64 {%r0,%r1}, %z;"
bodies['shr64u'] = "and.b32 %t0, %c, 63; shr.u64 %z, %x, %t0; mov.b64 {%r0,%r1}, %z;"
bodies['shr64s'] = "and.b32 %t0, %c, 63; shr.s64 %z, %x, %t0; mov.b64 {%r0,%r1}, %z;"
bodies['shr64k'] = "shr.u64 %z, %x, 13; mov.b64 {%r0,%r1}, %z;"
bodies['lea64'] = "shl.b64 %z, %y, 5; add.s64 %z, %z, %x; mov.b64 {%r0,%r1}, %z;"
bodies['cvtsat'] = ("cvt.sat.u16.u32 %h0, %a; cvt.u32.u16 %t0, %h0;"
  "cvt.sat.u8.u32 %h1, %b; cvt.u32.u16 %t1, %h1; shl.b32 %t1, %t1, 16; or.b32 %r0, %t0, %t1;"
  "cvt.u16.u32 %h2, %c; cvt.sat.u16.s16 %h0, %h2; cvt.u32.u16 %t0, %h0;"
  "neg.s16 %h2, %h2; cvt.u32.u16 %t1, %h2; shl.b32 %t1, %t1, 16; or.b32 %r1, %t0, %t1;")
bodies['dset'] = "".join(
  f"set.{c}.u32.f64 %t0, %dx, %dy; and.b32 %t0, %t0, {1<<i}; or.b32 %acc, %acc, %t0;" for i, c in enumerate(
   ["eq","ne","lt","le","gt","ge","equ","neu","ltu","leu","gtu","geu","num","nan"]))
bodies['dset'] = "mov.u32 %acc, 0;" + bodies['dset'] + "mov.u32 %r0, %acc; set.neu.f32.f64 %f0, %dx, %dy; mov.b32 %r1, %f0;"
bodies['dround'] = ("cvt.rpi.f64.f64 %dz, %dx; mov.b64 {%t0,%t1}, %dz; cvt.rmi.f64.f64 %dz, %dx; mov.b64 {%t2,%t3}, %dz;"
  "cvt.rni.f64.f64 %dz, %dx; mov.b64 {%t4,%t5}, %dz; cvt.rzi.f64.f64 %dz, %dx; mov.b64 {%t6,%t7}, %dz;"
  "xor.b32 %r0, %t0, %t2; xor.b32 %r0, %r0, %t4; xor.b32 %r0, %r0, %t6;"
  "xor.b32 %r1, %t1, %t3; shl.b32 %t5, %t5, 1; xor.b32 %r1, %r1, %t5; shl.b32 %t7, %t7, 2; xor.b32 %r1, %r1, %t7;")
bodies['iabs'] = "abs.s32 %r0, %a; abs.s32 %t0, %b; neg.s32 %r1, %t0;"
bodies['shr64n'] = "shr.u64 %z, %x, %c; mov.b64 {%r0,%r1}, %z;"
bodies['atomftz'] = ("mov.b32 %fa, %a; st.global.u32 [%po+4], %b; atom.global.add.f32 %f0, [%po+4], %fa;"
  "mov.b32 %r0, %f0; ld.global.u32 %r1, [%po+4];")
bodies['redftz'] = ("mov.b32 %fa, %a; st.global.u32 [%po+4], %b; red.global.add.f32 [%po+4], %fa;"
  "ld.global.u32 %r1, [%po+4]; mov.u32 %r0, %c;")
bodies['madhisat'] = "mad.hi.sat.s32 %r0, %a, %b, %c; mad.hi.s32 %r1, %a, %b, %c;"
bodies['ceilsat'] = "mov.b32 %fa, %a; mov.b32 %fb, %b; cvt.rpi.sat.f32.f32 %f0, %fa; mov.b32 %r0, %f0; cvt.rpi.ftz.sat.f32.f32 %f0, %fb; mov.b32 %r1, %f0;"
bodies['vabsdiff'] = "vabsdiff.u32.u32.u32.add %r0, %a, %b, %c; vabsdiff.s32.s32.s32.add %r1, %a, %b, %c;"
bodies['vadd'] = "vadd.s32.s32.s32.sat %r0, %a, %b; vadd.u32.u32.u32.sat %r1, %a, %b;"
bodies['vmnmx'] = "vmax.s32.s32.s32 %r0, %a, %b; vmin.u32.u32.u32.add %r1, %a, %b, %c;"
bodies['vset'] = "vset.s32.u32.lt %r0, %a, %b; vset.u32.s32.ge.add %r1, %a, %b, %c;"
bodies['vshl'] = "vshl.u32.u32.u32.clamp %r0, %a, %b; vshr.s32.s32.u32.wrap %r1, %a, %b;"

# Condition-code writers other than the adders, and their readers (cc.rs): 64-bit min / max
# (IMNMX.XHI then IMNMX.U32.XLO), abs / div / rem of s64 (I2I / LOP to RZ.CC, CSETP), a loop
# whose exit tests an FSET or ISET result through CC (BRA CC.NEU), IADD3 with a carry out.
bodies['min64'] = "min.s64 %z, %x, %y; mov.b64 {%r0,%r1}, %z;"
bodies['maxu64'] = "max.u64 %z, %x, %y; mov.b64 {%r0,%r1}, %z;"
bodies['abs64'] = "abs.s64 %z, %x; mov.b64 {%r0,%r1}, %z;"
bodies['iadd3cc'] = "add.s64 %z, %x, %y; add.s64 %z, %z, %x; mov.b64 {%r0,%r1}, %z;"
# x = x / 2 + b (fma) until x < 0 or (c % 8) + 1 rounds: r0 the rounds, r1 x's bits.
bodies['fbreak'] = ("mov.b32 %fa, %a; mov.b32 %fb, %b; and.b32 %t1, %c, 7; mov.u32 %r0, 0;"
  "FL: fma.rn.f32 %fa, %fa, 0f3F000000, %fb; add.u32 %r0, %r0, 1; setp.geu.f32 %p, %fa, 0f00000000;"
  "setp.ne.u32 %q, %t1, 0; add.u32 %t1, %t1, -1; and.pred %p, %p, %q; @%p bra FL; mov.b32 %r1, %fa;")
# counts i up from a % 16 (mod 16) while i != b % 16 and fewer than c % 32 steps:
# r0 the steps, r1 the last i.
bodies['ibreak'] = ("and.b32 %t0, %a, 15; and.b32 %t1, %b, 15; and.b32 %t2, %c, 31; mov.u32 %r0, 0;"
  "IL: add.u32 %t0, %t0, 1; and.b32 %t0, %t0, 15; add.u32 %r0, %r0, 1; setp.ne.u32 %p, %t0, %t1;"
  "setp.ne.u32 %q, %t2, 0; add.u32 %t2, %t2, -1; and.pred %p, %p, %q; @%p bra IL; mov.u32 %r1, %t0;")
# acc = a; do acc ^= acc << 3 while acc & 7 != 0 and acc < b (signed) and fewer than 24 rounds:
# r0 the rounds, r1 acc (the corpus loop of control.cu's `loops`).
bodies['iltloop'] = ("mov.u32 %t0, %a; mov.u32 %r0, 0;"
  "LL: shl.b32 %t1, %t0, 3; xor.b32 %t0, %t0, %t1; add.u32 %r0, %r0, 1; and.b32 %t1, %t0, 7; setp.ne.u32 %p, %t1, 0;"
  "setp.lt.s32 %q, %t0, %b; and.pred %p, %p, %q; setp.lt.u32 %q, %r0, 24; and.pred %p, %p, %q; @%p bra LL; mov.u32 %r1, %t0;")
# div.rn.f32 (ptxas's slow path tests |y| against infinity through CC: FSET RZ.CC, BRA CC.EQ).
bodies['divrn'] = "mov.b32 %fa, %a; mov.b32 %fb, %b; div.rn.f32 %f0, %fa, %fb; mov.b32 %r0, %f0; mov.b32 %fb, %c; div.rn.f32 %f0, %fa, %fb; mov.b32 %r1, %f0;"
# CAS: the memory word is b (32-bit) or x (64-bit); the compare value is the old word when c is
# even, else a (y); r0 / r1: the old word and the word after (32-bit), or their xor halves.
bodies['cas32'] = ("st.global.u32 [%po+4], %b; and.b32 %t0, %c, 1; setp.eq.u32 %p, %t0, 0; selp.u32 %t1, %b, %a, %p;"
  "atom.global.cas.b32 %r0, [%po+4], %t1, %c; ld.global.u32 %r1, [%po+4];")
bodies['cas64'] = ("st.global.u64 [%po], %x; and.b32 %t0, %c, 1; setp.eq.u32 %p, %t0, 0; selp.b64 %z, %x, %y, %p;"
  "mov.b64 %o, {%c, %a}; atom.global.cas.b64 %z, [%po], %z, %o; ld.global.u64 %o, [%po];"
  "xor.b64 %z, %z, %o; mov.b64 {%r0,%r1}, %z; xor.b32 %r1, %r1, %t0;")
bodies['cass32'] = (".shared .align 8 .b8 sm32[1024]; mov.u32 %t2, %tid.x; shl.b32 %t2, %t2, 2; mov.u32 %t3, sm32; add.u32 %t2, %t2, %t3;"
  "st.shared.u32 [%t2], %b; and.b32 %t0, %c, 1; setp.eq.u32 %p, %t0, 0; selp.u32 %t1, %b, %a, %p;"
  "atom.shared.cas.b32 %r0, [%t2], %t1, %c; ld.shared.u32 %r1, [%t2];")
bodies['cass64'] = (".shared .align 8 .b8 sm64[2048]; mov.u32 %t2, %tid.x; shl.b32 %t2, %t2, 3; mov.u32 %t3, sm64; add.u32 %t2, %t2, %t3;"
  "st.shared.u64 [%t2], %x; and.b32 %t0, %c, 1; setp.eq.u32 %p, %t0, 0; selp.b64 %z, %x, %y, %p;"
  "mov.b64 %o, {%c, %a}; atom.shared.cas.b64 %z, [%t2], %z, %o; ld.shared.u64 %o, [%t2];"
  "xor.b64 %z, %z, %o; mov.b64 {%r0,%r1}, %z; xor.b32 %r1, %r1, %t0;")
# Byte selects on vmax / vmin (VMNMX.S8.S8.MX, VMNMX.S8.S8, VMNMX.UD.U8.U8.MX).
bodies['vmnmx8'] = "vmax.s32.s32.s32 %r0, %a.b1, %b.b2; vmin.s32.s32.s32 %r1, %a.b3, %c.b1;"
bodies['vmnmx8u'] = "vmax.u32.u32.u32 %r0, %b.b0, %c.b3; vmax.s32.s32.s32 %r1, %c.b0, %a.b3;"
print(".version 7.0\n.target sm_50\n.address_size 64\n")
for k, body in bodies.items():
    print(f""".visible .entry k_{k}(.param .u64 pin, .param .u64 pout, .param .u32 pn) {{
 .reg .u32 %a, %b, %c, %yh, %r0, %r1, %t0, %t1, %t2, %t3, %t4, %t5, %t6, %t7, %acc, %gi, %n;
 .reg .f32 %fa, %fb, %f0;
 .reg .u16 %h0, %h1, %h2;
 .reg .u64 %x, %y, %z, %pi, %po, %o;
 .reg .f64 %dx, %dy, %dz;
 .reg .pred %p, %q;
 mov.u32 %gi, %ctaid.x; mov.u32 %t0, %ntid.x; mov.u32 %t1, %tid.x; mad.lo.s32 %gi, %gi, %t0, %t1;
 ld.param.u32 %n, [pn]; setp.ge.u32 %q, %gi, %n;
 @%q bra DONE;
 ld.param.u64 %pi, [pin]; ld.param.u64 %po, [pout];
 mul.wide.u32 %o, %gi, 12; add.s64 %pi, %pi, %o;
 ld.global.u32 %a, [%pi]; ld.global.u32 %b, [%pi+4]; ld.global.u32 %c, [%pi+8];
 and.b32 %t0, %c, 3; setp.eq.u32 %p, %t0, 0; xor.b32 %t1, %a, %c; selp.u32 %yh, %b, %t1, %p;
 mov.b64 %x, {{%a, %b}}; mov.b64 %y, {{%c, %yh}}; mov.b64 %dx, %x; mov.b64 %dy, %y;
 mul.wide.u32 %o, %gi, 8; add.s64 %po, %po, %o;
 {body}
 st.global.u32 [%po], %r0; st.global.u32 [%po+4], %r1;
DONE:
 ret;
}}
""")

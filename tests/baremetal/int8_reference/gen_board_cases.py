#!/usr/bin/env python3
"""Turns a selection of the int8 reference cases (tests/data/int8/*_cases.txt,
written by tests/reference/int8_reference.py gen) into C++ constant arrays for the
bare-metal runner, so each Cortex-M board checks them bit for bit.

  gen_board_cases.py DATA_DIR OUT.h [--list]

The case files hold seeds, shapes, float32 scales as bit patterns and the
expected int8 outputs; the header keeps exactly those (inputs are regenerated
on the board from the seed by attn_test::Rng, as on Linux), so nothing is
copied by hand. With --list it prints the selection and its coverage instead.

Selection rule (deterministic, per op: softmax, sdpa, mha, luong dot, luong
general, bahdanau):
  1. drop cases whose regenerated inputs and outputs exceed FIT_BYTES (the
     board cases share the runner's 192 KiB arena with the op's scratch);
  2. order the rest by expected-output bytes, then seed (small cases first:
     they are the edge shapes, and they keep flash small);
  3. walk that order and take a case if it shows a feature (the parsers name
     them: mask kinds, batch, dimensions of 1, beta bands, ...) that no case
     taken so far shows, or while fewer than QUOTA[op] are taken.
Every feature in REQUIRED[op] must end up covered, else this script fails.
(The data set has no sdpa case with dim_v = 1 and no Luong case with seq = 1,
so those are not required.)
"""
import math
import struct
import sys

FIT_BYTES = 96 * 1024
QUOTA = {"softmax": 20, "sdpa": 40, "mha": 24, "luong_dot": 14, "luong_general": 14, "bahdanau": 20}


def bits_float(h):
    return struct.unpack("<f", struct.pack("<I", int(h, 16)))[0]


def xorshift32(seed):
    """The stream of attn_test::Rng (tests/cases/case.h), for the softmax inputs."""
    s = seed if seed != 0 else 0x9E3779B9
    while True:
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        yield s


def records(path, lines_per_case):
    lines = [l.rstrip("\n") for l in open(path) if l.strip() and not l.startswith("#")]
    assert len(lines) % lines_per_case == 0, path
    return [lines[i:i + lines_per_case] for i in range(0, len(lines), lines_per_case)]


def hex_bytes(line, tag):
    t, _, h = line.partition(" ")
    assert t == tag, (t, tag)
    return [b - 256 if b > 127 else b for b in bytes.fromhex(h.strip())]


def words(line, tag):
    w = line.split()
    assert w[0] == tag, (w[0], tag)
    return w[1:]


def quant_pairs(w):
    return [(int(w[i], 16), int(w[i + 1])) for i in range(0, len(w), 2)]


def beta_band(product):
    """The generator's bands of beta * input scale: the multiplier cap, the
    diff_min cuts, and the rest."""
    return "beta_cap" if product >= 32 else "beta_mid" if product >= 1 / 16 else "beta_low"


# ------------------------------------------------------------ parsers
# Each returns dicts with: op, seed, fields (C++ initialiser text before the
# arrays), arrays (name -> (C type, values)), fit (bytes on the board),
# expected (output bytes), features (set of names).

def parse_softmax(rec):
    seed, rows, cols, lo = (int(x) for x in words(rec[0], "softmax")[:4])
    scale_h, beta_h = words(rec[0], "softmax")[4:6]
    out = hex_bytes(rec[1], "out")
    rng = xorshift32(seed)
    x = [lo + next(rng) % (128 - lo) for _ in range(rows * cols)]
    product = bits_float(beta_h) * bits_float(scale_h)
    rows_x = [x[r * cols:(r + 1) * cols] for r in range(rows)]
    exp_sum = max(sum(math.exp((v - max(row)) * product) for v in row) for row in rows_x)
    f = {beta_band(product), "rows_1" if rows == 1 else "rows_many",
         "cols_1" if cols == 1 else "cols_odd" if cols % 2 else "cols_even"}
    if cols >= 300:
        f.add("long_row")
    if exp_sum >= 512:  # estimated in float: TFLite's final shift exceeds 31
        f.add("exp_sum_ge_512")
    return dict(op="softmax", seed=seed, fit=2 * rows * cols, expected=len(out), features=f,
                fields=f"{seed}u, {rows}, {cols}, {lo}, 0x{scale_h}u, 0x{beta_h}u",
                arrays=[("out", out)])


def parse_sdpa(rec):
    w = words(rec[0], "sdpa")
    seed, B, Lq, Lkv, dk, dv = (int(x) for x in w[:6])
    quant = quant_pairs(w[6:16])
    beta_h, causal, lengths, pattern = w[16], int(w[17]), int(w[18]), int(w[19])
    out, probs = hex_bytes(rec[1], "out"), hex_bytes(rec[2], "probs")
    f = {beta_band(bits_float(beta_h) * bits_float("%08x" % quant[3][0])),
         "batch_2" if B == 2 else "batch_1"}
    for name, v in [("seq_q", Lq), ("seq_kv", Lkv), ("dim_k", dk), ("dim_v", dv)]:
        if v == 1:
            f.add(name + "_1")
    if Lq > Lkv:
        f.add("seq_q_gt_seq_kv")
    f |= flags(causal=causal, key_lengths=lengths, boolean_mask=pattern)
    if causal and (lengths or pattern):
        f.add("combined_masks")
    if not (causal or lengths or pattern):
        f.add("no_mask")
    fit = B * (Lq * dk + Lkv * dk + Lkv * dv) + len(out) + len(probs) + 5 * Lq * Lkv * pattern
    qs = ", ".join("{0x%08xu, %d}" % q for q in quant)
    return dict(op="sdpa", seed=seed, fit=fit, expected=len(out) + len(probs), features=f,
                fields=f"{seed}u, {{{B}, {Lq}, {Lkv}, {dk}, {dv}}}, {{{qs}}}, 0x{beta_h}u, "
                       f"{bool_c(causal)}, {bool_c(lengths)}, {bool_c(pattern)}",
                arrays=[("out", out), ("probs", probs)])


def parse_mha(rec):
    w = words(rec[0], "mha")
    seed, B, Sq, Skv, E, H, kdim, vdim = (int(x) for x in w[:8])
    self_attn, bias, causal, lengths, pattern = (int(x) for x in w[8:13])
    beta_h = w[13]
    quant = quant_pairs(words(rec[1], "quant"))
    wscales = [int(x, 16) for x in words(rec[2], "wscales")]
    assert len(wscales) == 4 * E
    out, probs = hex_bytes(rec[3], "out"), hex_bytes(rec[4], "probs")
    f = {"self" if self_attn else "cross", "bias" if bias else "no_bias", "batch_%d" % B,
         "heads_%d" % H}
    f |= flags(causal=causal, key_lengths=lengths, boolean_mask=pattern, head_dim_1=E // H == 1,
               seq_q_1=Sq == 1, seq_kv_1=Skv == 1)
    fit = (B * (Sq * E + Skv * (kdim + vdim)) + E * (2 * E + kdim + vdim) + 16 * E
           + len(out) + len(probs))
    qs = ", ".join("{0x%08xu, %d}" % q for q in quant)
    return dict(op="mha", seed=seed, fit=fit, expected=len(out) + len(probs), features=f,
                fields=f"{seed}u, {{{B}, {Sq}, {Skv}, {E}, {H}, {kdim}, {vdim}}}, "
                       f"{bool_c(self_attn)}, {bool_c(bias)}, {bool_c(causal)}, {bool_c(lengths)}, "
                       f"{bool_c(pattern)}, "
                       f"0x{beta_h}u, {{{qs}}}",
                arrays=[("scales", wscales), ("out", out), ("probs", probs)])


def parse_luong(rec):
    w = words(rec[0], "luong")
    seed, general, B, seq, qd, kd, bias, lengths = (int(x) for x in w[:8])
    beta_h = w[8]
    quant = quant_pairs(words(rec[1], "quant"))
    wscales = [int(x, 16) for x in words(rec[2], "wscales")]
    out, probs = hex_bytes(rec[3], "out"), hex_bytes(rec[4], "probs")
    f = {"batch_%d" % min(B, 2), "beta_1" if bits_float(beta_h) == 1.0 else "beta_other"}
    f |= flags(bias=bias, key_lengths=lengths, seq_1=seq == 1, query_dim_1=qd == 1,
               key_dim_1=kd == 1)
    fit = B * (qd + seq * kd) + qd * kd + 8 * qd + len(out) + len(probs)
    qs = ", ".join("{0x%08xu, %d}" % q for q in quant)
    return dict(op="luong_general" if general else "luong_dot", seed=seed, fit=fit,
                expected=len(out) + len(probs), features=f,
                fields=f"{seed}u, {bool_c(general)}, {{{B}, {seq}, {qd}, {kd}}}, {bool_c(bias)}, "
                       f"{bool_c(lengths)}, 0x{beta_h}u, {{{qs}}}",
                arrays=[("scales", wscales or [0]), ("out", out), ("probs", probs)])


def parse_bahdanau(rec):
    w = words(rec[0], "bahdanau")
    seed, B, seq, qd, kd, units, bias, lengths = (int(x) for x in w[:8])
    beta_h = w[8]
    quant = quant_pairs(words(rec[1], "quant"))
    wscales = [int(x, 16) for x in words(rec[2], "wscales")]
    assert len(wscales) == 2 * units + 1
    out, probs = hex_bytes(rec[3], "out"), hex_bytes(rec[4], "probs")
    f = {"batch_%d" % min(B, 2), "beta_1" if bits_float(beta_h) == 1.0 else "beta_other"}
    f |= flags(bias=bias, key_lengths=lengths, seq_1=seq == 1, units_1=units == 1,
               query_dim_1=qd == 1, key_dim_1=kd == 1)
    fit = B * (qd + seq * kd) + units * (qd + kd + 1) + 8 * units + len(out) + len(probs)
    qs = ", ".join("{0x%08xu, %d}" % q for q in quant)
    return dict(op="bahdanau", seed=seed, fit=fit, expected=len(out) + len(probs), features=f,
                fields=f"{seed}u, {{{B}, {seq}, {qd}, {kd}, {units}}}, {bool_c(bias)}, "
                       f"{bool_c(lengths)}, 0x{beta_h}u, {{{qs}}}",
                arrays=[("scales", wscales), ("out", out), ("probs", probs)])


def bool_c(v):
    return "true" if v else "false"


def flags(**on):
    """The names of the features that are on."""
    return {name for name, v in on.items() if v}


# Every feature each op must cover (the selection fails otherwise).
REQUIRED = {
    "softmax": {"beta_cap", "beta_mid", "beta_low", "rows_1", "rows_many", "cols_odd", "cols_even",
                "long_row", "exp_sum_ge_512"},
    "sdpa": {"beta_cap", "beta_mid", "beta_low", "batch_1", "batch_2", "seq_q_1", "seq_kv_1",
             "dim_k_1", "seq_q_gt_seq_kv", "causal", "key_lengths", "boolean_mask",
             "combined_masks", "no_mask"},
    "mha": {"self", "cross", "bias", "no_bias", "batch_1", "batch_2", "heads_1", "heads_4",
            "causal", "key_lengths", "boolean_mask", "head_dim_1", "seq_q_1", "seq_kv_1"},
    "luong_dot": {"batch_1", "batch_2", "beta_1", "beta_other", "key_lengths"},
    "luong_general": {"batch_1", "batch_2", "beta_1", "beta_other", "key_lengths", "bias"},
    "bahdanau": {"batch_1", "batch_2", "beta_1", "beta_other", "key_lengths", "bias", "seq_1",
                 "units_1"},
}

SOURCES = [("softmax_cases.txt", 2, parse_softmax), ("sdpa_cases.txt", 3, parse_sdpa),
           ("mha_cases.txt", 5, parse_mha), ("luong_cases.txt", 5, parse_luong),
           ("bahdanau_cases.txt", 5, parse_bahdanau)]


def select(cases):
    by_op = {}
    for c in cases:
        by_op.setdefault(c["op"], []).append(c)
    chosen = {}
    for op, group in by_op.items():
        covered, taken = set(), []
        fitting = (c for c in group if c["fit"] <= FIT_BYTES)
        for c in sorted(fitting, key=lambda c: (c["expected"], c["seed"])):
            if len(taken) < QUOTA[op] or not c["features"] <= covered:
                taken.append(c)
                covered |= c["features"]
        missing = REQUIRED[op] - covered
        if missing:
            sys.exit(f"gen_board_cases.py: {op}: no case that fits shows {sorted(missing)}")
        chosen[op] = sorted(taken, key=lambda c: c["seed"])
    return chosen


STRUCTS = {"softmax": "SoftmaxCase", "sdpa": "SdpaCase", "mha": "MhaCase",
           "luong_dot": "LuongCase", "luong_general": "LuongCase", "bahdanau": "BahdanauCase"}


def emit(chosen, out):
    w = out.write
    w("// Generated at build time by tests/baremetal/int8_reference/gen_board_cases.py\n"
      "// from tests/data/int8/*_cases.txt (tests/reference/int8_reference.py gen). Do not edit.\n"
      "#pragma once\n\n#include \"reference_case.h\"\n\nnamespace int8_board {\n")
    for op, group in chosen.items():
        for c in group:
            for name, values in c["arrays"]:
                ctype = "uint32_t" if name == "scales" else "int8_t"
                body = ", ".join(str(v) + ("u" if ctype == "uint32_t" else "") for v in values)
                w(f"const {ctype} k{op}_{c['seed']}_{name}[] = {{{body}}};\n")
    for op in ["softmax", "sdpa", "mha", "luong", "bahdanau"]:
        ops = [o for o in chosen if o.split("_")[0] == op]
        group = sorted((c for o in ops for c in chosen[o]), key=lambda c: c["seed"])
        w(f"\nconst {STRUCTS[ops[0]]} k{op.capitalize()}Cases[] = {{\n")
        for c in group:
            arrays = ", ".join(f"k{c['op']}_{c['seed']}_{n}, {len(v)}u" if n != "scales"
                               else f"k{c['op']}_{c['seed']}_{n}" for n, v in c["arrays"])
            w(f"    {{{c['fields']}, {arrays}}},\n")
        w("};\n")
    w("\n}  // namespace int8_board\n")


def main():
    data_dir, out_path = sys.argv[1], sys.argv[2]
    cases = [parse(rec) for name, n, parse in SOURCES for rec in records(f"{data_dir}/{name}", n)]
    chosen = select(cases)
    if "--list" in sys.argv:
        for op, group in chosen.items():
            feats = sorted(set().union(*(c["features"] for c in group)))
            print(f"{op}: {len(group)} cases, {sum(c['expected'] for c in group)} expected bytes, "
                  f"seeds {[c['seed'] for c in group]}\n  covers {feats}")
        print("total", sum(len(g) for g in chosen.values()), "cases,",
              sum(c["expected"] for g in chosen.values() for c in g), "expected bytes")
        return
    with open(out_path, "w") as out:
        emit(chosen, out)


if __name__ == "__main__":
    main()

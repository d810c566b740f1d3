#!/usr/bin/python3
"""The converter's scratch figures are the engine's, for both float query tiles.

    scratch_figure_test.py TOOLS_DIR ATTN_BINARY LIBRARY_TILE

TOOLS_DIR holds attn-scratch-tile8 and attn-scratch-tile32 (the engine's
scratch functions built with query tile 8 and 32); ATTN_BINARY is the CLI linked
with the library, whose query tile is LIBRARY_TILE. For every committed model
blob and several sequence lengths:
1. `attn-convert info` prints, for tile 8 and tile 32, the helper's figure;
2. for the library's own tile that figure equals `attn info` (the library's
   model_scratch_bytes, compiled code rather than the header evaluated again);
3. the attention core's share, sdpa_f32_scratch_bytes, equals the formula its
   header documents (computed here in Python, independently) for both tiles;
4. for int8 blobs, the converter's scratch plus multipliers and parameters
   and its RAM estimate equal `attn info`'s (this host's int8 figures).
Exit 0 pass, 1 fail.
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CONVERT = os.path.join(ROOT, "tools", "attn-convert")
DATA = os.path.join(ROOT, "tests", "data", "model")
sys.path.insert(0, os.path.join(ROOT, "tools"))
from convert import blob as blobfmt  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        check(False, f"{' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def align64(n):
    return (n + 63) // 64 * 64


def sdpa_formula(tile, dk, dv, key_block=64):
    """attn/sdpa.h's documented sdpa_f32_scratch_bytes (independent of seq)."""
    return 64 + align64(4 * tile * dk) + align64(4 * tile * key_block) + \
        align64(4 * tile * dv) + 3 * align64(4 * tile)


def helper(tools, tile, op, params, seq):
    p = [int(params[k]) for k in blobfmt.PARAMS[op]] + [0] * (4 - len(blobfmt.PARAMS[op]))
    out = run([os.path.join(tools, f"attn-scratch-tile{tile}"), op, "f32", "1", str(seq),
               str(seq)] + [str(v) for v in p])
    return json.loads(out)


def one_model(tools, attn, library_tile, name, seq):
    path = os.path.join(DATA, name)
    with open(path, "rb") as f:
        info = blobfmt.read_blob(f.read())
    out = run([sys.executable, CONVERT, "info", path, "--seq", str(seq), "--tools", tools])
    printed = {int(t): int(n.replace(",", "")) for t, n in
               re.findall(r"query tile (\d+) \([^)]*\): ([\d,]+) B", out)}
    check(sorted(printed) == [8, 32], f"{name} seq {seq}: converter prints tiles {printed}")
    lib = re.search(r"scratch: (\d+) bytes", run([attn, "info", path, "--seq", str(seq)]))
    check(lib is not None, f"{name}: attn info prints no scratch")
    for tile in (8, 32):
        fig = helper(tools, tile, info.op, info.params, seq)
        check(fig["query_tile"] == tile, f"attn-scratch-tile{tile} has tile {fig['query_tile']}")
        check(printed.get(tile) == fig["scratch_bytes"],
              f"{name} seq {seq} tile {tile}: converter {printed.get(tile)}, engine "
              f"{fig['scratch_bytes']}")
        if tile == library_tile and lib:
            check(int(lib.group(1)) == fig["scratch_bytes"],
                  f"{name} seq {seq} tile {tile}: attn info {lib.group(1)}, helper "
                  f"{fig['scratch_bytes']}")
        if info.op == "mha":
            hd = info.params["embed_dim"] // info.params["num_heads"]
            want = sdpa_formula(tile, hd, hd)
        elif info.op == "luong_general":
            want = sdpa_formula(tile, info.params["key_dim"], info.params["key_dim"])
        else:
            continue
        check(fig["sdpa_scratch_bytes"] == want,
              f"{name} tile {tile}: sdpa_f32_scratch_bytes {fig['sdpa_scratch_bytes']}, "
              f"documented formula {want}")


def one_int8_model(tools, attn, name, seq):
    path = os.path.join(DATA, name)
    out = run([sys.executable, CONVERT, "info", path, "--seq", str(seq), "--tools", tools])
    conv = re.search(r"scratch on this host \(int8 query tile \d+\): ([\d,]+) B.*?"
                     r"multipliers and parameters ([\d,]+) B", out)
    conv_ram = re.search(r"RAM estimate: ([\d,]+) B", out)
    info = run([attn, "info", path, "--seq", str(seq)])
    lib = re.search(r"scratch: (\d+) bytes", info)
    lib_ram = re.search(r"RAM estimate: (\d+) bytes", info)
    if not (conv and conv_ram and lib and lib_ram):
        check(False, f"{name} seq {seq}: figures missing:\n{out}\n{info}")
        return
    total = sum(int(g.replace(",", "")) for g in conv.groups())
    check(total == int(lib.group(1)), f"{name} seq {seq}: converter {total}, attn info "
                                      f"{lib.group(1)}")
    check(int(conv_ram.group(1).replace(",", "")) == int(lib_ram.group(1)),
          f"{name} seq {seq}: RAM {conv_ram.group(1)} vs attn info {lib_ram.group(1)}")


def main():
    tools, attn, library_tile = sys.argv[1], sys.argv[2], int(sys.argv[3])
    blobs = sorted(n for n in os.listdir(DATA) if n.endswith(".attn"))
    models = [n for n in blobs if "int8" not in n]
    for seq in (1, 7, 64, 300):
        for name in models:
            one_model(tools, attn, library_tile, name, seq)
        for name in blobs:
            if "int8" in name:
                one_int8_model(tools, attn, name, seq)
    # The head size of the engine's documentation (d = 64): 6,400 B with tile 8,
    # 25,024 B with tile 32, both from the library and the formula alike.
    params = {"embed_dim": 128, "num_heads": 2, "kdim": 128, "vdim": 128}
    for tile in (8, 32):
        fig = helper(tools, tile, "mha", params, 4096)
        check(fig["sdpa_scratch_bytes"] == sdpa_formula(tile, 64, 64),
              f"d = 64, tile {tile}: {fig['sdpa_scratch_bytes']} vs {sdpa_formula(tile, 64, 64)}")
        print(f"sdpa_f32_scratch_bytes, d = 64, query tile {tile}: {fig['sdpa_scratch_bytes']}")
    print(f"scratch_figure_test: {len(models)} float models x 4 lengths x 2 tiles, "
          f"{len(blobs) - len(models)} int8 models x 4 lengths, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The efficient-attention benchmark: how linear attention scales with the
length, against Attune's own causal flash attention and PyTorch, in one run.

  /usr/bin/python3 bench/efficient_attention.py [--build build]
      [--lengths 4096,16384,65536] [--flash-max 16384] [--repetitions 3]
      [--vulkan-length 4096] [--no-vulkan]

H = 12, D = Dv = 64, batch 1, 1 thread (serial artifacts, OMP_NUM_THREADS=1,
torch.set_num_threads(1)). Cases: attune.linear_attention causal and
non-causal, local + global attention (attune.attention with window 256,
i.e. 511 keys around each query, and 16 global tokens spread evenly over the
sequence), sparse attention (Child et al.'s strided pattern, causal, over
blocks of 64: the 4 latest blocks and every 16th before), and
attune.attention {causal} (flash) up to --flash-max; the local+global and
sparse ratios to flash are also given against their ideal, the ratio of
visible query-key pairs. Each
time is the fastest of --repetitions runs of `attune-run --bench`; the peak
resident memory of a separate `attune-run` of each linear case (inputs and
output included) is given as a multiple of the size of Q, K, V and the
output together. The PyTorch anchor writes the variants the usual way:
causal linear attention as the cumsum of the outer products phi(k_j)^T v_j
(an [L, D, Dv] tensor per head), non-causal as phi(q) (phi(k)^T v), full
causal attention as masked matmul-softmax-matmul; each at the lengths whose
tensors fit in --torch-memory GiB. On Vulkan (lavapipe, --vulkan-length),
the same Attune cases run on the device. Not a test.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from run import cpu_model  # noqa: E402  (one definition)

H, D = 12, 64

WINDOW, GLOBALS = 256, 16  # 2 WINDOW - 1 = 511 keys around each query
# Child et al.'s strided pattern over blocks of 64, causal: the 4 blocks up
# to a query's own and every 16th block before.
BLOCK, LOCAL, STRIDE = 64, 4, 16
MODELS = {
    "linear causal": "attune.linear_attention %q, %k, %v {causal}",
    "linear": "attune.linear_attention %q, %k, %v",
    "local+global": f"attune.attention %q, %k, %v globals(%g) {{window = {WINDOW} : i64}}",
    "sparse strided": "attune.attention %q, %k, %v {causal, sparse = "
                      f"#attune.sparse<block = {BLOCK}, local = {LOCAL}, stride = {STRIDE}>}}",
    "flash causal": "attune.attention %q, %k, %v {causal}",
}
# The variants measured against flash causal.
VARIANTS = [name for name in MODELS if name != "flash causal"]


def model_text(op):
    t = "tensor<1x12x?x64xf32>"
    g = f"tensor<1x{GLOBALS}xi64>"
    extra = f', %g: {g} {{attune.name = "g"}}' if "%g" in op else ""
    types = f"{t}, {t}, {t}" + (f", {g}" if extra else "")
    return (f'func.func @forward(%q: {t} {{attune.name = "q"}}, %k: {t} {{attune.name = "k"}}, '
            f'%v: {t} {{attune.name = "v"}}{extra}) -> {t} {{\n'
            f"  %o = {op} : ({types}) -> {t}\n"
            f"  return %o : {t}\n}}\n")


def global_positions(length):
    """GLOBALS positions spread evenly over the sequence (the worst case for
    tiles: each in its own query tile)."""
    return np.array([[i * length // GLOBALS for i in range(GLOBALS)]], dtype=np.int64)


def visible_pairs(name, length):
    """Query-key pairs a variant computes (per head)."""
    if name == "flash causal":
        return length * (length + 1) // 2
    if name == "local+global":
        i = np.arange(length)
        band = np.minimum(i + WINDOW, length) - np.maximum(i - WINDOW + 1, 0)
        g = global_positions(length)[0]
        outside = (np.abs(g[None, :] - i[:, None]) >= WINDOW).sum(1)
        is_global = np.zeros(length, dtype=bool)
        is_global[g] = True
        per_row = np.where(is_global, length, band + outside)
        return int(per_row.sum())
    if name == "sparse strided":
        nb = (length + BLOCK - 1) // BLOCK
        pairs = 0
        for qb in range(nb):
            d = qb - np.arange(qb)  # earlier key blocks
            pairs += int(((d < LOCAL) | (d % STRIDE == 0)).sum()) * BLOCK * BLOCK
            pairs += BLOCK * (BLOCK + 1) // 2  # the diagonal block, causal
        return pairs
    return None


def ratio_line(prefix, length, name, flash_ms, ms):
    """flash causal / `name` at `length`, with its share of the ideal
    (the ratio of visible query-key pairs) where the variant has one."""
    ratio = flash_ms / ms
    line = f"{prefix}L = {length}: flash causal / {name} = {ratio:.1f}x"
    pairs = visible_pairs(name, length)
    if pairs:
        ideal = visible_pairs("flash causal", length) / pairs
        line += f" (ideal {ideal:.1f}x from visible pairs: {ratio / ideal:.0%})"
    return line


def compile_models(bin_dir, work, targets):
    libs = {}
    for name, op in MODELS.items():
        src = work / (name.replace(" ", "_").replace("+", "_") + ".mlir")
        src.write_text(model_text(op))
        lib = work / (name.replace(" ", "_").replace("+", "_") + f"-{targets.replace(',', '_')}.so")
        cmd = [str(bin_dir / "attune-compile"), str(src), "-o", str(lib)]
        if targets != "cpu":
            cmd += [f"--target={targets}", "--vulkan-profile=lavapipe"]
        subprocess.run(cmd, check=True)
        libs[name] = lib
    return libs


def inputs_for(work, length):
    rng = np.random.default_rng(length)
    paths = []
    for n in "qkv":
        p = work / f"{n}{length}.npy"
        if not p.exists():
            np.save(p, rng.standard_normal((1, H, length, D), dtype=np.float32))
        paths.append(p)
    g = work / f"g{length}.npy"
    np.save(g, global_positions(length))
    return paths + [g]


def input_args(lib, paths):
    names = "qkvg" if "local" in lib.name else "qkv"
    return [a for n, p in zip(names, paths) for a in ("--input", f"{n}={p}")]


def attune_ms(bin_dir, lib, paths, runs, device=None):
    cmd = [str(bin_dir / "attune-run"), str(lib)] + input_args(lib, paths)
    cmd += ["--bench", str(runs)]
    if device:
        cmd.append(f"--device={device}")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return float(re.search(r"latency: min ([\d.]+) ms", out).group(1))


def peak_rss_mib(bin_dir, lib, paths):
    cmd = [str(bin_dir / "attune-run"), str(lib)] + input_args(lib, paths)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, OMP_NUM_THREADS="1"))
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{lib} failed")
    return usage.ru_maxrss / 1024


TORCH_SCRIPT = r"""
import sys, time, torch
torch.set_num_threads(1)
case, length, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
g = torch.Generator().manual_seed(length)
q, k, v = (torch.randn(1, 12, length, 64, generator=g) for _ in range(3))
phi = lambda x: torch.nn.functional.elu(x) + 1
def linear_causal():
    fq, fk = phi(q), phi(k)
    kv = torch.einsum("bhld,bhle->bhlde", fk, v).cumsum(2)
    num = torch.einsum("bhld,bhlde->bhle", fq, kv)
    den = torch.einsum("bhld,bhld->bhl", fq, fk.cumsum(2))
    return num / (den[..., None] + 1e-6)
def linear():
    fq, fk = phi(q), phi(k)
    num = fq @ (fk.transpose(-1, -2) @ v)
    den = fq @ fk.sum(2)[..., None]
    return num / (den + 1e-6)
def local_global():
    i = torch.arange(length)
    g = torch.tensor([j * length // 16 for j in range(16)])
    is_global = torch.zeros(length, dtype=torch.bool)
    is_global[g] = True
    vis = ((i[:, None] - i[None, :]).abs() < 256) | is_global[:, None] | is_global[None, :]
    s = (q @ k.transpose(-1, -2) / 8.0).masked_fill(~vis, float("-inf"))
    return torch.softmax(s, -1) @ v
def sparse_strided():
    i = torch.arange(length) // 64
    d = i[:, None] - i[None, :]
    vis = (d >= 0) & ((d < 4) | (d % 16 == 0))
    vis &= torch.arange(length)[:, None] >= torch.arange(length)[None, :]
    s = (q @ k.transpose(-1, -2) / 8.0).masked_fill(~vis, float("-inf"))
    return torch.softmax(s, -1) @ v
def flash_causal():
    mask = torch.triu(torch.ones(length, length, dtype=torch.bool), 1)
    s = (q @ k.transpose(-1, -2) / 8.0).masked_fill(mask, float("-inf"))
    return torch.softmax(s, -1) @ v
f = {"linear causal": linear_causal, "linear": linear, "local+global": local_global,
     "sparse strided": sparse_strided, "flash causal": flash_causal}[case]
best = float("inf")
with torch.no_grad():
    for _ in range(runs):
        t = time.perf_counter(); f(); best = min(best, time.perf_counter() - t)
print(best * 1000)
"""


def torch_bytes(case, length):
    """The largest tensors the PyTorch formulation holds at once."""
    if case == "linear causal":
        return 2 * H * length * D * D * 4
    if case in ("flash causal", "local+global", "sparse strided"):
        return 3 * H * length * length * 4
    return 8 * H * length * D * 4


def torch_ms(case, length, runs):
    out = subprocess.run([sys.executable, "-c", TORCH_SCRIPT, case, str(length), str(runs)],
                         check=True, capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--lengths", default="4096,16384,65536")
    ap.add_argument("--flash-max", type=int, default=16384)
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--torch-memory", type=float, default=8.0, help="GiB")
    ap.add_argument("--vulkan-length", type=int, default=4096)
    ap.add_argument("--no-vulkan", action="store_true")
    args = ap.parse_args()
    bin_dir = Path(args.build) / "bin"
    lengths = [int(x) for x in args.lengths.split(",")]
    work = Path(tempfile.mkdtemp(prefix="attune-efficient-"))
    print(f"# {cpu_model()}; {time.strftime('%Y-%m-%d')}; H = {H}, D = {D}, 1 thread", flush=True)
    libs = compile_models(bin_dir, work, "cpu")
    rows = {}
    for length in lengths:
        paths = inputs_for(work, length)
        for name, lib in libs.items():
            if name == "flash causal" and length > args.flash_max:
                continue
            runs = args.repetitions if name != "flash causal" or length <= 4096 else 1
            ms = attune_ms(bin_dir, lib, paths, runs)
            rss = None
            if name != "flash causal":
                rss = peak_rss_mib(bin_dir, lib, paths) / (4 * H * length * D * 4 / 2**20)
            tms = None
            if torch_bytes(name, length) <= args.torch_memory * 2**30:
                tms = torch_ms(name, length, 1 if length > 4096 else args.repetitions)
            rows[(name, length)] = (ms, rss, tms)
            print(f"{name:14s} L={length:6d}: attune {ms:9.1f} ms"
                  + (f", peak RSS {rss:.2f}x QKVO" if rss else "")
                  + (f", torch {tms:9.1f} ms ({tms / ms:.1f}x)" if tms else ""), flush=True)

    print("\n| case | " + " | ".join(f"L = {n // 1024}k ms" for n in lengths)
          + " | growth last / previous | peak RSS / QKVO (largest L) |")
    print("|---|" + "---|" * (len(lengths) + 2))
    for name in MODELS:
        cells, times = [], []
        for n in lengths:
            r = rows.get((name, n))
            cells.append(f"{r[0]:.1f}" if r else "—")
            times.append(r[0] if r else None)
        growth = (f"{times[-1] / times[-2]:.2f}" if len(times) > 1 and times[-1] and times[-2]
                  else "—")
        last = rows.get((name, lengths[-1]))
        rss = f"{last[1]:.2f}" if last and last[1] else "—"
        print(f"| {name} | " + " | ".join(cells) + f" | {growth} | {rss} |")
    for n in lengths:
        flash = rows.get(("flash causal", n))
        if flash:
            for name in VARIANTS:
                print(ratio_line("", n, name, flash[0], rows[(name, n)][0]))
    print("\n| case | L | PyTorch ms | Attune ms | PyTorch / Attune |")
    print("|---|---|---|---|---|")
    for (name, n), (ms, _, tms) in rows.items():
        if tms:
            print(f"| {name} | {n} | {tms:.1f} | {ms:.1f} | {tms / ms:.1f} |")

    if args.no_vulkan:
        return
    n = args.vulkan_length
    vlibs = compile_models(bin_dir, work, "cpu,vulkan")
    paths = inputs_for(work, n)
    vms = {name: attune_ms(bin_dir, lib, paths, 1, "vulkan") for name, lib in vlibs.items()}
    print(f"\nVulkan (lavapipe), L = {n}: "
          + ", ".join(f"{name} {ms:.0f} ms" for name, ms in vms.items()))
    for name in VARIANTS:
        print(ratio_line("Vulkan ", n, name, vms["flash causal"], vms[name]))


if __name__ == "__main__":
    main()

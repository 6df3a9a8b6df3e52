#!/usr/bin/env python3
"""The Vulkan generation benchmark: greedy decoding of a decoder-only model
(bench/models/gpt_vulkan_generate.mlir: the examples/gpt_generate.mlir
family, 4 layers, d 256, 4 heads, vocabulary 2,048, 320 positions) on the
Vulkan device (lavapipe in CI), a prompt of 256 tokens and 32 new tokens,
batch 1: the generation loop with the caches resident on the device
(attune-run --generate --device=vulkan) against the same artifact run the
way a model without a cache must be, the whole prefix re-run for every new
token (one call of the step per token, positions 0, through ctypes), in the
same run; the CPU's numbers alongside for scale.

  /usr/bin/python3 bench/generate_vulkan.py [--build build] [--prompt 256]
      [--new 32] [--repetitions 2]

Both loops must choose the same tokens. The no-cache loop also uploads the
step's (zero) caches with every call and reads them back (attune_model_run
on a step updates the caller's caches): 2.6 MB per call, a few ms of
memcpy on lavapipe against a forward pass of ~100 ms. Not a test.
"""
import argparse
import ctypes
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from run import cpu_model  # noqa: E402  (one definition)
from generate import attune, sh  # noqa: E402
MODEL = ROOT / "bench/models/gpt_vulkan_generate.mlir"


def cached(bin_dir, lib, prompt, new, device, out_dir):
    """attune-run --generate on `device`: total ms, prefill ms, ms per later
    step, and the tokens."""
    r = attune(bin_dir, lib, prompt, new, None, out_dir,
               extra=["--pad", "0", f"--device={device}"])
    return dict(r, tokens=np.load(out_dir / "tokens.npy"))


class Runtime:
    """The few runtime entry points the no-cache loop needs (ctypes)."""

    def __init__(self, libdir):
        rt = ctypes.CDLL(str(libdir / "libattune_runtime.so"))
        rt.attune_status_message.restype = ctypes.c_char_p
        rt.attune_status_message.argtypes = [ctypes.c_void_p]
        for name in ["attune_device_open", "attune_model_open_on",
                     "attune_tensor_wrap", "attune_model_run"]:
            getattr(rt, name).restype = ctypes.c_void_p
        rt.attune_tensor_data.restype = ctypes.c_void_p
        rt.attune_tensor_data.argtypes = [ctypes.c_void_p]
        rt.attune_tensor_free.argtypes = [ctypes.c_void_p]
        self.rt = rt

    def check(self, status):
        if status:
            sys.exit("error: " + self.rt.attune_status_message(status).decode())

    def wrap(self, array):
        t = ctypes.c_void_p()
        shape = (ctypes.c_int64 * array.ndim)(*array.shape)
        dtype = {np.dtype("float32"): 0, np.dtype("int64"): 4}[array.dtype]
        self.check(self.rt.attune_tensor_wrap(
            dtype, array.ndim, shape, array.ctypes.data_as(ctypes.c_void_p),
            ctypes.byref(t)))
        return t


def no_cache(runtime, lib, prompt, new, device, cache_shape, layers, vocab):
    """Every token re-runs the whole prefix (positions 0, fresh zero caches):
    total ms and the tokens."""
    rt = runtime.rt
    dev = ctypes.c_void_p()
    runtime.check(rt.attune_device_open(device.encode(), ctypes.byref(dev)))
    model = ctypes.c_void_p()
    runtime.check(rt.attune_model_open_on(str(lib).encode(), None, dev,
                                          ctypes.byref(model)))
    tokens = list(np.load(prompt)[0])
    start = time.perf_counter()
    for _ in range(new):
        arrays = [np.array([tokens], np.int64), np.array([0], np.int64),
                  np.array([len(tokens)], np.int64)]
        arrays += [np.zeros(cache_shape, np.float32) for _ in range(2 * layers)]
        ins = [runtime.wrap(a) for a in arrays]
        out = (ctypes.c_void_p * 1)()
        runtime.check(rt.attune_model_run(model, 0, (ctypes.c_void_p * len(ins))(*ins),
                                          len(ins), out, 1))
        logits = np.ctypeslib.as_array(
            ctypes.cast(rt.attune_tensor_data(out[0]), ctypes.POINTER(ctypes.c_float)),
            shape=(vocab,))
        tokens.append(int(np.argmax(logits)))
        rt.attune_tensor_free(out[0])
        for t in ins:
            rt.attune_tensor_free(t)
    total = (time.perf_counter() - start) * 1e3
    rt.attune_model_close(model)
    rt.attune_device_close(dev)
    return {"total_ms": total, "tokens": np.array([tokens[-new:]], np.int64)}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default="build")
    p.add_argument("--prompt", type=int, default=256)
    p.add_argument("--new", type=int, default=32)
    p.add_argument("--repetitions", type=int, default=2)
    a = p.parse_args()
    build = (ROOT / a.build).resolve()
    bin_dir = build / "bin"
    work = build / "bench/generate_vulkan"
    work.mkdir(parents=True, exist_ok=True)
    text = MODEL.read_text()
    vocab, d_model, heads, layers, positions = map(int, re.search(
        r"ref\.GPT\(vocab=(\d+), d_model=(\d+), heads=(\d+), layers=(\d+), "
        r"positions=(\d+)\)", text).groups())
    cache_shape = (1, heads, positions, d_model // heads)
    data = work / MODEL.stem
    if not (data / "weights.safetensors").exists():
        print("making the weights (PyTorch, seeded)", flush=True)
        sh([sys.executable, str(ROOT / "scripts/gen_golden.py"), "--out", str(work),
            str(MODEL)])
    weights = data / "weights.safetensors"
    lib = work / "gpt.so"
    # Recompiled when the model or the compiler is newer than the library.
    newest = max(MODEL.stat().st_mtime, (bin_dir / "attune-compile").stat().st_mtime)
    if not lib.exists() or lib.stat().st_mtime < newest:
        print("compiling (cpu,vulkan)", flush=True)
        sh([str(bin_dir / "attune-compile"), str(MODEL), "--weights", str(weights),
            "--target=cpu,vulkan", "-o", str(lib)])
    prompt = work / f"prompt{a.prompt}.npy"
    np.save(prompt, np.random.default_rng(0).integers(0, vocab, (1, a.prompt),
                                                      dtype=np.int64))
    devices = sh([str(bin_dir / "attune-run"), "--list-devices"]).strip()
    print(f"CPU: {cpu_model()}; Vulkan: {devices.splitlines()[0]}")
    print(f"\nGreedy generation, {MODEL.name}, prompt {a.prompt}, {a.new} new "
          f"tokens, batch 1 (with the cache best of {a.repetitions}, without one "
          f"run once; total ms for the {a.new} tokens):\n")
    print("| device | with the cache ms (prefill / step) | no cache (prefix re-run) ms | "
          "speedup | same tokens |")
    print("|---|---|---|---|---|")
    runtime = Runtime(build / "lib")
    for device in ("vulkan", "cpu"):
        # A first run creates the pipelines (then cached on disk).
        cached(bin_dir, lib, prompt, 2, device, work / "warm")
        best_c = min((cached(bin_dir, lib, prompt, a.new, device, work / f"out_{device}")
                      for _ in range(a.repetitions)), key=lambda r: r["total_ms"])
        # (Once: minutes on lavapipe, and not close to the cached loop.)
        best_n = no_cache(runtime, lib, prompt, a.new, device, cache_shape,
                          layers, vocab)
        same = bool((best_c["tokens"] == best_n["tokens"]).all())
        print(f"| {device} | {best_c['total_ms']:.0f} ({best_c['prefill_ms']:.0f} / "
              f"{best_c['step_ms']:.1f}) | {best_n['total_ms']:.0f} | "
              f"{best_n['total_ms'] / best_c['total_ms']:.1f} | {same} |", flush=True)


if __name__ == "__main__":
    main()

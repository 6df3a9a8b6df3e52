"""attune_model_generate through ctypes (libattune_runtime.so loaded
RTLD_LOCAL), on examples/gpt_generate.mlir compiled:

  ctypes_generate.py LIBDIR MODEL.so GOLDEN_DIR [DEVICE]

Checks, printing one line each: a bad request fails with its message and
the model still generates PyTorch's tokens afterwards; a failed check inside
the compiled step (a cache write past the capacity, run as a plain entry)
fails that run only; a callback that returns non-zero stops the generation;
the step run as an entry writes its caches in place. On a Vulkan DEVICE,
a generation's step moves the same bytes between host and device and
allocates the same device bytes at every position (the caches stay on the
device); on the CPU, step_allocations.py checks a step's allocations.
"""
import ctypes
import sys

import numpy as np

from runtime_ctypes import CALLBACK, Options, load, wrap

libdir, model_path, golden = sys.argv[1:4]
device_spec = sys.argv[4] if len(sys.argv) > 4 else None
rt = load(libdir)  # RTLD_LOCAL


def message(status):
    text = rt.attune_status_message(status).decode()
    rt.attune_status_free(status)
    return text


def check(status):
    if status:
        sys.exit("error: " + message(status))


def to_numpy(t, dtype):
    shape = [rt.attune_tensor_shape(t)[i] for i in range(rt.attune_tensor_rank(t))]
    n = int(np.prod(shape))
    data = ctypes.cast(rt.attune_tensor_data(t), ctypes.POINTER(ctypes.c_char))
    out = np.frombuffer(ctypes.string_at(data, n * np.dtype(dtype).itemsize),
                        dtype=dtype).reshape(shape).copy()
    rt.attune_tensor_free(t)
    return out


device = ctypes.c_void_p()
if device_spec:
    check(rt.attune_device_open(device_spec.encode(), ctypes.byref(device)))


def open_model():
    m = ctypes.c_void_p()
    check(rt.attune_model_open_on(model_path.encode(), None, device,
                                  ctypes.byref(m)))
    return m


model = open_model()
prompt = np.load(f"{golden}/case1/tokens.npy")
lengths = np.load(f"{golden}/case1/lengths.npy")
expected = np.load(f"{golden}/case1/generated.npy")
eos = (ctypes.c_int64 * 1)(93)


def generate(**kw):
    o = Options(max_new_tokens=24, eos_ids=eos, num_eos=1, pad_id=0,
                on_token=CALLBACK(0), length_penalty=1.0)
    for k, v in kw.items():
        setattr(o, k, v)
    tokens = ctypes.c_void_p()
    p, l = wrap(rt, prompt), wrap(rt, lengths)
    status = rt.attune_model_generate(model, p, l, ctypes.byref(o),
                                      ctypes.byref(tokens), None, None)
    rt.attune_tensor_free(p)
    rt.attune_tensor_free(l)
    if status:
        return message(status)
    return to_numpy(tokens, np.int64)


print("bad pad:", generate(pad_id=-1))
print("then tokens equal:", bool((generate() == expected).all()))

# The step as a plain entry: two tokens at position 47 of a 48-position
# cache fail inside the compiled code; the next run is fine.
caches = [np.zeros((1, 4, 48, 16), np.float32) for _ in range(4)]


def step(tokens, position):
    # The arrays must outlive the run: the tensors wrap their memory.
    arrays = [np.array(tokens, np.int64), np.array([position], np.int64),
              np.array([len(tokens[0])], np.int64)] + caches
    ins = [wrap(rt, a) for a in arrays]
    arr = (ctypes.c_void_p * len(ins))(*ins)
    out = (ctypes.c_void_p * 1)()
    status = rt.attune_model_run(model, 0, arr, len(ins), out, 1)
    for t in ins:
        rt.attune_tensor_free(t)
    if status:
        return message(status)
    return to_numpy(out[0], np.float32)


print("past the capacity:", step([[5, 6]], 47))
logits = step([[5, 6, 7]], 0)
print("then a step runs:", logits.shape, "cache rows written in place:",
      int((np.abs(caches[0]).sum(axis=(0, 1, 3)) > 0).sum()))
step([[8]], 3)
print("one more token, rows:", int((np.abs(caches[0]).sum(axis=(0, 1, 3)) > 0).sum()))

# A callback that returns non-zero stops after that token.
seen = []


def stop_after_three(user, sequence, index, token):
    seen.append((sequence, index, token))
    return 1 if index == 2 and sequence == 2 else 0


tokens = generate(on_token=CALLBACK(stop_after_three))
print("stopped:", tokens.shape, "callbacks:", len(seen),
      "tokens equal:", bool((tokens == expected[:, :3]).all()))
rt.attune_model_close(model)

# (On the CPU, what a decoding step allocates at each position:
# step_allocations.py.)
if device_spec:
    # A generation on the device: each step uploads its tokens, reads back
    # its logits and allocates its activations, the same at every position
    # (the caches stay on the device, written in place).
    model = open_model()
    marks = []

    def mark(user, sequence, index, token):
        up, down, dev = ctypes.c_uint64(), ctypes.c_uint64(), ctypes.c_uint64()
        rt.attune_runtime_transfer_stats(ctypes.byref(up), ctypes.byref(down),
                                         ctypes.byref(dev))
        marks.append((up.value, down.value, dev.value))
        return 0

    prompt, lengths = prompt[:1], lengths[:1]
    tokens = generate(on_token=CALLBACK(mark), num_eos=0, max_new_tokens=40)
    deltas = [tuple(b - a for a, b in zip(marks[i - 1], marks[i]))
              for i in range(2, len(marks))]
    print("steps:", len(marks), "per step (uploaded, downloaded, device bytes)"
          " at 2, 20, 39:", deltas[0], deltas[18], deltas[-1])
    print("the same at every position:", len(set(deltas)) == 1)
    rt.attune_model_close(model)
    rt.attune_device_close(device)

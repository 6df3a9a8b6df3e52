"""Attune from Python: compile a PyTorch module or an ONNX file, run it on
NumPy arrays (or torch tensors).

    import attune
    model = attune.compile(torch_module, example_inputs=(src,),
                           dynamic_axes={"src": {0: "B", 1: "L"}})
    out = model(src_numpy)            # a NumPy array (a tuple for several outputs)
    model = attune.compile("layer.onnx")
    model = attune.load("layer.so")   # an artifact attune-compile made
    gpt = attune.load("gpt.so")       # a model with a generation step
    tokens = gpt.generate(prompt, max_new_tokens=24, eos=93)

A torch module is exported with torch.onnx.export (in eval mode, grad
enabled) and imported by attune-compile, which binds its weights by the
module's state_dict keys. The runtime is libattune_runtime.so through
ctypes (loaded RTLD_LOCAL); no dependency beyond NumPy (and torch for
modules). Where the build put the tools and the runtime is recorded in
_paths.py at build time; ATTUNE_BIN_DIR and ATTUNE_LIB_DIR override it.
"""
import ctypes
import inspect
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

try:
    from . import _paths
    _BIN_DIR, _LIB_DIR = _paths.BIN_DIR, _paths.LIB_DIR
except ImportError:  # the source tree, not the build's copy
    _BIN_DIR = _LIB_DIR = None
_BIN_DIR = os.environ.get("ATTUNE_BIN_DIR", _BIN_DIR)
_LIB_DIR = os.environ.get("ATTUNE_LIB_DIR", _LIB_DIR)

__all__ = ["AttuneError", "Model", "compile", "load"]


class AttuneError(RuntimeError):
    """A compile or run error, with the tool's or the runtime's message."""


# attune_dtype (runtime.h) <-> NumPy.
_DTYPES = {np.dtype("float32"): 0, np.dtype("float16"): 1,
           np.dtype("int32"): 3, np.dtype("int64"): 4, np.dtype("bool"): 5}
_NUMPY = {v: k for k, v in _DTYPES.items()}  # attune_dtype -> NumPy
_NUMPY[2] = np.dtype("V2")  # bf16: raw bits, as ml_dtypes and attune-run


class _TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_size_t),
                ("shape", ctypes.POINTER(ctypes.c_int64))]


# attune_token_callback and attune_generate_options (runtime.h).
_TokenCallback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                                  ctypes.c_size_t, ctypes.c_size_t,
                                  ctypes.c_int64)


class _GenerateOptions(ctypes.Structure):
    _fields_ = [("max_new_tokens", ctypes.c_int64),
                ("eos_ids", ctypes.POINTER(ctypes.c_int64)),
                ("num_eos", ctypes.c_size_t),
                ("pad_id", ctypes.c_int64),
                ("beam_width", ctypes.c_size_t),
                ("length_penalty", ctypes.c_float),
                ("num_return", ctypes.c_size_t),
                ("temperature", ctypes.c_float),
                ("top_k", ctypes.c_size_t),
                ("seed", ctypes.c_uint64),
                ("capacity", ctypes.c_int64),
                ("on_token", _TokenCallback),
                ("user", ctypes.c_void_p),
                ("forced", ctypes.c_void_p),
                ("encoder_inputs", ctypes.c_void_p),
                ("num_encoder_inputs", ctypes.c_size_t),
                ("attention_maps", ctypes.POINTER(ctypes.c_void_p)),
                ("num_attention_maps", ctypes.c_size_t)]


_rt = None


def _runtime():
    global _rt
    if _rt is not None:
        return _rt
    if not _LIB_DIR:
        raise AttuneError("libattune_runtime.so not found: use the module "
                          "from the build (PYTHONPATH=build/python) or set "
                          "ATTUNE_LIB_DIR")
    rt = ctypes.CDLL(os.path.join(_LIB_DIR, "libattune_runtime.so"))
    vp, sz = ctypes.c_void_p, ctypes.c_size_t
    sigs = {
        "attune_status_message": (ctypes.c_char_p, [vp]),
        "attune_status_free": (None, [vp]),
        "attune_device_open": (vp, [ctypes.c_char_p, ctypes.POINTER(vp)]),
        "attune_device_close": (None, [vp]),
        "attune_model_open_on": (vp, [ctypes.c_char_p, ctypes.c_char_p, vp,
                                      ctypes.POINTER(vp)]),
        "attune_model_close": (None, [vp]),
        "attune_model_device": (ctypes.c_char_p, [vp]),
        "attune_model_find_entry": (vp, [vp, ctypes.c_char_p,
                                         ctypes.POINTER(sz)]),
        "attune_model_entry_name": (ctypes.c_char_p, [vp, sz]),
        "attune_model_num_entries": (sz, [vp]),
        "attune_model_num_inputs": (sz, [vp, sz]),
        "attune_model_num_outputs": (sz, [vp, sz]),
        "attune_model_input": (_TensorInfo, [vp, sz, sz]),
        "attune_model_output": (_TensorInfo, [vp, sz, sz]),
        "attune_model_set_num_threads": (vp, [vp, ctypes.c_int]),
        "attune_model_run": (vp, [vp, sz, ctypes.POINTER(vp), sz,
                                  ctypes.POINTER(vp), sz]),
        "attune_generate_options_init": (None, [ctypes.POINTER(
            _GenerateOptions)]),
        "attune_model_generate": (vp, [vp, vp, vp, ctypes.POINTER(
            _GenerateOptions), ctypes.POINTER(vp), ctypes.POINTER(vp),
            ctypes.POINTER(vp)]),
        "attune_tensor_wrap": (vp, [ctypes.c_int, sz,
                                    ctypes.POINTER(ctypes.c_int64), vp,
                                    ctypes.POINTER(vp)]),
        "attune_tensor_free": (None, [vp]),
        "attune_tensor_dtype": (ctypes.c_int, [vp]),
        "attune_tensor_rank": (sz, [vp]),
        "attune_tensor_shape": (ctypes.POINTER(ctypes.c_int64), [vp]),
        "attune_tensor_num_elements": (sz, [vp]),
        "attune_tensor_data": (vp, [vp]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(rt, name)
        fn.restype, fn.argtypes = res, args
    _rt = rt
    return rt


def _check(status):
    if status:
        rt = _runtime()
        text = rt.attune_status_message(status).decode()
        rt.attune_status_free(status)
        raise AttuneError(text)


def _as_numpy(x):
    if hasattr(x, "detach") and hasattr(x, "numpy"):  # a torch tensor
        x = x.detach().cpu().numpy()
    return np.ascontiguousarray(np.asarray(x))


def _wrap(a, what, tensors):
    """A runtime tensor over the NumPy array `a` (which must outlive it),
    appended to `tensors`."""
    rt = _runtime()
    if a.dtype not in _DTYPES:
        raise AttuneError(f"{what}: dtype {a.dtype} is not supported")
    t = ctypes.c_void_p()
    shape = (ctypes.c_int64 * a.ndim)(*a.shape)
    _check(rt.attune_tensor_wrap(_DTYPES[a.dtype], a.ndim, shape,
                                 a.ctypes.data_as(ctypes.c_void_p),
                                 ctypes.byref(t)))
    tensors.append(t)
    return t


def _take(t):
    """The runtime tensor `t` (a c_void_p or an address) as a NumPy array;
    frees `t`."""
    rt = _runtime()
    dtype = _NUMPY[rt.attune_tensor_dtype(t)]
    rank = rt.attune_tensor_rank(t)
    shape = tuple(rt.attune_tensor_shape(t)[d] for d in range(rank))
    n = rt.attune_tensor_num_elements(t)
    buf = (ctypes.c_char * (n * dtype.itemsize)).from_address(
        rt.attune_tensor_data(t))
    out = np.frombuffer(bytes(buf), dtype).reshape(shape)
    rt.attune_tensor_free(t)
    return out


def _token_ids(x, what):
    a = _as_numpy(x)
    if a.dtype.kind not in "iu":
        raise AttuneError(f"{what}: token ids must be integers, got {a.dtype}")
    return np.ascontiguousarray(a, dtype=np.int64)


class Model:
    """A compiled model opened by the runtime. Call it with the inputs in
    order or by name; it returns the outputs as NumPy arrays (one array for
    one output, else a tuple in the order of `output_names`)."""

    def __init__(self, path, device="cpu", weights=None, entry=None):
        rt = _runtime()
        self.path = str(path)
        self._device = ctypes.c_void_p()
        _check(rt.attune_device_open(device.encode(),
                                     ctypes.byref(self._device)))
        self._model = ctypes.c_void_p()
        try:
            _check(rt.attune_model_open_on(
                self.path.encode(), weights.encode() if weights else None,
                self._device, ctypes.byref(self._model)))
        except AttuneError:
            rt.attune_device_close(self._device)
            self._device = None
            raise
        if entry is None:
            self._entry = 0
        else:
            index = ctypes.c_size_t()
            _check(rt.attune_model_find_entry(self._model, entry.encode(),
                                              ctypes.byref(index)))
            self._entry = index.value
        self.entry = rt.attune_model_entry_name(self._model,
                                                self._entry).decode()
        self.inputs = [self._info(rt.attune_model_input, i) for i in
                       range(rt.attune_model_num_inputs(self._model,
                                                        self._entry))]
        self.outputs = [self._info(rt.attune_model_output, i) for i in
                        range(rt.attune_model_num_outputs(self._model,
                                                          self._entry))]
        self.input_names = [i["name"] for i in self.inputs]
        self.output_names = [o["name"] for o in self.outputs]
        self.device = rt.attune_model_device(self._model).decode()

    def _info(self, fn, i):
        info = fn(self._model, self._entry, i)
        return {"name": info.name.decode(), "dtype": _NUMPY[info.dtype],
                "shape": tuple(None if info.shape[d] < 0 else info.shape[d]
                               for d in range(info.rank))}

    def set_num_threads(self, n):
        _check(_runtime().attune_model_set_num_threads(self._model, n))

    def __call__(self, *args, **kwargs):
        if len(args) > len(self.inputs):
            raise AttuneError(f"{len(args)} inputs given, the model takes "
                              f"{len(self.inputs)} ({', '.join(self.input_names)})")
        values = dict(zip(self.input_names, args))
        for name, value in kwargs.items():
            if name not in self.input_names:
                raise AttuneError(f"unknown input '{name}' (the model's inputs: "
                                  f"{', '.join(self.input_names)})")
            if name in values:
                raise AttuneError(f"input '{name}' given twice")
            values[name] = value
        missing = [n for n in self.input_names if n not in values]
        if missing:
            raise AttuneError(f"missing input(s): {', '.join(missing)}")
        rt = _runtime()
        arrays, tensors = [], []
        try:
            for info in self.inputs:
                a = _as_numpy(values[info["name"]])
                if a.dtype == np.float64 and info["dtype"] == np.float32:
                    a = a.astype(np.float32)  # Python floats
                if a.dtype not in _DTYPES:
                    raise AttuneError(f"input '{info['name']}': dtype {a.dtype} "
                                      f"is not supported (expected {info['dtype']})")
                arrays.append(a)
                _wrap(a, f"input '{info['name']}'", tensors)
            ins = (ctypes.c_void_p * len(tensors))(*[t.value for t in tensors])
            outs = (ctypes.c_void_p * len(self.outputs))()
            _check(rt.attune_model_run(self._model, self._entry, ins,
                                       len(tensors), outs, len(self.outputs)))
            results = [_take(o) for o in outs]
        finally:
            for t in tensors:
                rt.attune_tensor_free(t)
        return results[0] if len(results) == 1 else tuple(results)

    def generate(self, prompt, lengths=None, *, max_new_tokens=16, eos=(),
                 pad=0, beam=1, length_penalty=1.0, n_best=1,
                 temperature=0.0, top_k=0, seed=0, capacity=0,
                 encoder_inputs=(), on_token=None, return_scores=False):
        """Decodes with the model's generation step (attune_model_generate):
        `prompt` [B, T] token ids (sequence b is prompt[b, :lengths[b]];
        `lengths` [B], default T each) run once, then one step per new token
        with the key/value caches written in place, until every sequence
        chose a token of `eos` (an id or several) or `max_new_tokens`.

        Greedy by default; `temperature` > 0 samples (among the `top_k` most
        probable if given; the same `seed`, the same tokens); `beam` > 1
        runs beam search (GNMT's length penalty `length_penalty`) and
        returns the `n_best` best hypotheses. An encoder-decoder takes its
        encoder's inputs, in order, as `encoder_inputs` and usually a
        prompt of <bos> ids [B, 1]. `on_token(sequence, step, token)` is
        called for each token as it is chosen (not for beam search, whose
        tokens are known at the end); a true result stops the generation.

        Returns the new tokens, int64 [B, N] (each row up to and including
        its eos, then `pad`), or [B, n_best, N] for n_best > 1; with
        `return_scores`, also their summed log probabilities (for beam
        search the length-penalized scores), f32 [B] or [B, n_best]."""
        rt = _runtime()
        o = _GenerateOptions()
        rt.attune_generate_options_init(ctypes.byref(o))
        eos = [eos] if isinstance(eos, (int, np.integer)) else list(eos)
        eos_ids = (ctypes.c_int64 * max(1, len(eos)))(*eos)
        o.max_new_tokens, o.eos_ids, o.num_eos = max_new_tokens, eos_ids, len(eos)
        o.pad_id, o.beam_width, o.length_penalty = pad, beam, length_penalty
        o.num_return, o.temperature, o.top_k = n_best, temperature, top_k
        o.seed, o.capacity = seed, capacity
        raised = []
        if on_token is not None:
            def call(user, sequence, step, token):
                try:
                    return 1 if on_token(sequence, step, token) else 0
                except BaseException as e:  # raised after the generation
                    raised.append(e)
                    return 1
            o.on_token = _TokenCallback(call)
        arrays, tensors = [_token_ids(prompt, "prompt")], []
        tokens, scores = ctypes.c_void_p(), ctypes.c_void_p()
        try:
            p = _wrap(arrays[0], "prompt", tensors)
            l = None
            if lengths is not None:
                arrays.append(_token_ids(lengths, "lengths"))
                l = _wrap(arrays[-1], "lengths", tensors)
            encoder = []
            for i, x in enumerate(encoder_inputs):
                arrays.append(_as_numpy(x))
                encoder.append(_wrap(arrays[-1], f"encoder input #{i}",
                                     tensors))
            ins = (ctypes.c_void_p * max(1, len(encoder)))(
                *[t.value for t in encoder])
            o.encoder_inputs = ctypes.cast(ins, ctypes.c_void_p)
            o.num_encoder_inputs = len(encoder)
            status = rt.attune_model_generate(self._model, p, l,
                                              ctypes.byref(o),
                                              ctypes.byref(tokens),
                                              ctypes.byref(scores), None)
            out = [_take(t) if t else None for t in (tokens, scores)]
            if raised:
                if status:
                    rt.attune_status_free(status)
                raise raised[0]
            _check(status)
        finally:
            for t in tensors:
                rt.attune_tensor_free(t)
        return (out[0], out[1]) if return_scores else out[0]

    def close(self):
        rt = _runtime()
        if getattr(self, "_model", None):
            rt.attune_model_close(self._model)
            self._model = None
        if getattr(self, "_device", None):
            rt.attune_device_close(self._device)
            self._device = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        return (f"<attune.Model {self.path} on {self.device}: "
                f"{', '.join(self.input_names)} -> {', '.join(self.output_names)}>")


def load(path, device="cpu", weights=None):
    """Opens an artifact attune-compile made (`device`: "cpu", "vulkan",
    "vulkan:N", "auto")."""
    return Model(path, device=device, weights=weights)


def _tool(name):
    if not _BIN_DIR:
        raise AttuneError(f"{name} not found: use the module from the build "
                          "(PYTHONPATH=build/python) or set ATTUNE_BIN_DIR")
    return os.path.join(_BIN_DIR, name)


def export_onnx(module, example_inputs, path, input_names=None,
                output_names=None, dynamic_axes=None, opset=17):
    """torch.onnx.export as Attune's importer expects it: eval mode, grad
    enabled (under no_grad torch 1.13 takes fused paths that do not
    export). Input names default to forward's parameter names."""
    import torch
    if not isinstance(example_inputs, (tuple, list)):
        example_inputs = (example_inputs,)
    example_inputs = tuple(torch.as_tensor(x) if isinstance(x, np.ndarray)
                           else x for x in example_inputs)
    if input_names is None:
        params = [p for p in inspect.signature(module.forward).parameters]
        input_names = params[:len(example_inputs)]
    was_training = module.training
    module.eval()
    try:
        with torch.enable_grad():
            torch.onnx.export(module, example_inputs, str(path),
                              opset_version=opset, input_names=list(input_names),
                              output_names=output_names,
                              dynamic_axes=dynamic_axes or {})
    finally:
        module.train(was_training)


def compile(model, example_inputs=None, dynamic_axes=None, input_names=None,
            output_names=None, opset=17, target="cpu", device=None,
            output=None, compile_args=(), weights_external=False):
    """Compiles a torch.nn.Module or an ONNX file and opens the result.

    For a module, `example_inputs` (a tensor or a tuple) drives the export;
    `dynamic_axes` is torch.onnx.export's ({"src": {0: "B", 1: "L"}}; the
    outputs take the first input's axes unless given), so one artifact
    serves every size along them. `output` is where the library goes
    (default: a temporary folder kept with the model). `target`: "cpu",
    "vulkan" or "cpu,vulkan"; `device` defaults to the target's."""
    work = Path(tempfile.mkdtemp(prefix="attune-"))
    if isinstance(model, (str, os.PathLike)):
        onnx_path = Path(model)
        if example_inputs is not None:
            raise AttuneError("example_inputs is for torch modules; an ONNX "
                              "file has its own")
    else:
        onnx_path = work / "model.onnx"
        if example_inputs is None:
            raise AttuneError("compiling a torch module needs example_inputs")
        count = len(example_inputs) if isinstance(example_inputs,
                                                  (tuple, list)) else 1
        if input_names is None:
            input_names = list(inspect.signature(model.forward).parameters)[:count]
        if output_names is None:
            output_names = ["output"]
        if dynamic_axes and input_names[0] in dynamic_axes:
            for o in output_names:
                dynamic_axes.setdefault(o, dict(dynamic_axes[input_names[0]]))
        export_onnx(model, example_inputs, onnx_path, input_names,
                    output_names, dynamic_axes, opset)
    library = Path(output) if output else work / (onnx_path.stem + ".so")
    cmd = [_tool("attune-compile"), str(onnx_path), "-o", str(library),
           f"--target={target}", *compile_args]
    if weights_external:
        cmd.append("--weights-external")
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        raise AttuneError(f"attune-compile failed:\n{run.stderr.strip()}")
    if device is None:
        device = "vulkan" if target == "vulkan" else "cpu"
    return Model(library, device=device)

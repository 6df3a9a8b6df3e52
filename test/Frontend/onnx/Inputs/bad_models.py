"""Writes the malformed and unsupported ONNX models of errors.test into
OUT (argv[1]), built with onnx.helper (no binary files in the repository)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def model(nodes, inputs, outputs, inits=(), opset=17, name="g"):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def save(m, name):
    with open(os.path.join(out, name), "wb") as f:
        f.write(m.SerializeToString())


x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", 4])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["B", 4])
relu = helper.make_node("Relu", ["x"], ["y"], name="/act/Relu")
good = model([relu], [x], [y])
save(good, "good.onnx")

# Truncated: the first half of a valid model with a weight.
w = numpy_helper.from_array(np.ones((4, 4), np.float32), "w")
mm = model([helper.make_node("MatMul", ["x", "w"], ["y"], name="/fc/MatMul")],
           [x], [y], [w])
data = mm.SerializeToString()
with open(os.path.join(out, "truncated.onnx"), "wb") as f:
    f.write(data[: len(data) // 2])
with open(os.path.join(out, "text.onnx"), "w") as f:
    f.write("this is not an ONNX model\n")

save(model([relu], [x], [y], opset=13), "opset13.onnx")
save(model([relu], [x], [y], opset=6), "opset6.onnx")
save(model([helper.make_node("Softmax", ["x"], ["y"], name="/s/Softmax")], [x], [y],
           opset=12), "opset12_softmax.onnx")
save(model([relu], [x], [y], opset=18), "opset18.onnx")
save(model([helper.make_node("Celu", ["x"], ["y"], name="/act/Celu")], [x], [y]),
     "unsupported_op.onnx")
save(model([relu], [x], []), "no_outputs.onnx")
save(model([helper.make_node("Relu", ["z"], ["y"], name="/act/Relu")], [x], [y]),
     "undefined_value.onnx")
save(model([helper.make_node("Add", ["x", "w"], ["y"], name="/bad/Add")], [x], [y],
           [numpy_helper.from_array(np.ones((3,), np.float32), "w")]),
     "broadcast.onnx")
save(model([helper.make_node("Reshape", ["x", "s"], ["y"], name="/bad/Reshape")],
           [x], [y], [numpy_helper.from_array(np.array([3, -1], np.int64), "s")]),
     "reshape.onnx")
strings = helper.make_tensor("names", TensorProto.STRING, [1], [b"a"])
save(model([relu], [x], [y], [strings]), "string_initializer.onnx")
u8_in = helper.make_tensor_value_info("m", TensorProto.UINT8, ["B", 4])
save(model([relu], [x, u8_in], [y]), "uint8_input.onnx")


def external(location, offset=None, length=None):
    t = numpy_helper.from_array(np.ones((4, 4), np.float32), "w")
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", offset), ("length", length)):
        if v is not None:
            e = t.external_data.add()
            e.key, e.value = k, str(v)
    return model([helper.make_node("MatMul", ["x", "w"], ["y"], name="/fc/MatMul")],
                 [x], [y], [t])


with open(os.path.join(out, "w.bin"), "wb") as f:
    f.write(np.ones((4, 4), np.float32).tobytes())
save(external("w.bin"), "external_ok.onnx")
save(external("missing.bin"), "external_missing.onnx")
save(external("../w.bin"), "external_parent.onnx")
save(external("/etc/passwd"), "external_absolute.onnx")
save(external("w.bin", offset=32), "external_truncated.onnx")

# Shape arithmetic that overflows int64 (found by the fuzzer), and a constant
# too large to hold.
big = numpy_helper.from_array(np.array([2**62, 2**62], np.int64), "big")
save(model([helper.make_node("Shape", ["x"], ["s"], name="/s/Shape"),
            helper.make_node("Mul", ["s", "big"], ["t"], name="/s/Mul"),
            helper.make_node("Mul", ["t", "big"], ["u"], name="/s/Mul_1"),
            helper.make_node("Reshape", ["x", "u"], ["y"], name="/s/Reshape")],
           [x], [y], [big]), "overflow.onnx")
huge = numpy_helper.from_array(np.array([2**20, 2**20], np.int64), "huge")
save(model([helper.make_node("ConstantOfShape", ["huge"], ["c"], name="/c/Fill"),
            helper.make_node("Add", ["x", "c"], ["y"], name="/c/Add")],
           [x], [y], [huge]), "huge_constant.onnx")

# An op whose result type cannot be inferred (an empty slice, the fuzzer's
# second find): an error from the op's own check, not an abort.
save(model([helper.make_node("Slice", ["x", "s", "e", "a"], ["y"], name="/e/Slice")],
           [x], [y], [numpy_helper.from_array(np.array([v], np.int64), n)
                      for n, v in (("s", 2), ("e", 2), ("a", 1))]),
     "empty_slice.onnx")

# A node with fewer inputs than its op takes (the fuzzer's third find: a
# raiser read past the inputs).
save(model([helper.make_node("Div", ["x"], ["y"], name="/d/Div")], [x], [y]),
     "arity.onnx")

# Identity nodes in a cycle feeding a weight (the fuzzer's fourth find: the
# raisers followed the chain forever), and chains deeper than the import
# follows and just within it.
save(model([helper.make_node("Identity", ["b"], ["a"], name="/i/A"),
            helper.make_node("Identity", ["a"], ["b"], name="/i/B"),
            helper.make_node("MatMul", ["x", "a"], ["m"], name="/i/MatMul"),
            helper.make_node("Add", ["m", "a"], ["y"], name="/i/Add")],
           [x], [y]), "identity_cycle.onnx")


def chain(n):
    names = ["x"] + [f"r{i}" for i in range(n - 1)] + ["y"]
    return model([helper.make_node("Relu", [names[i]], [names[i + 1]],
                                   name=f"/r/Relu_{i}") for i in range(n)],
                 [x], [y])


save(chain(20001), "too_deep.onnx")
save(chain(10000), "deep.onnx")

# The shape of a scalar (an empty shape value) used as data (the fuzzer's
# fifth find: a memcpy of 0 bytes from a null pointer, undefined behaviour).
scalar = numpy_helper.from_array(np.array(1.5, np.float32), "c")
two = numpy_helper.from_array(np.array([2, 2], np.int64), "two")
save(model([helper.make_node("Shape", ["c"], ["s"], name="/s/Shape"),
            helper.make_node("Mul", ["s", "two"], ["t"], name="/s/Mul"),
            helper.make_node("Reshape", ["x", "t"], ["y"], name="/s/Reshape")],
           [x], [y], [scalar, two]), "empty_shape.onnx")

# The generic forms' refusals: integer arithmetic, a float condition, a
# reduction axis out of range, a gather axis out of range.
ids = helper.make_tensor_value_info("ids", TensorProto.INT64, ["B", 4])
ids_out = helper.make_tensor_value_info("y", TensorProto.INT64, ["B", 4])
save(model([helper.make_node("Add", ["ids", "ids"], ["y"], name="/i/Add")],
           [ids], [ids_out]), "integer_add.onnx")
save(model([helper.make_node("Where", ["x", "x", "x"], ["y"], name="/w/Where")],
           [x], [y]), "float_condition.onnx")
save(model([helper.make_node("ReduceMax", ["x"], ["y"], name="/r/ReduceMax",
                             axes=[2])], [x], [y]), "reduce_axis.onnx")
save(model([helper.make_node("Gather", ["x", "i"], ["y"], name="/g/Gather",
                             axis=-3)], [x], [y],
           [numpy_helper.from_array(np.array([0], np.int64), "i")]),
     "gather_axis.onnx")

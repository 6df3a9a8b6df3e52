"""Writes a model gathering columns of x [B, 4] by a run-time index input
i [K] (argv[1]), built with onnx.helper."""
import sys

from onnx import TensorProto, helper

x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", 4])
i = helper.make_tensor_value_info("i", TensorProto.INT64, ["K"])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["B", "K"])
graph = helper.make_graph(
    [helper.make_node("Gather", ["x", "i"], ["y"], name="/g/Gather", axis=1)],
    "g", [x, i], [y])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
with open(sys.argv[1], "wb") as f:
    f.write(model.SerializeToString())

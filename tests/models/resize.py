"""One-node Resize models (opset 19) for the tests of its reference, float island and integer form."""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 10
X_SHAPE = [1, 3, 5, 6]


def resize_model(scales=None, sizes=None, roi=None, **attributes) -> onnx.ModelProto:
    """x -> Resize(roi, scales, sizes) -> y at opset 19."""
    initializers = [numpy_helper.from_array(np.array(v, dtype), name) for v, dtype, name in
                    ((roi, np.float32, "roi"), (scales, np.float32, "scales"), (sizes, np.int64, "sizes"))
                    if v is not None]  # fmt: skip
    inputs = ["x", "roi" if roi is not None else "", "scales" if scales is not None else "",
              "sizes" if sizes is not None else ""]  # fmt: skip
    while not inputs[-1]:
        inputs.pop()
    node = helper.make_node("Resize", inputs, ["y"], name="resize", **attributes)
    graph = helper.make_graph([node], "resize", [helper.make_tensor_value_info("x", TensorProto.FLOAT, X_SHAPE)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializers)  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=IR_VERSION)
    return onnx.shape_inference.infer_shapes(model, strict_mode=True)

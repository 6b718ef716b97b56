"""The MLPerf Tiny float networks with their BatchNormalization nodes kept, as a trained model
carries them: the statistics of each BatchNormalization are those its input takes on data.

    model = batch_norm_model("resnet8")   # onnx.ModelProto, BatchNormalization nodes kept

The network is `architectures.py`'s with `keep_batch_norm=True` (the same function as the folded
builder). Its BatchNormalization statistics (random there) are replaced by those each
BatchNormalization's input z takes, per channel, on `FIT_SAMPLES` seeded inputs of the network
(`random_input`, seeds from `FIT_SEED`, apart from the calibration seeds 0.. and the test seeds
1000.. that bench and tests use), measured by onnxruntime (population mean mu and variance v over
the batch and every position), and gamma and beta change so that the function stays the same:
with a = gamma / sqrt(var + eps),

    gamma' = a sqrt(v + eps),   beta' = beta + a (mu - mean),   mean' = mu,   var' = v,

so a[c] z + (beta - a mean) is unchanged and the output of each BatchNormalization has, on that
data, mean beta' and standard deviation |gamma'| sqrt(v / (v + eps)), as in a trained model."""

from __future__ import annotations

import functools

import numpy as np
import onnx
from onnx import helper, numpy_helper

from .architectures import BUILDERS, random_input

FIT_SAMPLES = 256
FIT_SEED = 5000
NETWORKS = ("resnet8", "dscnn", "mobilenet_v1")
"""The networks whose reference Keras models have BatchNormalization after their convolutions."""


def _normalized_inputs(model: onnx.ModelProto, batch: np.ndarray) -> dict[str, np.ndarray]:
    """Each BatchNormalization's input on `batch` (stacked samples), by onnxruntime."""
    import onnxruntime

    observed = onnx.ModelProto()
    observed.CopyFrom(model)
    graph = observed.graph
    graph.input[0].type.tensor_type.shape.dim[0].dim_value = len(batch)
    del graph.value_info[:]
    del graph.output[0].type.tensor_type.shape.dim[:]
    names = [node.input[0] for node in graph.node if node.op_type == "BatchNormalization"]
    graph.output.extend(helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None) for name in names)
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(observed.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return dict(zip(names, session.run(names, {"input": batch}), strict=True))


@functools.cache
def batch_norm_model(network: str) -> onnx.ModelProto:
    """`network` with BatchNormalization kept and its statistics fitted (module docstring)."""
    model = BUILDERS[network](keep_batch_norm=True)
    batch = np.concatenate([random_input(network, FIT_SEED + seed) for seed in range(FIT_SAMPLES)])
    inputs = _normalized_inputs(model, batch)
    initializers = {t.name: t for t in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type != "BatchNormalization":
            continue
        z = inputs[node.input[0]].astype(np.float64)
        axes = tuple(a for a in range(z.ndim) if a != 1)
        mu, v = z.mean(axis=axes), z.var(axis=axes)
        epsilon = next(a.f for a in node.attribute if a.name == "epsilon")
        gamma, beta, mean, var = (numpy_helper.to_array(initializers[n]).astype(np.float64) for n in node.input[1:5])
        a = gamma / np.sqrt(var + epsilon)
        fitted = (a * np.sqrt(v + epsilon), beta + a * (mu - mean), mu, v)
        for name, values in zip(node.input[1:5], fitted, strict=True):
            initializers[name].CopyFrom(numpy_helper.from_array(values.astype(np.float32), name))
    onnx.checker.check_model(model, full_check=True)
    return model

"""The MLPerf Tiny float networks with their BatchNormalization nodes kept, as a trained model
carries them: the statistics of each BatchNormalization are those its input takes on data.

    model = batch_norm_model("resnet8")   # onnx.ModelProto, BatchNormalization nodes kept

The architectures and the random gamma and beta are `architectures.py`'s (`keep_batch_norm=True`);
the running mean and variance of every BatchNormalization are fitted by onnxruntime to
`FIT_SAMPLES` seeded inputs of the network (`random_input`, seeds from `FIT_SEED`, apart from the
calibration seeds 0.. and the test seeds 1000.. that bench and tests use): in one run of a copy of
the graph whose BatchNormalization nodes normalize by the statistics of the batch itself
(ReduceMean over every axis but the channel axis 1, the population variance), which equals
evaluating the model with running statistics equal to those of the batch. A model trained on that
input distribution would carry about these statistics."""

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


def _batch_statistics_graph(model: onnx.ModelProto, batch: int) -> tuple[onnx.ModelProto, list[str]]:
    """A copy of `model` for `batch` inputs whose BatchNormalization nodes read the batch's own
    channel mean and variance, those two tensors added as outputs; the names of the fitted nodes."""
    fitted = onnx.ModelProto()
    fitted.CopyFrom(model)
    graph = fitted.graph
    del graph.value_info[:]
    graph.input[0].type.tensor_type.shape.dim[0].dim_value = batch
    del graph.output[0].type.tensor_type.shape.dim[:]
    nodes, names = [], []
    ranks = {v.name: len(v.type.tensor_type.shape.dim) for v in model.graph.value_info}
    for node in graph.node:
        if node.op_type != "BatchNormalization":
            nodes.append(node)
            continue
        x = node.input[0]
        axes = [a for a in range(ranks[x]) if a != 1]
        mean, var = f"{node.name}.batch_mean", f"{node.name}.batch_var"
        nodes += [helper.make_node("ReduceMean", [x], [mean], axes=axes, keepdims=0),
                  helper.make_node("ReduceMean", [x], [f"{mean}.kept"], axes=axes, keepdims=1),
                  helper.make_node("Sub", [x, f"{mean}.kept"], [f"{var}.centered"]),
                  helper.make_node("Mul", [f"{var}.centered", f"{var}.centered"], [f"{var}.squares"]),
                  helper.make_node("ReduceMean", [f"{var}.squares"], [var], axes=axes, keepdims=0)]
        normalized = helper.make_node("BatchNormalization", [x, node.input[1], node.input[2], mean, var],
                                      list(node.output), name=node.name)
        normalized.attribute.extend(node.attribute)
        nodes.append(normalized)
        graph.output.extend([helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None) for name in (mean, var)])
        names.append(node.name)
    del graph.node[:]
    graph.node.extend(nodes)
    return fitted, names


@functools.cache
def batch_norm_model(network: str) -> onnx.ModelProto:
    """`network` with BatchNormalization kept and its statistics fitted (module docstring)."""
    import onnxruntime

    model = BUILDERS[network](keep_batch_norm=True)
    fitting, names = _batch_statistics_graph(model, FIT_SAMPLES)
    batch = np.concatenate([random_input(network, FIT_SEED + seed) for seed in range(FIT_SAMPLES)])
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(fitting.SerializeToString(), options, providers=["CPUExecutionProvider"])
    results = dict(zip([o.name for o in session.get_outputs()], session.run(None, {"input": batch}), strict=True))
    initializers = {t.name: t for t in model.graph.initializer}
    for node in model.graph.node:
        if node.name in names:
            for statistic, kind in ((node.input[3], "batch_mean"), (node.input[4], "batch_var")):
                initializers[statistic].CopyFrom(numpy_helper.from_array(
                    results[f"{node.name}.{kind}"].astype(np.float32), statistic))
    onnx.checker.check_model(model, full_check=True)
    return model

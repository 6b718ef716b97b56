"""The BatchNormalization-kept MLPerf Tiny networks: in onnxruntime they compute what the folded
builders compute, and on held-out inputs each BatchNormalization's output has about the mean beta
and the standard deviation |gamma| sqrt(var / (var + eps)) its parameters state (within sampling
error of 16 inputs)."""

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from models.mlperf_tiny.architectures import BUILDERS, random_input
from models.mlperf_tiny.batch_norm_models import NETWORKS, batch_norm_model
from models.runners import run_onnxruntime

HELD_OUT = 16


@pytest.mark.parametrize("network", NETWORKS)
def test_same_function_as_the_folded_builder(network):
    inputs = {"input": random_input(network, 3)}
    kept = next(iter(run_onnxruntime(batch_norm_model(network), inputs).values()))
    folded = next(iter(run_onnxruntime(BUILDERS[network](), inputs).values()))
    np.testing.assert_allclose(kept, folded, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("network", NETWORKS)
def test_batch_norm_outputs_have_the_stated_statistics(network):
    model = onnx.ModelProto()
    model.CopyFrom(batch_norm_model(network))
    norms = [node for node in model.graph.node if node.op_type == "BatchNormalization"]
    model.graph.output.extend(helper.make_tensor_value_info(n.output[0], onnx.TensorProto.FLOAT, None) for n in norms)
    runs = [run_onnxruntime(model, {"input": random_input(network, 9000 + seed)}) for seed in range(HELD_OUT)]
    initializers = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in model.graph.initializer}
    for norm in norms:
        values = np.concatenate([r[norm.output[0]] for r in runs]).astype(np.float64)
        axes = tuple(a for a in range(values.ndim) if a != 1)
        gamma, beta, _, var = (initializers[name] for name in norm.input[1:5])
        epsilon = next(a.f for a in norm.attribute if a.name == "epsilon")
        std = np.abs(gamma) * np.sqrt(var / (var + epsilon))
        np.testing.assert_allclose(values.mean(axis=axes), beta, atol=0.25 * std.max())
        # near-dead channels (a Relu upstream almost never open) have rare nonzero values: absolute bound
        np.testing.assert_allclose(values.std(axis=axes), std, rtol=0.2, atol=0.03 * std.max())

"""Export the Brevitas reference fixtures of tests/models/brevitas/: small seeded networks built and
calibrated with Brevitas, exported by Brevitas itself in QONNX form (`export_qonnx`) and QCDQ form
(`export_onnx_qcdq`), with the PyTorch module's own output on a seeded input saved beside them.

Runs only in a separate virtual environment, outside the repository, holding CPU torch and
Brevitas (never the project's .venv; CI does not install torch and the tests read only the
committed files). The fixtures were made with exactly these (manifest.json records them):

    python3 -m venv ~/brevitas-venv
    ~/brevitas-venv/bin/pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu   # 2.13.0+cpu
    ~/brevitas-venv/bin/pip install brevitas==0.13.4 onnx==1.23.2 onnxscript==0.7.2 \
        onnxoptimizer==0.4.2 numpy==2.4.6
    ~/brevitas-venv/bin/python scripts/export_brevitas_fixtures.py [--output DIR]

Both exports use the TorchScript exporter (`dynamo=False`): Brevitas' dynamo QCDQ path refuses
quantized biases, and its dynamo QONNX path writes weights to an external data file. A network
may set its own batch, batch axis (a sequence-first LSTM) and a form's opset (`Network`).

Brevitas' QuantLSTM with quantized gates and states (`QONNX_ONLY`) is exported in QONNX form only:
one `QuantLSTMCell` node (domain qonnx.custom_op.general, 48 inputs) that no ONNX executor
implements (bitfold's frontend expands it per time step), and export_onnx_qcdq refuses it
("Quantized LSTM cell is not supported for ONNX QCDQ (weights only quantization is)").

Per network `<net>` (tests/models/brevitas/):

    <net>.input.npy        the seeded float input (batch `BATCH`)
    <net>.output.npy       the module's float output: the dequantized output QuantTensor
    <net>.output_int.npy   that QuantTensor's integers (`int()`), the output scale in the manifest
    <net>.qonnx.onnx       export_qonnx       (Quant / BipolarQuant / Trunc)
    <net>.qcdq.onnx        export_onnx_qcdq   (QuantizeLinear, Clip, DequantizeLinear)
    <net>.qcdq-int.onnx    the QCDQ export with its final DequantizeLinear dropped, so the graph
                           output is the quantized integer tensor (Brevitas exports no integer
                           output itself); only for the networks in `INTEGER_OUTPUT`

manifest.json lists every fixture (network and form) with its files, the names of its graph input
and output (TorchScript's, kept as exported), bit widths, weight granularity, the output step, whether part of
the network is a float island, and the versions that made it. Every network ends in an output
quantizer, so every output has a step. Deterministic for the same torch / Brevitas versions.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import brevitas
import brevitas.nn as qnn
import numpy as np
import onnx
import torch
from brevitas.export import export_onnx_qcdq, export_qonnx
from brevitas.graph.calibrate import calibration_mode
from brevitas.quant import Int8WeightPerChannelFloat, Int8WeightPerTensorFloat, Int32Bias
from brevitas.quant.binary import SignedBinaryActPerTensorConst, SignedBinaryWeightPerTensorConst
from torch import nn

REPOSITORY = Path(__file__).resolve().parents[1]
OUTPUT = REPOSITORY / "tests" / "models" / "brevitas"
BATCH = 4
CALIBRATION_BATCHES = 8
SEED = 0
IMAGE = (3, 10, 10)
FEATURES = 64
CLASSES = 10
LSTM_STEPS, LSTM_FEATURES, LSTM_HIDDEN = 3, 3, 4

WEIGHT_QUANT = {"pertensor": Int8WeightPerTensorFloat, "perchannel": Int8WeightPerChannelFloat}
BIT_WIDTHS = {"w8a8": (8, 8), "w4a4": (4, 4), "w3a5": (3, 5), "w2a2": (2, 2)}
INTEGER_OUTPUT = ("mlp-w8a8-pertensor", "cnn-w4a4-perchannel")


def _conv(cin: int, cout: int, weight_bits: int, granularity: str) -> qnn.QuantConv2d:
    return qnn.QuantConv2d(cin, cout, 3, weight_quant=WEIGHT_QUANT[granularity], weight_bit_width=weight_bits,
                           bias_quant=Int32Bias, return_quant_tensor=True)


def _linear(fin: int, fout: int, weight_bits: int, granularity: str, bias: bool = True) -> qnn.QuantLinear:
    """With a bias, Brevitas exports a Gemm; without one, MatMul on the transposed weight."""
    return qnn.QuantLinear(fin, fout, bias=bias, weight_quant=WEIGHT_QUANT[granularity], weight_bit_width=weight_bits,
                           bias_quant=Int32Bias if bias else None, return_quant_tensor=True)


class Cnn(nn.Module):
    """input quantizer, conv 3x3, ReLU, maxpool 2, conv 3x3, [BatchNorm], ReLU, flatten, linear,
    output quantizer (signed, activation bits)."""

    def __init__(self, weight_bits: int, act_bits: int, granularity: str, batch_norm: bool = False):
        super().__init__()
        self.input_quant = qnn.QuantIdentity(bit_width=act_bits, return_quant_tensor=True)
        self.conv1 = _conv(3, 8, weight_bits, granularity)
        self.relu1 = qnn.QuantReLU(bit_width=act_bits, return_quant_tensor=True)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = _conv(8, 8, weight_bits, granularity)
        self.norm = nn.BatchNorm2d(8) if batch_norm else nn.Identity()
        self.relu2 = qnn.QuantReLU(bit_width=act_bits, return_quant_tensor=True)
        self.fc = _linear(8 * 2 * 2, CLASSES, weight_bits, granularity)
        self.output_quant = qnn.QuantIdentity(bit_width=act_bits, return_quant_tensor=True)

    def forward(self, x):
        x = self.pool(self.relu1(self.conv1(self.input_quant(x))))
        x = self.relu2(self.norm(self.conv2(x)))
        return self.output_quant(self.fc(torch.flatten(x, 1)))


class Mlp(nn.Module):
    """input quantizer, linear 64->32, ReLU, linear 32->32, ReLU, linear 32->10 (with or without
    biases), output quantizer."""

    def __init__(self, weight_bits: int, act_bits: int, granularity: str, bias: bool = True):
        super().__init__()
        self.input_quant = qnn.QuantIdentity(bit_width=act_bits, return_quant_tensor=True)
        self.fc1 = _linear(FEATURES, 32, weight_bits, granularity, bias)
        self.relu1 = qnn.QuantReLU(bit_width=act_bits, return_quant_tensor=True)
        self.fc2 = _linear(32, 32, weight_bits, granularity, bias)
        self.relu2 = qnn.QuantReLU(bit_width=act_bits, return_quant_tensor=True)
        self.fc3 = _linear(32, CLASSES, weight_bits, granularity, bias)
        self.output_quant = qnn.QuantIdentity(bit_width=act_bits, return_quant_tensor=True)

    def forward(self, x):
        x = self.relu1(self.fc1(self.input_quant(x)))
        x = self.relu2(self.fc2(x))
        return self.output_quant(self.fc3(x))


class Binary(nn.Module):
    """Binary network: input quantizer, bipolar-weight conv 3x3 (no bias), [BatchNorm], activation
    quantizer, bipolar-weight linear (no bias), 8-bit output quantizer. Activations bipolar (sign,
    FINN style: a BatchNorm before the sign is what FINN turns into thresholds) or `act_bits`-bit."""

    def __init__(self, act_bits: int | None, batch_norm: bool = False):
        super().__init__()

        def activation():
            if act_bits is None:
                return qnn.QuantIdentity(act_quant=SignedBinaryActPerTensorConst, return_quant_tensor=True)
            return qnn.QuantIdentity(bit_width=act_bits, return_quant_tensor=True)

        self.input_quant = activation()
        self.conv = qnn.QuantConv2d(3, 8, 3, bias=False, weight_quant=SignedBinaryWeightPerTensorConst,
                                    return_quant_tensor=True)
        self.norm = nn.BatchNorm2d(8) if batch_norm else nn.Identity()
        self.act = activation()
        self.fc = qnn.QuantLinear(8 * 8 * 8, CLASSES, bias=False, weight_quant=SignedBinaryWeightPerTensorConst,
                                  return_quant_tensor=True)
        self.output_quant = qnn.QuantIdentity(bit_width=8, return_quant_tensor=True)

    def forward(self, x):
        x = self.act(self.norm(self.conv(self.input_quant(x))))
        return self.output_quant(self.fc(torch.flatten(x, 1)))


class TruncPool(nn.Module):
    """input quantizer, conv 3x3, ReLU (4 bits), TruncAvgPool2d 2x2 (average as a shift, rounded to
    8 bits), flatten, linear, output quantizer."""

    def __init__(self):
        super().__init__()
        self.input_quant = qnn.QuantIdentity(bit_width=8, return_quant_tensor=True)
        self.conv = _conv(3, 8, 8, "perchannel")
        self.relu = qnn.QuantReLU(bit_width=4, return_quant_tensor=True)
        self.pool = qnn.TruncAvgPool2d(kernel_size=2, stride=2, return_quant_tensor=True)
        self.fc = _linear(8 * 4 * 4, CLASSES, 8, "perchannel")
        self.output_quant = qnn.QuantIdentity(bit_width=8, return_quant_tensor=True)

    def forward(self, x):
        x = self.pool(self.relu(self.conv(self.input_quant(x))))
        return self.output_quant(self.fc(torch.flatten(x, 1)))


class UnrequantizedConvLinear(nn.Module):
    """A layer whose output is not requantized: input quantizer, conv 3x3 (8-bit per-channel weights,
    int32 bias) with `return_quant_tensor=False`, then plain torch ReLU, maxpool 2 and flatten on the
    float accumulator, a linear layer whose input is that float (no input quantizer, float bias),
    output quantizer. The linear layer is float computation with quantized weights (a float island)."""

    def __init__(self):
        super().__init__()
        self.input_quant = qnn.QuantIdentity(bit_width=8, return_quant_tensor=True)
        self.conv = qnn.QuantConv2d(3, 8, 3, weight_quant=WEIGHT_QUANT["perchannel"], weight_bit_width=8,
                                    bias_quant=Int32Bias, return_quant_tensor=False)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.fc = qnn.QuantLinear(8 * 4 * 4, CLASSES, bias=True, weight_quant=WEIGHT_QUANT["pertensor"],
                                  weight_bit_width=8, return_quant_tensor=False)
        self.output_quant = qnn.QuantIdentity(bit_width=8, return_quant_tensor=True)

    def forward(self, x):
        x = self.pool(self.relu(self.conv(self.input_quant(x))))
        return self.output_quant(self.fc(torch.flatten(x, 1)))


class AccumulatorActivation(nn.Module):
    """A quantized activation on an unrequantized accumulator: input quantizer, conv 3x3 (8-bit
    per-channel weights, int32 bias; its output the 32-bit accumulator, no output quantizer), then
    `QuantSigmoid` or `QuantTanh` (8-bit output quantizer), flatten, linear, output quantizer. A
    table over the accumulator's range would have billions of entries: a float island."""

    def __init__(self, activation: type):
        super().__init__()
        self.input_quant = qnn.QuantIdentity(bit_width=8, return_quant_tensor=True)
        self.conv = _conv(3, 8, 8, "perchannel")
        self.act = activation(bit_width=8, return_quant_tensor=True)
        self.fc = _linear(8 * 8 * 8, CLASSES, 8, "pertensor")
        self.output_quant = qnn.QuantIdentity(bit_width=8, return_quant_tensor=True)

    def forward(self, x):
        return self.output_quant(self.fc(torch.flatten(self.act(self.conv(self.input_quant(x))), 1)))


class ConvTranspose(nn.Module):
    """input quantizer, QuantConvTranspose2d 4->6 channels, kernel 3, stride 2, padding 1, output
    padding 1, 2 groups (8-bit per-tensor weights: Brevitas 0.13.4's per-channel weight quantizer
    reads the wrong axis of a grouped transposed weight), int32 bias, ReLU, output quantizer."""

    def __init__(self):
        super().__init__()
        self.input_quant = qnn.QuantIdentity(bit_width=8, return_quant_tensor=True)
        self.deconv = qnn.QuantConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2,
                                               weight_quant=WEIGHT_QUANT["pertensor"], weight_bit_width=8,
                                               bias_quant=Int32Bias, return_quant_tensor=True)
        self.relu = qnn.QuantReLU(bit_width=8, return_quant_tensor=True)
        self.output_quant = qnn.QuantIdentity(bit_width=8, return_quant_tensor=True)

    def forward(self, x):
        return self.output_quant(self.relu(self.deconv(self.input_quant(x))))


class MeanPool(nn.Module):
    """Global average pooling written as a mean (exported as ReduceMean over axes 2, 3): input
    quantizer, conv 3x3 (8-bit per-channel weights, int32 bias), ReLU, mean over height and width,
    output quantizer."""

    def __init__(self):
        super().__init__()
        self.input_quant = qnn.QuantIdentity(bit_width=8, return_quant_tensor=True)
        self.conv = _conv(3, 8, 8, "perchannel")
        self.relu = qnn.QuantReLU(bit_width=8, return_quant_tensor=True)
        self.output_quant = qnn.QuantIdentity(bit_width=8, return_quant_tensor=True)

    def forward(self, x):
        return self.output_quant(torch.mean(self.relu(self.conv(self.input_quant(x))), dim=(2, 3)))


class Upsample(nn.Module):
    """input quantizer, `nn.Upsample` x2 (`mode`, `align_corners`) on its dequantized value (exported
    as Resize), output quantizer. Brevitas' own QuantUpsample is not used: it cannot run in
    calibration mode (0.13.4 reads `.value` of the plain tensor calibration passes it), and its
    bilinear form rounds to the input's step, which its export does not write."""

    def __init__(self, mode: str, align_corners: bool | None):
        super().__init__()
        self.input_quant = qnn.QuantIdentity(bit_width=8, return_quant_tensor=False)
        self.upsample = nn.Upsample(scale_factor=2, mode=mode, align_corners=align_corners)
        self.output_quant = qnn.QuantIdentity(bit_width=8, return_quant_tensor=True)

    def forward(self, x):
        return self.output_quant(self.upsample(self.input_quant(x)))


class WeightQuantLstm(nn.Module):
    """input quantizer, QuantLSTM 3 -> 4 over 3 steps (one layer, sequence first) with 8-bit per-tensor weights
    and float gates, states and bias (Brevitas' weights-only form, exported as an ONNX LSTM on
    quantized weights in both forms; QCDQ needs opset 14), output quantizer. Batch 1: Brevitas
    0.13.4 squeezes the direction axis of the LSTM's output at the wrong place (axis 2 for layout
    0), which only a batch of 1 leaves the same."""

    def __init__(self):
        super().__init__()
        self.input_quant = qnn.QuantIdentity(bit_width=8, return_quant_tensor=False)
        self.lstm = qnn.QuantLSTM(LSTM_FEATURES, LSTM_HIDDEN, batch_first=False, weight_bit_width=8, io_quant=None,
                                  gate_acc_quant=None, sigmoid_quant=None, tanh_quant=None, cell_state_quant=None,
                                  bias_quant=None, return_quant_tensor=False)
        self.output_quant = qnn.QuantIdentity(bit_width=8, return_quant_tensor=True)

    def forward(self, x):
        return self.output_quant(self.lstm(self.input_quant(x))[0])


class QuantLstm(nn.Module):
    """QuantLSTM 3 -> 4 over 3 steps, batch first, with Brevitas' default quantizers on inputs,
    gate accumulators, sigmoids, tanhs, cell state and output, output quantizer. Exported only in
    QONNX form (`QONNX_ONLY`): one `QuantLSTMCell` node."""

    def __init__(self):
        super().__init__()
        self.lstm = qnn.QuantLSTM(LSTM_FEATURES, LSTM_HIDDEN, batch_first=True, return_quant_tensor=True)
        self.output_quant = qnn.QuantIdentity(bit_width=8, return_quant_tensor=True)

    def forward(self, x):
        return self.output_quant(self.lstm(x)[0])


QONNX_ONLY = {"quantlstm-cell": (QuantLstm, (BATCH, LSTM_STEPS, LSTM_FEATURES))}
"""Networks exported in QONNX form only (manifest `qonnx_only`): file, graph input and output, the
input shape, the output step and the `QuantLSTMCell` node, with input and outputs saved as for
the others."""


@dataclass(frozen=True)
class Network:
    name: str
    make: type
    arguments: tuple
    input_shape: tuple[int, ...]
    weight_bits: int | str | None
    """None: the network has no weights."""
    act_bits: int | str
    granularity: str | None
    forms: tuple[str, ...] = ("qonnx", "qcdq")
    """Brevitas' QCDQ exporter refuses binary quantizers ("Binary quant not supported")."""
    float_island: bool = False
    """Part of the network has no exact integer form and is compiled as float (docs/float-islands.md)."""
    batch_axis: int = 0
    """Where the batch of `BATCH` (or `batch`) samples goes in the input: 1 for a sequence-first LSTM."""
    batch: int = BATCH
    opset: dict[str, int] | None = None
    """An export form's ONNX opset where Brevitas' default one cannot hold the network."""

    def shape(self) -> tuple[int, ...]:
        """The input's shape: `input_shape` with the batch inserted at `batch_axis`."""
        return (*self.input_shape[: self.batch_axis], self.batch, *self.input_shape[self.batch_axis:])


def networks() -> list[Network]:
    found = []
    for family, make, shape in (("cnn", Cnn, IMAGE), ("mlp", Mlp, (FEATURES,))):
        for widths, (w, a) in BIT_WIDTHS.items():
            for granularity in WEIGHT_QUANT:
                found.append(Network(f"{family}-{widths}-{granularity}", make, (w, a, granularity), shape, w, a, granularity))
    found.append(Network("binary", Binary, (None,), IMAGE, "bipolar", "bipolar", "pertensor", ("qonnx",)))
    found.append(Network("binary-batchnorm", Binary, (None, True), IMAGE, "bipolar", "bipolar", "pertensor", ("qonnx",)))
    found.append(Network("binary-weights-a8", Binary, (8,), IMAGE, "bipolar", 8, "pertensor", ("qonnx",)))
    found.append(Network("mlp-nobias-w4a4-pertensor", Mlp, (4, 4, "pertensor", False), (FEATURES,), 4, 4, "pertensor"))
    found.append(Network("truncavgpool-w8a4", TruncPool, (), IMAGE, 8, 4, "perchannel"))
    found.append(Network("cnn-batchnorm-w8a8-perchannel", Cnn, (8, 8, "perchannel", True), IMAGE, 8, 8, "perchannel"))
    found.append(Network("unrequantized-conv-linear", UnrequantizedConvLinear, (), IMAGE, 8, 8, "perchannel",
                         float_island=True))
    found.append(Network("accumulator-sigmoid", AccumulatorActivation, (qnn.QuantSigmoid,), IMAGE, 8, 8, "perchannel",
                         float_island=True))
    found.append(Network("accumulator-tanh", AccumulatorActivation, (qnn.QuantTanh,), IMAGE, 8, 8, "perchannel",
                         float_island=True))
    found.append(Network("convtranspose-w8a8", ConvTranspose, (), (4, 5, 5), 8, 8, "pertensor"))
    found.append(Network("meanpool-w8a8", MeanPool, (), (3, 6, 6), 8, 8, "perchannel"))
    found.append(Network("upsample-nearest-a8", Upsample, ("nearest", None), (3, 4, 4), None, 8, None))
    found.append(Network("upsample-bilinear-a8", Upsample, ("bilinear", False), (3, 4, 4), None, 8, None))
    found.append(Network("upsample-bilinear-aligned-a8", Upsample, ("bilinear", True), (3, 4, 4), None, 8, None))
    found.append(Network("quantlstm-weights-w8", WeightQuantLstm, (), (LSTM_STEPS, LSTM_FEATURES), 8, 8, "pertensor",
                         float_island=True, batch_axis=1, batch=1, opset={"qcdq": 14}))
    return found


def _randomize_batch_norms(module: nn.Module, generator: torch.Generator) -> None:
    """Non-trivial BatchNorm statistics and affine parameters (a fresh one is the identity)."""
    for norm in module.modules():
        if isinstance(norm, nn.BatchNorm2d):
            channels = norm.num_features
            norm.running_mean.copy_(torch.randn(channels, generator=generator) * 0.2)
            norm.running_var.copy_(torch.rand(channels, generator=generator) + 0.5)
            norm.weight.data.copy_(torch.rand(channels, generator=generator) + 0.5)
            norm.bias.data.copy_(torch.randn(channels, generator=generator) * 0.1)


def build(network: Network) -> nn.Module:
    """The network with seeded weights, its activation scales calibrated on seeded inputs, in eval mode."""
    torch.manual_seed(SEED)
    module = network.make(*network.arguments)
    generator = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        _randomize_batch_norms(module, generator)
        module.eval()
        with calibration_mode(module):
            for _ in range(CALIBRATION_BATCHES):
                module(torch.randn(network.shape(), generator=generator))
    return module.eval()


def _drop_final_dequantize(source: Path, target: Path) -> None:
    """The QCDQ model whose graph output is the integer tensor the last DequantizeLinear reads
    (its element type: the zero point's of the QuantizeLinear before it, through any Clip)."""
    model = onnx.load(source)
    graph = model.graph
    (output,) = graph.output
    producers = {out: node for node in graph.node for out in node.output}
    last = producers[output.name]
    assert last.op_type == "DequantizeLinear", last.op_type
    graph.node.remove(last)
    producer = producers[last.input[0]]
    producer.output[0] = output.name
    quantize = producer
    while quantize.op_type != "QuantizeLinear":
        quantize = producers[quantize.input[0]]
    zero_point = next(i for i in graph.initializer if i.name == quantize.input[2])
    output.type.tensor_type.elem_type = zero_point.data_type
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, target)


def _graph_io(path: Path) -> dict:
    """The exported file and the names of its one graph input and one graph output, as TorchScript
    named them (numbers such as `40`, or `onnx::QuantizeLinear_0`: kept, as a user's file has them)."""
    graph = onnx.load(path).graph
    inits = {i.name for i in graph.initializer}
    (source,) = [i.name for i in graph.input if i.name not in inits]
    (result,) = [o.name for o in graph.output]
    return {"file": path.name, "graph_input": source, "graph_output": result}


def export(network: Network, output: Path) -> dict:
    module = build(network)
    x = torch.randn(network.shape(), generator=torch.Generator().manual_seed(SEED + 2))
    with torch.no_grad():
        quant = module(x)
    scale = quant.scale.detach().numpy().astype(np.float64)
    assert scale.size == 1, "the output quantizer is per tensor"
    np.save(output / f"{network.name}.input.npy", x.numpy())
    np.save(output / f"{network.name}.output.npy", quant.value.detach().numpy())
    integers = quant.int().detach().numpy()
    np.save(output / f"{network.name}.output_int.npy", integers.astype(np.int8 if quant.signed else np.uint8))
    module.output_quant.return_quant_tensor = False  # export the dequantized value as the only output
    forms = {}
    for form in network.forms:
        exporter = {"qonnx": export_qonnx, "qcdq": export_onnx_qcdq}[form]
        path = output / f"{network.name}.{form}.onnx"
        opset = {"opset_version": network.opset[form]} if form in (network.opset or {}) else {}
        exporter(module, x, export_path=str(path), dynamo=False, **opset)
        forms[form] = _graph_io(path)
    if network.name in INTEGER_OUTPUT:
        path = output / f"{network.name}.qcdq-int.onnx"
        _drop_final_dequantize(output / forms["qcdq"]["file"], path)
        forms["qcdq-int"] = _graph_io(path)
    return {
        "input": f"{network.name}.input.npy",
        "output": f"{network.name}.output.npy",
        "output_int": f"{network.name}.output_int.npy",
        "output_scale": float(scale.reshape(())),
        "output_signed": bool(quant.signed),
        "output_bit_width": int(quant.bit_width),
        "weight_bits": network.weight_bits,
        "act_bits": network.act_bits,
        "weights": network.granularity,
        "float_island": network.float_island,
        "forms": forms,
    }


def export_qonnx_only(name: str, make: type, shape: tuple[int, ...], output: Path) -> dict:
    """The QONNX export of a `QONNX_ONLY` network, calibrated like the others, with its input (drawn
    after calibration) and PyTorch's output on it."""
    torch.manual_seed(SEED)
    module = make().eval()
    generator = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad(), calibration_mode(module):
        for _ in range(CALIBRATION_BATCHES):
            module(torch.randn(shape, generator=generator))
    module.eval()
    x = torch.randn(shape, generator=generator)
    with torch.no_grad():
        quant = module(x)
    np.save(output / f"{name}.input.npy", x.numpy())
    np.save(output / f"{name}.output.npy", quant.value.detach().numpy())
    np.save(output / f"{name}.output_int.npy", quant.int().detach().numpy().astype(np.int8))
    module.output_quant.return_quant_tensor = False
    path = output / f"{name}.qonnx.onnx"
    export_qonnx(module, x, export_path=str(path), dynamo=False)
    (cell,) = [n.name for n in onnx.load(path).graph.node if n.op_type == "QuantLSTMCell"]
    return {**_graph_io(path), "input": f"{name}.input.npy", "output": f"{name}.output.npy",
            "output_int": f"{name}.output_int.npy", "output_scale": float(quant.scale.reshape(())),
            "input_shape": list(shape), "cell_node": cell}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args()
    args.output.mkdir(parents=True, exist_ok=True)
    manifest = {
        "made_by": "scripts/export_brevitas_fixtures.py",
        "versions": {"torch": torch.__version__, "brevitas": brevitas.__version__, "onnx": onnx.__version__,
                     "numpy": np.__version__},
        "networks": {},
    }
    for network in networks():
        manifest["networks"][network.name] = export(network, args.output)
        print(network.name, file=sys.stderr)
    manifest["qonnx_only"] = {name: export_qonnx_only(name, make, shape, args.output)
                              for name, (make, shape) in QONNX_ONLY.items()}
    (args.output / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main()

"""bitfold-report end to end: per-layer instructions add up to the counter's own total, the JSON
holds the documented keys, the integer code agrees with the quantized model within one step, and
bad input is one line."""

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import require_tools, unavailable

from bitfold.compile import compile_model
from bitfold.frontends.onnx import import_model
from bitfold.report import model_report
from bitfold.report_main import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "cnn_depthwise_qdq.onnx"
INPUT = ROOT / "examples" / "cnn_depthwise_input.npy"


@pytest.fixture(scope="module")
def counted_report():
    require_tools("qemu-riscv32")
    return model_report(import_model(EXAMPLE), "rv32im", [{"input": np.load(INPUT)}])


def test_layer_instructions_add_up_to_one_call(counted_report, tmp_path):
    compiled = compile_model(import_model(EXAMPLE), "rv32im")
    total = compiled.count_qemu(compiled.quantize({"input": np.load(INPUT)}), tmp_path).instructions
    assert counted_report.total["instructions"] == total
    assert sum(row.instructions for row in counted_report.layers) + \
        counted_report.total["entry_and_exit_instructions"] == total
    convolutions = [row for row in counted_report.layers if row.op == "Conv"]
    assert all(row.instructions >= row.macs for row in convolutions)  # one multiply per MAC at least


def test_an_all_integer_model_has_no_float_island(counted_report):
    assert not any(row.float_island for row in counted_report.layers)
    assert counted_report.total["float_instructions"] == 0


def test_integer_code_is_within_one_step(counted_report):
    assert all(row.integer_max_steps is not None and row.integer_max_steps <= 1 for row in counted_report.layers)
    assert all(row.sqnr_db is not None and row.sqnr_db > 20 for row in counted_report.layers)


def test_cli_prints_a_table_and_writes_json(tmp_path, capsys):
    require_tools("qemu-riscv32")
    out = tmp_path / "report.json"
    main([str(EXAMPLE), "--target", "rv32im", "--input", f"input={INPUT}", "--json", str(out)])
    table = capsys.readouterr().out
    assert table.splitlines()[0].split()[:4] == ["layer", "op", "MACs", "BOPs"]
    assert table.splitlines()[-1].startswith("total")
    data = json.loads(out.read_text())
    assert {"name", "op", "macs", "bops", "instructions", "sqnr_db"} <= set(data["layers"][0])
    assert {"macs", "bops", "weight_bytes", "workspace_bytes", "instructions"} <= set(data["total"])


def test_calibration_samples_split_along_the_batch_axis(tmp_path, capsys):
    data = tmp_path / "data.npz"
    samples = np.random.default_rng(0).standard_normal((3, 3, 16, 16)).astype(np.float32)
    np.savez(data, input=samples)
    out = tmp_path / "report.json"
    main([str(EXAMPLE), "--calibration", str(data), "--json", str(out)])
    assert all(row["sqnr_db"] is not None for row in json.loads(out.read_text())["layers"])


def test_plot_writes_an_image(tmp_path):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        unavailable("not installed: matplotlib (pip install '.[test]')")
    out = tmp_path / "report.png"
    main([str(EXAMPLE), "--plot", str(out)])
    assert out.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize(("args", "expected"), [
    (["--calibration", "{tmp}/missing.npz"], "error: {tmp}/missing.npz: No such file or directory"),
    (["--calibration", "{tmp}/objects.npz"], "error: {tmp}/objects.npz:input.npy: unsupported element type object"),
    (["--input", "{tmp}/missing.npy"], "error: {tmp}/missing.npy: No such file or directory"),
    (["--calibration", "{tmp}/other.npz"], "error: {tmp}/other.npz lacks inputs ['input']"),
])
def test_bad_input_is_one_line(tmp_path, capsys, args, expected):
    np.savez(tmp_path / "other.npz", x=np.zeros((1, 3, 16, 16), np.float32))
    np.savez(tmp_path / "objects.npz", input=np.array([{"a": 1}], dtype=object))
    with pytest.raises(SystemExit) as exit_:
        main([str(EXAMPLE), *(a.format(tmp=tmp_path) for a in args)])
    assert exit_.value.code == 1
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1
    assert error.startswith(expected.format(tmp=tmp_path))


@pytest.mark.parametrize("network", ["autoencoder", "dscnn"])
def test_report_totals_of_a_quantized_mlperf_model_are_qonnx_inference_cost(network, tmp_path):
    """bitfold-quantize (w4a6, symmetric: zero points 0, which QONNX types as scaled integers) written as
    QONNX: bitfold-report's MACs are the architecture's analytic count, its BOPs QONNX's figure."""
    import onnx
    from models.mlperf_tiny.architectures import BUILDERS, multiply_accumulates, random_input
    from qonnx.util.inference_cost import inference_cost

    from bitfold.backends.onnx import export_model
    from bitfold.backends.onnx.qonnx import QonnxForm
    from bitfold.quantize import QuantizeOptions, quantize_model

    float_path = tmp_path / "float.onnx"
    onnx.save(BUILDERS[network](), float_path)
    module = import_model(float_path)
    options = QuantizeOptions(activation_bits=6, weight_bits=4, per_channel=True, symmetric=True)
    quantize_model(module, [{"input": random_input(network, seed)} for seed in range(4)], options)
    qonnx_path = tmp_path / "model.qonnx.onnx"
    onnx.save(export_model(module, QonnxForm()), qonnx_path)
    report = model_report(import_model(qonnx_path))
    expected = inference_cost(str(qonnx_path), discount_sparsity=False)["total_cost"]
    assert report.total["macs"] == multiply_accumulates(BUILDERS[network]()) == expected["total_macs"]
    assert report.total["bops"] == expected["total_bops"]


LAYER_OPS = {"Conv", "Sigmoid", "ReduceMax", "ReduceMin", "Sub", "Add", "Div", "Tanh", "Gemm", "Softmax"}
"""The compute ops of the float-island fixtures (the report's layers)."""


def _integer_ir_float_nodes(model, path: Path) -> set[str]:
    """The ONNX nodes of `model` that the integer IR (quant-form, quant-to-integer, no labels) still
    computes in f32: an op other than a quant cast whose result, named by the node's output, is f32."""
    from xdsl.dialects.builtin import Float32Type

    from bitfold.dialects.quant import DequantizeCastOp, QuantizeCastOp, StorageCastOp
    from bitfold.load import full_context
    from bitfold.passes.quant_to_integer import QuantToIntegerPass
    from bitfold.report import quant_form

    module = quant_form(import_model(path))
    QuantToIntegerPass().apply(full_context(), module)
    float_values = {result.name_hint for op in module.walk()
                    if not isinstance(op, DequantizeCastOp | QuantizeCastOp | StorageCastOp)
                    for result in op.results
                    if getattr(result.type, "get_element_type", lambda: None)() == Float32Type()}
    return {node.name for node in model.graph.node if node.output[0] in float_values}


@pytest.mark.parametrize("name", ["accumulator_sigmoid", "reduce_normalize"])
def test_float_island_layers_are_those_the_integer_ir_computes_in_f32(name, tmp_path, capsys):
    """models.float_islands: the Sigmoid on the accumulator is float, its Conv integer; in the LayerNorm-like
    model ReduceMax and x - max are exact integer ops, everything after them float."""
    import onnx
    from models.float_islands import FLOAT_ISLAND_MODELS

    model = FLOAT_ISLAND_MODELS[name]()
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, path)
    flagged = {row.name for row in model_report(import_model(path)).layers if row.float_island}
    assert flagged == _integer_ir_float_nodes(model, path)
    integer = {"accumulator_sigmoid": {"quant_conv"}, "reduce_normalize": {"reduce_max", "center"}}[name]
    assert flagged == {node.name for node in model.graph.node if node.op_type in LAYER_OPS} - integer
    main([str(path)])
    table = capsys.readouterr().out.splitlines()
    assert table[-1] == f"float islands: {len(flagged)} of {len(flagged) + len(integer)} layers"
    assert all(line.split()[-1] == "float" for line in table if line.split()[0] in flagged)


def test_float_island_share_of_instructions(tmp_path, capsys):
    """The float first Conv of models.float_islands is the only float layer; the summary's share is its count."""
    import onnx
    from models.float_islands import float_first_conv

    require_tools("qemu-riscv32")
    path = tmp_path / "float_first_conv.onnx"
    onnx.save(float_first_conv(), path)
    main([str(path), "--target", "rv32im", "--json", str(tmp_path / "report.json")])
    data = json.loads((tmp_path / "report.json").read_text())
    (island,) = [row for row in data["layers"] if row["float_island"]]
    assert island["name"] == "float_conv"
    assert data["total"]["float_instructions"] == island["instructions"]
    share = 100 * island["instructions"] / data["total"]["instructions"]
    assert capsys.readouterr().out.splitlines()[-1].endswith(
        f"{island['instructions']:,} of {data['total']['instructions']:,} instructions ({share:.1f}%)")


def test_float8_contraction_is_a_float_island_with_8_bit_operands():
    """A float8 QDQ Conv (models.float8_models): its operands carry 8 bits (float storage), it runs as a
    float island."""
    from models.float8_models import e4m3fn_conv

    report = model_report(import_model(e4m3fn_conv().SerializeToString()))
    (conv,) = [row for row in report.layers if row.op == "Conv"]
    assert conv.float_island and conv.weight_bits == 8 and conv.activation_bits == 8
    assert conv.bops == conv.macs * 64


@pytest.mark.slow  # two LLVM compilations and two qemu runs
def test_vector_target_layers_add_up_to_one_call(tmp_path):
    """On rv64imv (LLVM) the layer labels are inline-asm markers (backends/llvm/layer_labels.py): the
    per-layer counts and the entry and exit add up to one call's count of the labelled code, which is
    within 1% of the unlabelled code's (the markers only keep loads and stores on their side); the
    float first Conv is the float island and the larger part."""
    import onnx
    from models.float_islands import float_first_conv, inputs

    require_tools("qemu-riscv64", "mlir-opt-22", "mlir-translate-22", "clang-22")
    path = tmp_path / "float_first_conv.onnx"
    onnx.save(float_first_conv(), path)
    report = model_report(import_model(path), "rv64imv", [inputs("float_first_conv")])
    assert sum(row.instructions for row in report.layers) + report.total["entry_and_exit_instructions"] == \
        report.total["instructions"]
    compiled = compile_model(import_model(path), "rv64imv")
    unlabelled = compiled.count_qemu(compiled.quantize(inputs("float_first_conv")), tmp_path / "plain").instructions
    assert abs(report.total["instructions"] - unlabelled) <= unlabelled / 100
    (island,) = [row for row in report.layers if row.float_island]
    assert island.name == "float_conv" and report.total["float_instructions"] == island.instructions
    assert island.instructions > report.total["instructions"] / 2

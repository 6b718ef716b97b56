"""Mixed precision (`bitfold.calibration.mixed_precision`, `bitfold-quantize --budget/--bops`) on a
small float network: the widths bitfold-report reads back from the written model fit the budget
and are the ones chosen, in every ONNX form; the model compiles for rv32im and runs bit-exact
under qemu against bitfold's reference; the extreme budgets give the extreme widths; bad budgets
and options are one error line."""

import numpy as np
import pytest
from conftest import require_tools
from models.runners import random_inputs, run_onnxruntime
from xdsl.dialects.builtin import IntegerAttr

from bitfold.backends.onnx import export_model
from bitfold.backends.onnx.qcdq import QcdqForm
from bitfold.backends.onnx.qdq import QdqForm
from bitfold.backends.onnx.qonnx import QonnxForm
from bitfold.backends.onnx.qop import QopForm
from bitfold.calibration.mixed_precision import (
    DEFAULT_WIDTHS,
    LINEAR_FROM,
    Budget,
    noise_against,
    output_values,
    quantize_mixed,
    quantized_at,
    sensitivity,
    weight_error,
)
from bitfold.compile import compile_model
from bitfold.dialects.onnx.base import ONNX_OPSET
from bitfold.frontends.onnx import import_model
from bitfold.interpreter import entry_function, run
from bitfold.passes.calibration.calibrated_to_uniform import weighted_contractions
from bitfold.quantize import QuantizeOptions, calibrate_model, quantize_model
from bitfold.quantize_budget import writable_widths
from bitfold.quantize_main import main
from bitfold.report import model_report

NAME = "cnn_depthwise-float"
WIDTHS = (1, 2, 4, 8)


@pytest.fixture(scope="module")
def float_network(model_catalogue):
    """(path, weight elements of each layer, calibration samples)."""
    path = model_catalogue.path(NAME)
    layers = weighted_contractions(entry_function(import_model(path)))
    samples = [random_inputs(model_catalogue.load(NAME), seed) for seed in range(8)]
    return path, [int(np.prod(op.operands[1].type.get_shape())) for op in layers], samples


def _mixed(float_network, budget: Budget, widths=WIDTHS):
    path, _, samples = float_network
    module = import_model(path)
    chosen = quantize_mixed(module, samples, QuantizeOptions(per_channel=True), budget, widths)
    return module, chosen


@pytest.fixture(scope="module")
def mixed_budget(float_network):
    """The network quantized for 3/8 of its 8-bit weight bytes (between uniform 2 and 4 bits)."""
    return _mixed(float_network, Budget("bytes", 3 * sum(float_network[1]) // 8))


def _report_widths(module) -> list[int]:
    return [row.weight_bits for row in model_report(module).layers if row.macs and row.weight_bits is not None]


def test_report_widths_fit_the_byte_budget(float_network, mixed_budget):
    module, chosen = mixed_budget
    widths = _report_widths(module)
    assert widths == [layer.bits for layer in chosen]
    budget = 3 * sum(float_network[1]) // 8
    assert sum((n * bits + 7) // 8 for n, bits in zip(float_network[1], widths, strict=True)) <= budget
    assert len(set(widths)) > 1


def test_qonnx_keeps_every_width(mixed_budget, tmp_path):
    module, chosen = mixed_budget
    path = tmp_path / "mixed.onnx"
    path.write_bytes(export_model(module, QonnxForm()).SerializeToString())
    assert _report_widths(import_model(path)) == [layer.bits for layer in chosen]


@pytest.mark.parametrize(("form", "opset", "kept"), [
    (QonnxForm, 13, (1, 2, 4, 8)),
    (QcdqForm, 13, (2, 4, 8)),  # bipolar weights: int8 +-1
    (QopForm, 13, (8,)),  # QLinearConv, QGemm: int8
    (QdqForm, 13, (8,)),  # int4 from opset 21, int2 from 25
    (QdqForm, 21, (4, 8)),
    (QdqForm, 25, (2, 4, 8)),
])
def test_forms_keep_the_widths_they_hold(float_network, form, opset, kept, capsys):
    path, _, samples = float_network
    module = import_model(path)
    module.attributes[ONNX_OPSET] = IntegerAttr(opset, 64)
    widths = writable_widths(module, samples[0], QuantizeOptions(per_channel=True), WIDTHS,
                             lambda m: export_model(m, form()))
    assert widths == kept
    note = capsys.readouterr().err
    assert (note == "") == (kept == WIDTHS)


def test_runs_bit_exact_on_rv32im(model_catalogue, mixed_budget, tmp_path):
    require_tools("qemu-riscv32")
    compiled = compile_model(mixed_budget[0].clone(), "rv32im")
    stored = compiled.quantize(random_inputs(model_catalogue.load(NAME), 100))
    for got, want in zip(compiled.run_qemu(stored, tmp_path), compiled.run_reference(stored), strict=True):
        np.testing.assert_array_equal(got, want)


def test_extreme_budgets(float_network):
    sizes = float_network[1]
    _, everything = _mixed(float_network, Budget("bytes", sum(sizes)))
    assert [layer.bits for layer in everything] == [8] * len(sizes)
    _, least = _mixed(float_network, Budget("bytes", sum((n + 7) // 8 for n in sizes)))
    assert [layer.bits for layer in least] == [1] * len(sizes)


def test_bit_operations_budget(float_network):
    eight = model_report(_mixed(float_network, Budget("bops", 10**12), (8,))[0]).total["bops"]
    module, chosen = _mixed(float_network, Budget("bops", eight // 2), (2, 4, 8))
    assert model_report(module).total["bops"] <= eight // 2
    assert _report_widths(module) == [layer.bits for layer in chosen]


@pytest.fixture(scope="module")
def calibration_file(float_network, tmp_path_factory):
    path = tmp_path_factory.mktemp("mixed") / "data.npz"
    samples = float_network[2]
    np.savez(path, **{k: np.concatenate([s[k] for s in samples]) for k in samples[0]})
    return path


def _cli(float_network, calibration_file, tmp_path, *extra) -> None:
    main([str(float_network[0]), "--calibration", str(calibration_file), "-o", str(tmp_path / "q.onnx"), *extra])


def test_cli_writes_the_chosen_widths(float_network, calibration_file, tmp_path):
    budget = sum(float_network[1]) // 2
    _cli(float_network, calibration_file, tmp_path, "--form", "qonnx", "--per-channel", "--budget", str(budget),
         "--bits", "4,8", "--ternary")
    widths = _report_widths(import_model(tmp_path / "q.onnx"))
    assert set(widths) <= {2, 4, 8}
    assert sum((n * bits + 7) // 8 for n, bits in zip(float_network[1], widths, strict=True)) <= budget


def test_cli_unreachable_budget_is_one_line(float_network, calibration_file, tmp_path, capsys):
    least = sum((n * 2 + 7) // 8 for n in float_network[1])
    with pytest.raises(SystemExit) as exit_:
        _cli(float_network, calibration_file, tmp_path, "--form", "qonnx", "--budget", str(least - 1))
    assert exit_.value.code == 1
    error = capsys.readouterr().err.strip()
    assert error == (f"error: a budget of {least - 1:,} weight bytes cannot be met: with every layer at 2 bits "
                     f"the model needs {least:,}")


@pytest.mark.parametrize(("extra", "message"), [
    (["--bits", "2,4"], "--bits, --binary and --ternary choose widths for --budget or --bops"),
    (["--budget", "100", "--bits", "1,4"], "weight widths are 2..16 (1 bit: --binary)"),
    (["--budget", "0"], "a budget is a positive integer"),
    (["--budget", "100", "--bops", "100"], "not allowed with argument"),
])
def test_cli_bad_options(float_network, calibration_file, tmp_path, capsys, extra, message):
    with pytest.raises(SystemExit) as exit_:
        _cli(float_network, calibration_file, tmp_path, *extra)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("widths", [(2, 4, 8), DEFAULT_WIDTHS])
def test_never_noisier_than_uniform_within_the_budget(model_catalogue, float_network, widths):
    """On the calibration samples, against onnxruntime's float outputs, the choice for half the
    8-bit bytes is at most as noisy as uniform 4 bits (which fits: a measured candidate)."""
    path, sizes, samples = float_network
    mixed, _ = _mixed(float_network, Budget("bytes", sum(sizes) // 2), widths)
    uniform = import_model(path)
    quantize_model(uniform, samples, QuantizeOptions(weight_bits=4, per_channel=True))

    def noise(module) -> float:
        return sum(float(np.sum((run_onnxruntime(path, s)[k] - v) ** 2)) for s in samples
                   for k, v in run(module, s).items())

    assert noise(mixed) <= noise(uniform) * (1 + 1e-6)


def test_estimated_sensitivity_follows_the_measured(float_network):
    """Above LINEAR_FROM bits the sensitivity is estimated from the weights' error power: summed over
    the layers, within a factor 2 of the noise the interpreter measures at every such width (at 7
    bits the measured differences are near the noise of the measurement itself)."""
    path, _, samples = float_network
    options = QuantizeOptions(per_channel=True)
    calibrated = import_model(path)
    calibrate_model(calibrated, samples, options)
    reference = output_values(import_model(path), samples)
    count = len(weighted_contractions(entry_function(calibrated)))

    def noise_of(widths):
        return noise_against(reference, quantized_at(calibrated, options, widths), samples)

    estimated, measured = (sensitivity(noise_of, weight_error(calibrated, options), DEFAULT_WIDTHS, count, linear)
                           for linear in (LINEAR_FROM, max(DEFAULT_WIDTHS)))
    for column, bits in enumerate(DEFAULT_WIDTHS[:-1]):
        total, expected = sum(row[column] for row in estimated), sum(row[column] for row in measured)
        if bits <= LINEAR_FROM:
            assert total == expected
        else:
            assert expected / 2 <= total <= expected * 2, bits

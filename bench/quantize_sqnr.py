"""bitfold-quantize beside onnxruntime's quantize_static: SQNR of the outputs against the float model.

    python bench/quantize_sqnr.py [--samples 16] [--tests 8] [--method minmax|percentile|mse]
    python bench/quantize_sqnr.py --compare-methods [--samples 64] [--tests 64]
    python bench/quantize_sqnr.py --data-free [--samples 64] [--tests 128]
    python bench/quantize_sqnr.py --data-free --sigmas 3,4,5,6,8 [--tests 128]

For each MLPerf Tiny architecture (tests/models/mlperf_tiny/architectures.py, seeded weights), the
same calibration samples (seeded normal inputs) go to onnxruntime's `quantize_static` (QDQ, u8
activations, s8 weights, per channel, the same method) and to `bitfold-quantize` (w8a8 asymmetric,
per channel); both quantized models run on other seeded inputs (onnxruntime, ORT_DISABLE_ALL, for
ORT's model; bitfold-run and onnxruntime for bitfold's QDQ export), and the table gives
SQNR = 10 log10(sum f^2 / sum (f - q)^2) in dB over all test outputs; the last column compiles
bitfold's model for rv32im and runs the first test input under qemu against bitfold-run on the
integer IR.

`--compare-methods` gives instead one row per network and weight width (w8a8, w4a8; per channel,
activations u8): the SQNR of bitfold-quantize with each `--method` (outputs by bitfold-run, a chunk
of test inputs per run) beside onnxruntime's quantize_static with MinMax, Percentile and Entropy
(w8a8 only).

`--data-free` gives one row per network with BatchNormalization (ResNet-8, DS-CNN, MobileNetV1 with
BatchNormalization kept, `tests/models/mlperf_tiny/batch_norm_models.py`) and weight width (w8a8,
w4a8; per channel, activations u8): bitfold-quantize from the calibration samples (MinMax, and mse)
beside `--data-free` (no samples; the input range `DATA_FREE_INPUT_RANGES`: [0, 1] for the image
networks' pixels, [-4, 4] for DS-CNN's standard normal features), with `--method minmax` and
`mse` (MSE-clipped weights), outputs by bitfold-run against onnxruntime's float outputs. With
`--sigmas` one row per network instead: w8a8 `--data-free` with each range width mean +- n sigma."""

import argparse
import contextlib
import io
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from models.mlperf_tiny.architectures import BUILDERS, IMAGE_NETWORKS, random_input
from models.mlperf_tiny.batch_norm_models import NETWORKS as BATCH_NORM_NETWORKS
from models.mlperf_tiny.batch_norm_models import batch_norm_model
from models.runners import run_onnxruntime

from bitfold.backends.onnx import export_model
from bitfold.backends.onnx.qdq import QdqForm
from bitfold.calibration.batched import batched_module, stacked
from bitfold.compile import compile_model
from bitfold.frontends.onnx import import_model
from bitfold.interpreter import run
from bitfold.quantize import DataFreeOptions, QuantizeOptions, quantize_data_free, quantize_model

ORT_METHODS = {"minmax": "MinMax", "percentile": "Percentile", "mse": "Entropy"}
DATA_FREE_INPUT_RANGES = {network: (0.0, 1.0) if network in IMAGE_NETWORKS else (-4.0, 4.0)
                          for network in BATCH_NORM_NETWORKS}


def sqnr(reference: np.ndarray, quantized: np.ndarray) -> float:
    return float(10 * np.log10(np.sum(reference**2) / np.sum((reference - quantized) ** 2)))


def ort_quantized(float_path: Path, samples: list[np.ndarray], method: str, out: Path) -> Path:
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.items = iter([{"input": s} for s in samples])

        def get_next(self):
            return next(self.items, None)

    quantize_static(str(float_path), str(out), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    calibrate_method=getattr(CalibrationMethod, ORT_METHODS[method]))
    return out


def batched_outputs(module, tests: list[np.ndarray]) -> np.ndarray:
    """The model's first output on every test input, by one interpreter run (one a test input where
    the model does not batch)."""
    batched = batched_module(module, len(tests))
    if batched is None:
        return np.concatenate([next(iter(run(module, {"input": t}).values())) for t in tests])
    return next(iter(run(batched, stacked([{"input": t} for t in tests])).values()))


def compare_methods(samples: int, tests_count: int) -> None:
    methods = sorted(ORT_METHODS)
    print("| network | bits | " + " | ".join(f"bitfold {m} (dB)" for m in methods) + " | "
          + " | ".join(f"onnxruntime {ORT_METHODS[m]} (dB)" for m in methods) + " |")
    print("| --- | --- |" + " ---: |" * (2 * len(methods)))
    with tempfile.TemporaryDirectory() as workdir:
        for network in sorted(BUILDERS):
            float_path = Path(workdir) / f"{network}.onnx"
            onnx.save(BUILDERS[network](), float_path)
            calibration = [random_input(network, seed) for seed in range(samples)]
            tests = [random_input(network, 1000 + seed) for seed in range(tests_count)]
            reference = np.concatenate([next(iter(run_onnxruntime(float_path, {"input": t}).values())) for t in tests])
            for weights in (8, 4):
                ours = []
                for method in methods:
                    module = import_model(float_path)
                    quantize_model(module, [{"input": s} for s in calibration],
                                   QuantizeOptions(weight_bits=weights, per_channel=True, method=method))
                    ours.append(f"{sqnr(reference, batched_outputs(module, tests)):.2f}")
                theirs = ["-"] * len(methods)
                if weights == 8:
                    for i, method in enumerate(methods):
                        with contextlib.redirect_stdout(io.StringIO()):  # its histogram calibrators print
                            path = ort_quantized(float_path, calibration, method,
                                                 Path(workdir) / f"{network}.{method}.onnx")
                        out = np.concatenate([next(iter(run_onnxruntime(path, {"input": t}).values())) for t in tests])
                        theirs[i] = f"{sqnr(reference, out):.2f}"
                print(f"| {network} | w{weights}a8 | " + " | ".join(ours) + " | " + " | ".join(theirs) + " |",
                      flush=True)


def data_free(samples: int, tests_count: int) -> None:
    print("| network | bits | minmax, calibration data (dB) | --data-free (dB) | --data-free - minmax (dB) "
          "| mse, calibration data (dB) | --data-free --method mse (dB) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as workdir:
        for network in BATCH_NORM_NETWORKS:
            float_path = Path(workdir) / f"{network}.onnx"
            onnx.save(batch_norm_model(network), float_path)
            calibration = [{"input": random_input(network, seed)} for seed in range(samples)]
            tests = [random_input(network, 1000 + seed) for seed in range(tests_count)]
            reference = np.concatenate([next(iter(run_onnxruntime(float_path, {"input": t}).values())) for t in tests])
            settings = DataFreeOptions(DATA_FREE_INPUT_RANGES[network])
            for weights in (8, 4):
                figures = {}
                for method in ("minmax", "mse"):
                    options = QuantizeOptions(weight_bits=weights, per_channel=True, method=method)
                    module = import_model(float_path)
                    quantize_model(module, calibration, options)
                    figures[method] = sqnr(reference, batched_outputs(module, tests))
                    module = import_model(float_path)
                    quantize_data_free(module, options, settings)
                    figures[f"free {method}"] = sqnr(reference, batched_outputs(module, tests))
                print(f"| {network} | w{weights}a8 | {figures['minmax']:.2f} | {figures['free minmax']:.2f} | "
                      f"{figures['free minmax'] - figures['minmax']:+.2f} | {figures['mse']:.2f} | "
                      f"{figures['free mse']:.2f} |", flush=True)


def data_free_sigmas(sigmas: list[float], tests_count: int) -> None:
    print("| network | " + " | ".join(f"n = {n:g} (dB)" for n in sigmas) + " |")
    print("| --- |" + " ---: |" * len(sigmas))
    with tempfile.TemporaryDirectory() as workdir:
        for network in BATCH_NORM_NETWORKS:
            float_path = Path(workdir) / f"{network}.onnx"
            onnx.save(batch_norm_model(network), float_path)
            tests = [random_input(network, 1000 + seed) for seed in range(tests_count)]
            reference = np.concatenate([next(iter(run_onnxruntime(float_path, {"input": t}).values())) for t in tests])
            figures = []
            for n in sigmas:
                module = import_model(float_path)
                quantize_data_free(module, QuantizeOptions(per_channel=True),
                                   DataFreeOptions(DATA_FREE_INPUT_RANGES[network], n))
                figures.append(f"{sqnr(reference, batched_outputs(module, tests)):.2f}")
            print(f"| {network} | " + " | ".join(figures) + " |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--tests", type=int, default=128)
    parser.add_argument("--method", choices=sorted(ORT_METHODS), default="minmax")
    parser.add_argument("--compare-methods", action="store_true", help="every method side by side, w8a8 and w4a8")
    parser.add_argument("--data-free", action="store_true",
                        help="data-free calibration beside calibration data, networks with BatchNormalization")
    parser.add_argument("--sigmas", help="with --data-free: range widths n to compare, comma separated")
    options = parser.parse_args()
    if options.data_free and options.sigmas:
        data_free_sigmas([float(n) for n in options.sigmas.split(",")], options.tests)
        return
    if options.data_free:
        data_free(options.samples, options.tests)
        return
    if options.compare_methods:
        compare_methods(options.samples, options.tests)
        return
    print("| network | onnxruntime quantize_static (dB) | bitfold-quantize (dB) | bitfold QDQ in onnxruntime (dB) "
          "| rv32im under qemu |")
    print("| --- | ---: | ---: | ---: | --- |")
    with tempfile.TemporaryDirectory() as workdir:
        for network in sorted(BUILDERS):
            float_path = Path(workdir) / f"{network}.onnx"
            onnx.save(BUILDERS[network](), float_path)
            calibration = [random_input(network, seed) for seed in range(options.samples)]
            tests = [random_input(network, 1000 + seed) for seed in range(options.tests)]
            reference = np.concatenate([next(iter(run_onnxruntime(float_path, {"input": t}).values())) for t in tests])
            ort_path = ort_quantized(float_path, calibration, options.method, Path(workdir) / f"{network}.ort.onnx")
            ort = np.concatenate([next(iter(run_onnxruntime(ort_path, {"input": t}).values())) for t in tests])
            module = import_model(float_path)
            quantize_model(module, [{"input": s} for s in calibration],
                           QuantizeOptions(per_channel=True, method=options.method))
            ours = np.concatenate([next(iter(run(module, {"input": t}).values())) for t in tests])
            exported = export_model(module, QdqForm())
            ours_in_ort = np.concatenate([next(iter(run_onnxruntime(exported, {"input": t}).values())) for t in tests])
            compiled = compile_model(module.clone(), "rv32im")
            stored = compiled.quantize({"input": tests[0]})
            same = all(np.array_equal(a, b) for a, b in zip(
                compiled.run_qemu(stored, Path(workdir) / network), compiled.run_reference(stored), strict=True))
            print(f"| {network} | {sqnr(reference, ort):.2f} | {sqnr(reference, ours):.2f} | "
                  f"{sqnr(reference, ours_in_ort):.2f} | {'bit-exact' if same else 'DIFFERS'} |")


if __name__ == "__main__":
    main()

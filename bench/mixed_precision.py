"""Mixed precision (`bitfold-quantize --budget`) on the MLPerf Tiny networks: at a budget of half the
8-bit weight bytes, the output SQNR of the chosen widths beside uniform 4 and 8 bits.

    python bench/mixed_precision.py [--samples 32] [--tests 64] [--method minmax] [--bits 2,3,4,5,6,7,8]
        [--networks a,b]

For each network (tests/models/mlperf_tiny/architectures.py, seeded weights) the same seeded
calibration samples quantize it (activations u8, weights per channel, `--method`) uniformly at w8
and w4 and with `quantize_mixed` for half the w8 weight bytes (weights packed at their widths,
biases not counted); every model runs on other seeded inputs in bitfold-run, and
SQNR = 10 log10(sum f^2 / sum (f - q)^2) over all test outputs, f the float model's outputs in
onnxruntime. The mixed model is compiled for rv32im and run under qemu on the first test input
against bitfold's reference (the integer IR in bitfold-run). `choice (s)` is the time of the whole
mixed quantization (calibration, sensitivity runs, knapsack, measured candidates)."""

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
import onnx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from models.mlperf_tiny.architectures import BUILDERS, random_input
from models.runners import run_onnxruntime
from quantize_sqnr import batched_outputs, sqnr

from bitfold.calibration.mixed_precision import DEFAULT_WIDTHS, Budget, quantize_mixed
from bitfold.compile import compile_model
from bitfold.frontends.onnx import import_model
from bitfold.interpreter import entry_function
from bitfold.passes.calibration.calibrated_to_uniform import weighted_contractions
from bitfold.quantize import QuantizeOptions, quantize_model


def _bit_exact_on_rv32im(module, test: np.ndarray, workdir: Path) -> bool:
    compiled = compile_model(module.clone(), "rv32im")
    stored = compiled.quantize({"input": test})
    return all(np.array_equal(a, b) for a, b in zip(
        compiled.run_qemu(stored, workdir), compiled.run_reference(stored), strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=32)
    parser.add_argument("--tests", type=int, default=64)
    parser.add_argument("--method", default="minmax")
    parser.add_argument("--bits", default=",".join(map(str, DEFAULT_WIDTHS)), help="candidate weight widths")
    parser.add_argument("--networks", default=",".join(sorted(BUILDERS)), help="which MLPerf Tiny networks")
    options = parser.parse_args()
    widths = tuple(int(bits) for bits in options.bits.split(","))
    scheme = QuantizeOptions(per_channel=True, method=options.method)
    print(f"widths {options.bits}, method {options.method}, {options.samples} calibration and {options.tests} test inputs")
    print("| network | w8 bytes | budget | mixed bytes | chosen widths | SQNR w4 (dB) | SQNR mixed (dB) | SQNR w8 (dB) "
          "| choice (s) | rv32im under qemu |")
    print("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |")
    with tempfile.TemporaryDirectory() as workdir:
        for network in options.networks.split(","):
            float_path = Path(workdir) / f"{network}.onnx"
            onnx.save(BUILDERS[network](), float_path)
            calibration = [{"input": random_input(network, seed)} for seed in range(options.samples)]
            tests = [random_input(network, 1000 + seed) for seed in range(options.tests)]
            reference = np.concatenate([next(iter(run_onnxruntime(float_path, {"input": t}).values())) for t in tests])
            layers = weighted_contractions(entry_function(import_model(float_path)))
            w8_bytes = sum(int(np.prod(op.operands[1].type.get_shape())) for op in layers)
            uniform = {}
            for bits in (4, 8):
                module = import_model(float_path)
                quantize_model(module, calibration, QuantizeOptions(weight_bits=bits, per_channel=True,
                                                                    method=options.method))
                uniform[bits] = sqnr(reference, batched_outputs(module, tests))
            module = import_model(float_path)
            start = time.perf_counter()
            chosen = quantize_mixed(module, calibration, scheme, Budget("bytes", w8_bytes // 2), widths)
            seconds = time.perf_counter() - start
            mixed = sqnr(reference, batched_outputs(module, tests))
            histogram = ", ".join(f"{bits}: {count}" for bits, count in sorted(Counter(l.bits for l in chosen).items()))
            exact = _bit_exact_on_rv32im(module, tests[0], Path(workdir) / network)
            print(f"| {network} | {w8_bytes:,} | {w8_bytes // 2:,} | {sum(l.cost for l in chosen):,} | {histogram} | "
                  f"{uniform[4]:.2f} | {mixed:.2f} | {uniform[8]:.2f} | {seconds:.0f} | "
                  f"{'bit-exact' if exact else 'DIFFERS'} |", flush=True)


if __name__ == "__main__":
    main()

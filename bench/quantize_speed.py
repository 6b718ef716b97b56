"""Calibration speed: bitfold-quantize beside onnxruntime's quantize_static, in samples per second.

    python bench/quantize_speed.py [--samples 64] [--networks resnet8,dscnn,...] [--exact] [--per-sample] [--native]

For each MLPerf Tiny architecture (tests/models/mlperf_tiny/architectures.py, seeded weights) and
the same seeded calibration inputs, the wall time of the whole quantization, from the float model
file to the quantized model in memory (w8a8 per channel, MinMax): onnxruntime's `quantize_static`
(QDQ, u8 activations, s8 weights) and `bitfold.quantize.quantize_model` on the imported model (the
import is timed too; batched, float32 accumulation). `--exact` adds a column for the batched runs
with the interpreter's float64 accumulation, `--per-sample` one for the interpreter one exact run a
sample (the path before batched calibration), `--native` one for the float model compiled for the
host (`bitfold-quantize --native`; its compilation timed too). Samples per second = samples / seconds; the ratio
is onnxruntime's rate over bitfold's."""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import onnx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from models.mlperf_tiny.architectures import BUILDERS, random_input

from bitfold.frontends.onnx import import_model
from bitfold.quantize import QuantizeOptions, quantize_model


def ort_seconds(float_path: Path, samples, out: Path) -> float:
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.items = iter([{"input": s} for s in samples])

        def get_next(self):
            return next(self.items, None)

    start = time.perf_counter()
    quantize_static(str(float_path), str(out), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    return time.perf_counter() - start


def bitfold_seconds(float_path: Path, samples, batch: bool = True, exact: bool = False, native: bool = False) -> float:
    start = time.perf_counter()
    module = import_model(float_path)
    quantize_model(module, [{"input": s} for s in samples], QuantizeOptions(per_channel=True), batch, exact, native)
    return time.perf_counter() - start


def _warm_up(workdir: Path) -> None:
    """One untimed run of both on two samples (imports, first-call set-up)."""
    float_path = workdir / "warm_up.onnx"
    onnx.save(BUILDERS["resnet8"](), float_path)
    samples = [random_input("resnet8", seed) for seed in range(2)]
    ort_seconds(float_path, samples, workdir / "warm_up.ort.onnx")
    bitfold_seconds(float_path, samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--networks", default=",".join(sorted(BUILDERS)))
    parser.add_argument("--exact", action="store_true", help="also time batched runs with float64 accumulation")
    parser.add_argument("--per-sample", action="store_true", help="also time one exact interpreter run a sample")
    parser.add_argument("--native", action="store_true", help="also time the model compiled for the host")
    options = parser.parse_args()
    extra = [(options.exact, "bitfold float64 batched", {"exact": True}),
             (options.per_sample, "bitfold float64 one run a sample", {"batch": False, "exact": True}),
             (options.native, "bitfold --native", {"native": True})]
    extra = [(title, arguments) for wanted, title, arguments in extra if wanted]
    print("| network | samples | onnxruntime quantize_static (samples/s) | bitfold-quantize (samples/s) | "
          + "".join(f"{title} (samples/s) | " for title, _ in extra) + "onnxruntime / bitfold |")
    print("| --- | ---: | ---: | ---: |" + " ---: |" * len(extra) + " ---: |")
    with tempfile.TemporaryDirectory() as workdir:
        _warm_up(Path(workdir))
        for network in options.networks.split(","):
            float_path = Path(workdir) / f"{network}.onnx"
            onnx.save(BUILDERS[network](), float_path)
            samples = [random_input(network, seed) for seed in range(options.samples)]
            ort = options.samples / ort_seconds(float_path, samples, Path(workdir) / f"{network}.ort.onnx")
            ours = options.samples / bitfold_seconds(float_path, samples)
            others = "".join(f" {options.samples / bitfold_seconds(float_path, samples, **arguments):.1f} |"
                             for _, arguments in extra)
            print(f"| {network} | {options.samples} | {ort:.1f} | {ours:.1f} |{others} {ort / ours:.2f} |", flush=True)

if __name__ == "__main__":
    main()

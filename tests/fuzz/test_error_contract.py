"""The error contract on a seeded, bounded fuzz budget (`corpus.py`; the large run is
`bench/fuzz_corpus.py`): every case ends `ok` (agreeing with onnxruntime / qonnx where it is
an ONNX model) or in one `error:` line with exit status 1; no traceback, no hang, nothing
written outside the output directory, no model accepted that the oracle refuses."""

import pytest

from .corpus import run_case

BUDGET = {"onnx": 300, "npy": 150, "mlir": 80, "compile": 80}
"""Cases per kind in CI (seeded: case i is the same on every run)."""


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz")
    (root / "outside.bin").write_bytes(bytes(64))
    return root


@pytest.mark.parametrize("kind", BUDGET)
def test_error_contract(sandbox, kind):
    failures = []
    for index in range(BUDGET[kind]):
        result = run_case(kind, sandbox, index)
        if result.outcome not in ("ok", "error"):
            failures.append(f"{kind} case {index}: {result.outcome}: {result.detail}")
    assert not failures, "\n".join(failures)

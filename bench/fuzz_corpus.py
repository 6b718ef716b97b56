"""The error contract on a large fuzz corpus: CASES cases per kind of `tests/fuzz/corpus.py`
(mutated ONNX models through bitfold-run, mutated `.npy` inputs, mutated MLIR text through
bitfold-opt and bitfold-run, mutated ONNX models through bitfold-compile), seeded, starting
after the cases CI runs. Prints a table of outcomes per kind and the first few of each bad
outcome; exit status 1 if any case is a traceback, hang, outside write, oracle refusal or
mismatch.

    python bench/fuzz_corpus.py [CASES [FIRST]]   # default 400 per kind (1,600 cases), from the first case after CI's
"""

import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fuzz.contract import OUTCOMES
from fuzz.corpus import KINDS, run_case
from fuzz.test_error_contract import BUDGET

GOOD = ("ok", "error")


def main() -> int:
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    first = int(sys.argv[2]) if len(sys.argv) > 2 else None
    counts: dict[str, Counter] = {}
    bad: list[str] = []
    start = time.time()
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        (root / "outside.bin").write_bytes(bytes(64))
        for kind in KINDS:
            counts[kind] = Counter()
            begin = BUDGET[kind] if first is None else first
            for index in range(begin, begin + cases):
                result = run_case(kind, root, index)
                counts[kind][result.outcome] += 1
                if result.outcome not in GOOD:
                    bad.append(f"{kind} {index}: {result.outcome}: {result.detail[:200]}")
    print(f"{'kind':<8}" + "".join(f"{o:>16}" for o in OUTCOMES) + f"{'total':>8}")
    for kind in KINDS:
        print(f"{kind:<8}" + "".join(f"{counts[kind][o]:>16}" for o in OUTCOMES) + f"{sum(counts[kind].values()):>8}")
    total = Counter()
    for kind_counts in counts.values():
        total.update(kind_counts)
    print(f"{'all':<8}" + "".join(f"{total[o]:>16}" for o in OUTCOMES) + f"{sum(total.values()):>8}")
    print(f"{time.time() - start:.0f} s")
    for line in bad[:20]:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

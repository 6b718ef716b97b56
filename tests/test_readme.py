"""The README's embedding example runs as written."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_embedding_example_runs():
    text = README.read_text()
    match = re.search(r"<!-- embed-example[^>]*-->\s*```python\n(.*?)```", text, re.DOTALL)
    assert match is not None, "README lost its embedding example"
    exec(compile(match.group(1), "README.md:embed-example", "exec"), {})


TEST_COMMAND = (
    "bash scripts/setup.sh && . .venv/bin/activate && lit -v tests/filecheck && pytest -n auto --dist loadfile"
)
"""The whole suite, as the README gives it and CI runs it: pytest-xdist on every core, each test file on one
worker (module fixtures compile each model once; a file's last test may bound a tally over the file)."""


def test_readme_names_the_two_setup_commands():
    text = README.read_text()
    assert "bash scripts/setup.sh && . .venv/bin/activate && bitfold-compile examples/" in text
    assert TEST_COMMAND in text.splitlines()
    assert TEST_COMMAND in (README.parent / ".ci" / "run").read_text().splitlines()

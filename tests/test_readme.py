"""The README's embedding example runs as written."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_embedding_example_runs():
    text = README.read_text()
    match = re.search(r"<!-- embed-example[^>]*-->\s*```python\n(.*?)```", text, re.DOTALL)
    assert match is not None, "README lost its embedding example"
    exec(compile(match.group(1), "README.md:embed-example", "exec"), {})


def test_readme_names_the_two_setup_commands():
    text = README.read_text()
    assert "bash scripts/setup.sh && . .venv/bin/activate && bitfold-compile examples/" in text
    assert "bash scripts/setup.sh && . .venv/bin/activate && lit -v tests/filecheck && pytest" in text
    ci = (README.parent / ".ci" / "run").read_text()
    assert "bash scripts/setup.sh && . .venv/bin/activate && lit -v tests/filecheck && pytest" in ci

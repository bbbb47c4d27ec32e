"""docs/python.md's example runs as written (from the repository's root)."""

import os
import re

from conftest import ROOT


def test_the_mcts_example_runs(capsys):
    text = (ROOT / "docs" / "python.md").read_text()
    section = text.split("## A game with MCTS in 20 lines", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(code.strip().splitlines()) <= 20
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        exec(compile(code, "docs/python.md", "exec"), {})
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    assert out.startswith("1 ") and "result (" in out

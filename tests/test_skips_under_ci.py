"""A skipped test fails under CI unless tests/README.md says why (tests/skips.py), run here on a
small suite of its own in a fresh pytest, with and without CI set."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .skips import allowed_skips

ROOT = Path(__file__).resolve().parent.parent


def run_suite(tmp_path: Path, ci: bool) -> subprocess.CompletedProcess[str]:
    (tmp_path / "conftest.py").write_text(
        "from tests.skips import pytest_runtest_makereport  # noqa: F401\n", encoding="utf-8"
    )
    (tmp_path / "test_some.py").write_text(
        "import pytest\n\n"
        "def test_runs():\n    assert True\n\n"
        "def test_skips():\n    pytest.skip('no frobnicator here')\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = "true"
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-p", "no:randomly", str(tmp_path)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
    )  # fmt: skip


def test_a_skip_under_ci_fails_naming_what_to_do(tmp_path: Path) -> None:
    ran = run_suite(tmp_path, ci=True)
    assert ran.returncode == 1, ran.stdout
    assert "1 failed, 1 passed" in ran.stdout
    assert "skipped under CI: no frobnicator here" in ran.stdout
    assert "tests/README.md's section '## Skips CI allows'" in ran.stdout


def test_a_skip_outside_ci_stays_a_skip(tmp_path: Path) -> None:
    ran = run_suite(tmp_path, ci=False)
    assert ran.returncode == 0, ran.stdout
    assert "1 passed, 1 skipped" in ran.stdout


def test_the_readme_allows_a_skip_only_with_its_reason() -> None:
    readme = "## Skips CI allows\n\n- `no curl`: macOS CI has none\n- `bare`\n\n## Next\n- `x`: y\n"
    assert allowed_skips(readme) == {"no curl"}
    assert allowed_skips("no section here") == set()

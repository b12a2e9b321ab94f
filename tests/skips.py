r"""Under CI a skipped test fails (issue 39): a skip there means a part of the machine CI should
have installed is missing, or a test that never runs, and "0 skipped" is the only honest count.
A skip is allowed under CI only where `tests/README.md` says why, in its section "Skips CI
allows": one line a skip, `- \`REASON\`: why`, REASON the skip's own message."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

README = Path(__file__).resolve().parent / "README.md"
SECTION = "## Skips CI allows"


def allowed_skips(readme: str) -> set[str]:
    """The skip messages the README's section names, each with why."""
    _, found, rest = readme.partition(SECTION)
    if not found:
        return set()
    section = rest.split("\n## ", 1)[0]
    return set(re.findall(r"^- `([^`]+)`: \S", section, re.M))


def skip_reason(report: pytest.TestReport) -> str:
    longrepr: Any = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()  # type: ignore[attr-defined]
    if not (report.skipped and os.environ.get("CI")) or hasattr(report, "wasxfail"):
        return
    reason = skip_reason(report)
    if reason in allowed_skips(README.read_text(encoding="utf-8")):
        return
    report.outcome = "failed"
    report.longrepr = (
        f"skipped under CI: {reason}\n"
        f"CI runs every test: install what it needs in .ci/run, or say why it may skip in "
        f"tests/README.md's section {SECTION!r}"
    )

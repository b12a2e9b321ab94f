"""The hand-written mutations (tests/mutation/handwritten.toml, issue 39) stay runnable: each
entry's snippet is found exactly once in the file it names, in the package as installed. The
runner calls an entry whose snippet the code no longer holds stale and runs nothing for it, so
without this check the catalogue quietly measures less each time the code moves on (eight
entries of the report and sharing had, by 8 December 2026)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import woundlog.events

CATALOGUE = Path(__file__).parent / "mutation" / "handwritten.toml"
PACKAGE = Path(woundlog.events.__file__).resolve().parents[1]
"""Where `events/`, `core/` and `replays/` are: the checkout, or the wheel's `woundlog/`."""


def test_every_hand_written_mutation_finds_its_snippet_once() -> None:
    entries = tomllib.loads(CATALOGUE.read_text())["mutation"]
    stale = [
        f"{entry['name']}: {entry['file']} holds its snippet {found} times, not once"
        for entry in entries
        if (found := (PACKAGE / entry["file"]).read_text().count(entry["find"])) != 1
    ]
    assert len(entries) >= 170 and not stale, "\n".join(stale)

"""Issue 11: one rule for fight ids (events/fight_ids.py), used by the CLI and the service, so an
id that passes fits every store (a file name holds 255 bytes, not 255 characters)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from woundlog.events.fight_ids import BadFightId, check_fight_id

from .server import ADMIN, Server, bearer

GOOD = ["skirmish", "Grüße_1", "戦闘-2", "a.b", "_x", "9", "é" * 124]
BAD = {
    "": "empty",
    ".": "U+002E",
    "..": "U+002E",
    "a b": "U+0020 SPACE",
    "a\tb": "U+0009",
    "a/b": "U+002F SOLIDUS",
    "a\\b": "U+005C",
    "a\x00b": "U+0000",
    "a\u202eb": "U+202E RIGHT-TO-LEFT OVERRIDE",
    "a\u2066b": "U+2066 LEFT-TO-RIGHT ISOLATE",
    "a\u200bb": "U+200B ZERO WIDTH SPACE",
    "e\u0301": "U+0301 COMBINING ACUTE ACCENT",
    "-a": "U+002D",
    "é" * 125: "250 bytes in UTF-8",
    "a" * 201: "201 characters",
}


@pytest.mark.parametrize("fight", GOOD)
def test_a_fight_id_of_letters_digits_and_separators_passes(fight: str) -> None:
    assert check_fight_id(fight) == fight


@pytest.mark.parametrize(("fight", "reason"), BAD.items())
def test_a_fight_id_that_cannot_be_a_file_name_or_hides_characters_is_refused(
    fight: str, reason: str
) -> None:
    with pytest.raises(BadFightId, match=re.escape(reason)):
        check_fight_id(fight)


def woundlog(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from woundlog.replays.cli import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("fight", ["a\u202eb", "é" * 127, ".."])
def test_the_cli_refuses_a_bad_fight_id_with_exit_2(tmp_path: Path, fight: str) -> None:
    store = tmp_path / "store"
    store.mkdir()
    made = woundlog("--db", f"jsonl:{store}", "new", fight, "--ruleset", "mordheim")
    assert made.returncode == 2, made.stderr
    assert "Traceback" not in made.stderr and "fight id" in made.stderr
    assert list(store.iterdir()) == []


def test_the_cli_import_refuses_a_file_whose_stem_is_no_fight_id(tmp_path: Path) -> None:
    log = tmp_path / "my fight.jsonl"
    log.write_text('{"type": "fight_started", "ruleset": "mordheim"}\n')
    imported = woundlog("--db", str(tmp_path / "f.db"), "import", str(log))
    assert imported.returncode == 2 and "U+0020 SPACE" in imported.stderr


def test_the_service_refuses_a_bad_fight_id_with_422_on_every_store(tmp_path: Path) -> None:
    store = tmp_path / "jsonl-store"
    store.mkdir()
    with (
        Server(f"jsonl:{store}", logs=tmp_path) as running,
        httpx.Client(base_url=running.url, timeout=30) as client,
    ):
        admin = bearer(ADMIN)
        long = client.post(
            "/fights", json={"fight": "é" * 127, "ruleset": "mordheim"}, headers=admin
        )
        assert long.status_code == 422, long.text
        assert "254 bytes" in long.json()["message"]
        for fight in ("é" * 127, "a\u202eb", "a\x00b", "a b"):
            answer = client.get(f"/fights/{quote(fight)}/state", headers=admin)
            assert answer.status_code == 422, (fight, answer.text)
            assert answer.json()["error"] == "BadFightId"
        assert [p.name for p in store.iterdir() if p.suffix == ".jsonl"] == []

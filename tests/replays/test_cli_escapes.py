"""Issue 24: a name or id holding terminal escapes (`ESC ] 0 ; pwned BEL ESC [ 2 J`), which any gm
or importer could set before the wire refused them, is shown escaped by every command that
prints it, never obeyed by the terminal; and no command writes such a name again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import Run

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\u202eevil\u200b\ufeff\x00\x9b"
ESCAPED = "\\x1b]0;pwned\\x07\\x1b[2J\\u202eevil\\u200b\\ufeff\\x00\\x9b"


def old_log(path: Path) -> Path:
    """A log written before the rule: a character named, sided and id'd with escapes."""
    events = [
        {"type": "fight_started", "ruleset": "mordheim", "seed": 7, "version": 2,
         "name": HOSTILE},
        {"type": "character_joined", "id": "j1", "character": "grim\x1b[2J", "name": HOSTILE,
         "side": HOSTILE, "stats": {"wounds": 2}},
        {"type": "hit", "id": "h\x1b[1", "target": "grim\x1b[2J", "damage": 1,
         "attacker": HOSTILE, "rolls": {"injury": [1]}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(event) + "\n" for event in events))
    return path


def no_control(text: str) -> None:
    assert all(char.isprintable() or char in "\n\t" for char in text), repr(text)


@pytest.mark.parametrize("command", ["state", "log", "fights", "replay"])
def test_every_output_of_an_old_log_escapes_control_characters(
    run: Run, tmp_path: Path, command: str
) -> None:
    store = tmp_path / "store"
    store.mkdir()
    old_log(store / "old.jsonl")
    args = {
        "state": ("--db", f"jsonl:{store}", "state", "old"),
        "log": ("--db", f"jsonl:{store}", "log", "old"),
        "fights": ("--db", f"jsonl:{store}", "fights"),
        "replay": ("replay", str(store / "old.jsonl")),
    }[command]
    result = run(*args)
    assert result.exit_code == 0, result.output
    no_control(result.stdout + result.stderr)
    if command != "fights":
        assert "\\x1b" in result.stdout
    else:
        assert ESCAPED in result.stdout


def test_a_warning_naming_an_escaped_attacker_is_escaped(run: Run, tmp_path: Path) -> None:
    log = tmp_path / "void.jsonl"
    events = [
        {"type": "fight_started", "ruleset": "mordheim", "seed": 7, "version": 2},
        {"type": "hit", "id": "h1", "target": "nobody\x1b[2J", "damage": 1},
    ]
    log.write_text("".join(json.dumps(event) + "\n" for event in events))
    result = run("replay", str(log))
    assert result.exit_code == 0, result.output
    assert "warning:" in result.stderr and "\\x1b[2J" in result.stderr
    no_control(result.stdout + result.stderr)


@pytest.mark.parametrize(
    "args",
    [
        ("join", "skirmish", "orc", "--name", "\x1b]0;pwned\x07"),
        ("join", "skirmish", "orc\u202e", "--name", "Orc"),
        ("join", "skirmish", "orc", "--side", "a\u200bb"),
    ],
)
def test_the_cli_writes_no_name_or_id_with_control_characters(
    run: Run, skirmish: str, args: tuple[str, ...]
) -> None:
    result = run(*args)
    assert result.exit_code == 3, result.output
    assert "control and invisible characters" in result.stderr
    no_control(result.stderr)
    state = run("state", skirmish, "--json")
    assert "orc" not in json.loads(state.stdout)["characters"]

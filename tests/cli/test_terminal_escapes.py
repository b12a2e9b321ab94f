"""One place neutralises control characters for every terminal output of the CLI (issue 37):
a name, side, id, note or undo reason holding terminal escapes (a gm's reason sent over HTTP
is free text; names from a log written before the wire refused them) is shown escaped by
every command that prints it: a person's text as Python escapes, `--json` as JSON's own
escapes (the same values), a format written with `-o -` or `export` to a terminal likewise.
A file or a pipe given a format gets the format's exact bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.replays.conftest import Run
from woundlog.replays.cli import output

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\u202eevil\u200b\ufeff\x00\x9b\x7f"


def no_control(text: str) -> None:
    assert all(char.isprintable() or char in "\n\t" for char in text), repr(text)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A JSON Lines store holding fight `f`: escapes in its name, a character's name and side,
    an attacker, a note and the reasons of an undo and an amend."""
    events = [
        {"type": "fight_started", "id": "s", "ruleset": "mordheim", "seed": 7, "version": 3,
         "name": HOSTILE},
        {"type": "character_joined", "id": "j1", "character": "grim", "name": HOSTILE,
         "side": HOSTILE, "stats": {"wounds": 3}},
        {"type": "character_joined", "id": "j2", "character": "snik", "name": "Snik",
         "side": "skaven", "stats": {"wounds": 1}},
        {"type": "hit", "id": "h1", "target": "grim", "damage": 1, "attacker": HOSTILE,
         "note": HOSTILE, "rolls": {"injury": [1]}},
        {"type": "hit", "id": "h2", "target": "snik", "damage": 1, "note": HOSTILE,
         "rolls": {"injury": [6]}},
        {"type": "retract", "id": "u1", "event": "h2", "reason": HOSTILE},
        {"type": "amend", "id": "a1", "event": "h1", "reason": HOSTILE,
         "replacement": {"type": "hit", "target": "grim", "damage": 1, "note": HOSTILE,
                         "rolls": {"injury": [2]}}},
    ]  # fmt: skip
    folder = tmp_path / "store"
    folder.mkdir()
    (folder / "f.jsonl").write_text("".join(json.dumps(event) + "\n" for event in events))
    return folder


COMMANDS = [
    ("state", "f"),
    ("state", "f", "--json"),
    ("state", "f", "--at", "4"),
    ("log", "f"),
    ("log", "f", "--json"),
    ("fights",),
    ("fights", "--json"),
    ("replay", "{file}"),
    ("replay", "{file}", "--json"),
    ("report", "f"),
    ("report", "f", "--json"),
    ("report", "f", "--format", "html"),
    ("report", "{file}"),
    ("odds", "f", "--hit", "grim:1"),
    ("odds", "f", "--hit", "grim:1", "--json"),
    ("diff", "f", "f"),
    ("export", "f"),
    ("report", "f", "-o", "-"),
    ("report", "f", "-o", "-", "--format", "html"),
    ("timeline", "f", "-o", "-"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_shows_escapes_in_user_text_escaped_at_a_terminal(
    run: Run, store: Path, command: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(output, "stdout_is_terminal", lambda: True)
    args = [each.format(file=store / "f.jsonl") for each in command]
    result = run("--db", f"jsonl:{store}", *args)
    assert result.exit_code == 0, result.output
    no_control(result.stdout + result.stderr)
    if "--json" in command or command[0] == "export":  # JSON, or JSON Lines: the same text
        multi = command[0] in ("log", "export")
        lines = result.stdout.splitlines() if multi else [result.stdout]
        again = [json.dumps(json.loads(line), ensure_ascii=False) for line in lines]
        assert any(json.dumps(HOSTILE, ensure_ascii=False) in each for each in again)


def test_the_undo_reason_in_a_report_is_shown_escaped(run: Run, store: Path) -> None:
    result = run("--db", f"jsonl:{store}", "report", "f")
    assert result.exit_code == 0, result.output
    assert "\\x1b]0;pwned" in result.stdout  # the reason, shown, never obeyed
    no_control(result.stdout)


@pytest.mark.parametrize("shape", ["md", "html"])
def test_a_format_written_to_a_pipe_keeps_its_bytes(run: Run, store: Path, shape: str) -> None:
    piped = run("--db", f"jsonl:{store}", "report", "f", "-o", "-", "--format", shape)
    written = store.parent / f"report.{shape}"
    to_file = run("--db", f"jsonl:{store}", "report", "f", "-o", str(written))
    assert piped.exit_code == 0 and to_file.exit_code == 0, piped.output + to_file.output
    assert piped.stdout_bytes == written.read_bytes()


def test_an_export_to_a_pipe_is_the_log_as_stored(run: Run, store: Path) -> None:
    exported = run("--db", f"jsonl:{store}", "export", "f")
    assert exported.exit_code == 0, exported.output
    assert HOSTILE.encode() in exported.stdout_bytes or "\\u001b" in exported.stdout
    assert "\u202e" in exported.stdout  # JSON Lines as the store writes it, for a program


def test_a_campaign_and_its_fight_show_escapes_in_notes_and_reasons_escaped(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Free text sent today (a note, an undo's reason: the wire refuses escapes only in ids and
    names), through every command that reads a campaign or its fight."""
    monkeypatch.setattr(output, "stdout_is_terminal", lambda: True)
    for args in (
        ("campaign", "new", "c", "--ruleset", "mordheim"),
        ("campaign", "join", "c", "grim", "--name", "Grim", "--side", "a", "--stat", "wounds=2"),
        ("new", "f", "--ruleset", "mordheim", "--seed", "3"),
        ("join", "f", "grim", "--from", "c"),
        ("join", "f", "snik", "--name", "Snik", "--side", "b"),
        ("hit", "f", "grim", "1", "--note", HOSTILE),
        ("hit", "f", "grim", "1", "--note", HOSTILE),
        ("undo", "f", "--reason", HOSTILE),
        ("end", "f"),
        ("campaign", "record", "c", "f"),
        ("campaign", "undo", "c", "--reason", HOSTILE),
    ):
        made = run(*args)
        assert made.exit_code == 0, (args, made.output)
        no_control(made.stdout + made.stderr)
    for command in (
        ("campaign", "show", "c"),
        ("campaign", "history", "c"),
        ("campaign", "report", "c"),
        ("campaign", "report", "c", "-o", "-"),
        ("campaign", "show", "c", "--json"),
        ("campaign", "history", "c", "--json"),
        ("campaign", "report", "c", "--json"),
        ("report", "f"),
        ("log", "f"),
        ("log", "f", "--json"),
        ("export", "f"),
    ):
        result = run(*command)
        assert result.exit_code == 0, (command, result.output)
        no_control(result.stdout + result.stderr)

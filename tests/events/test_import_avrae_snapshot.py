"""Avrae, a GM's own game: the woundlog alias (replays/integrations/avrae/woundlog.alias) prints
the combat, `woundlog import avrae-snapshot` reads it. The alias's output is modelled on Avrae
v4.2.70's alias API (tests/data/importers/avrae_fixtures.py), and the alias text itself is run
through Avrae's own interpreter, draconic (installed with the test extra: PyPI has it inside
`avrae-ls`), against a port of that API, as well as through CPython with Avrae's builtins only."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from woundlog.core.importing import convert_records
from woundlog.events import (
    CharacterJoined,
    FightStarted,
    Hit,
    StructuralError,
    TurnEnded,
    TurnStarted,
)
from woundlog.replays import replay

DATA = Path(__file__).parent.parent / "data" / "importers"
sys.path.insert(0, str(DATA))
import avrae_fixtures as avrae  # noqa: E402

LINES = (DATA / "avrae_snapshots.txt").read_text().splitlines()
RECORDS = [json.loads(line) for line in (DATA / "avrae_combat.jsonl").read_text().splitlines()]
AID = [r for r in RECORDS if r["combat_id"] == avrae.aid_fight().id]


@pytest.mark.parametrize("interpreter", ["draconic", "python"])
def test_the_alias_text_run_as_avrae_runs_it_prints_what_the_fixture_holds(
    interpreter: str,
) -> None:
    """The fixture (avrae_fixtures.alias_output, a model of the alias) is what the alias text
    itself prints at every point of the fight, run by Avrae's own interpreter and as a CPython
    function with only Avrae's builtins."""
    if interpreter == "draconic":
        import draconic  # noqa: F401 (the test extra installs it; an ImportError fails here)

    def printer(combat: avrae.Combat) -> str:
        return avrae.run_alias(combat, interpreter=interpreter)

    avrae.Combat.printer = staticmethod(printer)
    try:
        printed = avrae.aid_fight().snapshots
    finally:
        avrae.Combat.printer = staticmethod(avrae.alias_output)
    assert printed == LINES


@pytest.mark.parametrize("interpreter", ["draconic", "python"])
def test_the_alias_pages_a_big_combat_as_modelled(interpreter: str) -> None:
    if interpreter == "draconic":
        import draconic  # noqa: F401 (the test extra installs it; an ImportError fails here)
    combat = big_combat()
    pages = [avrae.alias_output(combat, page) for page in (1, 2, 3)]
    printed = [avrae.run_alias(combat, page, interpreter=interpreter) for page in (1, 2, 3)]
    assert printed == pages
    assert "there are 3 pages, not 4" in avrae.run_alias(combat, 4, interpreter=interpreter)


def test_the_snapshots_give_the_fight_the_recorder_gives() -> None:
    snapshots = convert_records("avrae-snapshot", LINES, ruleset="dnd5e")
    recorded = convert_records("avrae", AID, ruleset="dnd5e")

    def what(events: list[Any]) -> list[tuple[Any, ...]]:  # the events, ids aside
        return [
            (type(e).__name__, getattr(e, "character", None) or getattr(e, "target", None),
             getattr(e, "damage", None), getattr(e, "amount", None))
            for e in events
        ]  # fmt: skip

    assert what(snapshots.events) == what(recorded.events)
    assert [e.stats for e in snapshots.events if isinstance(e, CharacterJoined)] == [
        {"hp": 10}, {"hp": 20}, {"hp": 7}, {"hp": 7},  # OR1 under Aid: its effective 20
    ]  # fmt: skip


def test_other_lines_are_skipped_and_a_resend_changes_nothing() -> None:
    whole = convert_records("avrae-snapshot", LINES, ruleset="dnd5e")
    pasted = ["Dana — Today at 21:05", *LINES[:9], "GM: !init next", *LINES[4:]]
    again = convert_records("avrae-snapshot", pasted, ruleset="dnd5e")
    assert again.events == whole.events
    assert any("the same as the last one taken in" in w for w in again.warnings)
    first = convert_records("avrae-snapshot", LINES[:9], ruleset="dnd5e")
    joined = [e.character for e in first.events if isinstance(e, CharacterJoined)]
    rest = convert_records(
        "avrae-snapshot", LINES, ruleset="dnd5e", joined=joined, previous=first.previous
    )
    assert first.events + rest.events == whole.events


def big_combat() -> avrae.Combat:
    combat = avrae.Combat("big", 1700200000.0)
    for n in range(60):
        combat.add(
            avrae.Combatant(f"{n:08d}-0000-4000-8000-000000000000", f"GO{n + 1}", "monster", 10, 7)
        )
    combat.advance()
    return combat


def test_a_big_combat_comes_in_pages_each_within_discords_limit() -> None:
    combat = big_combat()
    first = avrae.alias_output(combat)
    pages = json.loads(first.split("`woundlog ", 1)[1].split("`", 1)[0])["page"][1]
    assert pages > 1 and "now !woundlog 2" in first
    printed = [avrae.alias_output(combat, page) for page in range(1, pages + 1)]
    assert all(len(p) <= 2000 for p in printed)  # a Discord message, !echo's prefix included
    converted = convert_records("avrae-snapshot", printed, ruleset="dnd5e")
    assert len([e for e in converted.events if isinstance(e, CharacterJoined)]) == 60
    with pytest.raises(StructuralError, match="page 2 of") as caught:
        convert_records("avrae-snapshot", printed[:1] + printed[2:], ruleset="dnd5e")
    assert caught.value.index == 0


def test_a_cut_message_is_refused_naming_its_line() -> None:
    with pytest.raises(StructuralError, match="not whole JSON") as caught:
        convert_records("avrae-snapshot", ["hello", LINES[0][:120]], ruleset="dnd5e")
    assert caught.value.index == 1


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"t": float("nan")}, "$.t"),
        ({"n": 4}, "$.n"),
        ({"page": [2, 2, 0]}, "$.page"),
        ({"o": [[None, [["x", "X", "7", 7, 0, 0]]]]}, "$.o[0][1][0][2]"),
        ({"extra": 1}, "$"),
    ],
)
def test_a_page_that_is_not_the_alias_s_is_refused_naming_the_field(
    change: dict[str, Any], field: str
) -> None:
    page = json.loads(LINES[0].split("`woundlog ", 1)[1].rsplit("`", 1)[0])
    page.update(change)
    with pytest.raises(StructuralError) as caught:
        convert_records("avrae-snapshot", [page], ruleset="dnd5e")
    assert (caught.value.index, caught.value.field) == (0, field)


def test_the_readme_steps_from_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The messages as copied from Discord, their JSON kept (`grep -o '{.*}'`), imported twice
    with the CLI: the fight Avrae showed, and nothing the second time."""
    from typer.testing import CliRunner

    from woundlog.replays.cli import app

    monkeypatch.setenv("WOUNDLOG_DB", str(tmp_path / "fights.db"))
    copied = ["Dana — Today at 21:05", *LINES, "GM: !init end"]
    kept = [m.group(0) for line in copied if (m := re.search(r"\{.*\}", line))]
    (tmp_path / "fight.jsonl").write_text("".join(f"{line}\n" for line in kept))

    def run(*args: str) -> str:
        result = CliRunner().invoke(app, list(args))
        assert result.exit_code == 0, result.output
        return result.stdout

    path = str(tmp_path / "fight.jsonl")
    events = convert_records("avrae-snapshot", LINES, ruleset="dnd5e").events
    imported = run("import", "avrae-snapshot", path, "--into", "table")
    assert f"imported {len(events) + 1} events" in imported  # and the fight_started
    state = json.loads(run("state", "table", "--json"))["characters"]
    assert [(c["name"], c["state"], c["hp"]) for c in state.values()] == [
        ("Mira", "upright", 5),
        ("OR1", "upright", 12),
        ("GO1", "dead", 0),
        ("GO1", "upright", 7),
    ]
    assert "imported 0 events" in run("import", "avrae-snapshot", path, "--into", "table")


def test_the_alias_text_fits_one_discord_message() -> None:
    """A GM creates the alias by sending its text as one message (`!alias woundlog ...`):
    Discord takes at most 2,000 characters (Avrae's own limit, aliasing/constants.py
    ALIAS_SIZE_LIMIT, is 100,000)."""
    assert len(avrae.ALIAS.read_text().strip()) <= 2000


# --- a big group: pages cut inside it -----------------------------------------------------------

DISPLAY_NAME = 32  # Discord's longest display name, which !echo puts before the alias's text


def kobolds() -> avrae.Combat:
    """Mira against `!init madd kobold -n 32 -group Kobolds` (cogs5e/initiative/cog.py
    `init_madd`, v4.2.70: `-n` adds KO1..KO32, each with its own uuid4 id, into one group whose
    turn they share), the kobolds acting."""
    combat = avrae.Combat("kobolds", 1700300000.0)
    mira = avrae.Combatant("a0000000-0000-4000-8000-00000000000a", "Mira", "player", 16, None,
                           sheet_max=10)  # fmt: skip
    band = avrae.Group("f0000000-0000-4000-8000-00000000000f", "Kobolds", 12)
    combat.add(mira)
    combat.add(band)
    for n in range(32):
        kobold = avrae.Combatant(f"{n:08x}-1111-4000-8000-000000000000", f"KO{n + 1}",
                                 "monster", 12, 5)  # fmt: skip
        kobold.monster = ("Kobold", 40)
        band.members.append(kobold)
        kobold.group = band
    combat.advance()
    combat.advance()  # the kobolds' turn
    return combat


def printed_pages(combat: avrae.Combat, interpreter: str) -> list[str]:
    first = avrae.run_alias(combat, interpreter=interpreter)
    count = json.loads(first.split("`woundlog ", 1)[1].rsplit("`", 1)[0])["page"][1]
    return [first] + [
        avrae.run_alias(combat, n, interpreter=interpreter) for n in range(2, count + 1)
    ]


@pytest.mark.parametrize("interpreter", ["draconic", "python"])
def test_a_group_of_32_kobolds_is_paged_inside_the_group_each_page_one_discord_message(
    interpreter: str,
) -> None:
    """The kobolds' rows alone pass 2,000 characters: the alias cuts the group between pages,
    and every page, with the longest display name !echo can put before it, is one message."""
    if interpreter == "draconic":
        import draconic  # noqa: F401 (the test extra installs it; an ImportError fails here)
    combat = kobolds()
    printed = printed_pages(combat, interpreter)
    assert printed == [avrae.alias_output(combat, n) for n in range(1, len(printed) + 1)]
    assert len(printed) == 2
    assert all(len(p) - len(avrae.AUTHOR) + DISPLAY_NAME <= 2000 for p in printed)
    heads = [json.loads(p.split("`woundlog ", 1)[1].rsplit("`", 1)[0]) for p in printed]
    assert [h["page"][2] for h in heads] == [0, 1]  # page 2 goes on with place 1, the group
    assert heads[1]["o"][0][0] == "Kobolds" and heads[0]["o"][-1][0] == "Kobolds"


def test_the_kobolds_pages_make_one_snapshot_whose_group_turn_is_every_kobolds() -> None:
    combat = kobolds()
    pages = printed_pages(combat, "python")
    converted = convert_records("avrae-snapshot", pages, ruleset="dnd5e")
    joined = [e for e in converted.events if isinstance(e, CharacterJoined)]
    assert [e.name for e in joined] == ["Mira"] + [f"KO{n}" for n in range(1, 33)]
    assert all(e.kind == "monster" for e in joined[1:])
    band = combat.entries[1]
    assert isinstance(band, avrae.Group)
    for kobold in band.members[::3]:
        kobold.modify_hp(-5)  # a fireball: every third kobold dies
    combat.commit()
    combat.advance()  # Mira's turn: deathdelete removes the dead kobolds
    combat.commit()
    later = printed_pages(combat, "python")
    after = convert_records(
        "avrae-snapshot",
        pages + later,
        ruleset="dnd5e",
    )
    started = [e for e in after.events if isinstance(e, TurnStarted)]
    ended = [e for e in after.events if isinstance(e, TurnEnded) and e.character is not None]
    assert [e.character for e in started] == ["a0000000-0000-4000-8000-00000000000a"]
    assert len(ended) == 32  # the kobolds' turn ends for each of them, the dead too
    hits = [e for e in after.events if isinstance(e, Hit)]
    assert len(hits) == 11 and all(h.damage == 5 for h in hits)


def test_a_page_that_goes_on_with_another_group_is_refused() -> None:
    pages = printed_pages(kobolds(), "python")
    second = json.loads(pages[1].split("`woundlog ", 1)[1].rsplit("`", 1)[0])
    second["o"][0][0] = "Goblins"
    with pytest.raises(StructuralError, match="does not start with the same group") as caught:
        convert_records("avrae-snapshot", [pages[0], second], ruleset="dnd5e")
    assert (caught.value.index, caught.value.field) == (1, "$.o[0]")


def test_a_monster_killed_on_its_own_turn_then_init_next_ends_dead_with_the_reason() -> None:
    """The GM runs !woundlog at each turn. GO1 dies on its own turn (Mira's Hellish Rebuke) and
    the GM runs `!init next` before `!woundlog`: Avrae's deathdelete (on by default) has
    removed it, so the next snapshot has no GO1, and it ends dead, the hit saying why."""
    combat = avrae.Combat("rebuke", 1700500000.0)
    mira = avrae.Combatant("a0000000-0000-4000-8000-00000000000a", "Mira", "player", 16, None,
                           sheet_max=10)  # fmt: skip
    gob = avrae.Combatant("c0000000-0000-4000-8000-00000000000c", "GO1", "monster", 8, 7)
    gob.monster = ("Goblin", 23)
    combat.add(mira)
    combat.add(gob)
    combat.advance()
    combat.advance()  # GO1's turn
    at_its_turn = avrae.alias_output(combat)
    gob.modify_hp(-10)  # Hellish Rebuke: GO1 at -3
    combat.advance()  # !init next: round 2, Mira's turn; GO1 removed
    combat.clock += 30
    after = avrae.alias_output(combat)
    assert "GO1" in at_its_turn and "GO1" not in after
    converted = convert_records("avrae-snapshot", [at_its_turn, after], ruleset="dnd5e")
    hits = [e for e in converted.events if isinstance(e, Hit)]
    assert [(h.target, h.damage) for h in hits] == [(gob.id, 7)]  # to 0: woundlog's floor
    assert hits[0].note is not None and "deathdelete" in hits[0].note
    assert any(w.startswith("GO1 (") and "!init next" in w for w in converted.warnings)
    log = [FightStarted(ruleset="dnd5e"), *converted.events]
    *_, (state, _) = replay(log, strict=True)
    assert state.characters[gob.id].state == "dead"


def test_the_gm_steps_of_the_avrae_readme_run_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """replays/integrations/avrae/README.md, shipped in the wheel: its one-liner prints the
    alias, and its commands (grep, import, state, check) run as written on Avrae's messages."""
    import contextlib
    import io
    import shlex
    from importlib.resources import files

    from typer.testing import CliRunner

    from woundlog.replays.cli import app

    readme = (files("woundlog.replays") / "integrations" / "avrae" / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", readme, re.DOTALL)
    one_liner = shlex.split(blocks[0].strip())
    assert one_liner[:2] == ["python", "-c"]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(one_liner[2], {})
    assert printed.getvalue().strip() == avrae.ALIAS.read_text().strip()

    monkeypatch.setenv("WOUNDLOG_DB", str(tmp_path / "fights.db"))
    monkeypatch.chdir(tmp_path)
    dying = next(n for n, line in enumerate(LINES) if '"Mira", 0, ' in line)
    (tmp_path / "messages.txt").write_text(
        "Dana — Today at 21:05\n" + "\n".join(LINES[: dying + 1])
    )

    def run(line: str) -> str:
        words = shlex.split(line.split("#", 1)[0])
        assert words[0] == "woundlog"
        result = CliRunner().invoke(app, words[1:])
        assert result.exit_code == 0, result.output
        return result.stdout

    grep, *commands = [line.strip() for line in blocks[1].strip().splitlines()]
    pattern, source, target = re.fullmatch(r"grep -o '(.*)' (\S+) > (\S+)", grep).groups()  # type: ignore[union-attr]
    kept = [
        m.group(0)
        for line in (tmp_path / source).read_text().splitlines()
        if (m := re.search(pattern, line))
    ]
    (tmp_path / target).write_text("".join(f"{line}\n" for line in kept))
    assert "imported" in run(commands[0])
    assert "Mira" in run(commands[1])
    check = re.search(r"`(woundlog check [^`]+)`", readme.replace("\n   ", " "))
    assert check is not None
    mira = "a0000000-0000-4000-8000-00000000000a"
    run(check.group(1).replace("COMBATANT_ID", mira))
    state = json.loads(run("woundlog state table --json"))["characters"][mira]
    assert (state["state"], state["successes"]) == ("downed", 1)

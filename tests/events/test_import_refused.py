"""Issue 13: an imported record the rules refuse no longer refuses the whole import. The record is
a fact of the other program's table; woundlog appends what its rules accept, keeps a blow or a
heal without the attacker or healer its rules refuse, and names every record left out, so the
records after it still arrive (the service's cursor moves on, a resend is a no-op)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from woundlog.core.importing import convert_records
from woundlog.events import FightStarted, Heal, Hit, RefusedError, StructuralError, TurnStarted
from woundlog.events.importers import IMPORTERS, Converted, append_importing
from woundlog.events.stores import SQLiteStore, Store
from woundlog.replays import Fight

FOUNDRY_OPTIONS = IMPORTERS["foundry"].fight_options("dnd5e")  # death saves from the table

DATA = Path(__file__).parent.parent / "data" / "importers"
RECORDS = [
    json.loads(line) for line in (DATA / "foundry_dnd5e_refused.jsonl").read_text().splitlines()
]
BRAKKA = "Actor.actBrakka0000001"  # a linked actor: its world uuid
GOBLIN_1 = "Scene.sceneMain0000001.Token.tkGoblin00000001"


@pytest.fixture
def fight(tmp_path: Path) -> Iterator[Fight]:
    store: Store = SQLiteStore(tmp_path / "fights.db")
    started = FightStarted(ruleset="dnd5e", seed=1, options=FOUNDRY_OPTIONS)
    yield Fight.create(store, "f", started)
    store.close()


def imported(fight: Fight, records: list[object]) -> list[str]:
    state = fight.state()
    converted = convert_records("foundry", records, ruleset="dnd5e", joined=list(state.characters))
    known = lambda ids: fight.store.lookup(fight.id, ids)  # noqa: E731
    _, refusals = append_importing(converted, fight.append, known=known)
    return [refusal.said() for refusal in refusals]


def test_appending_the_records_whole_is_refused_by_the_rules(fight: Fight) -> None:
    # what every import did before: one refused event refuses every record of the batch
    converted = convert_records("foundry", RECORDS, ruleset="dnd5e")
    with pytest.raises(RefusedError, match="Goblin \\(1\\) is dead"):
        fight.append(converted.events)


def test_a_heal_on_the_dead_is_left_out_and_the_later_records_arrive(fight: Fight) -> None:
    said = imported(fight, RECORDS)
    state = fight.state()
    brakka, goblin = state.characters[BRAKKA], state.characters[GOBLIN_1]
    assert goblin.state == "dead"
    # 12 - 4 (the goblin woundlog holds dead, whose blow Foundry dealt) - 5: as Foundry shows
    assert (brakka.state, brakka.hp) == ("upright", 3)  # type: ignore[attr-defined]
    started = [e.event for e in fight.events() if isinstance(e.event, TurnStarted)]
    assert started[-1].round == 2  # the last record arrived: round 2 began
    [heal, blow, riposte] = said
    assert heal.startswith("record 2 (event `foundry:env00003") and "left out" in heal
    assert "Goblin (1) is dead" in heal
    assert (
        blow.startswith("record 4 (event `foundry:env00005") and "kept without its attacker" in blow
    )
    assert riposte.startswith("record 7 (event `foundry:env00008") and "left out" in riposte


def test_a_blow_by_a_character_the_rules_hold_down_is_kept_unattributed(fight: Fight) -> None:
    imported(fight, RECORDS)
    [kept] = [e.event for e in fight.events() if isinstance(e.event, Hit) and e.event.note]
    assert kept.id is not None and kept.id.endswith(":unattributed")
    assert (kept.attacker, kept.damage, kept.target) == (None, 4, BRAKKA)
    assert f"attacker `{GOBLIN_1}` left out" in (kept.note or "")
    assert not [e for e in fight.events() if isinstance(e.event, Heal)]  # the heal is not written


def test_the_same_records_again_are_refused_the_same_way_and_add_nothing(fight: Fight) -> None:
    first = imported(fight, RECORDS)
    version = fight.version
    # a fresh conversion (no cursor: every envelope looks new) makes the same events again
    again = imported(fight, RECORDS)
    assert fight.version == version
    heal, _kept, riposte = first
    assert again == [heal, riposte]  # the blow kept unattributed is sent in that form: a no-op


def test_a_malformed_record_still_refuses_the_whole_import(fight: Fight) -> None:
    with pytest.raises(StructuralError, match="hook"):
        imported(fight, [*RECORDS[:3], {"hook": 5, "id": "x"}])
    assert fight.version == 1


def test_a_blow_kept_unattributed_is_not_counted_again_after_an_undo(fight: Fight) -> None:
    imported(fight, RECORDS)
    # the GM undoes the killing blow in woundlog: the goblin lives, and could strike now
    fight.undo("foundry:env00002:" + GOBLIN_1 + ":hit", reason="it survived in Foundry")
    assert fight.state().characters[GOBLIN_1].state == "upright"
    version = fight.version
    imported(fight, RECORDS)  # a resend of every record, with no cursor
    brakka = fight.state().characters[BRAKKA]
    assert brakka.hp == 3  # type: ignore[attr-defined]  # the goblin's 4 is not taken twice
    assert fight.version > version  # the heal and the riposte now pass the rules


def test_a_blow_kept_unattributed_and_still_refused_is_left_out(fight: Fight) -> None:
    imported(fight, RECORDS[:2])  # Goblin (1) is dead
    blow = Hit(id="x:blow", target=GOBLIN_1, damage=2, attacker=GOBLIN_1)  # the dead on the dead
    _, refusals = append_importing(Converted([blow], records=[9]), fight.append)
    assert [(r.record, r.event, r.field, r.kept) for r in refusals] == [
        (9, "x:blow", "$.attacker", True),  # first its dead attacker: kept without him
        (9, "x:blow:unattributed", None, False),  # then its dead target: left out
    ]
    assert "left out" in refusals[-1].said()
    assert not [e for e in fight.events() if e.event.id and e.event.id.startswith("x:blow")]

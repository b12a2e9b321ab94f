"""A Fight over a real store: validated appends, idempotent retries, undo with consequences."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from woundlog.events import (
    Amend,
    BatchRefused,
    CharacterJoined,
    ConflictError,
    FightStarted,
    Heal,
    Hit,
    Retract,
    RuleError,
    StructuralError,
    TurnStarted,
    UsageError,
)
from woundlog.events.stores import JsonlStore, SQLiteStore, Store
from woundlog.replays import Fight, replay
from woundlog.replays import snapshots as snapshot_module


@pytest.fixture(params=["sqlite", "jsonl"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    opened: Store = (
        SQLiteStore(tmp_path / "fights.db") if request.param == "sqlite" else JsonlStore(tmp_path)
    )
    yield opened
    opened.close()


def skirmish(store: Store) -> Fight:
    fight = Fight.create(store, "well", FightStarted(ruleset="mordheim", name="Ambush"))
    fight.append(
        [
            CharacterJoined(character="grim", name="Grim", side="reavers", stats={"wounds": 2}),
            CharacterJoined(character="snik", name="Snik", side="skaven"),
        ]
    )
    return fight


def states(fight: Fight, at: int | None = None) -> dict[str, str]:
    return {cid: c.state for cid, c in fight.state(at).characters.items()}


def test_append_returns_the_new_version_and_what_each_event_did(store: Store) -> None:
    fight = skirmish(store)
    done = fight.append([Hit(id="h1", target="snik", damage=1, rolls={"injury": [3]})])
    assert done.version == 4
    [changes] = done.changes
    assert changes.event == "h1"
    assert (changes.characters[0].before, changes.characters[0].after) == ("upright", "stunned")


def test_a_refused_event_is_not_written_and_nothing_else_is_lost(store: Store) -> None:
    fight = skirmish(store)
    with pytest.raises(RuleError, match="no healing") as err:
        fight.append([Hit(target="snik", damage=0), Heal(target="grim", amount=1)])
    assert err.value.index == 1 and err.value.event == "#5"
    assert fight.version == 3


def test_every_refused_event_of_a_batch_is_reported(store: Store) -> None:
    fight = skirmish(store)
    with pytest.raises(BatchRefused) as err:
        fight.append(
            [
                Heal(target="grim", amount=1),
                Hit(target="snik", damage=1),
                Hit(target="nobody", damage=1),
            ]
        )
    assert [e.index for e in err.value.errors] == [0, 2]
    assert fight.version == 3


def test_a_die_out_of_range_is_refused_as_structural(store: Store) -> None:
    fight = skirmish(store)
    with pytest.raises(StructuralError) as err:
        fight.append([Hit(target="snik", damage=1, rolls={"injury": [7]})])
    assert err.value.field == "$.rolls.injury[0]"
    assert fight.version == 3


def test_resending_events_already_in_the_fight_is_a_no_op(store: Store) -> None:
    fight = skirmish(store)
    hit = Hit(id="h1", target="snik", damage=1, rolls={"injury": [3]})
    first = fight.append([hit])
    again = fight.append([hit], expected_version=first.version - 1)
    assert again.version == first.version and again.skipped == ["h1"]
    assert fight.version == 4


def test_same_id_with_other_content_is_a_conflict(store: Store) -> None:
    fight = skirmish(store)
    fight.append([Hit(id="h1", target="snik", damage=1)])
    with pytest.raises(ConflictError) as err:
        fight.append([Hit(id="h1", target="grim", damage=1)])
    assert err.value.current_version == 4


def test_a_stale_expected_version_is_a_conflict(store: Store) -> None:
    fight = skirmish(store)
    with pytest.raises(ConflictError) as err:
        fight.append([Hit(target="snik", damage=0)], expected_version=2)
    assert err.value.current_version == 3


def test_a_second_fight_start_is_refused(store: Store) -> None:
    fight = skirmish(store)
    with pytest.raises(StructuralError, match="once"):
        fight.append([FightStarted(ruleset="mordheim")])
    with pytest.raises(UsageError, match="already exists"):
        Fight.create(store, "well", FightStarted(ruleset="mordheim"))


def test_opening_an_unknown_fight_names_the_known_ones(store: Store) -> None:
    skirmish(store)
    with pytest.raises(UsageError, match="well"):
        Fight.open(store, "pit")


def test_undo_retracts_the_newest_live_event_and_reports_its_consequences(store: Store) -> None:
    fight = skirmish(store)
    fight.append([Hit(id="h1", target="snik", damage=1, rolls={"injury": [6]})])
    undone = fight.undo(reason="wrong target")
    [changes] = undone.changes
    assert changes.type == "retract"
    [snik] = changes.consequences
    assert (snik.character, snik.before, snik.after) == ("snik", "out_of_action", "upright")
    assert snik.summary() == "Snik: out_of_action -> upright (wounds 0 -> 1)"
    assert states(fight)["snik"] == "upright"


def test_undo_twice_undoes_two_events_not_the_undo(store: Store) -> None:
    fight = skirmish(store)
    fight.append([Hit(target="snik", damage=1, rolls={"injury": [3]})])
    fight.append([Hit(target="grim", damage=2, rolls={"injury": [5]})])
    fight.undo()
    fight.undo()
    assert states(fight) == {"grim": "upright", "snik": "upright"}


def test_retracting_an_undo_restores_the_event(store: Store) -> None:
    fight = skirmish(store)
    fight.append([Hit(target="snik", damage=1, rolls={"injury": [6]})])
    fight.undo(by="gm")
    redone = fight.undo("#5")
    assert redone.changes[0].consequences[0].after == "out_of_action"


def test_undoing_what_is_already_undone_is_refused(store: Store) -> None:
    fight = skirmish(store)
    fight.append([Hit(id="h1", target="snik", damage=1)])
    fight.undo("h1")
    with pytest.raises(RuleError, match="already undone"):
        fight.undo("h1")


def test_undo_of_nothing_is_refused(store: Store) -> None:
    fight = Fight.create(store, "empty", FightStarted(ruleset="mordheim"))
    with pytest.raises(UsageError, match="nothing to undo"):
        fight.undo()


def test_amend_replays_the_replacement_and_reports_consequences(store: Store) -> None:
    fight = skirmish(store)
    fight.append([Hit(id="h1", target="snik", damage=1, rolls={"injury": [6]})])
    amended = fight.amend("h1", Hit(target="snik", damage=1, rolls={"injury": [1]}), "misread")
    assert amended.changes[0].consequences[0].after == "knocked_down"
    assert states(fight)["snik"] == "knocked_down"


def test_an_undo_that_leaves_later_events_senseless_voids_them(store: Store) -> None:
    fight = skirmish(store)
    fight.append([Hit(target="snik", damage=1, rolls={"injury": [1]})])
    fight.undo("#3")  # snik never joined
    assert "snik" not in fight.state().characters
    history = list(fight.history())
    assert history[3].void is None and history[3].undone is None
    steps = list(fight.steps())
    assert steps[3][1].void is not None


def test_state_at_a_point_is_the_fight_as_it_stood_then(store: Store) -> None:
    fight = skirmish(store)
    fight.append([Hit(id="h1", target="snik", damage=1, rolls={"injury": [6]})])
    fight.undo()
    assert states(fight, at=4)["snik"] == "out_of_action"
    assert states(fight, at=5)["snik"] == "upright"
    with pytest.raises(UsageError, match="1 to 5"):
        fight.state(at=9)


def test_history_shows_each_event_as_it_happened_and_marks_what_was_undone(
    store: Store,
) -> None:
    fight = skirmish(store)
    fight.append([Hit(id="h1", target="snik", damage=1, rolls={"injury": [6]})])
    fight.undo(reason="oops")
    history = list(fight.history())
    assert history[3].characters[0].after == "out_of_action"
    assert history[3].undone == "retracted by #5"
    assert history[4].consequences[0].after == "upright"


def test_state_of_a_store_equals_the_replay_of_its_exported_log(store: Store) -> None:
    fight = skirmish(store)
    fight.append(
        [Hit(target="snik", damage=1), TurnStarted(side="skaven"), Hit(target="grim", damage=3)]
    )
    fight.undo("#5")
    log = [s.event for s in fight.events()]
    assert msgspec.json.encode(fight.state()) == msgspec.json.encode(list(replay(log))[-1][0])


def test_snapshots_give_the_same_state_as_the_full_fold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshot_module, "SNAPSHOT_EVERY", 4)
    store = SQLiteStore(tmp_path / "snap.db")
    fight = skirmish(store)
    for round_ in range(6):
        fight.append([Hit(target="grim", damage=1), TurnStarted(side="reavers", round=round_)])
        fight.append([Hit(target="snik", damage=1), TurnStarted(side="skaven", round=round_)])
    fight.undo("#6")  # reaches back before several snapshots
    fight.append([TurnStarted(side="reavers")])
    assert store.snapshot("well") is not None
    log = [s.event for s in fight.events()]
    for at in (3, 9, 17, len(log)):
        expected = list(replay(log, at=at))[-1][0]
        assert msgspec.json.encode(fight.state(at)) == msgspec.json.encode(expected), at


def test_rules_of_a_snapshotted_fight_are_checked_against_the_state_it_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshot_module, "SNAPSHOT_EVERY", 2)
    store = SQLiteStore(tmp_path / "snap.db")
    fight = skirmish(store)
    fight.append([Hit(target="snik", damage=1, rolls={"injury": [6]})])
    fight.append([TurnStarted(side="skaven")])
    with pytest.raises(RuleError, match="out of action"):
        fight.append([Hit(target="snik", damage=1)])


def test_refused_events_of_a_batch_are_named_by_their_own_positions(store: Store) -> None:
    fight = skirmish(store)
    with pytest.raises(BatchRefused) as err:
        fight.append([Heal(target="grim", amount=1), Heal(target="snik", amount=1)])
    assert [e.event for e in err.value.errors] == ["#4", "#5"]


def test_a_late_undo_refolds_from_the_newest_snapshot_before_what_it_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshot_module, "SNAPSHOT_EVERY", 4)
    store = SQLiteStore(tmp_path / "snap.db")
    fight = skirmish(store)
    for round_ in range(8):
        fight.append([Hit(target="grim", damage=0), TurnStarted(side="reavers", round=round_)])
    fight.undo("#15")
    found = snapshot_module.newest_that_holds(
        lambda limit: store.snapshot("well", limit), fight.version, [(fight.version + 1, 15)]
    )
    assert found is not None and found[0] < 15
    log = [s.event for s in fight.events()]
    assert msgspec.json.encode(fight.state()) == msgspec.json.encode(list(replay(log))[-1][0])


# -- after the commit, nothing turns an append into an error (issue 11, item 2) -------------------


def test_a_snapshot_that_cannot_be_encoded_is_skipped_and_the_append_answered(
    store: Store, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(snapshot_module, "SNAPSHOT_EVERY", 8)
    fight = Fight.create(store, "giant", FightStarted(ruleset="mordheim"))
    fight.append([CharacterJoined(character="ogre", side="reavers", stats={"wounds": 2})])

    def cannot(state: object) -> bytes:  # as MessagePack fails on an int past 2**64
        raise OverflowError("int too big to convert: MessagePack holds no int past 2**64")

    # the wire's bounds keep such ints out now: an encoder that fails stands in for the next
    # thing nobody foresaw
    monkeypatch.setattr(snapshot_module, "encode", cannot)
    with caplog.at_level(logging.WARNING, logger="woundlog.replays.fight"):
        done = fight.append([Hit(target="ogre", damage=0) for _ in range(7)])
    assert done.version == 9 and len(done.changes) == 7
    assert fight.version == 9
    assert "snapshot of fight `giant` at seq 9 skipped" in caplog.text
    assert "2**64" in caplog.text  # the reason, as the encoder gave it
    assert store.snapshot("giant") is None
    assert fight.state().characters["ogre"].wounds == 2


def test_a_snapshot_the_database_refuses_is_skipped_and_the_append_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(snapshot_module, "SNAPSHOT_EVERY", 4)
    store = SQLiteStore(tmp_path / "fights.db")
    fight = skirmish(store)
    with sqlite3.connect(tmp_path / "fights.db") as db:
        db.execute(
            "CREATE TRIGGER no_room BEFORE INSERT ON snapshots"
            " BEGIN SELECT RAISE(ABORT, 'no room for snapshots'); END"
        )
    with caplog.at_level(logging.WARNING, logger="woundlog.replays.fight"):
        done = fight.append([Hit(target="snik", damage=0), Hit(target="grim", damage=0)])
    assert done.version == 5 == fight.version
    assert "no room for snapshots" in caplog.text
    assert store.snapshot("well") is None


# -- an amend's replacement is checked like any event (issue 11, item 7) --------------------------


def test_an_amend_whose_replacement_hits_an_unknown_character_is_refused(store: Store) -> None:
    fight = skirmish(store)
    fight.append([Hit(id="h1", target="snik", damage=1, rolls={"injury": [3]})])
    with pytest.raises(RuleError, match=r"replacement of `h1`.*nobody") as err:
        fight.amend("h1", Hit(target="nobody", damage=1), "wrong target")
    assert err.value.event == "#5" and err.value.field == "$.replacement.target"
    assert fight.version == 4


def test_an_amend_whose_replacement_is_a_mordheim_heal_is_refused(store: Store) -> None:
    fight = skirmish(store)
    fight.append([Hit(id="h1", target="snik", damage=1, rolls={"injury": [3]})])
    with pytest.raises(RuleError, match=r"replacement of `h1`.*no healing"):
        fight.amend("h1", Heal(target="snik", amount=1))
    assert fight.version == 4


def test_a_replacement_is_checked_against_the_fight_as_it_stood_at_its_slot(
    store: Store,
) -> None:
    fight = skirmish(store)
    fight.append([Hit(id="h1", target="snik", damage=1, rolls={"injury": [1]})])
    fight.append([CharacterJoined(character="rat", side="skaven")])
    fight.append([Hit(id="h2", target="grim", damage=2, rolls={"injury": [6]})])
    # rat joined after h1: a hit on it cannot stand in h1's place
    with pytest.raises(RuleError, match="rat"):
        fight.amend("h1", Hit(target="rat", damage=1))
    # grim is out of action now, but was upright when h1 happened
    amended = fight.amend("h1", Hit(target="grim", damage=1, rolls={"injury": [1]}))
    assert amended.version == 7
    assert states(fight) == {"grim": "out_of_action", "snik": "upright", "rat": "upright"}


def test_an_amend_of_an_event_of_the_same_batch_checks_its_replacement(store: Store) -> None:
    fight = skirmish(store)
    with pytest.raises(RuleError, match="replacement of `h9`") as err:
        fight.append(
            [
                Hit(id="h9", target="snik", damage=0),
                Amend(event="h9", replacement=Hit(target="nobody", damage=0)),
            ]
        )
    assert err.value.index == 1
    assert fight.version == 3


def test_a_late_amend_is_checked_against_a_snapshotted_fight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshot_module, "SNAPSHOT_EVERY", 4)
    store = SQLiteStore(tmp_path / "snap.db")
    fight = skirmish(store)
    fight.append([Hit(id="h1", target="snik", damage=1, rolls={"injury": [1]})])
    for round_ in range(6):
        fight.append([Hit(target="grim", damage=0), TurnStarted(side="reavers", round=round_)])
    with pytest.raises(RuleError, match="no healing"):
        fight.amend("h1", Heal(target="snik", amount=1))
    fight.amend("h1", Hit(target="snik", damage=1, rolls={"injury": [6]}))
    log = [s.event for s in fight.events()]
    assert msgspec.json.encode(fight.state()) == msgspec.json.encode(list(replay(log))[-1][0])


# -- a batch reports every refused event (issue 11, smaller) --------------------------------------


def test_a_batch_with_a_structural_error_also_reports_the_rule_errors_of_the_others(
    store: Store,
) -> None:
    fight = skirmish(store)
    with pytest.raises(BatchRefused) as err:
        fight.append(
            [
                Hit(target="snik", damage=-1),  # built in Python: no decoder checked it
                Hit(target="snik", damage=0),
                Heal(target="grim", amount=1),
            ]
        )
    refused = {e.index: e for e in err.value.errors}
    assert sorted(refused) == [0, 2]
    assert isinstance(refused[0], StructuralError) and refused[0].field == "$.damage"
    assert isinstance(refused[2], RuleError) and refused[2].event == "#6"
    assert fight.version == 3


def test_refuse_reports_undecodable_items_with_the_rule_errors_of_the_rest(store: Store) -> None:
    fight = skirmish(store)
    undecodable = StructuralError("Expected `int`, got `str`", field="$.damage", index=1)
    with pytest.raises(BatchRefused) as err:
        fight.refuse([Hit(target="snik", damage=0), undecodable, Heal(target="grim", amount=1)])
    assert [(e.index, e.event) for e in err.value.errors] == [(1, "#5"), (2, "#6")]
    assert fight.version == 3


def test_a_batch_undoing_its_own_and_earlier_events_is_told_what_the_log_says(
    store: Store,
) -> None:
    fight = skirmish(store)
    fight.append([Hit(id="old", target="grim", damage=1, rolls={"injury": [3]})])
    done = fight.append(
        [
            Hit(id="b1", target="snik", damage=1, rolls={"injury": [6]}),
            Retract(event="b1", reason="missed"),
            Hit(id="b2", target="snik", damage=1, rolls={"injury": [1]}),
            Amend(event="b2", replacement=Hit(target="snik", damage=1, rolls={"injury": [3]})),
            Retract(event="old", reason="never happened"),
            TurnStarted(side="skaven"),
        ]
    )
    history = list(fight.history())
    assert [msgspec.json.encode(c) for c in done.changes] == [
        msgspec.json.encode(msgspec.structs.replace(c, undone=None)) for c in history[4:]
    ]
    log = [s.event for s in fight.events()]
    assert msgspec.json.encode(fight.state()) == msgspec.json.encode(list(replay(log))[-1][0])
    assert states(fight) == {"grim": "upright", "snik": "knocked_down"}  # stunned, recovering


def test_a_snapshot_folded_by_other_rules_is_not_used(tmp_path: Path) -> None:
    """A snapshot is a cache of the fold: one written by another woundlog (older rules, or a
    state of another shape) must not stand in for the fold, nor break reading the fight."""
    snapshots = snapshot_module
    with SQLiteStore(tmp_path / "f.db") as store:
        fight = Fight.create(store, "f", FightStarted(ruleset="mordheim", version=2))
        fight.append([CharacterJoined(character="grim", side="a")])
        honest = fight.state()
        forged = msgspec.structs.replace(honest, characters={})  # as other rules might fold it
        stale = msgspec.msgpack.encode([b"other rules", msgspec.msgpack.encode(forged)])
        store.save_snapshot("f", 2, stale)
        store.save_snapshot("f", 1, b"\x85not a snapshot of this woundlog")
        assert snapshots.decode(stale) is None
        assert fight.state() == honest
        fight.append([Hit(target="grim", damage=0)])
        assert list(fight.state().characters) == ["grim"]
        assert snapshots.decode(snapshots.encode(honest)) == honest

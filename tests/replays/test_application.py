"""The application layer through its public path: each use case over a real SQLite file, with
its refusals."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path

import pytest

from woundlog.core.odds import Budget
from woundlog.core.odds import TooLarge as OddsTooLarge
from woundlog.events import (
    BatchRefused,
    CharacterJoined,
    ConflictError,
    FightStarted,
    Heal,
    Hit,
    RuleError,
    StructuralError,
    UsageError,
)
from woundlog.events.stores import Store, side
from woundlog.replays.application import (
    Application,
    FightNotFound,
    LastChange,
    NewFight,
    NothingAsked,
    TooLarge,
    UnknownFormat,
)

from .service.test_import import damage  # a Foundry `dnd5e.damageActor` hook envelope

DATA = Path(__file__).resolve().parent.parent / "data" / "importers"


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "fights.db")) as opened:
        yield opened


def skirmish(app: Application, fight: str = "well") -> None:
    """Mordheim: Grim (2 wounds, reavers) and Snik (skaven)."""
    app.create(fight, app.started(NewFight(fight=fight, ruleset="mordheim", seed=5, name="Ambush")))
    app.record(
        fight,
        [
            CharacterJoined(character="grim", name="Grim", side="reavers", stats={"wounds": 2}),
            CharacterJoined(character="snik", name="Snik", side="skaven"),
        ],
    )


def states(app: Application, fight: str, at: int | None = None) -> dict[str, str]:
    return {cid: c.state for cid, c in app.state(fight, at).characters.items()}


# --- creating ---------------------------------------------------------------------------------


def test_a_fight_is_created_with_the_seed_given_or_one_chosen_once_and_kept(
    app: Application,
) -> None:
    given = app.started(NewFight(fight="a", ruleset="d26", seed=11, options={}, name="Pit"))
    assert (given.ruleset, given.seed, given.name) == ("d26", 11, "Pit")
    made = app.create("a", given)
    assert made.version == 1 and [c.type for c in made.changes] == ["fight_started"]
    chosen = app.started(NewFight(fight="b", ruleset="d26"))
    app.create("b", chosen)
    [stored] = app.events("b").events
    assert isinstance(stored.event, FightStarted) and stored.event.seed == chosen.seed
    seeds = {app.started(NewFight(fight="c", ruleset="d26")).seed for _ in range(8)}
    assert len(seeds) > 1  # chosen afresh for each new fight, not one fixed default


def test_creating_a_fight_already_there_or_with_a_bad_id_is_refused(app: Application) -> None:
    skirmish(app)
    with pytest.raises(UsageError, match="already exists"):
        app.create("well", app.started(NewFight(fight="well", ruleset="mordheim")))
    with pytest.raises(UsageError):
        app.create("no/slash", app.started(NewFight(fight="x", ruleset="mordheim")))
    with pytest.raises(StructuralError):
        app.started(NewFight(fight="x", ruleset="mordheim", options={"bad": [1]}))  # type: ignore[dict-item]


# --- recording --------------------------------------------------------------------------------


def test_events_are_recorded_through_one_record(app: Application) -> None:
    skirmish(app)
    hit = app.record("well", [Hit(id="h1", target="grim", damage=1, attacker="snik")])
    assert hit.version == 4 and hit.changes[0].type == "hit"
    again = app.record("well", [Hit(id="h1", target="grim", damage=1, attacker="snik")])
    assert again.version == 4 and again.skipped == ["h1"]
    with pytest.raises(RuleError, match="no healing during a battle"):
        app.record("well", [Heal(target="grim", amount=1)])
    assert app.version("well") == 4


def test_record_refuses_an_unknown_fight_a_stale_version_and_names_every_bad_event(
    app: Application,
) -> None:
    with pytest.raises(FightNotFound, match="no fight `gone`"):
        app.record("gone", [Hit(target="grim", damage=1)])
    skirmish(app)
    with pytest.raises(ConflictError) as conflict:
        app.record("well", [Hit(target="grim", damage=1)], expected_version=1)
    assert conflict.value.current_version == 3
    items = app.read([{"type": "hit", "target": "grim", "damage": -1}, {"type": "hit"}])
    with pytest.raises(BatchRefused) as refused:
        app.record("well", items)
    assert [error.index for error in refused.value.errors] == [0, 1]
    assert app.version("well") == 3  # nothing of the batch written


def test_a_batch_is_bounded_and_never_empty(tmp_path: Path) -> None:
    with Application.opened(str(tmp_path / "f.db"), max_batch=2) as app:
        skirmish(app)
        with pytest.raises(TooLarge, match="3 events in one batch; at most 2"):
            app.read([{"type": "fight_ended"}] * 3)
        with pytest.raises(StructuralError, match="an empty batch"):
            app.read([])


# --- undo and amend ---------------------------------------------------------------------------


def test_undo_takes_back_the_newest_live_event_that_is_not_a_retract(app: Application) -> None:
    skirmish(app)
    app.record(
        "well", [Hit(id="h1", target="snik", damage=1), Hit(id="h2", target="grim", damage=1)]
    )
    first = app.undo("well", reason="misread")
    assert first.changes[0].type == "retract"
    second = app.undo("well")  # not the retract just made: the hit before
    assert second.version == 7
    events = [stored.event for stored in app.events("well", 6).events]
    assert [getattr(e, "event", None) for e in events] == ["h2", "h1"]
    retried = app.undo("well", undo_id="u1")
    again = app.undo("well", undo_id="u1")  # a retry with its id undoes once
    assert again.version == retried.version == 8 and again.skipped == ["u1"]


def test_undo_of_nothing_or_an_unknown_event_is_refused(app: Application) -> None:
    skirmish(app)
    app.undo("well")
    app.undo("well")
    with pytest.raises(UsageError, match="nothing to undo"):
        app.undo("well")
    with pytest.raises(StructuralError, match="`nope` names no earlier event"):
        app.undo("well", "nope")


def test_amend_replays_an_event_as_another(app: Application) -> None:
    skirmish(app)
    app.record("well", [Hit(id="h1", target="grim", damage=2, rolls={"injury": [6]})])
    assert states(app, "well")["grim"] != "upright"
    app.amend("well", "h1", Hit(target="grim", damage=0), reason="it missed")
    assert states(app, "well")["grim"] == "upright"


# --- importing --------------------------------------------------------------------------------


def test_import_into_a_fight_there_appends_and_a_resend_adds_nothing(app: Application) -> None:
    app.create("table", app.started(NewFight(fight="table", ruleset="d26", seed=3)))
    first = app.import_records("table", "foundry", [damage("e1", 15, -7)])
    assert [c.type for c in first.changes] == ["character_joined", "hit"]
    again = app.import_records("table", "foundry", [damage("e1", 15, -7)])
    assert again.version == first.version and again.changes == []
    assert app.state("table").characters["brakka"].hp == 15


def test_import_creates_a_fight_only_when_asked_and_continues_from_its_cursor(
    app: Application,
) -> None:
    autosaves = json.loads((DATA / "improved_initiative_autosaves.json").read_text())
    with pytest.raises(FightNotFound):
        app.import_records("new", "improved-initiative", autosaves)
    made = app.import_records("new", "improved-initiative", autosaves, seed=7, create=True)
    first = app.events("new", 1, 1).events[0].event
    assert isinstance(first, FightStarted) and (first.ruleset, first.seed) == ("dnd5e", 7)
    assert made.version == app.version("new") > 1
    again = app.import_records("new", "improved-initiative", autosaves, create=True)
    assert again.version == made.version  # compared with the cursor the first one kept


def test_import_refuses_an_unknown_format_another_ruleset_and_a_bad_record(
    app: Application,
) -> None:
    app.create("table", app.started(NewFight(fight="table", ruleset="d26")))
    with pytest.raises(UnknownFormat, match="no import format `roll20`"):
        app.import_records("table", "roll20", [{}])
    with pytest.raises(UsageError, match="played with `d26`, not `dnd5e`"):
        app.import_records("table", "foundry", [damage("e1", 15, -7)], ruleset="dnd5e")
    with pytest.raises(StructuralError) as bad:
        app.import_records("table", "foundry", [damage("e1", 15, -7), {"hook": 5}])
    assert bad.value.index == 1
    assert app.version("table") == 1


def test_a_cursor_not_kept_is_a_warning_of_a_committed_import(
    app: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(side.ImportCursors, "put", broken)
    app.create("table", app.started(NewFight(fight="table", ruleset="d26")))
    done = app.import_records("table", "foundry", [damage("e1", 15, -7)])
    assert done.version == 3
    assert done.warnings == [
        "the events are in, but where this import stopped was not kept: disk full"
    ]


def test_a_front_end_decides_what_a_cursor_not_kept_tells(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    told: list[str] = []

    def lost(fight: str, fmt: str, error: Exception) -> None:
        told.append(f"{fight} {fmt} {error}")

    def broken(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(side.ImportCursors, "put", broken)
    with Application.opened(str(tmp_path / "f.db"), cursor_lost=lost) as app:
        app.create("table", app.started(NewFight(fight="table", ruleset="d26")))
        done = app.import_records("table", "foundry", [damage("e1", 15, -7)])
    assert done.version == 3 and done.warnings == []
    assert told == ["table foundry disk full"]


# --- what if ----------------------------------------------------------------------------------


def test_branch_copies_the_log_up_to_a_point_then_the_what_if(app: Application) -> None:
    skirmish(app)
    app.record("well", [Hit(id="h1", target="grim", damage=2, rolls={"injury": [6]})])
    then = [Hit(target="snik", damage=0)]
    log = app.branch_log("well", at=3, then=then)
    made = app.branch("well", "other", at=3, then=then)
    assert made.version == len(log) == 4
    assert [s.event for s in app.events("other").events] == log
    assert states(app, "other")["grim"] == "upright" != states(app, "well")["grim"]
    with pytest.raises(UsageError, match="already exists"):
        app.branch("well", "other")
    with pytest.raises(FightNotFound):
        app.branch("gone", "third")
    with pytest.raises(UsageError, match="has events 1 to 4"):
        app.branch_log("well", at=9)


def test_odds_of_a_what_if_exact_and_bounded(app: Application) -> None:
    skirmish(app)
    state = app.state("well")
    whatif = app.whatif(state, hits=["snik:1"])
    assert [type(event) for event in whatif] == [Hit]
    answer = app.odds(state, whatif, characters=["snik"])
    assert answer.exact and list(answer.characters) == ["snik"]
    chances = [Fraction(o.chance) for o in answer.characters["snik"].outcomes]
    assert sum(chances) == 1 and len(chances) > 1
    with pytest.raises(OddsTooLarge):
        app.odds(state, whatif, budget=Budget(1))
    with pytest.raises(NothingAsked):
        app.whatif(state)


# --- reading ----------------------------------------------------------------------------------


def test_state_at_a_point_and_its_bound(app: Application) -> None:
    skirmish(app)
    app.record("well", [Hit(target="grim", damage=2, rolls={"injury": [6]})])
    assert states(app, "well", 3)["grim"] == "upright"
    assert states(app, "well")["grim"] != "upright"
    with pytest.raises(UsageError, match="at=9: fight `well` has events 1 to 4"):
        app.state("well", 9)


def test_events_log_and_changes_are_paged(app: Application) -> None:
    skirmish(app)
    page = app.events("well", 2, 1)
    assert page.version == 3 and [s.seq for s in page.events] == [2] and page.next == 3
    assert app.events("well", 3).next is None and app.events("well", 9).events == []
    joined = ["character_joined"] * 2
    assert [c.type for c in app.log("well")] == ["fight_started", *joined]
    assert [c.type for c in app.changes_from("well", 2, 5)] == ["character_joined"] * 2


def test_the_timeline_says_what_undid_an_event(app: Application) -> None:
    skirmish(app)
    app.record("well", [Hit(id="h1", target="grim", damage=1)])
    app.undo("well", "h1", reason="misread")
    window = app.timeline("well", 4, 1)
    [moment] = window.moments
    assert moment.seq == 4 and moment.changes.undone is not None and window.next == 5
    assert app.timeline("well", 9).moments == []


def test_the_fights_are_listed_with_one_summary_and_paged(app: Application) -> None:
    skirmish(app, "a")
    skirmish(app, "b")
    page = app.fights()
    assert [(s.fight, s.ruleset, s.name, s.events) for s in page.fights] == [
        ("a", "mordheim", "Ambush", 3),
        ("b", "mordheim", "Ambush", 3),
    ]
    assert page.next is None
    first = app.fights(0, 1)
    assert [s.fight for s in first.fights] == ["a"] and first.next == 1
    assert [s.fight for s in app.fights(only="b").fights] == ["b"]
    assert app.fights(only="gone").fights == []


def test_a_fights_last_change_is_its_newest_event_with_its_at_when_given(app: Application) -> None:
    """The stores keep no time of writing: the last change is the newest event, by its seq
    and type, with its `at` when whoever recorded it gave one (issue 26)."""
    skirmish(app)
    [listed] = app.fights().fights
    assert listed.last_change == LastChange(seq=3, type="character_joined")
    at = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    app.record("well", [Hit(id="h1", target="grim", damage=1, at=at)])
    assert app.summary("well").last_change == LastChange(seq=4, type="hit", at=at)
    app.undo("well", "h1")
    assert app.summary("well").last_change == LastChange(seq=5, type="retract")


# --- managing ---------------------------------------------------------------------------------


def test_delete_and_rename(app: Application) -> None:
    skirmish(app)
    assert app.rename("well", "pit") == 3
    assert not app.exists("well") and app.version("pit") == 3
    with pytest.raises(FightNotFound):
        app.rename("well", "again")
    assert app.delete("pit") is True
    assert app.delete("pit") is False
    with pytest.raises(FightNotFound):
        app.state("pit")


def test_over_a_store_the_caller_keeps(tmp_path: Path) -> None:
    from woundlog.events.stores import open_store

    store: Store = open_store(str(tmp_path / "kept.db"))
    try:
        app = Application.over(store)
        skirmish(app)
        assert app.store is store and app.version("well") == 3
    finally:
        store.close()


def test_a_whole_log_is_stored_as_a_new_fight_all_of_it_or_none(app: Application) -> None:
    skirmish(app)
    log = [stored.event for stored in app.events("well").events]
    stored = app.import_log("copy", log)
    assert (stored.version, stored.changes) == (3, [])  # counted, not explained
    assert states(app, "copy") == states(app, "well")
    with pytest.raises(ConflictError):  # a fight already there is never added to
        app.import_log("copy", log)
    unreadable = app.read([{"type": "hit", "target": "grim", "damage": -1}])
    with pytest.raises(BatchRefused) as refused:  # an unreadable item and a rule error: both
        app.import_log("other", [*log, *unreadable, Hit(target="nobody", damage=1)])
    bad_damage, nobody = refused.value.errors
    assert isinstance(bad_damage, StructuralError) and bad_damage.field == "$.damage"
    assert isinstance(nobody, RuleError) and nobody.index == 4
    assert not app.exists("other")

"""A character named by display name where an id is asked (issue 26, sections 1 and 4): taken
when it names one character, the event storing the id; refused, with "did you mean" naming
the candidates, when it names several or none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from woundlog.core import Character
from woundlog.events import Heal, RuleError, convert
from woundlog.replays.application import Application
from woundlog.replays.application.names import strangers, with_ids
from woundlog.replays.fight import Fight

from .conftest import Run
from .test_cli import assert_refused, ok


def events_of(run: Run, fight: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in ok(run("export", fight)).stdout.splitlines()]


@pytest.fixture
def bobs(run: Run, skirmish: str) -> str:
    """The skirmish (Grim `grim`, Snitch `snitch`) and two characters both called Bob."""
    ok(run("join", skirmish, "b1", "--name", "Bob", "--side", "reavers"))
    ok(run("join", skirmish, "b2", "--name", "Bob", "--side", "skaven"))
    return skirmish


def test_a_hit_on_a_display_name_records_the_characters_id(run: Run, skirmish: str) -> None:
    ok(run("hit", skirmish, "Grim", "1", "--attacker", "Snitch", "--roll", "injury=1"))
    hit = events_of(run, skirmish)[-1]
    assert (hit["target"], hit["attacker"]) == ("grim", "snitch")


def test_a_name_of_several_words_is_taken_where_an_id_cannot_be(run: Run, skirmish: str) -> None:
    ok(run("join", skirmish, "gorbag", "--name", "Gorbag the Shaman", "--side", "skaven"))
    ok(run("hit", skirmish, "gorbag the shaman", "1", "--roll", "injury=1"))
    assert events_of(run, skirmish)[-1]["target"] == "gorbag"


def test_a_name_is_matched_ignoring_case_and_a_turn_takes_one(run: Run, skirmish: str) -> None:
    ok(run("tick", skirmish, "start", "--character", "SNITCH"))
    assert events_of(run, skirmish)[-1]["character"] == "snitch"


def test_a_name_two_characters_share_is_refused_naming_both(run: Run, bobs: str) -> None:
    before = events_of(run, bobs)
    refused = run("hit", bobs, "Bob", "1")
    assert_refused(refused, 3, "$.target", "did you mean `b1` (Bob) or `b2` (Bob)?")
    assert events_of(run, bobs) == before  # nothing written


def test_an_ambiguous_attacker_is_refused_too(run: Run, bobs: str) -> None:
    assert_refused(run("hit", bobs, "grim", "1", "--attacker", "bob"), 3, "$.attacker", "`b2`")


def test_an_unknown_target_is_refused_with_the_nearest_id_and_name(run: Run, skirmish: str) -> None:
    refused = run("hit", skirmish, "Grm", "1")
    assert_refused(refused, 3, "no character `Grm`", "did you mean `grim` (Grim)?")


def test_a_target_near_nobody_is_refused_with_everyone_who_joined(run: Run, skirmish: str) -> None:
    refused = run("hit", skirmish, "zzz", "1")
    assert_refused(refused, 3, "joined: `grim` (Grim), `snitch` (Snitch)")


def test_a_whatif_takes_display_names_for_its_hit_and_the_characters_asked_about(
    run: Run, skirmish: str
) -> None:
    by_name = ok(run("odds", skirmish, "--hit", "Grim:1:Snitch", "--character", "GRIM", "--json"))
    by_id = ok(run("odds", skirmish, "--hit", "grim:1:snitch", "--character", "grim", "--json"))
    assert json.loads(by_name.stdout) == json.loads(by_id.stdout)
    assert list(json.loads(by_name.stdout)["characters"]) == ["grim"]


def test_a_whatif_naming_nobody_is_refused_with_did_you_mean_not_void(
    run: Run, skirmish: str
) -> None:
    refused = run("odds", skirmish, "--hit", "Grm:1")
    assert_refused(refused, 2, "event 1, target", "did you mean `grim` (Grim)?")


def test_a_character_asked_about_that_two_share_is_refused_naming_both(run: Run, bobs: str) -> None:
    refused = run("odds", bobs, "--hit", "grim:1", "--character", "Bob")
    assert_refused(refused, 2, "did you mean `b1` (Bob) or `b2` (Bob)?")


def joined(name: str) -> Character:
    return Character(state="upright", name=name, side="", kind="")


CHARACTERS = {
    "grim": joined("Grim"),
    "bob": joined("Snik"),  # an id that is another's name...
    "s2": joined("bob"),
}


def test_an_id_is_matched_before_any_name() -> None:
    hit = {"type": "hit", "target": "bob", "damage": 1}  # ...is that id, not one of two
    assert with_ids(CHARACTERS, hit, "#9") == hit


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"type": "heal", "target": "Grim", "amount": 1, "healer": "Snik"}, "target"),
        ({"type": "choice", "character": "Grim", "option": "last_stand"}, "character"),
        ({"type": "check", "character": "Grim", "check": "death_save"}, "character"),
        ({"type": "turn_started", "character": "Grim"}, "character"),
        ({"type": "turn_ended", "character": "Grim"}, "character"),
    ],
)
def test_every_event_that_names_a_character_takes_a_name(
    fields: dict[str, Any], field: str
) -> None:
    resolved = with_ids(CHARACTERS, fields, "#9")
    assert resolved[field] == "grim"
    assert convert(resolved)  # and is an event
    if fields["type"] == "heal":
        assert resolved["healer"] == "bob"


def test_an_attacker_who_is_nobody_is_kept_as_written() -> None:
    hit = with_ids(CHARACTERS, {"type": "hit", "target": "grim", "attacker": "ork"}, "#9")
    assert hit["attacker"] == "ork"


@pytest.mark.parametrize("given", [7, ["grim"], "g" * 201])
def test_a_value_that_can_name_nobody_is_left_for_decoding_to_refuse(given: object) -> None:
    fields = {"type": "hit", "target": given, "damage": 1}
    assert with_ids(CHARACTERS, fields, "#9") is fields


def test_a_refusal_names_the_event_by_its_own_id_else_its_place() -> None:
    with pytest.raises(RuleError) as refused:
        with_ids(CHARACTERS, {"type": "hit", "target": "nobody"}, "#9")
    assert str(refused.value).startswith("event #9, field $.target: no character `nobody`")
    with pytest.raises(RuleError) as refused:
        with_ids(CHARACTERS, {"type": "hit", "target": "nobody", "id": "h1"}, "#9")
    assert str(refused.value).startswith("event h1, field $.target")


def test_an_attacker_who_is_no_character_is_recorded_with_a_warning_naming_the_nearest(
    run: Run, skirmish: str
) -> None:
    hit = ok(run("hit", skirmish, "grim", "1", "--attacker", "snitsh", "--roll", "injury=1"))
    warning = "warning: attacker `snitsh` is not a character of this fight; did you mean `snitch`"
    assert warning in hit.stderr.splitlines()[0]
    assert events_of(run, skirmish)[-1]["attacker"] == "snitsh"  # accepted (DESIGN section 5)


def test_a_stranger_near_nobody_is_warned_of_with_the_fights_characters(
    run: Run, skirmish: str
) -> None:
    hit = ok(run("hit", skirmish, "grim", "1", "--attacker", "ork", "--roll", "injury=1"))
    assert "joined: `grim` (Grim), `snitch` (Snitch)" in hit.stderr
    assert json.loads(ok(run("hit", skirmish, "grim", "0", "--attacker", "ork", "--json")).stdout)[
        "warnings"
    ] == [
        "attacker `ork` is not a character of this fight; joined: `grim` (Grim), `snitch` (Snitch)"
    ]


def test_a_healer_who_is_no_character_is_warned_of_and_a_character_is_not() -> None:
    heal = Heal(target="grim", amount=1, healer="snak")
    assert strangers(CHARACTERS, heal) == [
        "healer `snak` is not a character of this fight; did you mean `bob` (Snik)?"
    ]
    assert strangers(CHARACTERS, Heal(target="grim", amount=1, healer="Snik")) == []


def test_reading_the_names_costs_no_second_fold(
    run: Run, skirmish: str, db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The state folded to read the names is the one the append validates against."""
    folds = []
    refold = Fight._refold

    def counted(self: Fight, *args: Any, **kwargs: Any) -> Any:
        folds.append(args)
        return refold(self, *args, **kwargs)

    monkeypatch.setattr(Fight, "_refold", counted)
    with Application.opened(str(db), create=False) as app:
        app.record_named(skirmish, [{"type": "hit", "target": "Grim", "damage": 0}])
    assert len(folds) == 1

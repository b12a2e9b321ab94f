"""Issue 41: an imported Foundry fight follows a maximum that moves and dnd5e's revivals, and ends
as the sheet shows (HP, maximum, alive or dead), through `woundlog import foundry`.

The envelopes are the module's (replays/integrations/foundry/), in the shapes dnd5e 5.3.3 gives
them (foundryvtt/dnd5e, tag release-5.3.3):
- `module/data/actor/templates/attributes.mjs` `prepareHitPoints`: `effectiveMax = max +
  tempmax`, and `hp.value` never above it in the prepared data the module reads;
- the Aid spell (`packs/_source/spells24/2nd-level/aid.yml`): an ActiveEffect adding 5 to
  `system.attributes.hp.tempmax` (prepared; the stored `tempmax` stays 0), and a heal of 5;
- `module/documents/actor/actor.mjs` `applyDamage` and `calculateDamage`: the `maximum` type
  (added in 5.3.0) lowers `tempmax` by its value and clamps the HP lost to keep `hp.value`
  within the new maximum; `amount` is the rest of the damage;
- `preUpdateHP`: a creature at 0 HP healed above 0 has its death saves cleared (the sheet's
  dead is three failures at 0 HP), and Revivify (`packs/_source/spells24/3rd-level/
  revivify.yml`) is a `healing` damage part of 1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from woundlog.core.importing import convert_records
from woundlog.events import FightStarted, StatChanged, StructuralError
from woundlog.events.importers import IMPORTERS, append_importing
from woundlog.events.stores import SQLiteStore
from woundlog.replays import Fight
from woundlog.replays.cli import app

MIRA = "Actor.actMira00000000001"
GOBLIN = "Scene.sceneMain0000001.Token.tkGoblin00000001"


@pytest.fixture(autouse=True)
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "fights.db"
    monkeypatch.setenv("WOUNDLOG_DB", str(path))
    monkeypatch.delenv("COLUMNS", raising=False)
    return path


def hp(value: int, tempmax: int = 0, mx: int = 20) -> dict[str, int]:
    """dnd5e's prepared `system.attributes.hp`, as reading.mjs `hpOf` reads it."""
    return {"value": value, "max": mx, "temp": 0, "tempmax": tempmax}


def mira(value: int, tempmax: int = 0) -> dict[str, Any]:
    return {
        "token": {"uuid": MIRA, "name": "Mira", "player": True},
        "actor": {"id": "actMira00000000001", "name": "Mira", "type": "character",
                  "hp": hp(value, tempmax)},
    }  # fmt: skip


def joined(value: int = 20, tempmax: int = 0) -> dict[str, Any]:
    """The combat starts: Mira's turn, Mira in the turn order."""
    return {
        "hook": "combatTurnChange", "id": "env-start", "combat": "combat0000000001",
        "prior": {"round": 0, "turn": None, "combatantId": None, "tokenId": None},
        "current": {"round": 1, "turn": 0, "combatantId": "cb-mira", "tokenId": "tkMira"},
        "turns": [{"combatantId": "cb-mira", **mira(value, tempmax)}],
    }  # fmt: skip


def applied(eid: str, amount: int, change: int, value: int, tempmax: int = 0) -> dict[str, Any]:
    """`dnd5e.applyDamage`: `amount` (healing below 0), the HP change of its update, and the HP
    after it, prepared."""
    changes = {"hp": change, "temp": 0, "total": change}
    return {"hook": "dnd5e.applyDamage", "id": eid, **mira(value, tempmax), "amount": amount,
            "changes": changes}  # fmt: skip


def effect(eid: str, cause: str, name: str, value: int, tempmax: int) -> dict[str, Any]:
    """An ActiveEffect applied or ended, as the module sends it: the prepared HP after it."""
    return {"hook": "maximum", "id": eid, "cause": cause, "effect": {"name": name},
            **mira(value, tempmax)}  # fmt: skip


def sheet(eid: str, change: int, value: int, tempmax: int) -> dict[str, Any]:
    """`dnd5e.damageActor`/`healActor` of a sheet edit (`onUpdateHP`, prepared HP before and
    after)."""
    hook = "dnd5e.healActor" if change > 0 else "dnd5e.damageActor"
    changes = {"hp": change, "temp": 0, "total": change}
    return {"hook": hook, "id": eid, **mira(value, tempmax), "changes": changes}


def death_save(eid: str, natural: int) -> dict[str, Any]:
    roll = {"formula": "1d20", "total": natural, "isCritical": natural == 20,
            "isFumble": natural == 1, "target": 10,
            "dice": [{"faces": 20, "results": [{"result": natural, "active": True}]}]}  # fmt: skip
    return {"hook": "dnd5e.rollDeathSave", "id": eid, **mira(0), "roll": roll}


AID = "Level 2: +5 Max HP"  # the effect's name in aid.yml


def imported(tmp_path: Path, records: list[dict[str, Any]], fight: str = "f") -> dict[str, Any]:
    """`woundlog import foundry FILE --into FIGHT` (a new fight, the format's options), then
    Mira as `woundlog state FIGHT --json` shows her."""
    path = tmp_path / f"{fight}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    ok(run("import", "foundry", str(path), "--into", fight))
    state: dict[str, Any] = json.loads(ok(run("state", fight, "--json")).stdout)
    return state["characters"][MIRA]  # type: ignore[no-any-return]


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def shown(character: dict[str, Any]) -> tuple[str, int, int]:
    return character["state"], character["hp"], character["max_hp"]


# --- Aid: a maximum raised by an effect ----------------------------------------------------------


def test_a_hit_on_an_aided_character_at_full_hp_ends_as_the_sheet_shows(tmp_path: Path) -> None:
    """Aid's effect (20 -> 25), its heal (20 -> 25 HP: 25/25), a blow of 3: 22/25."""
    records = [
        joined(),
        effect("env-aid", "createActiveEffect", AID, 20, 5),
        applied("env-aid-heal", -5, 5, 25, 5),
        applied("env-blow", 3, -3, 22, 5),
    ]
    assert shown(imported(tmp_path, records)) == ("upright", 22, 25)


def test_an_aid_the_module_did_not_send_is_taken_from_the_heal_that_shows_it(
    tmp_path: Path,
) -> None:
    """No effect envelope (a module before issue 41): the heal's own prepared maximum raises
    it first, so the heal is not capped at 20."""
    records = [joined(), applied("env-aid-heal", -5, 5, 25, 5), applied("env-blow", 3, -3, 22, 5)]
    assert shown(imported(tmp_path, records)) == ("upright", 22, 25)


def test_aid_ending_brings_the_hp_down_with_the_maximum(tmp_path: Path) -> None:
    """The effect deleted at 25/25: dnd5e's prepared HP are min(25, 20); no HP hook fires."""
    records = [
        joined(),
        effect("env-aid", "createActiveEffect", AID, 20, 5),
        applied("env-aid-heal", -5, 5, 25, 5),
        effect("env-aid-end", "deleteActiveEffect", AID, 20, 0),
    ]
    assert shown(imported(tmp_path, records)) == ("upright", 20, 20)


def test_the_maximum_is_a_stat_changed_before_the_heal_named_for_its_cause() -> None:
    converted = convert_records(
        "foundry",
        [joined(), effect("env-aid", "createActiveEffect", AID, 20, 5)],
        ruleset="dnd5e",
    )
    [change] = [e for e in converted.events if isinstance(e, StatChanged)]
    assert (change.id, change.stat, change.value) == (f"foundry:env-aid:{MIRA}:max", "hp", 25)
    assert change.reason == f"Foundry: 20 -> 25, effect `{AID}` applied"
    same = effect("env-aid-2", "updateActiveEffect", AID, 20, 5)
    again = convert_records(
        "foundry", [same], ruleset="dnd5e", joined=[MIRA], previous=converted.previous
    )
    assert again.events == []  # the same maximum: nothing


# --- Life Drain: dnd5e 5.3's `maximum` damage ---------------------------------------------------


def test_life_drain_at_full_hp_ends_as_the_sheet_shows(tmp_path: Path) -> None:
    """7 necrotic and 7 `maximum`: 20/20 -> 13/13 (the blow's 7 counted once)."""
    records = [joined(), applied("env-drain", 7, -7, 13, -7)]
    assert shown(imported(tmp_path, records)) == ("upright", 13, 13)


def test_life_drain_on_a_hurt_character_ends_as_the_sheet_shows(tmp_path: Path) -> None:
    records = [joined(), applied("env-blow", 5, -5, 15), applied("env-drain", 7, -7, 8, -7)]
    assert shown(imported(tmp_path, records)) == ("upright", 8, 13)


def test_maximum_damage_alone_lowers_the_hp_only_by_its_clamp(tmp_path: Path) -> None:
    """A `maximum` part of 7 and nothing else: `amount` 0, and dnd5e's clamp takes 20 -> 13."""
    records = [joined(), applied("env-drain", 0, -7, 13, -7)]
    assert shown(imported(tmp_path, records)) == ("upright", 13, 13)


def test_life_drain_on_first_sight_joins_with_the_hp_before_it(tmp_path: Path) -> None:
    """Never seen before the blow: the maximum before it is not in the envelope, but it was at
    least the 20 HP she had."""
    assert shown(imported(tmp_path, [applied("env-drain", 7, -7, 13, -7)])) == ("upright", 13, 13)


# --- a sheet's temporary maximum lowered ---------------------------------------------------------


def test_a_sheet_temp_max_lowered_at_full_hp_ends_as_the_sheet_shows(tmp_path: Path) -> None:
    """Stored `tempmax` 5 at 25/25, set to 0 on the sheet: the prepared HP fall to 20 and dnd5e
    fires `damageActor` of -5; that is the maximum's clamp, not a blow."""
    converted = convert_records("foundry", [joined(25, 5), sheet("env-edit", -5, 20, 0)],
                                ruleset="dnd5e")  # fmt: skip
    assert not [e for e in converted.events if type(e).__name__ == "Hit"]
    records = [joined(25, 5), sheet("env-edit", -5, 20, 0)]
    assert shown(imported(tmp_path, records)) == ("upright", 20, 20)


def test_the_hp_before_a_change_is_checked_against_the_maximum_before_it() -> None:
    """The check is the maximum before the change (or the one after, the higher), and the
    change is printed with its own sign."""
    with pytest.raises(StructuralError, match=r"a change of -9 to 20 HP means 29 HP before it"):
        convert_records("foundry", [joined(25, 5), sheet("env-edit", -9, 20, 0)], ruleset="dnd5e")
    with pytest.raises(StructuralError, match=r"a change of \+10 to 5 HP means -5 HP before"):
        convert_records("foundry", [joined(), sheet("env-heal", 10, 5, 0)], ruleset="dnd5e")


def test_a_ruleset_that_keeps_its_maximum_is_warned_not_sent_a_stat_changed() -> None:
    converted = convert_records(
        "foundry", [joined(), effect("env-aid", "createActiveEffect", AID, 20, 5)], ruleset="d26"
    )
    assert not [e for e in converted.events if isinstance(e, StatChanged)]
    assert converted.warnings == [
        f"Mira's maximum moved to 25 in Foundry (effect `{AID}` applied): this fight's ruleset "
        "keeps the maximum a character joined with"
    ]


# --- Revivify after three failed saves ------------------------------------------------------------


REVIVIFY = [
    joined(),
    applied("env-down", 20, -20, 0),
    death_save("env-save-1", 5),
    death_save("env-save-2", 6),
    death_save("env-save-3", 7),  # three failures: the sheet's dead
    applied("env-revivify", -1, 1, 1),  # Revivify: a `healing` part of 1
]


def test_revivify_after_three_failed_saves_ends_as_the_sheet_shows(tmp_path: Path) -> None:
    assert shown(imported(tmp_path, REVIVIFY[:5])) == ("dead", 0, 20)
    assert shown(imported(tmp_path, REVIVIFY, "g")) == ("upright", 1, 20)


def test_the_revival_is_the_heal_under_its_own_id_and_a_resend_adds_nothing(
    tmp_path: Path,
) -> None:
    store = SQLiteStore(tmp_path / "direct.db")
    try:
        options = IMPORTERS["foundry"].fight_options("dnd5e")
        started = FightStarted(ruleset="dnd5e", seed=1, options=options)
        fight = Fight.create(store, "f", started)
        converted = convert_records("foundry", REVIVIFY, ruleset="dnd5e")
        _, refusals = append_importing(converted, fight.append)
        heal = f"foundry:env-revivify:{MIRA}:heal"
        assert [(r.event, r.instead) for r in refusals] == [(heal, f"{heal}:revival")]
        assert (
            "dead" in refusals[0].said()
            and f"`{heal}:revival` appended instead" in refusals[0].said()
        )
        version = fight.version
        again = convert_records("foundry", REVIVIFY, ruleset="dnd5e", joined=[MIRA])
        known = lambda ids: store.lookup("f", ids)  # noqa: E731
        append_importing(again, fight.append, known=known)
        assert fight.version == version
    finally:
        store.close()


def test_a_heal_of_a_downed_character_stays_a_heal(tmp_path: Path) -> None:
    """At 0 HP, dying but not dead, a heal wakes her: no revival needed, none made."""
    records = [*REVIVIFY[:3], applied("env-cure", -4, 4, 4)]
    assert shown(imported(tmp_path, records)) == ("upright", 4, 20)


def test_a_fight_without_the_revival_option_refuses_the_revival_and_says_so(
    tmp_path: Path,
) -> None:
    ok(run("new", "plain", "--ruleset", "dnd5e", "--option", "death_saves=table"))
    path = tmp_path / "plain.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in REVIVIFY))
    result = ok(run("import", "foundry", str(path), "--into", "plain"))
    assert "option `revival`" in result.output
    state = json.loads(ok(run("state", "plain", "--json")).stdout)
    assert state["characters"][MIRA]["state"] == "dead"

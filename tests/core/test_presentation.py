"""Each ruleset's declarations for software outside the rules (issue 36): its `Presentation`
(pools, the GM's kinds, default sides, what a page shows) and its `ImportRules` name only what
the ruleset really has, so a page or an importer that reads them never meets a name the rules
do not know."""

from __future__ import annotations

import msgspec
import pytest

from woundlog.core import RULESETS, Ruleset, apply, start
from woundlog.core.importing import IMPORT_RULES, import_rules
from woundlog.core.summary import summarize
from woundlog.events import CharacterJoined, FightStarted

NAMES = list(RULESETS)


def counters_of(rules: Ruleset) -> set[str]:
    """The fields of the ruleset's character: its counters, as the state JSON names them."""
    return set(rules.character.__struct_fields__)


@pytest.mark.parametrize("name", NAMES)
def test_pools_are_counters_of_the_character_and_at_least_one_is_a_stat(name: str) -> None:
    rules = RULESETS[name]
    pools = rules.presentation.pools
    assert pools, "a page shows every character's health by its first pool"
    assert set(pools) <= counters_of(rules)
    assert set(pools) & set(rules.stats), "a pool's maximum is the stat it joined with"


@pytest.mark.parametrize("name", NAMES)
def test_a_pools_current_maximum_is_a_counter_of_the_character(name: str) -> None:
    rules = RULESETS[name]
    maximums = rules.presentation.maximums
    assert set(maximums) <= set(rules.presentation.pools)
    assert set(maximums.values()) <= counters_of(rules)


@pytest.mark.parametrize("name", NAMES)
def test_the_gms_kinds_are_kinds_of_the_ruleset_and_a_player_keeps_one(name: str) -> None:
    rules = RULESETS[name]
    gm = set(rules.presentation.gm_kinds)
    assert gm <= set(rules.kinds)
    assert rules.kinds[0] not in gm, "the default kind is a player's"


@pytest.mark.parametrize("name", NAMES)
def test_what_a_page_shows_names_counters_and_states_the_ruleset_has(name: str) -> None:
    rules = RULESETS[name]
    page = rules.presentation
    counters = counters_of(rules)
    assert set(page.hidden) <= counters
    assert set(page.units) <= counters
    assert set(page.glance) <= set(rules.graph.states)
    if page.pips is not None:
        assert page.pips.state in rules.graph.states
        assert set(page.pips.counters) <= counters and page.pips.out_of > 0


@pytest.mark.parametrize("name", NAMES)
def test_import_rules_agree_with_the_rulesets_own_declarations(name: str) -> None:
    rules = RULESETS[name]
    importing = rules.importing
    if importing is None:
        assert rules.not_importable
        assert name not in IMPORT_RULES
        return
    assert import_rules(name) is importing is IMPORT_RULES[name]
    page = rules.presentation
    assert importing.stat in page.pools and importing.stat in rules.stats
    player, other = importing.kinds
    assert player in ("", *[k for k in rules.kinds if k not in page.gm_kinds])
    assert other in ("", *page.gm_kinds)
    assert importing.sides == (page.sides.players, page.sides.gm)
    assert importing.critical == ("critical" in rules.hit_facts)
    if importing.death_save is not None:
        assert importing.death_save in rules.dice


def test_warhammer_quest_joins_characters_on_its_declared_sides() -> None:
    rules = RULESETS["warhammer_quest"]
    state, _ = start(FightStarted(ruleset="warhammer_quest"))
    for who, kind in (("hero", "warrior"), ("orc", "monster")):
        joined = CharacterJoined(character=who, kind=kind, stats={"wounds": 5}, id=who)
        state, _ = apply(state, joined)
    sides = {cid: c.side for cid, c in state.characters.items()}
    assert sides == {"hero": rules.presentation.sides.players, "orc": rules.presentation.sides.gm}


def test_a_summary_is_the_rulesets_declarations_and_encodes_to_json() -> None:
    rules = RULESETS["dnd5e"]
    summary = summarize(rules)
    assert summary.presentation is rules.presentation and summary.importing is rules.importing
    assert list(summary.who_may_act) == list(rules.graph.states)
    assert summary.who_may_act["upright"].attack and not summary.who_may_act["downed"].attack
    back = msgspec.json.decode(msgspec.json.encode(summary), type=type(summary))
    assert back == summary

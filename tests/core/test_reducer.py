"""What the reducer checks for every ruleset, and what its changes say."""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec
import pytest

from woundlog.core import (
    RULESETS,
    Character,
    Context,
    FightState,
    Graph,
    Ruleset,
    apply,
    apply_or_void,
)
from woundlog.core.ruleset import Acting
from woundlog.events import (
    Amend,
    CharacterJoined,
    Event,
    FightEnded,
    FightStarted,
    Heal,
    Hit,
    Retract,
    RuleError,
    StructuralError,
    TurnEnded,
    TurnStarted,
)
from woundlog.replays import replay

State = FightState[Any]


def started(**kw: object) -> Any:
    state, _ = apply(None, FightStarted(ruleset="mordheim", **kw))  # type: ignore[arg-type]
    return state


def test_a_fight_must_begin_with_fight_started() -> None:
    with pytest.raises(StructuralError, match="begins with"):
        apply(None, Hit(target="grim", damage=1))


def test_fight_started_only_once() -> None:
    with pytest.raises(StructuralError, match="once"):
        apply(started(), FightStarted(ruleset="mordheim"))  # type: ignore[arg-type]


def test_unknown_ruleset_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(StructuralError, match="mordheim") as err:
        apply(None, FightStarted(ruleset="mordhiem"))
    assert err.value.field == "$.ruleset"


def test_unknown_option_is_refused() -> None:
    with pytest.raises(
        StructuralError, match=r"no option `stict_dice` \(it has: strict_dice\)"
    ) as err:
        apply(None, FightStarted(ruleset="mordheim", options={"stict_dice": True}))
    assert err.value.field == "$.options.stict_dice"


def test_option_of_the_wrong_type_is_refused() -> None:
    with pytest.raises(StructuralError, match="option `strict_dice` takes a bool, not 1"):
        apply(None, FightStarted(ruleset="mordheim", options={"strict_dice": 1}))


def test_unknown_character_is_a_rule_error_listing_who_joined() -> None:
    state = started()
    state, _ = apply(state, CharacterJoined(character="grim", side="a"))  # type: ignore[arg-type]
    with pytest.raises(RuleError, match="joined: grim") as err:
        apply(state, Hit(id="h9", target="snikk", damage=1))
    assert err.value.event == "h9" and err.value.field == "$.target"


def test_unknown_side_in_a_turn_is_a_rule_error() -> None:
    state = started()
    state, _ = apply(state, CharacterJoined(character="grim", side="a"))  # type: ignore[arg-type]
    with pytest.raises(RuleError, match="side `b`"):
        apply(state, TurnStarted(side="b"))


def test_joining_twice_is_refused() -> None:
    state = started()
    state, _ = apply(state, CharacterJoined(character="grim", side="a"))  # type: ignore[arg-type]
    with pytest.raises(RuleError, match="already joined"):
        apply(state, CharacterJoined(character="grim", side="a"))


def test_nothing_but_undo_happens_after_the_fight_ended() -> None:
    state = started()
    state, _ = apply(state, CharacterJoined(character="grim", side="a"))  # type: ignore[arg-type]
    state, _ = apply(state, FightEnded())
    with pytest.raises(RuleError, match="ended"):
        apply(state, Hit(target="grim", damage=1))
    after, changes = apply(state, Retract(event="#3"))
    assert changes.type == "retract" and after.seq == 4


def test_changes_name_the_event_by_id_or_position() -> None:
    state = started()
    _, by_position = apply(state, CharacterJoined(character="grim", side="a"))  # type: ignore[arg-type]
    _, by_id = apply(state, CharacterJoined(id="j1", character="grim", side="a"))  # type: ignore[arg-type]
    assert by_position.event == "#2" and by_id.event == "j1"


def test_state_json_has_the_shape_of_design_section_8() -> None:
    state = started()
    state, _ = apply(  # type: ignore[arg-type]
        state, CharacterJoined(character="grim", name="Grim", side="reavers", stats={"wounds": 2})
    )
    state, _ = apply(state, Hit(target="grim", damage=1))
    doc = msgspec.json.decode(msgspec.json.encode(state))
    assert doc["ruleset"] == "mordheim" and doc["seq"] == 3
    assert doc["characters"]["grim"]["state"] == "upright"
    assert doc["characters"]["grim"]["name"] == "Grim"
    assert doc["characters"]["grim"]["side"] == "reavers"
    assert doc["characters"]["grim"]["wounds"] == 1
    assert doc["characters"]["grim"]["injuries"] == []


def test_changes_report_state_and_counters_before_and_after() -> None:
    state = started()
    state, _ = apply(state, CharacterJoined(character="grim", name="Grim", side="a"))  # type: ignore[arg-type]
    _, changes = apply(state, Hit(target="grim", damage=1, rolls={"injury": [3]}))
    [grim] = changes.characters
    assert (grim.before, grim.after) == ("upright", "stunned")
    assert grim.counters == {"wounds": (1, 0)}
    assert "injury roll 3 stunned" in changes.explanation


def test_a_second_identical_injury_is_reported_as_gained() -> None:
    from woundlog.core import Character, diff, get_ruleset

    class Scarred(Character, frozen=True, kw_only=True):
        injuries: tuple[str, ...] = ()

    once = Scarred(state="upright", name="G", side="a", kind="warrior", injuries=("scar",))
    twice = Scarred(state="upright", name="G", side="a", kind="warrior", injuries=("scar", "scar"))
    [change] = diff(get_ruleset("mordheim"), {"g": once}, {"g": twice})
    assert change.injuries == ["scar"] and change.injuries_removed == []


# --- who may act (DESIGN.md section 5) -------------------------------------------------------


def skirmish(*events: Event) -> State:
    """Grim (reavers) and Snik (skaven), one wound each, then `events` applied."""
    state = started()
    for event in (
        CharacterJoined(character="grim", name="Grim", side="reavers"),
        CharacterJoined(character="snik", name="Snik", side="skaven"),
        *events,
    ):
        state, _ = apply(state, event)
    return state


def grim_down(roll: int) -> Hit:
    """Snik's blow on Grim, its injury die given: 1-2 knocked down, 3-4 stunned, 5-6 out."""
    return Hit(target="grim", damage=1, attacker="snik", rolls={"injury": [roll]})


def grim_strikes_snik() -> Hit:
    return Hit(id="blow", target="snik", damage=1, attacker="grim", rolls={"injury": [3]})


def test_a_stunned_attacker_is_refused_on_append() -> None:
    with pytest.raises(RuleError, match="Grim is stunned and may do nothing at all") as err:
        apply(skirmish(grim_down(3)), grim_strikes_snik())
    assert (err.value.event, err.value.field) == ("blow", "$.attacker")
    assert err.value.message == "Grim is stunned and may do nothing at all"


def test_a_knocked_down_attacker_is_refused_on_append() -> None:
    with pytest.raises(
        RuleError, match="Grim is knocked down and may not fight, shoot or cast spells"
    ) as err:
        apply(skirmish(grim_down(1)), grim_strikes_snik())
    assert err.value.field == "$.attacker"
    assert err.value.message.startswith("Grim is knocked down")


def test_an_attacker_out_of_action_is_refused_on_append() -> None:
    with pytest.raises(RuleError, match="Grim is out of action") as err:
        apply(skirmish(grim_down(6)), grim_strikes_snik())
    assert (err.value.field, err.value.message) == ("$.attacker", "Grim is out of action")


def test_the_attacker_is_checked_before_the_blow_rolls_any_die() -> None:
    state = skirmish(grim_down(3))
    after, changes = apply_or_void(state, grim_strikes_snik())
    assert changes.void == "Grim is stunned and may do nothing at all"
    assert changes.dice == [] and changes.characters == []
    assert after.characters == state.characters and after.seq == state.seq + 1


def test_a_stunned_attackers_blow_is_void_on_replay_and_changes_nothing() -> None:
    log: list[Event] = [
        FightStarted(ruleset="mordheim"),
        CharacterJoined(character="grim", name="Grim", side="reavers"),
        CharacterJoined(character="snik", name="Snik", side="skaven"),
        grim_down(3),
        grim_strikes_snik(),
    ]
    steps = list(replay(log))
    blow = steps[-1][1]
    assert (blow.event, blow.void) == ("blow", "Grim is stunned and may do nothing at all")
    assert steps[-1][0].characters == steps[-2][0].characters
    assert steps[-1][0].characters["snik"].state == "upright"
    with pytest.raises(RuleError, match="Grim is stunned"):
        list(replay(log, strict=True))


def test_an_attacker_who_stood_up_again_may_strike() -> None:
    state = skirmish(grim_down(1), TurnStarted(side="reavers"))
    after, changes = apply(state, grim_strikes_snik())
    assert after.characters["snik"].state == "stunned"
    assert "not a character" not in changes.explanation


def test_an_undo_that_knocks_the_attacker_down_voids_his_later_blow() -> None:
    log: list[Event] = [
        FightStarted(ruleset="mordheim"),
        CharacterJoined(character="grim", name="Grim", side="reavers"),
        CharacterJoined(character="snik", name="Snik", side="skaven"),
        Hit(id="miss", target="grim", damage=0, attacker="snik"),
        grim_strikes_snik(),
    ]
    assert list(replay(log))[-1][1].void is None
    amended = [*log, Amend(event="miss", replacement=grim_down(2))]
    blow = list(replay(amended))[4][1]
    assert blow.void == "Grim is knocked down and may not fight, shoot or cast spells"


def test_an_attacker_from_outside_the_fight_is_accepted_and_named() -> None:
    after, changes = apply(
        skirmish(), Hit(target="snik", damage=1, attacker="ork", rolls={"injury": [3]})
    )
    assert after.characters["snik"].state == "stunned"
    assert changes.explanation.endswith("; attacker `ork` is not a character of this fight")


def test_a_blow_with_no_attacker_says_nothing_of_one() -> None:
    _, changes = apply(skirmish(), Hit(target="snik", damage=1, rolls={"injury": [3]}))
    assert "attacker" not in changes.explanation


def test_a_downed_attacker_is_refused_by_his_rulesets_table(infirmary: None) -> None:
    state = ward(Hit(target="ann", damage=2))
    with pytest.raises(RuleError, match="Ann is downed and may do nothing") as err:
        apply(state, Hit(target="bob", damage=1, attacker="ann"))
    assert err.value.field == "$.attacker"


# A ruleset whose heals work, so that the healer's check is seen on its own: the shipped
# rulesets each declare their own table; this one states the framework's behaviour alone.


class Patient(Character, frozen=True, kw_only=True):
    hp: int


class Infirmary(Ruleset):
    name = "infirmary"
    graph = Graph(name, ["upright", "downed"], [("fall", "upright", "downed")])
    character = Patient
    stats: ClassVar[dict[str, int | None]] = {"hp": 2}
    who_may_act: ClassVar[dict[str, Acting]] = {
        "downed": Acting(attack=False, heal=False, why="is downed and may do nothing"),
    }

    def new_character(
        self, event: CharacterJoined, kind: str, stats: dict[str, int], ctx: Context
    ) -> Patient:
        return Patient(**self.basics(event, kind, stats), hp=stats["hp"])

    def on_hit(self, fight: State, target: Patient, hit: Hit, ctx: Context) -> Patient:
        hurt = msgspec.structs.replace(target, hp=max(0, target.hp - hit.damage))
        ctx.say(f"{target.name} loses {hit.damage}")
        return ctx.move(hurt, "fall") if hurt.hp == 0 and hurt.state == "upright" else hurt

    def on_heal(self, fight: State, target: Patient, heal: Heal, ctx: Context) -> Patient:
        ctx.say(f"{target.name} heals {heal.amount}")
        return msgspec.structs.replace(target, hp=target.hp + heal.amount)


@pytest.fixture
def infirmary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(RULESETS, "infirmary", Infirmary())


def ward(*events: Event) -> State:
    """Ann and Bob, 2 hp each, in a fight of the infirmary ruleset, then `events`."""
    state, _ = apply(None, FightStarted(ruleset="infirmary"))
    for event in (
        CharacterJoined(character="ann", name="Ann"),
        CharacterJoined(character="bob", name="Bob"),
        *events,
    ):
        state, _ = apply(state, event)
    return state


def test_a_downed_healer_is_refused_on_append(infirmary: None) -> None:
    state = ward(Hit(target="ann", damage=2), Hit(target="bob", damage=1))
    with pytest.raises(RuleError, match="Ann is downed and may do nothing") as err:
        apply(state, Heal(id="mend", target="bob", amount=1, healer="ann"))
    assert (err.value.event, err.value.field) == ("mend", "$.healer")
    assert err.value.message == "Ann is downed and may do nothing"


def test_a_downed_healers_heal_is_void_on_replay(infirmary: None) -> None:
    state = ward(Hit(target="ann", damage=2), Hit(target="bob", damage=1))
    after, changes = apply_or_void(state, Heal(target="bob", amount=1, healer="ann"))
    assert changes.void == "Ann is downed and may do nothing"
    assert after.characters["bob"].hp == 1


def test_a_healer_who_may_act_heals(infirmary: None) -> None:
    state = ward(Hit(target="bob", damage=1))
    after, changes = apply(state, Heal(target="bob", amount=1, healer="ann"))
    assert after.characters["bob"].hp == 2
    assert changes.explanation == "Bob heals 1"


def test_a_downed_character_may_still_be_healed_by_another(infirmary: None) -> None:
    state = ward(Hit(target="ann", damage=2))
    after, _ = apply(state, Heal(target="ann", amount=1, healer="bob"))
    assert after.characters["ann"].hp == 1


def test_a_healer_from_outside_the_fight_is_accepted_and_named(infirmary: None) -> None:
    state = ward(Hit(target="bob", damage=1))
    after, changes = apply(state, Heal(target="bob", amount=1, healer="shrine"))
    assert after.characters["bob"].hp == 2
    assert changes.explanation == "Bob heals 1; healer `shrine` is not a character of this fight"


def test_a_healer_from_outside_a_warhammer_quest_fight_is_named() -> None:
    state, _ = apply(None, FightStarted(ruleset="warhammer_quest"))
    state, _ = apply(state, CharacterJoined(character="grim", name="Grim", stats={"wounds": 5}))
    state, _ = apply(state, Hit(target="grim", damage=2))
    _, changes = apply(state, Heal(target="grim", amount=1, means="spell", healer="elwn"))
    assert changes.explanation.endswith("; healer `elwn` is not a character of this fight")


def test_fold_in_place_ends_where_advance_ends_and_hands_out_states_later_events_leave_alone() -> (
    None
):
    from woundlog.core.reducer import Fold, advance

    log: list[Event] = [
        FightStarted(ruleset="mordheim"),
        *(
            CharacterJoined(character=f"c{i}", side="ab"[i % 2], stats={"wounds": 2})
            for i in range(6)
        ),
        Hit(target="c0", damage=3),
        TurnStarted(side="a"),
        Hit(target="c1", damage=1, rolls={"injury": [6]}),
        TurnStarted(side="b"),
        Hit(target="c2", damage=5),
        FightEnded(),
    ]
    folding, state = Fold(), None
    halfway = None
    for seq, event in enumerate(log, start=1):
        folding.add(event)
        state = advance(state, event)
        assert folding.state == state
        if seq == 8:
            halfway = folding.state
    assert halfway is not None and halfway.seq == 8
    assert halfway.characters["c2"].wounds == 2  # the later hit on c2 did not reach it
    with pytest.raises(RuleError, match="fight has ended"):
        folding.add(Hit(target="c3", damage=1))
    assert folding.state == state  # a refused event leaves the fold as it was


# --- examples the mutation run found missing ---------------------------------------------------


def test_a_refused_first_event_is_named_by_its_position_one() -> None:
    with pytest.raises(StructuralError) as err:
        apply(None, FightStarted(ruleset="mordhiem"))
    assert err.value.event == "#1"


def test_undo_markers_say_whether_they_retract_or_amend() -> None:
    state = skirmish(Hit(id="h1", target="grim", damage=0))
    _, retracted = apply(state, Retract(event="h1", reason="typo"))
    _, amended = apply(state, Amend(event="h1", replacement=Hit(target="grim", damage=0)))
    assert retracted.explanation == "retracts h1 (typo)"
    assert amended.explanation == "amends h1"


def test_an_event_a_later_retract_undoes_keeps_its_own_position() -> None:
    log: list[Event] = [
        FightStarted(ruleset="mordheim"),
        CharacterJoined(character="grim", name="Grim", side="reavers"),
        Hit(target="grim", damage=1, rolls={"injury": [3]}),
        Retract(event="#3"),
    ]
    _, changes = list(replay(log))[2]
    assert (changes.seq, changes.event, changes.explanation) == (3, "#3", "not replayed")


def test_a_fold_of_nothing_stands_before_the_first_event() -> None:
    from woundlog.core.reducer import Fold

    folding = Fold()
    assert (folding.seq, folding.state) == (0, None)
    folding.add(FightStarted(ruleset="mordheim"))
    assert folding.seq == 1


def test_a_die_for_a_stranger_is_refused_naming_the_event_by_its_position() -> None:
    from woundlog.core import refuse_strangers_dice

    state, _ = apply(None, FightStarted(ruleset="mordheim", version=2))
    state, _ = apply(state, CharacterJoined(character="grim", side="reavers"))
    with pytest.raises(RuleError) as err:
        refuse_strangers_dice(state, Hit(target="grim", damage=1, rolls={"injury@gim": [6]}))
    assert err.value.event == "#3"


def test_a_hit_stating_a_fact_its_ruleset_does_not_read_is_refused_naming_it() -> None:
    with pytest.raises(RuleError, match="does not use the fact `weapon` on a hit") as err:
        apply(skirmish(), Hit(target="grim", damage=1, weapon="A"))
    assert err.value.field == "$.weapon"


class Clinic(Infirmary):
    """The infirmary, reading every fact of a heal but `items`: one fact unread. A turn started
    brings Cid in as a reinforcement, then wears down everyone else, last joined first."""

    name = "clinic"
    heal_facts: ClassVar[frozenset[str]] = frozenset({"pool", "check", "wound"})

    def on_turn_started(self, fight: State, turn: TurnStarted, ctx: Context) -> dict[str, Any]:
        worn: dict[str, Any] = {}
        if "cid" not in fight.characters:
            worn["cid"] = Patient(state="upright", name="Cid", side="", kind="character", hp=2)
        for cid, one in reversed(fight.characters.items()):
            worn[cid] = msgspec.structs.replace(one, hp=one.hp - 1)
        return worn


@pytest.fixture
def clinic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(RULESETS, "clinic", Clinic())


def clinic_fight() -> State:
    state, _ = apply(None, FightStarted(ruleset="clinic"))
    for who in ("ann", "bob"):
        state, _ = apply(state, CharacterJoined(character=who, name=who.title()))
    return state


def test_the_one_fact_a_ruleset_does_not_read_is_refused_by_name(clinic: None) -> None:
    with pytest.raises(RuleError, match="does not use the fact `items` on a heal") as err:
        apply(clinic_fight(), Heal(target="ann", amount=1, items=2))
    assert err.value.field == "$.items"


def test_changes_list_the_characters_a_turn_moved_in_the_fights_order(clinic: None) -> None:
    _, changes = apply(clinic_fight(), TurnStarted())
    assert [c.character for c in changes.characters] == ["ann", "bob", "cid"]
    assert changes.characters[0].counters == {"hp": (2, 1)}


def test_a_fold_takes_in_a_character_a_turn_brings_as_advance_does(clinic: None) -> None:
    from woundlog.core.reducer import Fold, advance

    log: list[Event] = [
        FightStarted(ruleset="clinic"),
        CharacterJoined(character="ann", name="Ann"),
        TurnStarted(),
        TurnStarted(),
    ]
    folding, state = Fold(), None
    for event in log:
        folding.add(event)
        state = advance(state, event)
    assert folding.state == state
    assert state is not None and state.characters["cid"].hp == 1


class Broken(Infirmary):
    """A ruleset with a bug: its hit moves a character to a state its Machine does not have."""

    name = "broken"

    def on_hit(self, fight: State, target: Patient, hit: Hit, ctx: Context) -> Patient:
        return msgspec.structs.replace(target, state="vanished")


def test_a_move_the_machine_does_not_declare_is_caught_when_only_the_state_is_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from woundlog.core import IllegalTransition
    from woundlog.core.reducer import advance

    monkeypatch.setitem(RULESETS, "broken", Broken())
    state, _ = apply(None, FightStarted(ruleset="broken"))
    state, _ = apply(state, CharacterJoined(character="ann", name="Ann"))
    with pytest.raises(IllegalTransition, match="ann moved upright -> vanished"):
        apply(state, Hit(target="ann", damage=1))
    with pytest.raises(IllegalTransition, match="ann moved upright -> vanished"):
        advance(state, Hit(target="ann", damage=1))


def test_a_character_whose_kind_of_struct_changes_reports_the_fields_that_changed() -> None:
    from woundlog.core import get_ruleset
    from woundlog.core.reducer import diff

    class HpFirst(Character, frozen=True, kw_only=True):
        hp: int
        wounds: int

    class WoundsFirst(Character, frozen=True, kw_only=True):
        wounds: int
        hp: int

    basics = {"state": "upright", "name": "G", "side": "a", "kind": "warrior"}
    was = HpFirst(**basics, hp=2, wounds=1)  # type: ignore[arg-type]
    now = WoundsFirst(**basics, wounds=1, hp=1)  # type: ignore[arg-type]
    [change] = diff(get_ruleset("mordheim"), {"g": was}, {"g": now})
    assert change.counters == {"hp": (2, 1)}


def test_a_folds_quick_steps_fold_what_advance_folds_and_none_once_the_fight_has_ended() -> None:
    """`Fold.quick` is called by a loop of its own (`fold_pairs`): a step says True only with
    its event folded whole (the seq moved on, as `advance` moves it), and an ended fight has
    no quick step, so what it refuses goes the generic way and is refused in its words."""
    from woundlog.core.reducer import Fold, advance

    log: list[Event] = [
        FightStarted(ruleset="mordheim"),
        *(CharacterJoined(character=f"c{i}", side="ab"[i % 2]) for i in range(4)),
        Hit(target="c0", damage=2),
        TurnStarted(side="a"),
        Hit(target="c1", damage=1, rolls={"injury": [4]}),
        TurnEnded(side="a"),
        FightEnded(),
    ]
    folding, state = Fold(), None
    assert folding.quick == {}
    for event in log:
        step = folding.quick.get(type(event))
        if step is None or not step(event):
            folding.generic(event)
        state = advance(state, event)
        assert folding.state == state
    assert folding.quick == {}
    with pytest.raises(RuleError, match="fight has ended"):
        folding.generic(Hit(target="c2", damage=1))
    assert state is not None
    assert Fold(state).quick == {}  # taken up ended, as from a snapshot
    assert Fold(advance(state, Retract(event="#10"))).quick == {}

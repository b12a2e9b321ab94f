"""The pure reducer: `apply(state, event) -> (state, changes)`.

It checks what every ruleset shares (the fight has begun and not ended, the character exists, the
facts are ones the ruleset reads), hands the event to its ruleset, and works out what changed.
Undo events (`retract`, `amend`) change nothing here: replays resolve them before folding.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import compress
from operator import ne
from typing import Any, NamedTuple, NoReturn, cast

import msgspec
from msgspec.structs import astuple

from woundlog.events import (
    EVENT_TYPES,
    FACTS,
    Amend,
    CharacterJoined,
    Check,
    Choice,
    Event,
    FightEnded,
    FightStarted,
    Heal,
    Hit,
    Retract,
    RuleError,
    StatChanged,
    StructuralError,
    TurnEnded,
    TurnOrder,
    TurnStarted,
    WoundlogError,
    event_ref,
    type_name,
)

from .changes import Changes, CharacterChange
from .dice import SCOPED_DRAW, Dice, Draws, check_owners, split_scope, unknown_character
from .fight_state import INDEX_FROM, Character, FightState, Roster, setup_of
from .initiative import Turn, joined, reordered, ticked
from .machine import IllegalTransition
from .ruleset import ACTS, Context, Ruleset
from .rulesets import get_ruleset
from .turns import Rounds, pulse

_UNDO = (Retract, Amend)
FIGHT_EVENTS = frozenset(EVENT_TYPES)
Missing = Callable[[str, int, str | None], int]
"""Chooses a die the event does not give: (purpose, sides, character or None) -> face."""


def start(event: FightStarted) -> tuple[FightState[Any], Changes]:
    """The fight a `fight_started` sets up; unknown rulesets, options or tables are refused."""
    eid = event_ref(event, 1)
    try:
        rules = get_ruleset(event.ruleset)
        options = rules.check_options(event.options)
        rules.check_tables(event.tables)
    except WoundlogError as exc:
        raise exc.located(event=eid) from None
    state = setup_of(event, options)
    said = f"{rules.name} fight begins" + (f": {event.name}" if event.name else "")
    return state, Changes(
        seq=1, event=eid, type="fight_started", explanation=said, unused=dict(event.rolls)
    )


def apply(state: FightState[Any] | None, event: Event) -> tuple[FightState[Any], Changes]:
    """Fold one event into the fight. Raises StructuralError or RuleError when it is refused."""
    if state is None:
        return start(_first(event))
    new_state, rules, ctx, updated = _after(state, event)
    if ctx is None:  # an undo event: a marker in its place, nothing more
        return new_state, _undo_marker(new_state, event)
    return new_state, Changes(
        seq=new_state.seq,
        event=ctx.event_id,
        type=type_name(event),
        explanation="; ".join(ctx.said) or "no effect",
        characters=_moved(rules, state.characters, new_state.characters, updated),
        dice=ctx.dice.used,
        unused=ctx.dice.unused(),
    )


def advance(
    state: FightState[Any] | None, event: Event, *, missing: Missing | None = None
) -> FightState[Any]:
    """The state `apply` folds the event into, refusing exactly what `apply` refuses, without
    working out what changed or putting it into words: for a fold that keeps only where it
    ends. `missing`, when given, chooses each die the event does not give instead of drawing it
    (exact odds)."""
    if state is None:
        return start(_first(event))[0]
    new_state, rules, ctx, updated = _after(state, event, missing, explains=False)
    if ctx is not None:
        _check_moves(rules, state.characters, updated)
    return new_state


def apply_or_void(state: FightState[Any] | None, event: Event) -> tuple[FightState[Any], Changes]:
    """Like `apply`, but a rule error voids the event instead of stopping the fold (replay)."""
    try:
        return apply(state, event)
    except RuleError as exc:
        if state is None:
            raise
        seq = state.seq + 1
        eid = event_ref(event, seq)
        changes = Changes(
            seq=seq, event=eid, type=type_name(event), explanation="", void=exc.message
        )
        return msgspec.structs.replace(state, seq=seq), changes


def not_replayed(
    state: FightState[Any], event: Event, undone: str
) -> tuple[FightState[Any], Changes]:
    """Pass over an event a later undo retracted: it keeps its position and does nothing."""
    seq = state.seq + 1
    changes = Changes(
        seq=seq,
        event=event_ref(event, seq),
        type=type_name(event),
        explanation="not replayed",
        undone=undone,
    )
    return msgspec.structs.replace(state, seq=seq), changes


def _first(event: Event) -> FightStarted:
    if not isinstance(event, FightStarted):
        raise StructuralError(
            "a fight begins with `fight_started`", event=event_ref(event, 1), field="$.type"
        )
    return event


def _after(
    state: FightState[Any], event: Event, missing: Missing | None = None, *, explains: bool = True
) -> tuple[FightState[Any], Ruleset, Context | None, Mapping[str, Character]]:
    """The fight after the event (its `_effect` written into a new FightState), its ruleset,
    the event's Context (None for an undo event, which changes nothing here), and the
    characters the event updated."""
    rules, ctx, updated, ended, rounds, turn = _effect(state, event, missing, explains=explains)
    characters = {**state.characters, **updated} if updated else state.characters
    seq = state.seq + 1
    new_state = msgspec.structs.replace(
        state, seq=seq, characters=characters, ended=ended, rounds=rounds, turn=turn
    )
    return new_state, rules, ctx, updated


def _effect(
    state: FightState[Any], event: Event, missing: Missing | None = None, *, explains: bool = True
) -> tuple[Ruleset, Context | None, Mapping[str, Character], bool, Rounds, Turn]:
    """What the event does to the fight, leaving `state` as it is: the checks every event
    shares (no second `fight_started`, the fight not ended), its Dice and Context made, and
    `_on_event` called. Returns its ruleset, its Context (None for an undo event), the
    characters it updates, whether the fight has ended, where its rounds stand (a tick's
    `core.turns.pulse`) and its turns (`core.initiative`)."""
    seq = state.seq + 1
    eid = event_ref(event, seq)
    # an event's own type asked, not `isinstance`: of a msgspec Struct type an event is not, that
    # asks the metaclass (five to ten times the cost), and an event type has no subclass
    if type(event) is FightStarted:
        raise StructuralError(
            "`fight_started` comes once, as the first event", event=eid, field="$.type"
        )
    if type(event) not in FIGHT_EVENTS:  # a campaign's event (events.campaign), in a fight's log
        raise StructuralError(
            f"`{type_name(event)}` is a campaign's event, not a fight's: record it with "
            "`woundlog campaign`",
            event=eid,
            field="$.type",
        )
    rules = get_ruleset(state.ruleset)

    def dice() -> Dice:
        return dice_of(state, rules, missing=missing, records=explains)(
            eid, event.rolls, owner=_concerns(event)
        )

    try:
        # given dice are checked now, rolled or not; with none given, Dice are made if needed
        given = dice() if event.rolls else dice
        ctx = Context(eid, given, rules.graph, state.options, explains=explains)
        if type(event) is Retract or type(event) is Amend:
            return rules, None, {}, state.ended, state.rounds, state.turn
        if state.ended:
            raise ctx.refuse("the fight has ended; undo `fight_ended` to go on")
        rounds, turn = state.rounds, state.turn
        if type(event) is TurnStarted or type(event) is TurnEnded:
            ctx.pulse, rounds = pulse(rounds, event, state.version)
        updated, ended = _on_event(rules, state, event, ctx)
        if type(event) is TurnStarted or type(event) is TurnEnded:
            assert ctx.pulse is not None
            turn = ticked(turn, event, ctx.pulse, state.characters)
        elif type(event) is CharacterJoined:
            turn = joined(turn, event)
        elif type(event) is TurnOrder:
            turn = reordered(turn, event, state.characters)
            ctx.say("turn order from now: {order}", order=", ".join(turn.order))
    except WoundlogError as exc:
        raise exc.located(event=eid) from None
    return rules, ctx, updated, ended, rounds, turn


class Fold:
    """`advance` after `advance`, for a fold that keeps only where it ends (a replay's state).

    It works on a character map of its own (a `Roster`) and writes into it only the characters
    each event updates, so an event costs what its rules do, whatever the size of the fight;
    and it builds no explanation nobody reads. The reducer stays pure: each event's effect is
    worked out from the state as it stands, exactly as `advance` does, and nothing outside sees
    the working map; `state` hands out a frozen FightState with a map of its own.

    The fight's steps are compiled once, when it starts (`_Steps`): hits, heals and turns, the
    events of a long fight, go straight to the ruleset's handler with one reused Context, and
    their Dice are made only if a rule rolls, handing out integers with no DieRoll records.
    Anything the quick step does not clear (an unknown character, a fact, an actor who may not
    act, an ended fight, every other type of event) goes the way `advance` goes (`generic`),
    which refuses it with the same words.

    `quick` is those steps by type of event, for a loop that calls them itself (one Python
    call an event fewer than `add`): a step folds its event whole, the seq moved on, and says
    True, or changes nothing and says False, and the event is then the `generic` way's. The
    dict is the Fold's own for its life: empty until the fight starts, emptied once it ends.
    """

    def __init__(
        self, state: FightState[Any] | None = None, *, index_from: int | None = INDEX_FROM
    ) -> None:
        self._steps: _Steps | None = None
        self._characters: Roster[Any] = Roster({})  # the working map, the steps' own
        self._index_from = index_from
        self.quick: dict[type, Callable[[Any], bool]] = {}
        if state is not None:
            self._take_up(state)

    def _take_up(self, state: FightState[Any]) -> None:
        rules = get_ruleset(state.ruleset)
        # the working map keeps, per kind of tick, whom one concerns (`Ruleset.tick_concerns`),
        # once the fight is large: a recovery phase visits the fallen, not every fighter of the
        # side. `index_from=None` hands every tick its whole scope, as `advance` does: what the
        # index is checked against.
        self._characters = characters = Roster(
            state.characters, rules.tick_concerns, index_from=self._index_from
        )
        self._steps = steps = _Steps(
            rules, characters, msgspec.structs.replace(state, characters=characters)
        )
        if not state.ended:
            self.quick.update(steps.quick)

    @property
    def state(self) -> FightState[Any] | None:
        """The fight as folded so far."""
        if self._steps is None:
            return None
        steps = self._steps
        return msgspec.structs.replace(steps.state, characters=dict(steps.characters))

    def add(self, event: Event) -> None:
        """Fold one event in; raises what `advance` raises, and then leaves the fight as it was."""
        step = self.quick.get(type(event))
        if step is None or not step(event):
            self.generic(event)

    def generic(self, event: Event) -> None:
        """Fold one event in as `advance` folds it, the quick steps not asked: an event a quick
        step has just declined, or one of a type with none."""
        steps = self._steps
        if steps is None:
            self._take_up(start(_first(event))[0])
            return
        state = steps.state
        rules, ctx, updated, ended, rounds, turn = _effect(state, event, explains=False)
        if ctx is not None and updated:
            _check_moves(rules, steps.characters, updated)
            steps.characters.update(updated)
        if ended:
            self.quick.clear()  # a quick step folds no event of an ended fight
        steps.state = msgspec.structs.replace(
            state, seq=state.seq + 1, ended=ended, rounds=rounds, turn=turn
        )

    def pass_over(self) -> None:
        """Pass over an event without effect (voided, or retracted by a later undo)."""
        steps = self._steps
        assert steps is not None  # the first event, fight_started, is never skipped
        steps.seq += 1

    @property
    def seq(self) -> int:
        return 0 if self._steps is None else self._steps.seq


class _Steps:
    """One fight's quick steps and its working state, compiled once from its ruleset: per event
    type, a function that folds a plain event of that type into the working map, moves `state`
    on past it and says True, or changes nothing and says False (the event then takes the
    generic way, which refuses or does it)."""

    def __init__(self, rules: Ruleset, characters: Roster[Any], state: FightState[Any]) -> None:
        self.rules = rules
        self.characters = characters
        # the fight as folded so far, on `characters`: where it stands in its log (`seq`,
        # `rounds`, `turn`) kept apart and written into a FightState only when one is read
        # (`state`), not once an event; a quick step hands its handler `base`, whose position
        # may lag, unless its ruleset reads it (`Ruleset.reads_position`)
        self.base = state
        self.seq = state.seq
        self.rounds = state.rounds
        self.turn = state.turn
        self.stale_base = not rules.reads_position
        # what every Dice of the fight shares: set up once (a fold's fight keeps its options)
        self.ctx = Context("", _no_dice, rules.graph, state.options, explains=False)
        self.dice = dice_of(state, rules, records=False)("", {})  # each event's in turn
        # the dice of each event that gives none, drawn in one call (none: `strict_dice`)
        self.draws: Draws | None = None
        if not state.options["strict_dice"]:
            self.draws = Draws(state.seed, rules.dice, version=state.version)
        self.event: Event | None = None
        self.checks = checks_of(rules)
        self.allows = rules.graph.allows  # `_declared` of one who has joined, one call fewer
        self.edges = rules.graph.edges  # what `allows` reads of a move to another state
        self.make_dice = self._dice  # bound once: a Context takes it as the maker of its Dice
        self.make_treatment_dice = self._treatment_dice
        # each step its handler bound in, made in C: one Python call fewer per event
        self.quick: dict[type, Callable[[Any], bool]] = {
            Hit: functools.partial(self._treat, rules.on_hit, self.checks.clear[Hit]),
            Heal: functools.partial(self._treat, rules.on_heal, self.checks.clear[Heal]),
            TurnStarted: functools.partial(self._tick, rules.on_turn_started),
            TurnEnded: functools.partial(self._tick, rules.on_turn_ended),
        }

    @property
    def state(self) -> FightState[Any]:
        """The fight as folded so far, its position written in."""
        base = self.base
        if base.seq != self.seq or base.rounds is not self.rounds or base.turn is not self.turn:
            base = self.base = msgspec.structs.replace(
                base, seq=self.seq, rounds=self.rounds, turn=self.turn
            )
        return base

    @state.setter
    def state(self, state: FightState[Any]) -> None:
        self.base = state
        self.seq, self.rounds, self.turn = state.seq, state.rounds, state.turn

    def _dice(self) -> Dice:
        event = self.event
        assert event is not None
        return self.dice.anew(self.ctx.event_id, event.rolls, _concerns(event))

    def _treatment_dice(self) -> Dice:
        """`_dice` of a hit or a heal: they concern their target (`_concerns`, known here)."""
        event: Any = self.event
        return self.dice.anew(self.ctx.event_id, event.rolls, event.target)

    def _treat(
        self,
        handler: Callable[..., Character],
        clears: Callable[[FightState[Any], Any], Any | None],
        event: Any,
    ) -> bool:
        """A hit or a heal on its target, if it passes the checks `apply` makes (`Checks`)."""
        state = self.base if self.stale_base else self.state
        target = clears(state, event)
        if target is None:
            return False
        seq = self.seq + 1
        # the reused Context made the event's: its name (`Context.event_id`, put into words
        # only when read), and its Dice (made now if dice are given, which are checked whether
        # rolled or not; else when a rule first rolls)
        ctx = self.ctx  # its options are the fight's, set once; its character stays None
        ctx.named, ctx.seq = event.id, seq
        self.event = event
        ctx.pulse = None
        try:
            draws = self.draws
            if event.rolls:
                ctx._dice = self._treatment_dice()
            elif draws is not None:
                draws.named, draws.seq, draws.drawn = event.id, seq, None
                ctx._dice = draws
            else:
                ctx._dice = self.make_treatment_dice
            now = handler(state, target, event, ctx)
            if now is not target:
                moved = (target.state, now.state)  # `allows`, for a move: asked in C
                if moved[0] != moved[1] and moved not in self.edges:
                    _check_moves(self.rules, self.characters, {event.target: now})  # raises
                characters = self.characters
                if characters.indexing:
                    characters.put(event.target, now)
                else:  # `put`, written in: his side's map and the whole one
                    characters.side(now.side)[event.target] = characters[event.target] = now
        except WoundlogError as exc:
            raise exc.located(event=event_ref(event, seq)) from None
        self.seq = seq
        return True

    def _ticked(self, updated: Mapping[str, Character]) -> None:
        """Write what a turn updated (someone), once every move in it is known to be declared."""
        characters, rules = self.characters, self.rules
        for cid, now in updated.items():
            was = characters.get(cid)
            if was is None or (was.state != now.state and (was.state, now.state) not in self.edges):
                _check_moves(rules, characters, updated)  # raises, or clears a joining
                characters.update(updated)
                return
        for cid, now in updated.items():
            characters.put(cid, now)

    def _tick(
        self,
        handler: Callable[[FightState[Any], Any, Context], Mapping[str, Character]],
        event: Any,
    ) -> bool:
        """A turn's start or end, on the characters of its scope (`Checks.in_scope`, asked
        here of the working map in a step or two)."""
        state = self.base if self.stale_base else self.state
        if event.character is not None:
            if event.character not in self.characters:
                return False
        elif event.side is not None and not self.characters.has_side(event.side):
            return False
        seq = self.seq + 1
        ctx = self.ctx  # made the event's, as `_treat` makes it
        ctx.named, ctx.seq = event.id, seq
        self.event = event
        try:
            draws = self.draws
            if event.rolls:
                ctx._dice = self._dice()
            elif draws is not None:
                draws.named, draws.seq, draws.drawn = event.id, seq, None
                ctx._dice = draws
            else:
                ctx._dice = self.make_dice
            said, rounds = pulse(self.rounds, event, state.version)
            ctx.pulse = said
            updated = handler(state, event, ctx)
            if updated:  # `_ticked`, written in: each move declared, then each written
                characters, edges = self.characters, self.edges
                for cid, now in updated.items():
                    was = characters.get(cid)
                    if was is None or (
                        was.state != now.state and (was.state, now.state) not in edges
                    ):
                        self._ticked(updated)
                        break
                else:
                    if characters.indexing:
                        for cid, now in updated.items():
                            characters.put(cid, now)
                    else:  # `put`, written in
                        side = characters.side
                        for cid, now in updated.items():
                            side(now.side)[cid] = characters[cid] = now
        except WoundlogError as exc:
            raise exc.located(event=event_ref(event, seq)) from None
        turn = self.turn
        # whose turn it is moves only with a tick of one character, someone's turn under way,
        # or a new round (`core.initiative.ticked`, which says so)
        if event.character is not None or turn.current is not None or said.round != turn.round:
            self.turn = ticked(turn, event, said, state.characters)
        self.seq, self.rounds = seq, rounds
        return True


class _Treatment(NamedTuple):
    """What the checks of a hit or a heal read: which facts are whose (`FACTS[kind]`), the
    field naming who acts, whether he attacks or heals, and the test of its facts."""

    kind: str
    role: str
    attack: bool
    unstated: Callable[[Any], bool]


class Checks:
    """The checks an event takes before its ruleset's handler, compiled once per ruleset from
    its declarations: that a hit or a heal states no fact the ruleset does not read, that its
    target is in the fight and its attacker or healer, a character of the fight, may act
    (`Ruleset.who_may_act`); that a turn's scope is in the fight. `apply` and a Fold's quick
    steps ask the same ones, so speed never forks the rules: the quick step asks whether an
    event passes (`clears`, `in_scope`); `apply` refuses one that does not, with the rules'
    words (`_refuse_treatment`, `_check_scope`)."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.treatments: dict[type, _Treatment] = {
            Hit: _Treatment("hit", "attacker", True, _unstated(Hit, rules.hit_facts, "hit")),
            Heal: _Treatment("heal", "healer", False, _unstated(Heal, rules.heal_facts, "heal")),
        }
        # who may act, as a table of the states that may not, unless the ruleset words its own
        # exceptions (then asked each time); None: ask the ruleset
        base, kind = Ruleset.__dict__, type(rules)
        states = rules.graph.states
        self.no_attack: frozenset[str] | None = None
        self.no_heal: frozenset[str] | None = None
        if (
            kind.acting is base["acting"]
            and kind.why_attacker_cannot is base["why_attacker_cannot"]
        ):
            self.no_attack = frozenset(
                s for s in states if not rules.who_may_act.get(s, ACTS).attack
            )
        if kind.acting is base["acting"] and kind.why_healer_cannot is base["why_healer_cannot"]:
            self.no_heal = frozenset(s for s in states if not rules.who_may_act.get(s, ACTS).heal)
        self.clear = {kind: self._clearer(kind) for kind in (Hit, Heal)}

    def clears(self, fight: FightState[Any], event: Hit | Heal) -> Any | None:
        """The target of a hit or a heal that passes every check before its handler: it states
        no fact the ruleset does not read, its target is in the fight, and its attacker or
        healer, if a character of the fight, may act. None if it fails one."""
        return self.clear[type(event)](fight, event)

    def _clearer(self, kind: type[Hit | Heal]) -> Callable[[FightState[Any], Any], Any | None]:
        """`clears` of one type of event, its checks bound in: the quick step calls it once an
        event, and from the table of who may act it asks no further function."""
        treatment = self.treatments[kind]
        unstated, attack = treatment.unstated, treatment.attack
        actor_of = operator.attrgetter(treatment.role)
        unable = self.no_attack if attack else self.no_heal
        if unable is None:

            def asking(fight: FightState[Any], event: Any) -> Any | None:
                target = fight.characters.get(event.target)
                if target is None or not unstated(event):
                    return None
                actor_id = actor_of(event)
                if actor_id is not None and not self.may_act(fight, event, actor_id, attack):
                    return None
                return target

            return asking

        def from_the_table(fight: FightState[Any], event: Any) -> Any | None:
            characters = fight.characters
            target = characters.get(event.target)
            if target is None or not unstated(event):
                return None
            actor = characters.get(actor_of(event))  # None: no actor, or one from outside
            if actor is not None and actor.state in unable:
                return None
            return target

        used = self.rules.hit_facts if attack else self.rules.heal_facts
        run = _unread_run(kind, used, treatment.kind)
        if run is None:
            return from_the_table
        first, last, nones = run

        def from_the_table_in_one_slice(fight: FightState[Any], event: Any) -> Any | None:
            # `from_the_table`, its facts' test (`_unstated`: one slice of the event's fields)
            # written in: one call an event fewer
            characters = fight.characters
            target = characters.get(event.target)
            if target is None or astuple(event)[first:last] != nones:
                return None
            actor = characters.get(actor_of(event))  # None: no actor, or one from outside
            if actor is not None and actor.state in unable:
                return None
            return target

        return from_the_table_in_one_slice

    def may_act(self, fight: FightState[Any], event: Any, actor_id: str, attack: bool) -> bool:
        """Whether `actor_id` may strike this hit (`attack`) or give this heal: one from
        outside the fight (a trap, a spell) may; a character of the fight as the rules say,
        from the table when the ruleset makes no exceptions."""
        actor = fight.characters.get(actor_id)
        if actor is None:
            return True
        unable = self.no_attack if attack else self.no_heal
        if unable is not None:
            return actor.state not in unable
        return self.why_not(fight, event, actor_id, actor, attack) is None

    def why_not(
        self, fight: FightState[Any], event: Any, actor_id: str, actor: Any, attack: bool
    ) -> str | None:
        """Why `actor`, a character of the fight, may not act, in the rules' words; None if he
        may."""
        if attack:
            return self.rules.why_attacker_cannot(fight, actor_id, actor, event)
        return self.rules.why_healer_cannot(fight, actor_id, actor, event)

    @staticmethod
    def in_scope(fight: FightState[Any], turn: TurnStarted | TurnEnded) -> bool:
        """Whether a turn's scope is in the fight: its character has joined, or someone is on
        its side, or it is the whole round's."""
        if turn.character is not None:
            return turn.character in fight.characters
        return turn.side is None or fight.has_side(turn.side)


@functools.cache
def checks_of(rules: Ruleset) -> Checks:
    """A ruleset's Checks, compiled the first time a fight of it asks (a pure memo: a ruleset
    declares its facts and who may act once, as class data)."""
    return Checks(rules)


def dice_of(
    fight: FightState[Any], rules: Ruleset, *, missing: Missing | None = None, records: bool
) -> Callable[..., Dice]:
    """The maker of this fight's Dice: given an event's id, its given dice and `owner` (the
    character it concerns), its Dice, keyed by the fight's seed, drawn as its version says."""
    return functools.partial(
        Dice,
        fight.seed,
        sides=rules.dice,
        strict=bool(fight.options["strict_dice"]),
        version=fight.version,
        hints=rules.dice_hints,
        missing=missing,
        records=records,
    )


def _unread_run(
    kind: type[Hit | Heal], used: frozenset[str], name: str
) -> tuple[int, int, tuple[None, ...]] | None:
    """Where the facts of `kind` its ruleset does not read (`used`: those it reads) lie among
    the event's fields, when they are one run of them (most often: the facts are the last
    fields but the common ones): the run's first place, its end, and as many Nones. None if
    there are none, or they are not one run."""
    unread, _ = _unread_facts(used, name)
    fields = kind.__struct_fields__
    places = [fields.index(fact) for fact in unread]
    if not places or places != list(range(places[0], places[-1] + 1)):
        return None
    return places[0], places[-1] + 1, (None,) * len(places)


def _unstated(kind: type[Hit | Heal], used: frozenset[str], name: str) -> Callable[[Any], bool]:
    """A test that an event states none of the facts its ruleset does not read. The facts are
    the last fields but the common ones, so the unread ones are most often a run of fields:
    one slice of the event's fields as a tuple, made in C."""
    unread, values = _unread_facts(used, name)
    if not unread:
        return lambda event: True
    run = _unread_run(kind, used, name)
    if run is not None:
        first, last, nones = run
        return lambda event: astuple(event)[first:last] == nones
    nones = (None,) * len(unread)
    return lambda event: values(event) == nones


def _no_dice() -> Dice:
    raise AssertionError("a quick step's Context is made the event's before it rolls")


def refuse_strangers_dice(state: FightState[Any], event: Event) -> None:
    """Refuse, on append, a die given for a character who is not in the fight (`injury@gim`
    in a fight of `grim`), naming the nearest, as a purpose the rules never roll is refused.
    Not on replay: a log recorded before this check drew the die instead, and still does."""
    if state.version < SCOPED_DRAW:
        return
    replaced = event.replacement if isinstance(event, Amend) else event
    joining = replaced.character if isinstance(replaced, CharacterJoined) else None
    known = state.characters if joining is None else {**state.characters, joining: None}
    key = check_owners(replaced.rolls, known)
    if key is not None:
        _, character = split_scope(key)
        assert character is not None
        field = f"$.replacement.rolls.{key}" if replaced is not event else f"$.rolls.{key}"
        raise RuleError(
            unknown_character(character, state.characters),
            event=event_ref(event, state.seq + 1),
            field=field,
        )


def _concerns(event: Event) -> str | None:
    """The one character an event is about (a hit's target, a choice's chooser, a turn of one
    character), whose dice may be given as `purpose@character` too; None for an event about
    several, whose rules roll per character through `Context.for_character`."""
    field = _CONCERNED.get(type(event))
    return None if field is None else cast(str | None, getattr(event, field))


_CONCERNED = {
    Hit: "target",
    Heal: "target",
    Choice: "character",
    Check: "character",
    StatChanged: "character",
    TurnStarted: "character",
    TurnEnded: "character",
}
"""The field that names the character an event is about, by the event's type (`_concerns`:
asked of every event, by its type rather than `isinstance`, as `_effect` says why)."""


def _undo_marker(state: FightState[Any], event: Event) -> Changes:
    assert isinstance(event, _UNDO)
    verb = "retracts" if isinstance(event, Retract) else "amends"
    said = f"{verb} {event.event}" + (f" ({event.reason})" if event.reason else "")
    eid = event_ref(event, state.seq)
    return Changes(seq=state.seq, event=eid, type=type_name(event), explanation=said)


def _on_event(
    rules: Ruleset, state: FightState[Any], event: Event, ctx: Context
) -> tuple[Mapping[str, Character], bool]:
    """The event handed, by its type, to its ruleset's handler (`on_hit`, `on_turn_started`,
    ...) after the checks of that type: the characters it updates (new or changed), and
    whether the fight has ended."""
    characters = state.characters
    match event:
        case Hit() | Heal():
            target = checks_of(rules).clears(state, event)
            if target is None:
                _refuse_treatment(rules, state, event, ctx)
            if isinstance(event, Hit):
                treated = rules.on_hit(state, target, event, ctx)
            else:
                treated = rules.on_heal(state, target, event, ctx)
            _say_outsider(state, event, ctx)
            return {event.target: treated}, False
        case TurnStarted():
            _check_scope(rules, state, event, ctx)
            return rules.on_turn_started(state, event, ctx), False
        case TurnEnded():
            _check_scope(rules, state, event, ctx)
            return rules.on_turn_ended(state, event, ctx), False
        case CharacterJoined():
            if event.character in characters:
                raise ctx.refuse(f"{event.character} has already joined", "$.character")
            joined = rules.join(state, event, ctx)
            ctx.say("{joined.name} joins ({joined.state})", joined=joined)
            return {event.character: joined}, False
        case Choice():
            chooser = _character(state, event.character, "$.character", ctx)
            return {event.character: rules.on_choice(state, chooser, event, ctx)}, False
        case Check():
            roller = _character(state, event.character, "$.character", ctx)
            return {event.character: rules.on_check(state, roller, event, ctx)}, False
        case StatChanged():
            changed = _character(state, event.character, "$.character", ctx)
            _check_changeable(rules, event, ctx)
            return {event.character: rules.on_stat_changed(state, changed, event, ctx)}, False
        case FightEnded():
            ctx.say("the fight ends")
            return {}, True
        case TurnOrder():  # the turns it orders: `_effect` (`core.initiative`)
            return {}, False
        case _:
            raise AssertionError(f"unhandled event {event!r}")


def _character(state: FightState[Any], character_id: str, field: str, ctx: Context) -> Any:
    character = state.characters.get(character_id)
    if character is None:
        joined = ", ".join(state.characters) or "nobody yet"
        raise ctx.refuse(f"no character `{character_id}` in this fight (joined: {joined})", field)
    return character


def _check_changeable(rules: Ruleset, change: StatChanged, ctx: Context) -> None:
    """Refuse a `stat_changed` of a stat its ruleset does not let one set, naming those it
    does (`Ruleset.changeable_stats`)."""
    changeable = rules.changeable_stats
    if change.stat in changeable:
        return
    if not changeable:
        raise ctx.refuse(
            f"{rules.name} lets a `stat_changed` set none of its stats (its rules derive them "
            f"all), not `{change.stat}`",
            "$.stat",
        )
    known = ", ".join(f"`{stat}` ({what})" for stat, what in changeable.items())
    raise ctx.refuse(
        f"{rules.name} lets a `stat_changed` set {known}, not `{change.stat}`", "$.stat"
    )


def _refuse_treatment(
    rules: Ruleset, state: FightState[Any], event: Hit | Heal, ctx: Context
) -> NoReturn:
    """Refuse a hit or a heal `Checks.clears` did not clear, naming the first check it fails:
    a fact the ruleset does not read (the first stated, in declaration order), a target not in
    the fight, then an attacker or healer of the fight whose state the rules say cannot act."""
    checks = checks_of(rules)
    kind, role, attack, unstated = checks.treatments[type(event)]
    if not unstated(event):
        unread, stated = _unread_facts(rules.hit_facts if attack else rules.heal_facts, kind)
        fact = next(f for f, v in zip(unread, stated(event), strict=True) if v is not None)
        raise ctx.refuse(f"this ruleset does not use the fact `{fact}` on a {kind}", f"$.{fact}")
    _character(state, event.target, "$.target", ctx)
    actor_id = getattr(event, role)
    actor = state.characters[actor_id]
    why = checks.why_not(state, event, actor_id, actor, attack)
    assert why is not None, "Checks.may_act and Checks.why_not disagree"
    raise ctx.refuse(f"{actor.name} {why}", f"$.{role}")


def _say_outsider(state: FightState[Any], event: Hit | Heal, ctx: Context) -> None:
    """Of an attacker or healer from outside the fight (a trap, a spell), say so, so that a
    typo shows."""
    role = "attacker" if isinstance(event, Hit) else "healer"
    actor_id = getattr(event, role)
    if actor_id is not None and actor_id not in state.characters:
        ctx.say("{role} `{actor}` is not a character of this fight", role=role, actor=actor_id)


@functools.cache
def _unread_facts(used: frozenset[str], kind: str) -> tuple[tuple[str, ...], Any]:
    """The facts of `kind` outside `used`, and a getter of their values as one tuple."""
    unread = tuple(fact for fact in FACTS[kind] if fact not in used)
    if len(unread) > 1:
        return unread, operator.attrgetter(*unread)
    return unread, lambda event: tuple(getattr(event, fact) for fact in unread)


def _check_scope(
    rules: Ruleset, state: FightState[Any], turn: TurnStarted | TurnEnded, ctx: Context
) -> None:
    """Refuse a turn whose scope `Checks.in_scope` does not find in the fight."""
    if checks_of(rules).in_scope(state, turn):
        return
    if turn.character is not None:
        _character(state, turn.character, "$.character", ctx)
    elif turn.side is not None:
        sides = ", ".join(dict.fromkeys(c.side for c in state.characters.values())) or "none yet"
        raise ctx.refuse(f"no character is on side `{turn.side}` (sides: {sides})", "$.side")


def _check_moves(
    rules: Ruleset, before: Mapping[str, Character], updated: Mapping[str, Character]
) -> None:
    """Raise IllegalTransition, as `apply` would, if the event moved a character in a way the
    ruleset's Machine does not declare."""
    for cid, now in updated.items():
        was = before.get(cid)
        if (was is None or was.state != now.state) and not _declared(rules, was, now):
            _moved(rules, before, {**before, **updated}, updated)  # raises, naming the first


def _declared(rules: Ruleset, was: Character | None, now: Character) -> bool:
    """Whether the Machine declares the move (for a character joining: its first state)."""
    if was is None:
        return now.state in rules.graph.states
    return rules.graph.allows(was.state, now.state)


def _moved(
    rules: Ruleset,
    before: Mapping[str, Character],
    after: Mapping[str, Character],
    updated: Mapping[str, Character],
) -> list[CharacterChange]:
    """`diff(rules, before, after)` of one event, looking only at the characters it updated:
    every other one is the very object it was before."""
    if len(updated) > 1:  # report them in the fight's order, as `diff` does
        order = list(filter(updated.__contains__, after))
        if order != list(updated):
            updated = {cid: updated[cid] for cid in order}
    return diff(rules, before, updated)


def diff(
    rules: Ruleset,
    before: Mapping[str, Character],
    after: Mapping[str, Character],
    *,
    moves: bool = True,
) -> list[CharacterChange]:
    """Per character that changed: its state before and after, counters, injuries gained.

    With `moves` (one event's effect), every state move must be one the ruleset's Machine
    declares; anything else is a bug. Without (an undo's consequences), any difference is shown,
    and a character the undo removed shows `after` as None.
    """
    changes: list[CharacterChange] = []
    for cid, now in after.items():
        was = before.get(cid)
        if was is now or was == now:
            continue
        if was is None:
            if not _declared(rules, was, now):
                raise IllegalTransition(f"{rules.name}: {cid} joined in undeclared {now.state}")
            changes.append(
                CharacterChange(character=cid, name=now.name, before=None, after=now.state)
            )
            continue
        if moves and not _declared(rules, was, now):
            raise IllegalTransition(f"{rules.name}: {cid} moved {was.state} -> {now.state}")
        counters: dict[str, tuple[Any, Any]] = {}
        gained: list[Any] = []
        removed: list[Any] = []
        for field in _changed_fields(was, now):
            if field == "state":
                continue
            old, new = getattr(was, field), getattr(now, field)
            if field == "injuries":
                gained, removed = _injuries_gained_and_removed(old, new)
            elif isinstance(new, dict):
                for key in dict.fromkeys([*old, *new]):
                    if old.get(key) != new.get(key):
                        counters[f"{field}.{key}"] = (old.get(key), new.get(key))
            else:
                counters[field] = (old, new)
        changes.append(
            CharacterChange(
                character=cid,
                name=now.name,
                before=was.state,
                after=now.state,
                counters=counters,
                injuries=gained,
                injuries_removed=removed,
            )
        )
    if not moves:
        changes.extend(
            CharacterChange(character=cid, name=was.name, before=was.state, after=None)
            for cid, was in before.items()
            if cid not in after
        )
    return changes


def _injuries_gained_and_removed(
    old: Sequence[Any], new: Sequence[Any]
) -> tuple[list[Any], list[Any]]:
    """Injuries in `new` but not `old`, and in `old` but not `new`, counted as a multiset: a
    second Internal Injury is gained even though the first is already there."""
    left = list(old)
    gained = []
    for injury in new:
        if injury in left:
            left.remove(injury)
        else:
            gained.append(injury)
    return gained, left


def _changed_fields(was: Character, now: Character) -> Iterable[str]:
    """The fields of `now` whose value differs from the one `was` has, in declaration order."""
    fields = now.__struct_fields__
    if type(was) is type(now):  # the usual case: every field compared in one go
        return compress(fields, map(ne, astuple(was), astuple(now)))
    return [field for field in fields if getattr(was, field) != getattr(now, field)]

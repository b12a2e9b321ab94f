"""What a ruleset is: its state graph, dice, stats, facts and options, and one handler per event.

A ruleset subclasses `Ruleset`, declares its data as class attributes and overrides the handlers
its game has. A handler receives the fight, the event and a `Context` (the event's dice and its
explanation) and returns new characters; it never reaches out: no store, no clock, no printing.
A handler the game has no rule for refuses the event with a RuleError that says so.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

import msgspec

from woundlog.events import (
    CharacterJoined,
    Check,
    Choice,
    Heal,
    Hit,
    RuleError,
    StatChanged,
    StructuralError,
    TurnEnded,
    TurnStarted,
)
from woundlog.events.importers.rules import ImportRules

from .dice import Dice
from .fight_state import Character, FightState, Roster, TickConcern
from .initiative import RULE as ORDER_RULE
from .machine import Graph
from .presentation import Presentation
from .states import HARM, State
from .turns import RULE as TURNS_RULE
from .turns import Pulse

Options = dict[str, bool | int | str]
CharacterT = TypeVar("CharacterT", bound=Character)


class Acting(msgspec.Struct, frozen=True):
    """What a character in one state may do, and why not, in the words of the rules (`is
    stunned and may do nothing at all`): an attack or heal by one who may not is refused when
    appended."""

    attack: bool
    heal: bool
    why: str = ""


ACTS = Acting(attack=True, heal=True)
"""A character who may attack and heal: the default for a state a ruleset does not list."""

EMPTY: Mapping[str, Any] = {}
"""The side of nobody (a fold's side map has none of that name)."""

COMMON_OPTIONS: Options = {"strict_dice": False}
"""Options every ruleset has: `strict_dice` makes a missing die an error instead of a draw."""


class Context:
    """One event being resolved: its id, its dice, its ruleset's graph, and what it did.

    In an event that concerns several characters (a turn's end), `for_character` gives the
    context of one of them: the same event, whose dice are that character's own.

    `explains` is False when nobody will read the explanation (a fold that keeps only state):
    `say` then keeps and formats nothing. A rule hands `say` its sentence as a template and the
    values it reads (STYLE.md: the wording beside the rule, its cost only when read); a
    sentence put together over several steps is built under `if ctx.explains`.
    `dice` may be given as a function that makes them: most events roll nothing, so their
    Dice are made only when a rule first asks for one."""

    __slots__ = (
        "_dice",
        "character",
        "explains",
        "graph",
        "named",
        "options",
        "pulse",
        "said",
        "seq",
    )

    def __init__(
        self,
        event_id: str,
        dice: Dice | Callable[[], Dice],
        graph: Graph,
        options: Options,
        *,
        character: str | None = None,
        said: list[str] | None = None,
        explains: bool = True,
    ) -> None:
        self.named: str | None = event_id
        """The event's own id, if it has one; else it is named by its position, `seq`."""
        self.seq = 0
        self._dice = dice
        self.graph = graph
        self.options = options
        self.character = character
        self.said: list[str] = [] if said is None else said
        self.explains = explains
        self.pulse: Pulse | None = None
        """Of a tick: whose turn it starts or ends, and whether a round ends (`core.turns`)."""

    @property
    def event_id(self) -> str:
        """The event's name: its id, or `#N` for the N-th event of the fight with none (put
        into words only when read: a die drawn, a refusal; a fold of plain events reads none)."""
        named = self.named
        return named if named is not None else f"#{self.seq}"

    @event_id.setter
    def event_id(self, event_id: str) -> None:
        self.named = event_id

    def for_character(self, character: str) -> Context:
        """This event as it concerns `character` alone: dice rolled through it are that
        character's (`downed@brakk`), so nobody else's dice move when the others change."""
        ctx = Context(
            self.event_id,
            self.dice,
            self.graph,
            self.options,
            character=character,
            said=self.said,
            explains=self.explains,
        )
        ctx.pulse = self.pulse
        return ctx

    @property
    def dice(self) -> Dice:
        """The event's dice (made now if they were given as a function that makes them)."""
        if not isinstance(self._dice, Dice):
            self._dice = self._dice()
        return self._dice

    def roll(self, purpose: str) -> int:
        dice = self._dice
        if not isinstance(dice, Dice):  # its first die: the Dice made now, as `dice` makes them
            dice = self._dice = dice()
        return dice.roll(purpose, self.character)

    def say(self, text: str, /, **values: object) -> None:
        """Add a sentence to the explanation: `text` as it is, or, given `values`, a template
        (`str.format`: `"{warrior.name} loses {damage}"`) put into words from them only when
        someone will read it, so a fold that keeps only state formats nothing."""
        if self.explains:
            self.said.append(text.format_map(values) if values else text)

    def move(self, character: CharacterT, trigger: str) -> CharacterT:
        """Fire `trigger` on the character; the ruleset's Machine must declare the move."""
        return msgspec.structs.replace(character, state=self.graph.fire(character.state, trigger))

    def refuse(self, message: str, field: str | None = None) -> RuleError:
        return RuleError(message, event=self.event_id, field=field)


class Ruleset:
    """Base of every ruleset. Subclasses set the class attributes and override handlers."""

    name: ClassVar[str]
    graph: ClassVar[Graph]
    character: ClassVar[type[Character]]
    dice: ClassVar[Mapping[str, int]] = {}
    """Die purposes the rules roll, with the number of sides of each."""
    dice_harm: ClassVar[Mapping[str, Mapping[int, int]]] = {}
    """Per die purpose, what each result does, as harm (larger is worse), for a person asking how
    lucky a roll was: a D66 by its result's severity, not its number; a death save's 1 worse than
    any other failure. A purpose not listed has no order of harm (a hit location): its dice are
    read by their faces alone."""
    dice_readings: ClassVar[Mapping[str, str]] = {}
    """Per die purpose, how the rules read that purpose's dice of one event together (for a
    person asking how lucky they were): `highest` (the worst of several results stands),
    `total` (summed), `tens_units` (a D66: pairs read as tens then units). A purpose not
    listed reads each die on its own."""
    stats: ClassVar[Mapping[str, int | None]] = {}
    """Stats a character has, with their defaults (None: required)."""
    optional_stats: ClassVar[tuple[str, ...]] = ()
    """Stats a character may also carry (for reference, or for a house rule); kept only when
    given, so "not given" stays distinguishable from any value."""
    dice_hints: ClassVar[Mapping[str, str]] = {}
    """Per die purpose, what to tell someone who gave it a value it cannot show (a D66)."""
    dice_words: ClassVar[Mapping[str, str]] = {}
    """Per die purpose, what the table calls that roll (`injury`: `Injury roll`), for a page
    that asks the table for it; a purpose not listed is called by its name (`Death save`)."""
    who_may_act: ClassVar[Mapping[State, Acting]] = {}
    """Per state, whether a character in it may attack and heal, the one table appends are
    checked against; a state not listed may do both."""
    raises_the_dead: ClassVar[bool] = False
    """Whether some rule (or house rule) of this game brings a character back from `dead`."""
    kinds: ClassVar[tuple[str, ...]] = ("character",)
    """Kinds of character; the first is the default."""
    permanence: ClassVar[Any] = None
    """What outlasts a fight in a campaign (a `core.permanence.Permanence`, declared beside the
    rules in the ruleset's module)."""
    hit_facts: ClassVar[frozenset[str]] = frozenset()
    heal_facts: ClassVar[frozenset[str]] = frozenset()
    heal_means: ClassVar[tuple[str, ...]] = ()
    """The means of healing a form offers: those the rules name, and the common ones they take
    as ordinary healing (the rules check whatever is given)."""
    checks: ClassVar[tuple[str, ...]] = ()
    """The checks the table may roll for the rules (`check` events), for a form to offer."""
    choices: ClassVar[tuple[str, ...]] = ()
    """The decisions the rules leave to a player (`choice` events), for a form to offer."""
    options: ClassVar[Options] = {}
    """House rules, with their defaults."""
    changeable_stats: ClassVar[Mapping[str, str]] = {}
    """The stats a `stat_changed` may set, each with what it is (dnd5e's `hp`: `the hit point
    maximum`): a change the rules do not derive (an effect, a sheet edited). A ruleset that
    names none refuses every `stat_changed`, naming `$.stat`; the reducer checks the stat
    against this table, then hands the event to `on_stat_changed`."""
    tick_concerns: ClassVar[Mapping[str, TickConcern]] = {}
    """Per kind of tick (`turn_started`, `turn_ended`), whom one can do anything to: the
    states, and the counters, in which it moves a character, changes a counter of his, rolls a
    die for him or names him. A fold keeps an index of them (`Roster`), so a tick that asks for
    its characters through `ticked` visits them alone, not the whole fight. A kind not listed
    concerns everyone."""
    reads_position: ClassVar[bool] = False
    """Whether a handler reads where the fight stands in its log (`fight.seq`, `fight.rounds`,
    `fight.turn`: d26's Last Stand counts the event it was taken at). A fold writes them into
    the fight it hands a handler only for a ruleset that does; the others' handlers see the
    characters, options and tables as they stand, and a position that may lag
    (`tests/core/test_reads_position.py` checks each ruleset's source against it)."""
    tables: ClassVar[Mapping[str, Any]] = {}
    """Tables a fight may replace (`fight_started.tables`), each with its default: a msgspec
    Struct (or other msgspec-typed value) whose type a replacement must decode as."""
    presentation: ClassVar[Presentation] = Presentation()
    """Its pools, the GM's kinds, default sides and what a page shows (`core.presentation`):
    what pages, importers and reports read instead of knowing the game."""
    importing: ClassVar[ImportRules | None] = None
    """How another program's hit points map onto it, for the importers (`events.importers`);
    None: nothing can be imported into it (`not_importable` says why)."""
    not_importable: ClassVar[str] = "it declares no mapping of hit points onto its stats"

    @classmethod
    def documentation(cls) -> str:
        import inspect

        own = inspect.getdoc(inspect.getmodule(cls)) or ""
        shared = f"{textwrap.fill(TURNS_RULE, 96)}\n\n{textwrap.fill(ORDER_RULE, 96)}"
        return f"{own}\n\n{shared}" if own else shared

    # --- setting up -------------------------------------------------------------------------

    def check_options(self, given: Mapping[str, bool | int | str]) -> Options:
        """The fight's options: the defaults, overridden by those given (all checked)."""
        defaults = {**COMMON_OPTIONS, **self.options}
        for key, value in given.items():
            if key not in defaults:
                known = ", ".join(sorted(defaults))
                raise StructuralError(
                    f"{self.name} has no option `{key}` (it has: {known})",
                    field=f"$.options.{key}",
                )
            expected = type(defaults[key])
            if type(value) is not expected:
                raise StructuralError(
                    f"option `{key}` takes a {expected.__name__}, not {value!r}",
                    field=f"$.options.{key}",
                )
        return {**defaults, **given}

    def check_tables(self, given: Mapping[str, Any]) -> None:
        for key, value in given.items():
            default = self.tables.get(key)
            if default is None:
                known = ", ".join(sorted(self.tables)) or "none"
                raise StructuralError(
                    f"{self.name} has no table `{key}` to replace (it has: {known})",
                    field=f"$.tables.{key}",
                )
            try:
                msgspec.convert(value, type(default))
            except msgspec.ValidationError as exc:
                raise StructuralError(f"table `{key}`: {exc}", field=f"$.tables.{key}") from None

    def table(self, fight: FightState[Any], name: str) -> Any:
        """The table `name` this fight plays with: the one its log carries, else the default."""
        default = self.tables[name]
        given = fight.tables.get(name)
        return default if given is None else _decoded(type(default), given)

    def join(self, fight: FightState[Any], event: CharacterJoined, ctx: Context) -> Character:
        """A new character, with stats checked against the ruleset and defaults filled in."""
        kind = event.kind or self.kinds[0]
        if kind not in self.kinds:
            raise ctx.refuse(
                f"{self.name} has no kind `{kind}` (it has: {', '.join(self.kinds)})", "$.kind"
            )
        optional = self.optional_stat_names(fight)
        for stat in event.stats:  # a misspelt stat first: it explains the missing one
            if stat not in self.stats and stat not in optional:
                known = [*self.stats, *optional]
                import difflib  # here, not at the top: only a misspelt stat needs it

                near = difflib.get_close_matches(stat.lower(), known, n=1)
                raise ctx.refuse(
                    f"{self.name} has no stat `{stat}` (it has: {', '.join(known)})"
                    + (f"; did you mean `{near[0]}`?" if near else ""),
                    f"$.stats.{stat}",
                )
        stats: dict[str, int] = {}
        for stat, default in self.stats.items():
            value = event.stats.get(stat, default)
            if value is None:
                raise ctx.refuse(f"{self.name} needs stat `{stat}`", f"$.stats.{stat}")
            stats[stat] = value
        for stat, value in event.stats.items():
            if stat in optional:
                stats[stat] = value
        return self.new_character(event, kind, stats, ctx)

    def optional_stat_names(self, fight: FightState[Any]) -> tuple[str, ...]:
        """The optional stats of this fight (a ruleset whose tables name stats overrides it)."""
        return self.optional_stats

    def new_character(
        self, event: CharacterJoined, kind: str, stats: dict[str, int], ctx: Context
    ) -> Character:
        raise NotImplementedError

    def basics(
        self, event: CharacterJoined, kind: str, stats: dict[str, int], *, side: str = ""
    ) -> dict[str, Any]:
        """What every character starts with, whatever the game: the Machine's first state, a
        name (the id when none is given), side, kind, the stats as joined, and gear."""
        return {
            "state": self.graph.initial,
            "name": event.name or event.character,
            "side": event.side or side,
            "kind": kind,
            "stats": stats,
            "gear": event.gear,
        }

    # --- luck: the order of harm ----------------------------------------------------------

    def harm(self, character: Any) -> tuple[int, ...]:
        """How bad a character's lot is, larger worse, for a person asking how lucky they were:
        its state first (`states.HARM`), then what this game's rules treat as decisive. By
        default the injuries carried; a ruleset whose counters decide more says so."""
        injuries = getattr(character, "injuries", ())
        return HARM.get(character.state, 0), len(injuries) if isinstance(injuries, tuple) else 0

    def die_word(self, purpose: str) -> str:
        """What the table calls a die of `purpose` (`dice_words`, else its name in words)."""
        word = self.dice_words.get(purpose)
        return word if word is not None else purpose.replace("_", " ").capitalize()

    def die_harm(self, fight: FightState[Any], purpose: str) -> Mapping[int, int] | None:
        """What each result of `purpose` does in `fight`, as harm (`dice_harm`; a ruleset whose
        fights may replace its tables reads the fight's); None: no order of harm."""
        return self.dice_harm.get(purpose)

    def dice_asked(self, before: FightState[Any], event: Any, purpose: str) -> int | None:
        """How many dice of `purpose` the rules would roll for `event` from `before`, when they
        may stop early (a result that settles the rest): a reading of their highest counts all of
        them, whatever order the dice were written in. None: the dice rolled are all."""
        return None

    # --- who may act ------------------------------------------------------------------------

    def acting(self, character: Character) -> Acting:
        return self.who_may_act.get(character.state, ACTS)

    def why_attacker_cannot(
        self, fight: FightState[Any], attacker_id: str, attacker: Any, hit: Hit
    ) -> str | None:
        """Why `attacker`, a character of the fight, may not make this attack; None if he may.
        A ruleset whose text makes exceptions (a Last Stand) overrides it."""
        acting = self.acting(attacker)
        return None if acting.attack else acting.why or f"is {attacker.state} and may not attack"

    def why_healer_cannot(
        self, fight: FightState[Any], healer_id: str, healer: Any, heal: Heal
    ) -> str | None:
        """Why `healer`, a character of the fight, may not give this heal; None if he may."""
        acting = self.acting(healer)
        return None if acting.heal else acting.why or f"is {healer.state} and may not heal"

    def ticked(
        self, fight: FightState[Any], kind: str, turn: TurnStarted | TurnEnded | None = None
    ) -> Mapping[str, Any]:
        """The characters a tick of `kind` (`turn_started`, `turn_ended`) concerns, by id in
        join order: of the turn's scope (one character, one side, or, with neither, everyone),
        or of the whole fight when no `turn` is given. From the fold's index when it keeps one;
        otherwise everyone in that scope, whom the handler sorts out itself: the same answer,
        since those the index leaves out are those the handler leaves as they are."""
        characters = fight.characters
        roster = characters if isinstance(characters, Roster) and characters.indexes(kind) else None
        if turn is not None and turn.character is not None:
            one = characters.get(turn.character)
            if one is None or (roster is not None and not self.tick_concerns[kind].concerns(one)):
                return {}
            return {turn.character: one}
        side = None if turn is None else turn.side
        if roster is not None:
            return roster.concerned(kind, side)
        if side is None:
            return characters
        # a fold's own map knows its sides: asked straight, one call fewer a tick
        return characters.on_side(side) if isinstance(characters, Roster) else fight.on_side(side)

    def turns(
        self, fight: FightState[Any], kind: str, turn: TurnStarted | TurnEnded, ctx: Context
    ) -> Mapping[str, Any]:
        """Those of the tick's scope (as `ticked` finds them) whose turn it starts or ends now:
        each character's turn starts and ends at most once a round, whichever scope says so
        first (`core.turns`). A whole round's `turn_started` before version 3 starts nobody's."""
        characters = fight.characters
        side, pulse = turn.side, ctx.pulse
        if (  # a side's tick in a fold's own map without its index (most ticks): in a few steps
            side is not None
            and turn.character is None
            and type(characters) is Roster
            and not (characters.indexing and characters.indexes(kind))
        ):
            if pulse is not None:
                done = pulse.done
                if done.everyone or side in done.sides:
                    return {}
                if done.characters:  # all of a side's scope is on that side: by name only
                    members = characters.side(side, EMPTY)
                    return {cid: c for cid, c in members.items() if cid not in done.characters}
            # the side's own map, read only: the fold writes what the tick updated after it
            return MappingProxyType(characters.side(side, EMPTY))
        scope = self.ticked(fight, kind, turn)
        if pulse is None:
            return scope
        if turn.side is None and turn.character is None and not pulse.everyone:
            return {}
        done = pulse.done
        if done.everyone:
            return {}
        if turn.character is None and turn.side is not None:
            # all of a side's scope is on that side (`ticked`): covered by it, or by name only
            if turn.side in done.sides:
                return {}
            if not done.characters:
                return scope
        elif not done.sides and not done.characters:
            return scope
        return {cid: c for cid, c in scope.items() if not done.covers(cid, c.side)}

    # --- the handlers: by default the game has no such rule -----------------------------------

    def on_hit(self, fight: FightState[Any], target: Any, hit: Hit, ctx: Context) -> Character:
        raise ctx.refuse(f"{self.name} has no rule for hits")

    def on_heal(self, fight: FightState[Any], target: Any, heal: Heal, ctx: Context) -> Character:
        raise ctx.refuse(f"{self.name} has no rule for healing")

    def on_choice(
        self, fight: FightState[Any], character: Any, choice: Choice, ctx: Context
    ) -> Character:
        raise ctx.refuse(f"{self.name} leaves no decision to a player (no `choice` to make)")

    def on_check(
        self, fight: FightState[Any], character: Any, check: Check, ctx: Context
    ) -> Character:
        raise ctx.refuse(
            f"{self.name} asks for no checks rolled at the table (no `check` to make)", "$.check"
        )

    def on_stat_changed(
        self, fight: FightState[Any], character: Any, change: StatChanged, ctx: Context
    ) -> Character:
        """`change.stat` (one of `changeable_stats`) set to `change.value`, and what follows."""
        raise NotImplementedError(f"{self.name} names changeable stats and sets none")

    def on_turn_started(
        self, fight: FightState[Any], turn: TurnStarted, ctx: Context
    ) -> Mapping[str, Character]:
        return {}

    def on_turn_ended(
        self, fight: FightState[Any], turn: TurnEnded, ctx: Context
    ) -> Mapping[str, Character]:
        return {}


_decoded_tables: dict[int, tuple[object, object]] = {}


def _decoded(kind: type[Any], raw: object) -> Any:
    """`raw` decoded as `kind`, once per table object a fight carries (a pure memo: the same
    table always decodes the same way). The raw object is kept, so its id stays its own."""
    hit = _decoded_tables.get(id(raw))
    if hit is not None and hit[0] is raw:
        return hit[1]
    if len(_decoded_tables) > 256:
        _decoded_tables.clear()
    value = msgspec.convert(raw, kind)
    _decoded_tables[id(raw)] = (raw, value)
    return value

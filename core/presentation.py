"""How a ruleset's characters look to software outside the rules: `Presentation`.

Pages, importers and reports know no game. What they must know of one (which counters are its
pools, which kinds are the GM's, the sides a character joins by default, what a page shows of a
character and how it words a change) each ruleset declares as data beside its other tables, in
one `Presentation` (`Ruleset.presentation`), served as JSON by `GET /rulesets`.

Example: a game whose characters have hit points, and monsters on the GM's side::

    Presentation(pools=("hp",), gm_kinds=("monster",), units={"hp": "HP"})
"""

from __future__ import annotations

import msgspec

from .states import State


class Sides(msgspec.Struct, frozen=True):
    """The sides characters join when nobody names one: the players', and the GM's."""

    players: str = "players"
    gm: str = "monsters"


class Pips(msgspec.Struct, frozen=True):
    """Counters a page draws as a row of pips, filled for each one counted so far, while a
    character is in `state`: dnd5e's death saves, three successes and three failures.

    `counters` maps each counter to the word for what it counts (`successes`: `passed`), in the
    order they are drawn; each has `out_of` pips."""

    name: str
    state: State
    out_of: int
    counters: dict[str, str]


class Presentation(msgspec.Struct, frozen=True, kw_only=True):
    """What a ruleset declares for pages, importers and reports (the module's docstring)."""

    pools: tuple[str, ...] = ()
    """The counters a character lives by, shown `x of max` (always, even when full); the first
    a character has is its health: what a band words and a report's chart follows. An
    importer's hit points become one of them (`Ruleset.importing`)."""
    maximums: dict[str, str] = {}
    """A pool whose maximum the rules change, and the counter that holds its maximum now
    (Warhammer Quest's `wounds`: `starting_wounds`); a pool not named here is out of the stat
    it joined with."""
    gm_kinds: tuple[str, ...] = ()
    """The kinds on the GM's side (monsters, NPCs): the kinds whose numbers a players' page
    keeps to bands or hides, as the table link says. Every other kind is a player's."""
    sides: Sides = Sides()
    hidden: tuple[str, ...] = ()
    """Counters a card leaves out of its list (drawn otherwise: as `pips`)."""
    units: dict[str, str] = {}
    """Counters a page words as an amount lost or gained, with the word for their unit
    (`hp`: `HP`, so "loses 3 HP"); any other counter reads `name was -> now`."""
    glance: dict[State, str] = {}
    """What a state means at the table, where two states look alike (dnd5e's `downed` is
    `dying`, `stabilised` is `stable`, both at 0 hit points)."""
    pips: Pips | None = None

"""What an importer needs of the fight's ruleset, as a value: `ImportRules`.

Importers live in `events`, which knows no game: each ruleset in `core` declares its own
`ImportRules` beside its other tables (`Ruleset.importing`), and whoever runs an importer hands
it that value (`woundlog.core.importing`). The rules still check every event on append.

A Struct with no methods, in a module of its own: every ruleset module imports it, so it costs a
fold nothing more than its class.
"""

from __future__ import annotations

import msgspec


class ImportRules(msgspec.Struct, frozen=True, kw_only=True):
    """How another program's hit points map onto one ruleset.

    `stat` is the stat a combatant's maximum HP becomes when it joins; damage and healing count
    in it one for one. `kinds` and `sides` are (player character, anyone else); an empty kind
    leaves the ruleset's default. `heals` is False for a game with no healing during a fight:
    HP going back up in the source then makes no event.
    """

    stat: str
    kinds: tuple[str, str] = ("", "")
    sides: tuple[str, str] = ("players", "monsters")
    heals: bool = True
    temporary: str | None = None
    """The heal means that grants temporary hit points, for a ruleset that keeps them apart from
    hit points (dnd5e's `temporary`); None: temporary hit points make no events, and only what
    comes off hit points is a hit."""
    critical: bool = False
    """Whether a hit carries the source's critical hit (the ruleset's `critical` fact)."""
    death_save: str | None = None
    """The check a death save the source's table rolled is recorded as (dnd5e's
    `death_save`); None: the ruleset rolls none the source could give, and one is left out
    with a warning."""
    maximum: str | None = None
    """The stat a `stat_changed` sets when the source's maximum moves (an effect, a sheet edit,
    dnd5e's `maximum` damage): dnd5e's `hp`. None: the ruleset keeps the maximum a character
    joined with, and a move of the source's is warned of."""
    revival: str | None = None
    """The heal means of a revival (dnd5e's `revivify`): a heal the source shows bringing a
    character back from 0 HP is appended with it when the rules hold that character dead (see
    `Converted.instead`). None: no heal is ever a revival."""

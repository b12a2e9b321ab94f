"""Importers: other combat software's records turned into woundlog events.

`convert_for(fmt, records, importing, joined=..., previous=...)` converts a batch of one
format's records for a fight whose ruleset's `ImportRules` are `importing` (rules.py: each
ruleset in `core` declares its own, and `woundlog.core.importing.convert_records` takes a
ruleset's name);
`joined` names the characters already in the fight (a combatant seen for the first time joins
first), `previous` is the cursor the last call for the same fight returned
(`Converted.previous`). Every event gets an id derived from the source, so converting the same
records again gives the same events, which the fight skips.

`append_importing(converted, append)` appends them past what the rules refuse: an event the rules
refuse is left out (or kept without the attacker or healer the rules refuse), and each is
reported as a `Refusal` naming its record (refusals.py).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING

from ..errors import StructuralError, UsageError
from ..lazy import lazy_names

if TYPE_CHECKING:
    from .base import Converted
    from .refusals import Refusal, append_importing
    from .rules import ImportRules

Options = dict[str, bool | int | str]
"""A fight's options (`fight_started.options`)."""

TABLE_DEATH_SAVES: dict[str, Options] = {"dnd5e": {"death_saves": "table"}}
"""dnd5e death saves left to the table, recorded as `check` events: for a program whose records
never carry a death save woundlog could take as the table's roll."""

SHEET_REVIVALS: dict[str, Options] = {"dnd5e": {"death_saves": "table", "revival": True}}
"""As `TABLE_DEATH_SAVES`, and dnd5e's revivals taken: for a program that shows a character
healed from 0 HP alive, whatever the table's saves said (woundlog then records the heal as a
revival: `ImportRules.revival`, `Converted.instead`)."""

DEFAULT_RULESET = "dnd5e"
"""The ruleset a fight created by an import plays when none is given: the programs that feed
woundlog are used for Dungeons & Dragons 5th edition."""


class Importer:
    """One format: its name, what it reads, and the module (in this package) that converts it.

    The module is imported when a conversion is first asked for, not when woundlog is: the CLI
    names the formats in its help on every command, and converts records in one.
    A plain class: a NamedTuple compiles its methods when it is made, at every start, and a
    dataclass would load `dataclasses`, which nothing else the CLI loads needs."""

    __slots__ = ("module", "name", "options", "summary")

    def __init__(
        self, name: str, summary: str, module: str, options: dict[str, Options] | None = None
    ) -> None:
        self.name = name
        self.summary = summary
        self.module = module
        self.options = options or {}
        """Per ruleset, the options a fight created for this format's records starts with:
        those that leave to the records what the other program's table decides, so that
        woundlog never rolls a die that table did not (DESIGN, section 9)."""

    def __repr__(self) -> str:
        return f"Importer({self.name!r}, {self.summary!r}, {self.module!r}, {self.options!r})"

    def fight_options(self, ruleset: str) -> Options:
        """The options of a new fight of `ruleset` made for this format's records (a copy)."""
        return dict(self.options.get(ruleset, {}))

    @property
    def convert(self) -> Callable[..., Converted]:
        converts: Callable[..., Converted] = importlib.import_module(
            f"{__name__}.{self.module}"
        ).convert
        return converts


IMPORTERS: dict[str, Importer] = {
    importer.name: importer
    for importer in (
        Importer(
            "foundry",
            "Foundry VTT dnd5e hooks (damageActor, healActor, combatTurnChange) in a bridge "
            "envelope, dice from Roll.toJSON()",
            "foundry",
            # dnd5e's own sheet rolls the save (Actor5e.rollDeathSave); the bridge sends its
            # roll as a `check` (foundry.py), so woundlog must not roll it at a turn. And dnd5e
            # brings back whoever a heal takes above 0 HP (preUpdateHP clears the death saves),
            # so a heal of one woundlog holds dead is a revival (foundry.py, `revivals`)
            SHEET_REVIVALS,
        ),
        Importer(
            "improved-initiative",
            "Improved Initiative 3.x autosaves or its export data file, each compared with the "
            "last one taken in",
            "improved_initiative",
            # Improved Initiative 3.11.8 has no death saves at all (client/Combatant/
            # Combatant.ts: HP, temporary HP, tags; client/Rules/Rules.ts rolls initiative and
            # ability checks only): the players roll them at the table
            SHEET_REVIVALS,
        ),
        Importer(
            "avrae",
            "Avrae combat recorder records (combat_state_update; the FIREBALL dataset's raw "
            "files), per combat_id",
            "avrae",
            # Avrae v4.2.70 rolls one on `!game deathsave` (cogs5e/gametrack.py,
            # `game_deathsave`), but keeps it on the character sheet and commits no combat:
            # no `combat_state_update` carries it (the reply's embed is chat text), so the
            # GM records it with `woundlog check`, and woundlog rolls none of its own
            SHEET_REVIVALS,
        ),
        Importer(
            "avrae-snapshot",
            "what the woundlog alias prints in Discord (!woundlog, a GM's own Avrae game), "
            "each snapshot compared with the last one taken in",
            "avrae_snapshot",
            # the alias reads `combat()`, which holds no death saves either (aliasing/api/
            # combat.py, SimpleCombatant): the same as the recorder's records
            SHEET_REVIVALS,
        ),
        Importer(
            "owlbear",
            "Owlbear Rodeo scenes as the woundlog extension sends them: Stat Bubbles hit "
            "points and Initiative Tracker turns, each snapshot compared with the last one",
            "owlbear",
            # neither extension rolls or keeps a death save (owlbear.py): the table rolls them,
            # and a token healed above 0 health shows alive, whatever they said
            SHEET_REVIVALS,
        ),
    )
}


def importer_of(fmt: str) -> Importer:
    """The importer of format `fmt`; UsageError, naming the known ones, for another."""
    importer = IMPORTERS.get(fmt)
    if importer is None:
        raise UsageError(f"no import format `{fmt}` (known: {', '.join(IMPORTERS)})")
    return importer


def convert_for(
    fmt: str,
    records: Sequence[object],
    importing: ImportRules,
    *,
    joined: Collection[str] = (),
    previous: object | None = None,
) -> Converted:
    """Convert records of format `fmt` for a fight whose ruleset imports by `importing`.

    Raises UsageError for an unknown format, StructuralError (with `index`, the record's place
    in `records`, and `field`) for a malformed record.
    """
    importer = importer_of(fmt)
    if isinstance(records, str | bytes) or not isinstance(records, Sequence):
        raise StructuralError("records are a list of the format's JSON objects", field="$")
    return importer.convert(records, importing=importing, joined=joined, previous=previous)


__getattr__, __dir__ = lazy_names(  # what the shared modules hold, on first use like the importers
    __name__,
    globals(),
    {
        "Converted": "base",
        "ImportRules": "rules",
        "Refusal": "refusals",
        "append_importing": "refusals",
    },
)


__all__ = [
    "DEFAULT_RULESET",
    "IMPORTERS",
    "Converted",
    "ImportRules",
    "Importer",
    "Options",
    "Refusal",
    "append_importing",
    "convert_for",
    "importer_of",
]

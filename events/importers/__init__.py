"""Importers: other combat software's records turned into woundlog events.

`convert_records(fmt, records, ruleset=..., joined=..., previous=...)` converts a batch of one
format's records for a fight of `ruleset`; `joined` names the characters already in the fight
(a combatant seen for the first time joins first), `previous` is the cursor the last call for
the same fight returned (`Converted.previous`). Every event gets an id derived from the source,
so converting the same records again gives the same events, which the fight skips.

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
    from .base import PROFILES, Converted, Profile
    from .refusals import Refusal, append_importing

DEFAULT_RULESET = "dnd5e"
"""The ruleset a fight created by an import plays when none is given: the programs that feed
woundlog are used for Dungeons & Dragons 5th edition."""


class Importer:
    """One format: its name, what it reads, and the module (in this package) that converts it.

    The module is imported when a conversion is first asked for, not when woundlog is: the CLI
    names the formats in its help on every command, and converts records in one (issue 16).
    A plain class: a NamedTuple compiles its methods when it is made, at every start, and a
    dataclass would load `dataclasses`, which nothing else the CLI loads needs."""

    __slots__ = ("module", "name", "summary")

    def __init__(self, name: str, summary: str, module: str) -> None:
        self.name = name
        self.summary = summary
        self.module = module

    def __repr__(self) -> str:
        return f"Importer({self.name!r}, {self.summary!r}, {self.module!r})"

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
        ),
        Importer(
            "improved-initiative",
            "Improved Initiative 3.x autosaves or its export data file, each compared with the "
            "last one taken in",
            "improved_initiative",
        ),
        Importer(
            "avrae",
            "Avrae combat recorder records (combat_state_update; the FIREBALL dataset's raw "
            "files), per combat_id",
            "avrae",
        ),
        Importer(
            "avrae-snapshot",
            "what the woundlog alias prints in Discord (!woundlog, a GM's own Avrae game), "
            "each snapshot compared with the last one taken in",
            "avrae_snapshot",
        ),
    )
}


def convert_records(
    fmt: str,
    records: Sequence[object],
    *,
    ruleset: str,
    joined: Collection[str] = (),
    previous: object | None = None,
) -> Converted:
    """Convert records of format `fmt` into events for a fight of `ruleset`.

    Raises UsageError for an unknown format or a ruleset no importer maps to, StructuralError
    (with `index`, the record's place in `records`, and `field`) for a malformed record.
    """
    importer = IMPORTERS.get(fmt)
    if importer is None:
        raise UsageError(f"no import format `{fmt}` (known: {', '.join(IMPORTERS)})")
    if isinstance(records, str | bytes) or not isinstance(records, Sequence):
        raise StructuralError("records are a list of the format's JSON objects", field="$")
    from .base import profile_of

    return importer.convert(records, profile=profile_of(ruleset), joined=joined, previous=previous)


__getattr__, __dir__ = lazy_names(  # what the shared modules hold, on first use like the importers
    __name__,
    globals(),
    {
        "PROFILES": "base",
        "Converted": "base",
        "Profile": "base",
        "Refusal": "refusals",
        "append_importing": "refusals",
    },
)


__all__ = [
    "DEFAULT_RULESET",
    "IMPORTERS",
    "PROFILES",
    "Converted",
    "Importer",
    "Profile",
    "Refusal",
    "append_importing",
    "convert_records",
]

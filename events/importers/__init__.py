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

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from ..errors import StructuralError, UsageError
from . import avrae, foundry, improved_initiative
from .base import PROFILES, Converted, Profile, profile_of
from .refusals import Refusal, append_importing


@dataclass(frozen=True)
class Importer:
    name: str
    summary: str
    convert: Callable[..., Converted]


IMPORTERS: dict[str, Importer] = {
    importer.name: importer
    for importer in (
        Importer(
            "foundry",
            "Foundry VTT dnd5e hooks (damageActor, healActor, combatTurnChange) in a bridge "
            "envelope, dice from Roll.toJSON()",
            foundry.convert,
        ),
        Importer(
            "improved-initiative",
            "Improved Initiative 3.x autosaves or its export data file, each compared with the "
            "last one taken in",
            improved_initiative.convert,
        ),
        Importer(
            "avrae",
            "Avrae combat recorder records (combat_state_update; the FIREBALL dataset's raw "
            "files), per combat_id",
            avrae.convert,
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
    return importer.convert(records, profile=profile_of(ruleset), joined=joined, previous=previous)


__all__ = [
    "IMPORTERS",
    "PROFILES",
    "Converted",
    "Importer",
    "Profile",
    "Refusal",
    "append_importing",
    "convert_records",
]

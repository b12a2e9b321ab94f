"""The importers (`events.importers`) for a fight of a ruleset named: each ruleset declares how
another program's hit points map onto it (`Ruleset.importing`, an `ImportRules`), and this hands
that value to the importer, which knows no game.

Example: `convert_records("foundry", records, ruleset="dnd5e")` converts Foundry VTT's records
for a dnd5e fight; `import_rules("dnd5e").stat` is `"hp"`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from woundlog.events import UsageError
from woundlog.events.importers import convert_for, importer_of
from woundlog.events.importers.rules import ImportRules

from .rulesets import RULESETS

if TYPE_CHECKING:  # the importers' shared module loads with the first conversion, not before
    from woundlog.events.importers import Converted


class Importable(Mapping[str, ImportRules]):
    """The rulesets' `ImportRules` by name, in the registry's order, those nothing can be
    imported into (DragonQuest) left out. Reading one loads its ruleset; listing them, all."""

    def __getitem__(self, name: str) -> ImportRules:
        importing = RULESETS[name].importing
        if importing is None:
            raise KeyError(name)
        return importing

    def __iter__(self) -> Iterator[str]:
        return (name for name, rules in RULESETS.items() if rules.importing is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


IMPORT_RULES = Importable()


def import_rules(ruleset: str) -> ImportRules:
    """The `ImportRules` of `ruleset`; UsageError, saying why, for one nothing can be imported
    into (DragonQuest), and, naming the importable ones, for a name no ruleset has."""
    if ruleset not in RULESETS:
        raise UsageError(
            f"no importable ruleset `{ruleset}` (importable: {', '.join(IMPORT_RULES)})"
        )
    rules = RULESETS[ruleset]
    if rules.importing is None:
        raise UsageError(f"ruleset `{ruleset}` cannot be imported into: {rules.not_importable}")
    return rules.importing


def convert_records(
    fmt: str,
    records: Sequence[object],
    *,
    ruleset: str,
    joined: Collection[str] = (),
    previous: object | None = None,
) -> Converted:
    """Convert records of format `fmt` into events for a fight of `ruleset`
    (`events.importers.convert_for`, given the ruleset's `ImportRules`).

    Raises UsageError for an unknown format or a ruleset nothing can be imported into,
    StructuralError (with `index`, the record's place in `records`, and `field`) for a
    malformed record.
    """
    importer_of(fmt)  # an unknown format is named before anything about the ruleset
    importing = import_rules(ruleset)
    return convert_for(fmt, records, importing, joined=joined, previous=previous)


__all__ = ["IMPORT_RULES", "Importable", "convert_records", "import_rules"]

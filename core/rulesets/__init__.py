"""The registry of rulesets, by name. A new ruleset is one module and one line in `_MODULES`.

A ruleset's module is imported the first time its name is looked up, not when woundlog is: a
command on a Mordheim fight loads Mordheim alone, so it starts quickly. Listing the names
(`list(RULESETS)`, `", ".join(RULESETS)`, `name in RULESETS`) imports nothing; reading the
rulesets themselves (`RULESETS.values()`, `.items()`) imports each one.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator, MutableMapping

from woundlog.events import StructuralError

from ..ruleset import Ruleset

_MODULES: dict[str, tuple[str, str]] = {
    # name: (module in this package, its Ruleset class), in the order `woundlog rules` lists them
    "mordheim": ("mordheim", "Mordheim"),
    "warhammer_quest": ("warhammer_quest", "WarhammerQuest"),
    "d26": ("d26", "D26"),
    "dragonquest": ("dragonquest", "DragonQuest"),
    "contractor": ("contractor", "Contractor"),
    "dnd5e": ("dnd5e", "Dnd5e"),
}


class Registry(MutableMapping[str, Ruleset]):
    """Rulesets by name, each made on first use and kept (one instance per name per process).

    A ruleset may also be set by hand (`RULESETS["house"] = HouseRules()`, as a test does); it
    then stands beside the built-in ones until it is deleted.
    """

    def __init__(self, modules: dict[str, tuple[str, str]]) -> None:
        self._modules = dict(modules)
        self._made: dict[str, Ruleset] = {}
        self._making = threading.Lock()  # two threads asking at once still get one instance

    def __getitem__(self, name: str) -> Ruleset:
        made = self._made.get(name)
        if made is not None:
            return made
        if name not in self._modules:
            raise KeyError(name)
        with self._making:
            if name not in self._made:
                self._made[name] = self._make(name, *self._modules[name])
            return self._made[name]

    @staticmethod
    def _make(name: str, module: str, cls: str) -> Ruleset:
        rules: Ruleset = getattr(importlib.import_module(f"{__name__}.{module}"), cls)()
        if rules.name != name:  # a typo in _MODULES would otherwise answer for the wrong game
            raise LookupError(f"registry names `{name}` but {module}.{cls} is `{rules.name}`")
        return rules

    def __setitem__(self, name: str, rules: Ruleset) -> None:
        self._made[name] = rules

    def __delitem__(self, name: str) -> None:
        if name not in self._made and name not in self._modules:
            raise KeyError(name)
        self._made.pop(name, None)
        self._modules.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        yield from self._modules
        yield from (name for name in self._made if name not in self._modules)

    def __len__(self) -> int:
        return len(self._modules.keys() | self._made.keys())

    def __contains__(self, name: object) -> bool:
        return name in self._modules or name in self._made


RULESETS = Registry(_MODULES)


_made = RULESETS._made  # the fold asks for its ruleset at every event: one dict lookup then


def get_ruleset(name: str) -> Ruleset:
    made = _made.get(name)
    if made is not None:
        return made
    try:
        return RULESETS[name]
    except KeyError:
        known = ", ".join(RULESETS)
        raise StructuralError(f"no ruleset `{name}` (known: {known})", field="$.ruleset") from None


__all__ = ["RULESETS", "Registry", "get_ruleset"]

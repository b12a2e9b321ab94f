"""A fold hands a ruleset's handlers a fight whose position in its log (`seq`, `rounds`,
`turn`) may lag, unless the ruleset declares that it reads it (`Ruleset.reads_position`, issue
42: the position is written into a FightState only when read). Each ruleset's source is checked
against its declaration: one that reads `fight.seq` (or `.rounds`, `.turn`) says so."""

from __future__ import annotations

import inspect
import re

import pytest

from woundlog.core import RULESETS, get_ruleset

READS = re.compile(r"\bfight\.(seq|rounds|turn)\b")


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_a_ruleset_that_reads_the_fights_position_declares_it(name: str) -> None:
    rules = get_ruleset(name)
    module = inspect.getmodule(type(rules))
    assert module is not None
    package = module.__name__.rpartition(".")[0] if module.__file__.endswith("__init__.py") else ""
    sources = [inspect.getsource(module)]
    if package:
        import importlib
        import pkgutil

        sources += [
            inspect.getsource(importlib.import_module(f"{module.__name__}.{info.name}"))
            for info in pkgutil.iter_modules(module.__path__)
        ]
    reads = any(READS.search(source) for source in sources)
    assert rules.reads_position == reads, (name, reads)


def test_d26s_last_stand_is_why_the_declaration_exists() -> None:
    assert get_ruleset("d26").reads_position
    assert not get_ruleset("mordheim").reads_position

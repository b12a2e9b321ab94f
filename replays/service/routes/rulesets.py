"""`GET /rulesets` and `GET /rulesets/{name}`: each ruleset's declarations as JSON, for pages and
bridges that must not know any game (`core.summary.RulesetSummary`: states, kinds, stats, pools,
the GM's kinds, default sides, what a page shows, who may act, how hit points import).

Public: they are the rules, not a fight, so no token is asked. Bounded as every route is: a
ruleset's name is a short word (`NAME`), and the answer is the registry's few rulesets, each
made from its own declarations (the first request loads every ruleset module, in a worker
thread, off the event loop).
"""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.exceptions import NotFoundException
from litestar.params import Parameter

from woundlog.core import RULESETS
from woundlog.core.summary import RulesetSummary, summarize

from ..guards import run
from ..openapi import problems

NAME = r"^[a-z][a-z0-9_]{0,63}$"
"""A ruleset's name, as the registry's are (`dnd5e`, `warhammer_quest`)."""

RulesetName = Annotated[
    str, Parameter(pattern=NAME, max_length=64, description="A ruleset's name (`dnd5e`).")
]


def every_summary() -> list[RulesetSummary]:
    return [summarize(rules) for rules in RULESETS.values()]


def summary_of(name: str) -> RulesetSummary:
    if name not in RULESETS:
        raise NotFoundException(f"no ruleset `{name}` (known: {', '.join(RULESETS)})")
    return summarize(RULESETS[name])


class RulesetsController(Controller):
    path = "/rulesets"
    tags = ("rulesets",)

    @get("/")
    async def rulesets(self) -> list[RulesetSummary]:
        """Every ruleset's declarations, in the order `woundlog rules` lists them (no token:
        the rules, not a fight)."""
        return await run(every_summary)

    @get("/{name:str}", responses=problems(404, 422))
    async def ruleset(self, name: RulesetName) -> RulesetSummary:
        """One ruleset's declarations (no token); an unknown name is 404, naming the known
        ones."""
        return await run(summary_of, name)

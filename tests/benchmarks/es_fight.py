"""A woundlog fight as an `eventsourcing` aggregate (eventsourcing_compare.py; not a test).

Its state is woundlog's own fold (`core.Fold`): each aggregate event carries one woundlog event
as its JSON object and applies it through woundlog's reducer and ruleset, exactly as
`replays.fold.fold_state` does (a rule error voids the event). Needs eventsourcing installed.
"""

from __future__ import annotations

from typing import Any

from eventsourcing.domain import Aggregate, event

from woundlog.core.reducer import Fold
from woundlog.events import RuleError, convert


class WoundlogFight(Aggregate):  # type: ignore[misc]
    def __init__(self) -> None:
        self.folding = Fold()

    @event("Folded")
    def fold(self, body: dict[str, Any]) -> None:
        """One woundlog event, folded as `fold_state` folds it."""
        try:
            self.folding.add(convert(body))
        except RuleError:
            self.folding.pass_over()

    @event("Skipped")
    def skip(self) -> None:
        """An event a later undo retracted: it keeps its place and does nothing."""
        self.folding.pass_over()

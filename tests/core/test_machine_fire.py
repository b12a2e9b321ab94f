"""A move is fired from the table by state, then trigger (issue 42: no pair made and hashed a
move): every state and trigger of every ruleset's graph answers what the table compiled from
the Machine holds, and a pair it lacks is refused, naming the move."""

from __future__ import annotations

import pytest

from woundlog.core import RULESETS, Ruleset
from woundlog.core.machine import IllegalTransition


@pytest.mark.parametrize("rules", list(RULESETS.values()), ids=list(RULESETS))
def test_every_state_and_trigger_fires_what_the_table_holds(rules: Ruleset) -> None:
    graph = rules.graph
    for state in (*graph.states, "nowhere"):
        for trigger in (*graph.triggers, "nothing"):
            dest = graph.table.get((state, trigger))
            if dest is None:
                with pytest.raises(IllegalTransition, match=f"no move `{trigger}` from {state}"):
                    graph.fire(state, trigger)
            else:
                assert graph.fire(state, trigger) == dest

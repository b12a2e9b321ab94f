"""A ruleset's graph: its lookup table is compiled from the declaration without loading
transitions (issue 16: start-up time), and says exactly what the transitions Machine built from
the same declaration says."""

from __future__ import annotations

import subprocess
import sys

import pytest

from woundlog.core import RULESETS, Graph, Ruleset


def table_of_the_machine(graph: Graph) -> dict[tuple[str, str], str]:
    """The table as it was compiled from the Machine before: each trigger's first move from
    each source."""
    return {
        (source, trigger): moves[0].dest
        for trigger, event in graph.machine.events.items()
        for source, moves in event.transitions.items()
    }


@pytest.mark.parametrize("rules", list(RULESETS.values()), ids=list(RULESETS))
def test_every_rulesets_table_is_the_one_its_machine_holds(rules: Ruleset) -> None:
    graph = rules.graph
    assert list(graph.table.items()) == list(table_of_the_machine(graph).items())
    assert graph.triggers == tuple(graph.machine.events)
    assert set(graph.machine.states) == set(graph.states)


def test_the_first_move_declared_for_a_state_and_trigger_wins_as_in_the_machine() -> None:
    graph = Graph(
        "twice",
        ["upright", "stunned", "out_of_action"],
        [("hurt", "upright", "stunned"), ("hurt", "upright", "out_of_action")],
    )
    assert graph.fire("upright", "hurt") == "stunned"
    assert graph.table == table_of_the_machine(graph)


def test_the_wildcards_of_transitions_mean_what_they_mean_there() -> None:
    graph = Graph("wild", ["upright", "dead"], [("die", "*", "dead"), ("wait", "*", "=")])
    assert graph.table == table_of_the_machine(graph)
    assert graph.fire("dead", "wait") == "dead"


def test_a_move_to_a_state_the_graph_lacks_is_refused_naming_it() -> None:
    with pytest.raises(ValueError, match=r"bad: move `fall` upright -> downed leaves"):
        Graph("bad", ["upright", "stunned"], [("fall", "upright", "downed")])


def test_looking_moves_up_in_every_ruleset_loads_no_transitions() -> None:
    """The Machine is built for a diagram or a test, never for a fold (see also
    tests/replays/test_cli_startup.py, which folds a fight through the CLI)."""
    code = (
        "import sys\n"
        "from woundlog.core import RULESETS\n"
        "for rules in RULESETS.values():\n"
        "    rules.graph.can(rules.graph.initial, rules.graph.triggers[0])\n"
        "print('transitions' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "False", done.stderr

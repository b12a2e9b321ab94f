"""A ruleset's legal moves: one transitions.Machine, and the lookup table the hot path uses.

The declaration (`(trigger, source or sources, destination)`, as a rulebook lists moves) is the
single source of truth. The Machine is built from it, and so is the table: `(state, trigger)`
to the destination of the first move declared for that pair, exactly what the Machine's
events hold (tests/core/test_machine.py compares them for every ruleset). The table is compiled
without the Machine so that `transitions` loads only when someone asks for the Machine (a
diagram, a test): importing it costs more than a `woundlog hit` takes to run.
Characters are plain data, so the hot path never touches the Machine.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .states import STATES, State

if TYPE_CHECKING:
    from transitions import Machine

Transition = tuple[str, str | Sequence[str], str]
"""(trigger, source or sources, destination), as a rulebook would list a move."""

ANY_STATE = "*"
"""transitions' wildcard source: every state of the graph."""
SAME_STATE = "="
"""transitions' wildcard destination: the state the move starts from."""


class IllegalTransition(Exception):
    """A ruleset asked for a move its own Machine does not declare: a bug in the ruleset."""


class Graph:
    """The compiled state graph of one ruleset."""

    def __init__(self, name: str, states: Iterable[State], transitions: Iterable[Transition]):
        self.name = name
        self.states: tuple[State, ...] = tuple(states)
        unknown = [s for s in self.states if s not in STATES]
        if unknown:
            raise ValueError(f"{name}: not one of the seven states: {unknown}")
        self.transitions: tuple[Transition, ...] = tuple(transitions)
        self._declared = [
            {"trigger": t, "source": s if isinstance(s, str) else list(s), "dest": d}
            for t, s, d in self.transitions
        ]
        self.table: dict[tuple[str, str], State] = self._compile()
        # the table by state, then trigger: what `fire` reads, two lookups of strings whose
        # hash each keeps, no pair made and hashed a move
        self._moves: dict[str, dict[str, State]] = {}
        for (source, trigger), dest in self.table.items():
            self._moves.setdefault(source, {})[trigger] = dest
        self.edges: frozenset[tuple[str, str]] = frozenset(
            (source, dest) for (source, _), dest in self.table.items()
        )
        self.triggers: tuple[str, ...] = tuple(dict.fromkeys(t for t, _, _ in self.transitions))

    def _compile(self) -> dict[tuple[str, str], State]:
        """`(source, trigger) -> destination`, in the order the Machine's events hold them
        (by trigger as first declared, then by source); the first move declared wins."""
        moves: dict[str, dict[str, State]] = {}
        for trigger, sources, dest in self.transitions:
            declared = moves.setdefault(trigger, {})
            if sources == ANY_STATE:
                froms: Sequence[str] = self.states
            else:
                froms = [sources] if isinstance(sources, str) else sources
            for source in froms:
                to = source if dest == SAME_STATE else dest
                if source not in self.states or to not in self.states:
                    raise ValueError(
                        f"{self.name}: move `{trigger}` {source} -> {to} leaves the graph's "
                        f"states {list(self.states)}"
                    )
                declared.setdefault(source, to)
        return {
            (source, trigger): dest
            for trigger, by_source in moves.items()
            for source, dest in by_source.items()
        }

    @functools.cached_property
    def machine(self) -> Machine:
        """The transitions Machine of the declaration, built the first time it is asked for."""
        from transitions import Machine

        return Machine(
            model=None,
            states=list(self.states),
            transitions=self._declared,
            initial=self.states[0],
            auto_transitions=False,
        )

    @property
    def initial(self) -> State:
        return self.states[0]

    def fire(self, state: str, trigger: str) -> State:
        """The state `trigger` leads to from `state`; IllegalTransition if undeclared."""
        try:
            return self._moves[state][trigger]
        except KeyError:
            raise IllegalTransition(f"{self.name}: no move `{trigger}` from {state}") from None

    def can(self, state: str, trigger: str) -> bool:
        return (state, trigger) in self.table

    def allows(self, before: str, after: str) -> bool:
        """Whether some declared move takes `before` to `after` (staying put is always allowed)."""
        return before == after or (before, after) in self.edges

    def mermaid(self) -> str:
        """The state diagram, drawn by transitions from the same declaration."""
        from transitions.extensions import GraphMachine

        # a throwaway machine with itself as model: only for drawing, never on the hot path
        drawing = GraphMachine(
            model="self",
            states=list(self.states),
            transitions=self._declared,
            initial=self.initial,
            auto_transitions=False,
            graph_engine="mermaid",
            title=self.name,
        )
        return str(drawing.get_graph().draw(None))

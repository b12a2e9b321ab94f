"""A ruleset's legal moves: one transitions.Machine, compiled once into a lookup table.

The Machine is the single source of truth. Characters are plain data, so the hot path never
touches the Machine: it looks `(state, trigger)` up in the table compiled from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from transitions import Machine

from .states import STATES, State

Transition = tuple[str, str | Sequence[str], str]
"""(trigger, source or sources, destination), as a rulebook would list a move."""


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
        self.machine = Machine(
            model=None,
            states=list(self.states),
            transitions=self._declared,
            initial=self.states[0],
            auto_transitions=False,
        )
        self.table: dict[tuple[str, str], State] = {}
        for trigger, event in self.machine.events.items():
            for source, moves in event.transitions.items():
                self.table[(source, trigger)] = moves[0].dest  # type: ignore[assignment]
        self.edges: frozenset[tuple[str, str]] = frozenset(
            (source, dest) for (source, _), dest in self.table.items()
        )
        self.triggers: tuple[str, ...] = tuple(self.machine.events)

    @property
    def initial(self) -> State:
        return self.states[0]

    def fire(self, state: str, trigger: str) -> State:
        """The state `trigger` leads to from `state`; IllegalTransition if undeclared."""
        try:
            return self.table[(state, trigger)]
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

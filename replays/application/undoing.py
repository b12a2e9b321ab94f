"""Undo (DESIGN section 6): retract an event, or amend it, each reporting its consequences.

    undo(fight, event=None, *, reason="", by=None, undo_id=None) -> Appended
    amend(fight, event, replacement, *, reason="", by=None) -> Appended

A campaign's own undo is the campaign's use case (`campaign_undo`, campaigns.py).
"""

from __future__ import annotations

from woundlog.events import GameEvent

from ..fight import Appended
from .base import UseCases


class UndoCases(UseCases):
    """Taking back what a fight's log holds, as events: history is never edited."""

    def undo(
        self,
        fight: str,
        event: str | None = None,
        *,
        reason: str = "",
        by: str | None = None,
        undo_id: str | None = None,
    ) -> Appended:
        """Retract `event` (default: the newest live event that is not itself a retract)."""
        return self.fight(fight).undo(event, reason=reason, by=by, undo_id=undo_id)

    def amend(
        self,
        fight: str,
        event: str,
        replacement: GameEvent,
        *,
        reason: str = "",
        by: str | None = None,
    ) -> Appended:
        """Replay `event` as `replacement`, in its place."""
        return self.fight(fight).amend(event, replacement, reason=reason, by=by)

"""The CLI tests' fixtures are the replays tests' own: a throwaway store, the CLI in-process."""

from __future__ import annotations

from tests.replays.conftest import db, dungeon, run, skirmish

__all__ = ["db", "dungeon", "run", "skirmish"]

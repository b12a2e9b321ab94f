"""woundlog.replays: what it looks like over time. Fights, replay, snapshots, undo, the CLI."""

from .fight import Appended, Fight
from .files import replay_file, replay_file_state
from .fold import fold, fold_state, replay
from .undo import Fate, Undo

__all__ = [
    "Appended",
    "Fate",
    "Fight",
    "Undo",
    "fold",
    "fold_state",
    "replay",
    "replay_file",
    "replay_file_state",
]

"""woundlog.replays: what it looks like over time. Fights, replay, snapshots, undo, the CLI.

The public names are imported on first use, not with the package: every `woundlog` command
imports this package first (the CLI lives in it), and a command that never replays a file
should not pay for `files` or the rest (issue 16), as events/importers/__init__.py does.
"""

from __future__ import annotations

from woundlog.events.lazy import lazy_names

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at every start
if TYPE_CHECKING:
    from .fight import Appended, Fight
    from .files import replay_file, replay_file_state
    from .fold import fold, fold_state, replay
    from .undo import Fate, Undo

_HOME = {  # each public name, and the module of this package that defines it
    "Appended": "fight",
    "Fight": "fight",
    "replay_file": "files",
    "replay_file_state": "files",
    "fold": "fold",
    "fold_state": "fold",
    "replay": "fold",
    "Fate": "undo",
    "Undo": "undo",
}


__getattr__, __dir__ = lazy_names(__name__, globals(), _HOME)


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

"""The `woundlog` command: a game master's tools on a fight log in a store, or on a `.jsonl` file.

Every command runs its use case on the application layer (replays/application/), as the service
does, so the CLI refuses exactly what the library refuses; it adds only the reading of its words,
questions, printing and exit codes. Errors print as `error: <message>` on stderr, without
a traceback, and exit with the error's code: 2 usage, 3 refused event, 4 conflict. A usage error
also says what to do (`hint: ...`), click's own included.

The group and its options are `group.py`; each command is a function in the module of its group
(`fight.py`, `undo.py`, `importing.py`, `whatif.py`, `pictures.py`, `reference.py`,
`service.py`), which `commands.py` lists and the registry (`registry.py`) loads only when the
command is built; the options several commands share are declared once, in `options.py`, and
the application a command runs on is opened by `application.py`, and a command's failure is
said by `guard.py`. The console script's `main` is `start.py`'s, which answers `--version`
before typer is imported, and has a plain `hit` or `heal` read without typer (`quick.py`,
through the same functions and the same `guard.py`); `app` (the typer app, for typer's test
runner and for embedding) is imported on first use.
"""

from woundlog.events.lazy import lazy_names

from .start import main

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at every start
if TYPE_CHECKING:
    from .group import app

__getattr__, __dir__ = lazy_names(__name__, globals(), {"app": "run"})

__all__ = ["app", "main"]

"""What a command's failure prints and the status it exits with, without typer: the registry's
commands (registry.py) and the quick `hit` and `heal` (quick.py) fail through here alike, so a
refusal reads the same whichever of them read the command line."""

from __future__ import annotations

from woundlog.events.errors import UsageError, WoundlogError

LOG_FORM = "jsonl"
"""`woundlog import jsonl FILE`, the command `woundlog import FILE.jsonl` runs."""


def failure(error: Exception, url: str | None, command_path: str) -> int | None:
    """The exit status of a command `error` ended, once said as woundlog says it; None for an
    error that is no refusal of woundlog's (a bug): it goes on up, traceback and all."""
    # Here, not at the top: a hit that goes well never needs them.
    from woundlog.events.stores.locate import STORE_ERRORS, unusable

    if isinstance(error, WoundlogError):
        return failed(error, command_path)
    if isinstance(error, STORE_ERRORS):  # the --db file went bad under a running command
        return failed(unusable(url, error), command_path)
    if isinstance(error, BrokenPipeError):  # whoever read the output stopped: nobody to tell
        from .pipes import quiet_end

        return quiet_end()
    if isinstance(error, OSError):  # a file named on the command line: a usage error
        where = f": {error.filename}" if error.filename else ""
        return failed(UsageError(f"{error.strerror or error}{where}"), command_path)
    from woundlog.events.stores.postgres import database_gone  # the server went away

    gone = database_gone(url, error)
    return None if gone is None else failed(gone, command_path)


def failed(error: WoundlogError, command_path: str) -> int:
    """Print `error: ...` and its hints, and give the error's exit status. A usage error with no
    hint of its own is pointed at the command's help (`command_path`: `woundlog hit`)."""
    from .output import print_error

    hints = list(getattr(error, "__notes__", []))
    if not hints and isinstance(error, UsageError):  # the log form's help is `import`'s
        hints.append(f"try '{command_path.removesuffix(' ' + LOG_FORM)} -h' for help")
    print_error(error, hint="\n".join(hints) or None)
    return error.exit_code

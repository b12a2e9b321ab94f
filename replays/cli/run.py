"""`woundlog ARGS...` past `--version` alone (start.py): building only the command the words
name."""

from __future__ import annotations

import os
import sys
from typing import Any

import typer

from . import commands as _registered  # noqa: F401  # every command is in `app` from here on
from .group import app

EVERYTHING = list(app.registered_commands), list(app.registered_groups)
"""Every command and group, as registered: `main` narrows the app's lists for one run."""


def every_command() -> Any:
    """The `woundlog` group (click's) with every command built, for a caller that runs many
    command lines in one process (a `woundlog play` session: help and completion), whatever
    `main` narrowed."""
    return built(*EVERYTHING)


def reaching(args: list[str]) -> Any:
    """The `woundlog` group (click's) with only the commands `woundlog ARGS...` can reach
    built, as `run` builds it for that command line (`reachable`): it answers the line as the
    whole group would. None when the line may reach every command."""
    needed = reachable(*EVERYTHING, args)
    return None if needed is None else built(*needed)


def built(commands: list[Any], groups: list[Any]) -> Any:
    """The `woundlog` group (click's) with these commands and groups, whatever `main` narrowed."""
    narrowed = app.registered_commands, app.registered_groups
    app.registered_commands, app.registered_groups = list(commands), list(groups)
    try:
        return typer.main.get_command(app)
    finally:
        app.registered_commands, app.registered_groups = narrowed


def run() -> None:
    """`woundlog ARGS...`, as the console script (start.py's `main`) runs it.

    Typer builds every command's parameters before it reads a word of the command line, which
    takes longer than a `hit` takes to run. When the first word names a command (or the
    `import` group), only that one is built, and `--version` alone builds none: options, help
    and errors are the same. Anything else (no command, `--help`, a word that is no command,
    shell completion) sees them all.
    """
    everything = app.registered_commands, app.registered_groups
    needed = reachable(*everything, sys.argv[1:])
    if needed is not None:
        app.registered_commands, app.registered_groups = needed
    try:
        app(prog_name="woundlog")
    except BrokenPipeError:  # help or an error, read by a program that stopped reading
        from .pipes import quiet_end

        sys.exit(quiet_end())
    finally:
        app.registered_commands, app.registered_groups = everything


def reachable(
    commands: list[Any], groups: list[Any], args: list[str]
) -> tuple[list[Any], list[Any]] | None:
    """The registered commands and groups `woundlog ARGS...` can reach; None: all of them."""
    if "_WOUNDLOG_COMPLETE" in os.environ or not args:
        return None
    if args == ["--version"]:
        return [], []
    word = command_word(args)
    if word is None:
        return None
    named = [
        info
        for info in commands
        if (info.name or typer.main.get_command_name(info.callback.__name__)) == word
    ]
    named_groups = [info for info in groups if group_name(info) == word]
    return (named, named_groups) if named or named_groups else None


def command_word(args: list[str]) -> str | None:
    """The command `woundlog ARGS...` names, past the app's own `--db URL` (`woundlog --db
    URL hit ...`, as the README writes it); None when another option of the app comes first
    (`--help`, `--version` with more): typer then needs every command."""
    at = 0
    while at < len(args) and args[at].startswith("-"):
        if args[at] == "--db":
            at += 2
        elif args[at].startswith("--db="):
            at += 1
        else:
            return None
    return args[at] if at < len(args) else None


def group_name(info: Any) -> str | None:
    """The name a group added with `app.add_typer` goes by: its own, else its Typer's."""
    return info.name if isinstance(info.name, str) else info.typer_instance.info.name

"""How a command reaches typer: guarded, given the app's `--db`, and loaded only when built.

Each command is a plain function in the module of its group (`fight.py`, `undo.py`, ...), which
imports what the command needs at its top. `commands.py` names each command and its module; a
`Deferred` stands in for it until typer builds that command, which a run does for the one it
runs alone (`run.py`), so `woundlog --version` imports no command module and `woundlog hit`
imports only `fight.py`.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable
from typing import Any

import typer

from woundlog.events.errors import UsageError

from .group import DB_KEY
from .guard import failure
from .options import Context, OldDb

CONTEXT = "woundlog_context"
"""The name under which typer hands a command its context (the app's --db, its name for hints)."""


class Registered:
    """A command's function as typer sees it: `run`, guarded (guard.py's `failure`), with the
    signature typer makes the options from: its context, and `db` the old `COMMAND --db`.

    Guarded per command rather than in `main()`, so that a test driving `app` directly sees
    exactly what a person at the terminal sees. A parameter named `db` is no option of the
    command: it is given the app's `--db` (see `options.Db`).

    That signature, and the annotations behind it, are worked out the first time typer asks,
    which it does only for the commands it builds: a run builds one (`main`)."""

    def __init__(self, run: Callable[..., None]) -> None:
        self.run = run
        self.__name__ = run.__name__  # typer names the command after it
        self.__qualname__ = run.__qualname__
        self.__module__ = run.__module__
        self.__doc__ = run.__doc__  # the command's help
        self.__wrapped__ = run  # typing.get_type_hints finds the module's names through it

    @functools.cached_property
    def own_signature(self) -> inspect.Signature:
        """`run`'s own signature, its annotations evaluated."""
        return inspect.signature(self.run, eval_str=True)

    @functools.cached_property
    def own_context(self) -> str | None:
        """The parameter by which a command that asks for its context gets it, as typer does."""
        parameters = self.own_signature.parameters.items()
        return next((name for name, each in parameters if each.annotation is Context), None)

    @functools.cached_property
    def __signature__(self) -> inspect.Signature:
        keyword = inspect.Parameter.KEYWORD_ONLY
        own = self.own_signature
        parameters = [each for each in own.parameters.values() if each.name != "db"]
        if self.own_context is None:
            parameters.append(inspect.Parameter(CONTEXT, keyword, annotation=Context))
        if "db" in own.parameters:
            parameters.append(inspect.Parameter("db", keyword, default=None, annotation=OldDb))
        return own.replace(parameters=parameters)

    @functools.cached_property
    def __annotations__(self) -> dict[str, Any]:  # type: ignore[override]
        """The signature's annotations, evaluated: typer's `get_type_hints` reads them, and a
        string there would be compiled again."""
        return {
            each.name: each.annotation
            for each in self.__signature__.parameters.values()
            if each.annotation is not inspect.Parameter.empty
        }

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        own_context = self.own_context
        ctx: Context = kwargs[own_context] if own_context else kwargs.pop(CONTEXT)
        url = None
        try:
            if "db" in kwargs:
                url = app_store(ctx, kwargs["db"])
                kwargs["db"] = url
            self.run(*args, **kwargs)
        except Exception as error:
            code = failure(error, url, ctx.command_path)
            if code is None:
                raise
            raise typer.Exit(code) from None


class Deferred(Registered):
    """A command whose function is `attribute` of `module`, imported only when typer builds the
    command: its function, help and signature are the module's, read then. With `args`, the
    attribute makes the command (`importing.records("foundry")`), and `name` is the command
    function's own name."""

    def __init__(self, module: str, attribute: str, *args: str, name: str | None = None) -> None:
        # no super(): `run` is not loaded yet
        self.__name__ = self.__qualname__ = name or attribute
        self.module, self.attribute, self.args = module, attribute, args

    @functools.cached_property
    def run(self) -> Callable[..., None]:  # type: ignore[override]
        found = getattr(importlib.import_module(self.module), self.attribute)
        run: Callable[..., None] = found(*self.args) if self.args else found
        return run

    @property
    def __doc__(self) -> str | None:  # type: ignore[override]
        return self.run.__doc__


def app_store(ctx: typer.Context, old: str | None) -> str | None:
    """The store a command opens: the app's `--db` (or `$WOUNDLOG_DB`), or an old `COMMAND --db`."""
    root = ctx.find_root()
    given: str | None = ctx.meta.get(DB_KEY)
    if old is None:
        return given
    source = root.get_parameter_source("db")
    if source is not None and source.name == "COMMANDLINE" and given != old:
        raise UsageError(f"--db is given twice ({given} and {old}): give it once, first")
    from .output import console, say

    say(
        f"warning: `--db` goes before the command now: `woundlog --db URL {ctx.info_name} ...`",
        out=console(stderr=True),
    )
    return old

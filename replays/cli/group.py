"""The `woundlog` group itself: its options (`--db`, `--version`) and click's usage errors printed
in woundlog's own shape (`error: ...`, `hint: ...`, exit 2)."""

# Annotations stay strings until typer builds a command: a run builds one command, so it
# evaluates that command's parameters alone, once (`Registered`), not every command's at every
# import.
from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated, Any, ParamSpec, get_type_hints

import typer

from woundlog.replays.release import RELEASE

DB_KEY = "woundlog.db"
"""Where the app's `--db` is kept, in click's `ctx.meta`, which every nested context shares."""


class WoundlogGroup(typer.core.TyperGroup):
    """The `woundlog` group, printing click's usage errors (unknown command, missing argument,
    bad value) as woundlog prints its own: `error: ...`, then `hint: ...`, exit 2."""

    def main(self, args: Any = None, prog_name: str | None = None, *more: Any, **extra: Any) -> Any:
        if extra.get("standalone_mode", True) is False:
            return super().main(args, prog_name, *more, **extra)
        sys.exit(self.answer(args, prog_name, *more, **extra))

    def answer(
        self, args: Any = None, prog_name: str | None = None, *more: Any, **extra: Any
    ) -> int:
        """Run one command line and give its exit status, any error printed as woundlog prints
        it: what `main` exits with, and how a `woundlog play` session answers each of its lines
        (which must go on after a refusal, so nothing here exits)."""
        extra["standalone_mode"] = False  # errors come back here rather than being printed
        try:
            code = super().main(args, prog_name, *more, **extra)
        except typer.TyperException as error:  # click's errors (typer ships its own click)
            from .output import print_error, print_raw

            if type(error).__name__ == "NoArgsIsHelpError":  # a bare `woundlog`: the help
                print_raw(str(error))
            else:
                print_error(click_message(error), hint=click_hint(error))
            return int(getattr(error, "exit_code", 1))
        except typer.Abort:
            from .output import print_error

            print_error("aborted")
            return 1
        return code if isinstance(code, int) else 0

    def list_commands(self, ctx: Any) -> list[str]:
        """The commands as `-h` lists them: `import`, a group of its own that typer would list
        last, beside `export`."""
        names = [name for name in super().list_commands(ctx) if name != "import"]
        at = names.index("export") + 1 if "export" in names else len(names)
        return [*names[:at], "import", *names[at:]] if "import" in self.commands else names

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except typer.TyperException as error:
            # click's parser raises some errors with no context (`--plot` with no value): they
            # are the command's, and its help is the one to point at, not the app's
            own = getattr(error, "ctx", False) is None and not getattr(error, "hint", None)
            if own and ctx.invoked_subcommand:
                path = f"{ctx.command_path} {ctx.invoked_subcommand}"
                error.hint = f"try '{path} -h' for help"  # type: ignore[attr-defined]
            raise

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except typer.TyperException as error:  # no such command: suggest the nearest
            if args:
                error.message = f"no such command {args[0]!r}"
                import difflib  # only for a mistyped command

                near = difflib.get_close_matches(args[0], self.list_commands(ctx), n=3)
                error.hint = (  # type: ignore[attr-defined]
                    (f"did you mean {' or '.join(map(repr, near))}? " if near else "")
                    + f"'{ctx.command_path} -h' lists every command"
                )
            raise


def click_message(error: Exception) -> str:
    """Click's message in woundlog's style: lower case first, no final full stop, and the
    options it would suggest left to the hint."""
    message = getattr(error, "message", str(error))
    negative = negative_number(error)
    if negative is not None:
        return negative
    if type(error).__name__ != "NoSuchOption":
        format_message = getattr(error, "format_message", None)
        message = format_message() if format_message else message
    message = message.strip().rstrip(".")
    return message[:1].lower() + message[1:]


def negative_number(error: Exception) -> str | None:
    """`hit FIGHT grim -1`: click reads `-1` as an option it does not know; said as what it is,
    a number the command's DAMAGE (or AMOUNT) cannot be. None for any other error."""
    option = getattr(error, "option_name", None)
    ctx = getattr(error, "ctx", None)
    if type(error).__name__ != "NoSuchOption" or ctx is None or not option:
        return None
    if not (option[1:].isascii() and option[1:].isdigit() and option[0] == "-"):
        return None
    from .options import whole_number  # only for this error: options loads the fight ids

    counts = [
        param.human_readable_name
        for param in ctx.command.params
        if getattr(param.type, "func", None) is whole_number
    ]
    if not counts:
        return None
    return f"{' or '.join(counts)} must be a whole number >= 0, not {option}"


def click_hint(error: Exception) -> str:
    """What to do about a usage error: its own hint, the options click found near a mistyped
    one, else the command's help."""
    if hint := getattr(error, "hint", None):
        return str(hint)
    ctx = getattr(error, "ctx", None)
    help_ = f"try '{ctx.command_path} -h' for help" if ctx is not None else "try 'woundlog -h'"
    near = sorted(getattr(error, "possibilities", None) or [])
    return f"did you mean {' or '.join(near)}? {help_}" if near else help_


app = typer.Typer(
    cls=WoundlogGroup,
    name="woundlog",
    help="Track what happens to tabletop characters once they get hurt.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


P = ParamSpec("P")


def evaluated(function: Callable[P, None]) -> Callable[P, None]:
    """`function` with its annotations evaluated once, here: typer reads the app's options on
    every run, several times, and would evaluate each annotation's string at each reading."""
    function.__annotations__ = get_type_hints(function, include_extras=True)
    return function


AppDb = Annotated[
    str | None,
    typer.Option(
        "--db",
        metavar="URL",
        envvar="WOUNDLOG_DB",
        show_envvar=True,
        help="Store: a .db path, sqlite:PATH, jsonl:DIR or postgresql://... Default: the "
        "user data directory.",
    ),
]
ShowVersion = Annotated[
    bool | None,
    typer.Option("--version", help="Print woundlog's version and exit.", is_eager=True),
]


@app.callback(invoke_without_command=True)
@evaluated  # at every start: names, not expressions, are quick to evaluate
def options(ctx: typer.Context, db: AppDb = None, show_version: ShowVersion = None) -> None:
    """Track what happens to tabletop characters once they get hurt."""
    if show_version:  # one plain line, as print_raw writes it, without loading the output module
        sys.stdout.write(f"woundlog {RELEASE}\n")
        raise typer.Exit()
    ctx.meta[DB_KEY] = db
    if ctx.invoked_subcommand is None:
        from .output import print_raw

        print_raw(ctx.get_help())
        raise typer.Exit(2)

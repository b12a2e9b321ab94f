"""Every `woundlog` command, in the order `woundlog -h` lists them, and the module holding it.

A command is a function in the module of its group; this table is how the group and the
`import` group find it without importing it (`Deferred`), so a run imports the module of the
command it runs alone. Adding a command: its function in its group's module, its line here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from woundlog.events.importers import IMPORTERS

from .group import app
from .guard import LOG_FORM
from .registry import Deferred

COMMANDS: list[tuple[str, str, str]] = [  # (command, module of its group, function)
    ("new", "fight", "new"),
    ("play", "play", "play"),
    ("join", "fight", "join"),
    ("hit", "fight", "hit"),
    ("heal", "fight", "heal"),
    ("tick", "fight", "tick"),
    ("next", "turns", "next_turn"),
    ("order", "turns", "order"),
    ("choose", "fight", "choose"),
    ("check", "fight", "check"),
    ("set", "fight", "set_stat"),
    ("end", "fight", "end"),
    ("undo", "undo", "undo"),
    ("amend", "undo", "amend"),
    ("fights", "fight", "fights"),
    ("state", "fight", "state"),
    ("log", "fight", "log"),
    ("delete", "fight", "delete"),
    ("rename", "fight", "rename"),
    ("export", "fight", "export"),
    ("replay", "pictures", "replay"),
    ("odds", "whatif", "odds"),
    ("branch", "whatif", "branch_fight"),
    ("diff", "whatif", "diff_fights"),
    ("timeline", "pictures", "timeline"),
    ("report", "report", "report"),
    ("rules", "reference", "rules"),
    ("schema", "reference", "schema"),
    ("demo", "reference", "demo"),
    ("serve", "service", "serve"),
    ("share", "service", "share"),
]
CAMPAIGN_COMMANDS = [
    "new",
    "join",
    "record",
    "rest",
    "treat",
    "repair",
    "time",
    "retire",
    "died",
    "undo",
    "show",
    "history",
    "report",
]
"""`woundlog campaign COMMAND`, each the function of that name in campaign.py."""

IMPORTING = f"{__package__}.importing"
"""The module of `woundlog import`: the log form (`import_`) and one command per format."""


class ImportGroup(typer.core.TyperGroup):
    """`woundlog import`: a first word that names no format is the file of the log form, so
    `woundlog import FILE.jsonl` and `woundlog import FORMAT FILE` are both one command line."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            if any(mark in args[0] for mark in "./\\") or Path(args[0]).exists():
                return LOG_FORM, self.commands[LOG_FORM], args  # the file is the log's argument
            error = typer.BadParameter(f"`{args[0]}` is no format, nor a file", param_hint="FORMAT")
            import difflib  # only for an unknown format

            near = difflib.get_close_matches(args[0], list(IMPORTERS), n=1)
            error.hint = (  # type: ignore[attr-defined]
                (f"did you mean `{near[0]}`? " if near else "")
                + f"'{ctx.command_path} FILE.jsonl' stores a woundlog log; "
                f"'{ctx.command_path} FORMAT FILE --into FIGHT' another program's records "
                f"({', '.join(IMPORTERS)})"
            )
            raise error
        return super().resolve_command(ctx, args)


import_app = typer.Typer(
    cls=ImportGroup,
    name="import",
    help="Store a fight log (`woundlog import FILE.jsonl [--as FIGHT]`), or convert another "
    "program's records into a fight (`woundlog import FORMAT FILE --into FIGHT`).",
    no_args_is_help=True,
    subcommand_metavar="FILE.jsonl | FORMAT FILE",
    context_settings={"help_option_names": ["-h", "--help"]},
)

for command, module, function in COMMANDS:
    app.command(command)(Deferred(f"{__package__}.{module}", function))
app.add_typer(import_app)
campaign_app = typer.Typer(
    name="campaign",
    help="A roster carried from fight to fight: each member's permanent stats and injuries, "
    "read by folding the fights played (`woundlog campaign new NAME --ruleset R`).",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(campaign_app)
for each_command in CAMPAIGN_COMMANDS:
    campaign_app.command(each_command)(Deferred(f"{__package__}.campaign", each_command))
import_app.command(LOG_FORM, hidden=True)(Deferred(IMPORTING, "import_"))
for each_format in IMPORTERS:
    import_app.command(each_format)(Deferred(IMPORTING, "records_of", each_format, name="records"))

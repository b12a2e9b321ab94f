"""Reference: the rulesets (`rules`), the events' JSON Schema (`schema`), and a bundled fight
replayed (`demo`)."""

from __future__ import annotations

from typing import Annotated

import typer

from woundlog.core import RULESETS
from woundlog.events import UsageError

from ..reference import event_schema, ruleset_markdown, rulesets_markdown
from .application import known_ruleset
from .demo import run_demo
from .output import (
    console,
    print_json,
    print_raw,
    rules_list,
    rules_summary,
    say,
    who_may_act_table,
)


def rules(
    name: Annotated[
        str | None, typer.Argument(metavar="NAME", help="A ruleset. Default: list them.")
    ] = None,
    diagram: Annotated[
        bool, typer.Option("--diagram", help="Print the state graph as a mermaid diagram.")
    ] = False,
    markdown: Annotated[
        bool,
        typer.Option(
            "--markdown",
            help="Print it as Markdown, for a page or a wiki: the documentation, then what the "
            "ruleset declares and who may act, as tables. Not with --diagram.",
        ),
    ] = False,
) -> None:
    """The rulesets: their decisions, states, dice, stats and facts."""
    if markdown and diagram:
        raise UsageError(
            "--markdown and --diagram print different things: the page, or the mermaid "
            "diagram alone; give one"
        )
    if name is None:
        if diagram:
            raise UsageError("--diagram draws one ruleset: give its NAME")
        if markdown:
            print_raw(rulesets_markdown(RULESETS))
            return
        console().print(rules_list(RULESETS))
        return
    ruleset = RULESETS[known_ruleset(name)]
    if diagram:
        print_raw(ruleset.graph.mermaid())
        return
    if markdown:
        print_raw(ruleset_markdown(ruleset))
        return
    say(ruleset.documentation())
    say("")
    console().print(rules_summary(ruleset))
    console().print(who_may_act_table(ruleset))


def schema() -> None:
    """The JSON Schema of the events: every fact with its type and the rulesets that read it."""
    print_json(event_schema(), indent=2)


def demo() -> None:
    """Replay a bundled Mordheim skirmish event by event, undo included."""
    run_demo(console())

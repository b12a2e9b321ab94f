"""Reference: what `woundlog schema` and `woundlog rules` print, read from the one source.

The JSON Schema: the events' own schema, with every fact of a `hit` or `heal` (an optional
top-level field some rulesets use) saying what it is for and which rulesets read it. Events know
no rulesets (the dependency rule), so which ruleset reads which fact is added here, from the
rulesets' own declarations, never written down twice.

A ruleset at a glance (what it declares) and who may act in each of its states, as rows the CLI
draws as tables; and a ruleset's whole page as Markdown (`woundlog rules NAME --markdown`, for a
wiki): its documentation, which is its module's docstring, then the same two tables."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from woundlog.core import RULESETS, Ruleset
from woundlog.core.ruleset import ACTS, COMMON_OPTIONS
from woundlog.events import FACTS, json_schema

_STRUCTS = {"hit": "Hit", "heal": "Heal"}


def readers(kind: str, fact: str) -> list[str]:
    """The rulesets that read `fact` on a `kind` event, in registry order."""
    return [
        name
        for name, rules in RULESETS.items()
        if fact in (rules.hit_facts if kind == "hit" else rules.heal_facts)
    ]


def event_schema() -> dict[str, Any]:
    schema = json_schema()
    for kind, facts in FACTS.items():
        properties = schema["$defs"][_STRUCTS[kind]]["properties"]
        for fact in facts:
            prop = properties[fact]
            meant = next(
                (o["description"] for o in prop.get("anyOf", []) if "description" in o), ""
            )
            read_by = readers(kind, fact)
            used = (
                f"Read by: {', '.join(read_by)}; any other ruleset refuses it."
                if read_by
                else "Read by no ruleset yet."
            )
            prop["description"] = f"A fact. {meant.rstrip('.') + '. ' if meant else ''}{used}"
            prop["x-woundlog-rulesets"] = read_by
    return schema


# --- a ruleset at a glance ------------------------------------------------------------------------


def glance(rules: Ruleset) -> dict[str, str]:
    """What a ruleset declares, by row: the words a log written for it may use ("" for none)."""
    options = {**COMMON_OPTIONS, **rules.options}
    return {
        "states": ", ".join(rules.graph.states),
        "dice": ", ".join(f"{purpose} (d{sides})" for purpose, sides in rules.dice.items()),
        "stats": ", ".join(
            [
                *(
                    stat if default is None else f"{stat}={default}"
                    for stat, default in rules.stats.items()
                ),
                *(f"{stat} (optional)" for stat in rules.optional_stats),
            ]
        ),
        "kinds": ", ".join(rules.kinds),
        "hit facts": ", ".join(sorted(rules.hit_facts)),
        "heal facts": ", ".join(sorted(rules.heal_facts)),
        "options": ", ".join(f"{key}={option_text(value)}" for key, value in options.items()),
        "tables": ", ".join(rules.tables),
    }


def option_text(value: bool | int | str) -> str:
    """An option's default as the CLI takes it back (`--option strict_dice=false`)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def who_may_act_rows(rules: Ruleset) -> list[tuple[str, str, str, str]]:
    """Per state of the ruleset's machine: may a character in it attack, heal, and why not."""
    rows: list[tuple[str, str, str, str]] = []
    for state in rules.graph.states:
        acting = rules.who_may_act.get(state, ACTS)
        rows.append(
            (
                state,
                "yes" if acting.attack else "no",
                "yes" if acting.heal else "no",
                acting.why if not (acting.attack and acting.heal) else "",
            )
        )
    return rows


# --- a ruleset as Markdown ------------------------------------------------------------------------


def ruleset_markdown(rules: Ruleset) -> str:
    """A ruleset's page: its documentation (the module's docstring, the one source), then what it
    declares and who may act in each state, as Markdown tables.

    Example: `woundlog rules dnd5e --markdown > dnd5e.md`."""
    parts = [f"# {rules.name}", *documentation_blocks(rules.documentation())]
    parts += ["## At a glance", table(("what", "declared"), glance(rules).items(), empty="none")]
    parts += [
        "## Who may act",
        table(("state", "attack", "heal", "why not"), who_may_act_rows(rules)),
    ]
    return "\n\n".join(parts) + "\n"


def rulesets_markdown(rulesets: Mapping[str, Ruleset]) -> str:
    """The rulesets, one row each: its name and the first line of its documentation."""
    rows = (
        (f"`{name}`", rules.documentation().partition("\n")[0]) for name, rules in rulesets.items()
    )
    return "# Rulesets\n\n" + table(("name", "about"), rows) + "\n"


def table(header: tuple[str, ...], rows: Iterable[tuple[str, ...]], *, empty: str = "") -> str:
    """A Markdown table; a cell's `|` escaped, an empty cell shown as `empty`."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = (cell.replace("|", "\\|") if cell else empty for cell in row)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def documentation_blocks(text: str) -> list[str]:
    """A ruleset's documentation as Markdown blocks, every line of it kept.

    The docstrings are written to be read as plain text and are nearly Markdown already (their
    `names` in backticks, their decisions a list of `- ` items with two-space continuations).
    What Markdown would lose is kept: a run of indented lines aligned in columns (the states,
    the dice, a table's rows) becomes a text block, so its columns stay where they are; a list
    after a sentence gets the blank line some renderers need; a line that Markdown would read as
    a heading, quote or numbered item is escaped."""
    blocks: list[str] = []
    for paragraph in text.split("\n\n"):
        kind = ""
        lines: list[str] = []
        for line in paragraph.splitlines():
            if line.startswith("- "):
                now = "list"
            elif kind == "list" and line.startswith("  ") and not line.startswith("   "):
                now = "list"  # a list item's next line
            elif line.startswith(" "):
                now = "aligned"
            else:
                now = "prose"
            if now != kind and lines:
                blocks.append(_block(kind, lines))
                lines = []
            kind = now
            lines.append(line)
        if lines:
            blocks.append(_block(kind, lines))
    return blocks


def _block(kind: str, lines: list[str]) -> str:
    if kind == "aligned":
        indent = min(len(line) - len(line.lstrip(" ")) for line in lines if line.strip())
        return "```text\n" + "\n".join(line[indent:] for line in lines) + "\n```"
    if kind == "prose":
        lines = [_plain(line) for line in lines]
    return "\n".join(lines)


_MARKS = ("#", ">", "+", "=", "|", "* ", "---")


def _plain(line: str) -> str:
    """A line of prose that Markdown reads as prose: a leading mark escaped."""
    start = line.split(" ", 1)[0]
    numbered = start[:-1].isdigit() and start[-1:] in (".", ")")
    return "\\" + line if line.startswith(_MARKS) or numbered else line

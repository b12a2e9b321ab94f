"""`woundlog rules NAME --markdown`: a ruleset's page for a wiki, made from the one source (the
ruleset module's docstring and its declarations), read back with a Markdown parser as a wiki
would read it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token
from typer.testing import Result

from woundlog.core import RULESETS

Run = Callable[..., Result]
NAMES = ["mordheim", "warhammer_quest", "d26", "dragonquest", "contractor", "dnd5e"]


def parsed(text: str) -> list[Token]:
    return MarkdownIt("commonmark").enable("table").parse(text)


def headings(tokens: list[Token]) -> list[str]:
    return [tokens[at + 1].content for at, t in enumerate(tokens) if t.type == "heading_open"]


def table_after(tokens: list[Token], heading: str) -> list[list[str]]:
    """The body rows of the first table after `heading`, each a list of its cells' text."""
    at = next(at for at, t in enumerate(tokens) if t.type == "inline" and t.content == heading)
    start = next(i for i in range(at, len(tokens)) if tokens[i].type == "tbody_open")
    end = next(i for i in range(start, len(tokens)) if tokens[i].type == "tbody_close")
    rows: list[list[str]] = []
    for token in tokens[start:end]:
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "inline":
            rows[-1].append(token.content)
    return rows


def test_the_six_rulesets_are_the_ones_tested() -> None:
    assert sorted(RULESETS) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_the_page_holds_every_line_of_the_rulesets_documentation_in_order(
    run: Run, name: str
) -> None:
    page = run("rules", name, "--markdown")
    assert page.exit_code == 0, page.output
    at = 0
    for line in RULESETS[name].documentation().splitlines():
        if line.strip():
            found = page.stdout.find(line.strip(), at)
            assert found >= 0, (name, line)
            at = found + len(line.strip())


@pytest.mark.parametrize("name", NAMES)
def test_the_page_has_a_row_per_state_in_who_may_act_and_its_three_headings_alone(
    run: Run, name: str
) -> None:
    rules = RULESETS[name]
    tokens = parsed(run("rules", name, "--markdown").stdout)
    # no line of the documentation read as a heading, a quote or a numbered list
    assert headings(tokens) == [name, "At a glance", "Who may act"]
    assert not {"blockquote_open", "ordered_list_open"} & {t.type for t in tokens}
    acting = table_after(tokens, "Who may act")
    assert [row[0] for row in acting] == list(rules.graph.states)
    for state, attack, heal, why in acting:
        assert attack in ("yes", "no") and heal in ("yes", "no"), (state, attack, heal)
        assert (why == "") == (attack == heal == "yes"), (state, why)
    glance = dict(table_after(tokens, "At a glance"))
    assert glance["states"] == ", ".join(rules.graph.states)
    assert all(f"{purpose} (d{sides})" in glance["dice"] for purpose, sides in rules.dice.items())


def test_a_table_of_the_documentation_keeps_its_columns_in_a_text_block(run: Run) -> None:
    tokens = parsed(run("rules", "dnd5e", "--markdown").stdout)
    blocks = [t.content for t in tokens if t.type == "fence" and t.info == "text"]
    assert any(
        "upright     conscious, with at least 1 hit point." in block.splitlines()
        for block in blocks
    ), blocks


def test_who_may_act_says_why_a_state_may_not_act(run: Run) -> None:
    tokens = parsed(run("rules", "mordheim", "--markdown").stdout)
    acting = {row[0]: row[1:] for row in table_after(tokens, "Who may act")}
    assert acting["upright"] == ["yes", "yes", ""]
    assert acting["stunned"][:2] == ["no", "no"] and "do nothing" in acting["stunned"][2]


def test_markdown_without_a_name_lists_every_ruleset_with_its_first_line(run: Run) -> None:
    listed = run("rules", "--markdown")
    assert listed.exit_code == 0, listed.output
    rows = table_after(parsed(listed.stdout), "Rulesets")
    assert rows == [
        [f"`{name}`", RULESETS[name].documentation().partition("\n")[0]] for name in RULESETS
    ]


@pytest.mark.parametrize("args", [("dnd5e",), ()])
def test_markdown_and_diagram_together_are_refused_as_a_usage_error(
    run: Run, args: tuple[str, ...]
) -> None:
    refused = run("rules", *args, "--markdown", "--diagram")
    assert refused.exit_code == 2, refused.output
    assert refused.stdout == ""
    assert refused.stderr.startswith("error: --markdown and --diagram")

"""The pages' JavaScript names no game (issue 36): no ruleset, kind or stat of any ruleset in the
registry appears in the code of replays/web/*.js (comments may name them, to say why). What a
page shows of a game comes from the ruleset's declaration, `GET /rulesets`.

A word the wire format itself uses (an event's or the state JSON's field: `character`, which is
also DragonQuest's default kind) is the format's, not a game's, and may be written."""

from __future__ import annotations

import re
import typing
from importlib.resources import files

import pytest

from woundlog.core import RULESETS, Character, FightState
from woundlog.events import Event

WEB = files("woundlog.replays") / "web"
SCRIPTS = sorted(f.name for f in WEB.iterdir() if f.name.endswith(".js"))

BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
LINE_COMMENT = re.compile(r"(?<![:\"'`\\])//.*")  # not the `//` of a URL in a string


def wire_words() -> set[str]:
    """Every field of every event and of the state JSON's fight and character."""
    fields = set(Character.__struct_fields__) | set(FightState.__struct_fields__)
    for kind in typing.get_args(Event):
        fields |= set(kind.__struct_fields__)
    return fields


def game_words() -> dict[str, str]:
    """Each ruleset's name, kinds, stats (optional ones too) and the counters its presentation
    names, with the ruleset that has it; less the wire format's own words."""
    words: dict[str, str] = {}
    for name, rules in RULESETS.items():
        shown = rules.presentation
        pips = shown.pips.counters if shown.pips is not None else {}
        for word in (
            name,
            *rules.kinds,
            *rules.stats,
            *rules.optional_stats,
            *shown.pools,
            *shown.maximums.values(),
            *shown.hidden,
            *shown.units,
            *pips,
        ):
            words.setdefault(word, name)
    for word in wire_words():
        words.pop(word, None)
    return words


def code_of(script: str) -> str:
    """The script without its comments."""
    text = (WEB / script).read_text(encoding="utf-8")
    return LINE_COMMENT.sub("", BLOCK_COMMENT.sub("", text))


def test_the_words_looked_for_include_every_rulesets_name_kinds_and_pools() -> None:
    words = game_words()
    for name, rules in RULESETS.items():
        assert name in words
        assert set(rules.presentation.pools) <= set(words)
    assert {"monster", "npc", "legendary", "pc", "hp", "wounds", "successes"} <= set(words)


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_page_script_names_no_ruleset_kind_or_stat(script: str) -> None:
    code = code_of(script)
    found = sorted(
        f"{word} ({ruleset}), line {code[: m.start()].count(chr(10)) + 1}"
        for word, ruleset in game_words().items()
        for m in re.finditer(rf"(?<![\w$]){re.escape(word)}(?![\w$])", code)
    )
    assert found == [], f"{script} knows a game: read the ruleset's declaration instead"


def test_the_check_finds_a_game_in_a_script_and_not_in_its_comments() -> None:
    """The check itself: a script that names a stat is caught, a comment that does is not."""
    words = game_words()
    caught = "const POOLS = new Set([\"wounds\", 'hp']); // dnd5e's hp"
    code = LINE_COMMENT.sub("", BLOCK_COMMENT.sub("", caught + "\n/* monster */"))
    named = {w for w in words if re.search(rf"(?<![\w$]){re.escape(w)}(?![\w$])", code)}
    assert named == {"wounds", "hp"}

"""The table of `woundlog` commands (replays/cli/commands.py): each command once, so `woundlog -h`
lists it once and a run builds one command for the word it names."""

from __future__ import annotations

from collections import Counter

import typer

from woundlog.replays.cli.commands import CAMPAIGN_COMMANDS, COMMANDS
from woundlog.replays.cli.run import EVERYTHING


def twice(names: list[str]) -> list[str]:
    return sorted(name for name, count in Counter(names).items() if count > 1)


def test_no_command_is_listed_twice() -> None:
    assert twice([command for command, _, _ in COMMANDS]) == []
    assert twice(CAMPAIGN_COMMANDS) == []


def test_the_app_registers_each_command_once() -> None:
    commands, groups = EVERYTHING
    names = [info.name or typer.main.get_command_name(info.callback.__name__) for info in commands]
    assert twice(names) == []
    assert sorted(names) == sorted(command for command, _, _ in COMMANDS)
    assert twice([group.name or group.typer_instance.info.name for group in groups]) == []

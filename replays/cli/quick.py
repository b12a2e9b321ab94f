"""`woundlog hit` and `woundlog heal`, the commands a game master types most, read without typer;
and `woundlog play FIGHT`, whose session reads its hits and heals the same way.

Importing typer, click and rich was about a quarter of a hit's instructions (96 M of 371 M,
issue 28), more than the hit's own work. A command line that is exactly a hit or a heal as `-h`
documents it is read here and run by the same function typer's command calls (`record_hit`,
`record_heal` in application.py), its failure said and its exit status given by the same
`failure` (guard.py). Anything else (help, an option not theirs, an option given twice, a value
that looks like an option, a bad FIGHT or DAMAGE, `--`, shell completion, a word typer would
expand on Windows) is left to typer, whose messages are the ones to see: this reads only what
typer would read the same way.

`woundlog [--db URL] play FIGHT` is read here too, and run by start.py through `guarded` with
the function play.py's command calls (`played`, lines.py): a session's first answer then costs
what the same line costs run alone, typer made only for a line that needs it (issue 42).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

from .guard import failure

VALUED = {
    "hit": {"--attacker": "attacker"},
    "heal": {"--means": "means", "--healer": "healer"},
}
"""Each command's options of its own, that take a value, and the parameter each gives."""
SHARED = {"--roll": "roll", "--fact": "fact", "--id": "event_id", "--note": "note"}
"""The options with a value both take (options.py), their parameters."""
REPEATED = {"roll", "fact"}
"""The parameters of a repeatable option: a list of every value given, in order."""
FLAG, FLAG_PARAMETER = "--json", "as_json"
PLAY = "play"
"""`woundlog play FIGHT`: one argument, no option of its own (its old `--db` is typer's)."""
EXPANDED = "~$%*?[" if os.name == "nt" else ""
"""What typer expands in a word on Windows (`~`, variables, wildcards, as a Unix shell would
have): a line holding any of them is typer's to read."""


def quick(args: list[str]) -> int | None:
    """Run `woundlog ARGS...` if it is a hit or a heal this module reads, and give its exit
    status; None when it is not (a session, `play FIGHT`, is start.py's to run)."""
    found = read(args)
    if found is None or found[0] == PLAY:
        return None
    command, parameters = found
    from .application import record_heal, record_hit

    recorded = record_hit if command == "hit" else record_heal
    return guarded(partial(recorded, **parameters), command, parameters["db"])


def guarded(run: Callable[[], int | None], command: str, db: str | None) -> int:
    """`run()`, a command read here, and its exit status (its own, else 0), its failure said
    and its status given as typer's command and `_main` give them."""
    try:
        code = run()
    except KeyboardInterrupt:  # typer's own answer to ^C: 128 + SIGINT, nothing said
        return 130
    except Exception as error:
        failed = failure(error, db, f"woundlog {command}")
        if failed is not None:
            return failed
        if isinstance(error, EOFError):  # what typer (core.py `_main`) and group.py make of it
            from .output import print_error

            sys.stderr.write("\n")
            print_error("aborted")
            return 1
        raise
    return code or 0


def read(args: list[str]) -> tuple[str, dict[str, Any]] | None:
    """The command and the parameters of `record_hit`, `record_heal` or `played` that `args`
    give, read as click reads them: options anywhere after the command, `--opt VALUE` or
    `--opt=VALUE`, the app's `--db URL` (else `$WOUNDLOG_DB`, unless empty) once before it.
    None for anything else."""
    if "_WOUNDLOG_COMPLETE" in os.environ:
        return None
    if EXPANDED and any(mark in word for word in args for mark in EXPANDED):
        return None
    db = os.environ.get("WOUNDLOG_DB") or None
    at = 0
    if args[:1] == ["--db"] and len(args) > 1 and value_of(args[1]):
        db, at = args[1], 2
    elif args[:1] and args[0].startswith("--db=") and value_of(args[0][5:]):
        db, at = args[0][5:], 1
    if args[at : at + 1] == [PLAY]:
        return session_of(args[at + 1 :], db)
    if at == len(args) or args[at] not in VALUED:
        return None
    command, words = args[at], iter(args[at + 1 :])
    valued = VALUED[command] | SHARED
    parameters: dict[str, Any] = {"db": db}
    positional: list[str] = []
    for word in words:
        if not word.startswith("-"):
            positional.append(word)
            continue
        option, equals, value = word.partition("=")
        if option == FLAG and not equals and FLAG_PARAMETER not in parameters:
            parameters[FLAG_PARAMETER] = True
            continue
        parameter = valued.get(option)
        if parameter is None:
            return None
        if not equals:
            value = next(words, "-")
            if not value_of(value):
                return None
        if parameter in REPEATED:
            parameters.setdefault(parameter, []).append(value)
        elif parameter in parameters:
            return None
        else:
            parameters[parameter] = value
    if len(positional) != 3:
        return None
    fight, target, number = positional
    if not (number.isascii() and number.isdigit()):  # options.py's `whole_number`
        return None
    try:
        how_much = int(number)
    except ValueError:  # more digits than int() converts: typer says so as a bad DAMAGE
        return None
    checked = fight_id(fight)
    if checked is None:
        return None
    amount = "damage" if command == "hit" else "amount"
    return command, {**parameters, "fight": checked, "target": target, amount: how_much}


def session_of(words: list[str], db: str | None) -> tuple[str, dict[str, Any]] | None:
    """`play FIGHT`'s parameters, from the words after `play`: the fight alone, a good id."""
    if len(words) != 1 or not value_of(words[0]):
        return None
    fight = fight_id(words[0])
    return None if fight is None else (PLAY, {"db": db, "fight": fight})


def fight_id(word: str) -> str | None:
    """A FIGHT argument as options.py's `valid_fight_id` takes it; None: typer says why not."""
    from woundlog.events.fight_ids import BadFightId, check_fight_id

    try:
        return check_fight_id(word)
    except BadFightId:
        return None


def value_of(word: str) -> bool:
    """Whether `word`, after an option, is surely its value as click reads it: an empty one or
    one that starts with `-` is left to typer."""
    return bool(word) and not word.startswith("-")

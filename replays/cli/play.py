"""`woundlog play FIGHT`, the command: its help and its arguments. The session it runs is
lines.py's (where its lines come from: a terminal, else standard input) and session.py's (what
each line does). The console script reads `woundlog [--db URL] play FIGHT` without typer
(quick.py), as a plain hit: this is the command typer builds for any other way of writing it."""

from __future__ import annotations

from .lines import played
from .options import Db, FightId


def play(fight: FightId, db: Db = None) -> None:
    """Play a fight at the table: each line a command without `woundlog` and the fight.

    `hit grim 1 --attacker snik`, `undo`, `tick start --side reavers`, `state`, `odds --hit
    grim:2`: each answered at once, then who is down, dying or out. `help` lists the commands;
    Tab completes commands, options, character ids and names; Ctrl-C cancels a line, Ctrl-D (or
    `quit`) leaves. Lines piped in (not a terminal) run one by one; the exit status is then
    that of the last refused line, 0 if none was."""
    code = played(fight, db)
    if code:  # a script of lines: it failed if one of them did
        import typer

        raise typer.Exit(code)

"""The `woundlog` commands as a `woundlog play` session runs them: each made when a line first
needs it, not all of them before the first line (issue 42).

Typer makes a command by reading its function's every parameter, which imports the command's
module; making all of them (run.py's `every_command`) cost a session's start more than twice a
whole `woundlog hit`, for commands most sessions never type. So a line runs as the console
script runs the same words (start.py):

- a plain hit or heal is read without typer (quick.py), by the same function and with the same
  failures;
- any other line is given to the `woundlog` group with the commands its words can reach made
  (run.py's `reaching`, as `woundlog COMMAND ...` makes it), kept for the next line naming the
  same command;
- help, completion and a word that names no command (whose error suggests the nearest) read
  every command: they are all made then, once, and every later line uses them.

Whichever way, a line's options, messages, refusals and exit status are the CLI's: the tests of
quick.py and of the console script hold each way to what the group with every command built
answers.
"""

from __future__ import annotations

from typing import Any

from .quick import VALUED, quick


class OnDemand:
    """The `woundlog` group for a session: what a line answers (`answer`), whether a command
    takes the fight (`takes_fight`), a command (`command`) and all of them (`everything`).
    Given `everything` (click's group with every command built), it uses that from the start."""

    def __init__(self, everything: Any = None) -> None:
        self._everything = everything
        self._reaching: dict[str, Any] = {}  # a command's word: the group that makes it alone

    def everything(self) -> Any:
        """Click's `woundlog` group, every command made (the first time it is asked for)."""
        if self._everything is None:
            from .run import every_command

            self._everything = every_command()
            self._reaching.clear()
        return self._everything

    def group_for(self, args: list[str]) -> Any:
        """A click `woundlog` group that answers `woundlog ARGS...` as the whole one would."""
        if self._everything is not None:
            return self._everything
        from .run import command_word, reaching

        word = command_word(args)
        if word is not None and word in self._reaching:
            return self._reaching[word]
        group = reaching(args)
        if group is None or word is None:
            return self.everything()
        self._reaching[word] = group
        return group

    def answer(self, args: list[str]) -> int:
        """Run `woundlog ARGS...` and give its exit status, anything wrong said as the CLI
        says it (click's group `answer`, which a session's lines must not exit from)."""
        code = quick(args)  # a plain hit or heal
        if code is not None:
            return code
        return int(self.group_for(args).answer(args, prog_name="woundlog"))

    def command(self, word: str) -> Any | None:
        """Click's command `word` (a group for `import` and `campaign`); None: no such command."""
        return self.group_for([word]).commands.get(word)

    def takes_fight(self, word: str) -> bool:
        """Whether command `word`'s first argument is a fight (`FIGHT`, or `odds`'
        `FIGHT|FILE.jsonl`). A hit's and a heal's is, as quick.py reads them: asked of them,
        no command is made."""
        if word in VALUED:
            return True
        command = self.command(word)
        return command is not None and takes_fight(command)


def takes_fight(command: Any) -> bool:
    """Whether click's `command` takes a fight first (`FIGHT`, or `odds`' `FIGHT|FILE.jsonl`)."""
    arguments = [param for param in command.params if param.param_type_name == "argument"]
    return bool(arguments) and (arguments[0].metavar or "").startswith("FIGHT")

"""A `woundlog play FIGHT` session: each line a `woundlog` command without `woundlog` and the
fight, run by the CLI's own command definitions with the fight bound, on one application kept
open for the session.

A line is answered as the console script answers `woundlog [--db URL] COMMAND FIGHT ARGS...`
(ondemand.py: a plain hit or heal read without typer, else the very click group `woundlog`
runs, each command made when a line first needs it): parsing, messages, refusals and exit codes
are the CLI's, from the same code; nothing here parses a command's options. What the session
adds:

- the commands that make no sense on the fight being played are refused, each with its reason
  (`OUT_OF_SESSION`), and so are the words of the shell (`woundlog`, the fight) typed by habit;
- after a line that changed the fight, a status line: who is down, dying or out;
- another writer (a second session, the CLI, the service) is never lost: the store's lock and
  `Fight.append`'s revalidation, as for any command. The session also keeps the version it last
  showed: when the fight has moved on since, the events it did not write are shown first, as
  `meanwhile: ...`, so the command is read against the fight as it is; a refusal that follows
  is told that the fight changed, and what;
- `help`, `quit`/`exit`, and the words completion offers (`candidates`).

Decisions where nothing says:
- `state` is the CLI's `state`; there is no separate table of the session's own.
- A command that names no fight (`fights`, `rules`, `schema`) runs as it is; one that names one
  gets this fight, so `diff OTHER` compares this fight with OTHER and `branch --as NEW` branches
  it.
- Events written elsewhere between the check before a command and its append (a few
  milliseconds) are not shown as `meanwhile`: they are in the log and in `state`, and the next
  `log` shows them; only a display is skipped, never an event.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from woundlog.core import Character, FightState
from woundlog.events import WoundlogError

from ..application import Application
from .ondemand import OnDemand, takes_fight
from .output import event_line, print_error, say
from .words import split

MAX_LINE = 64 * 1024
"""Bytes (UTF-8) of one line of `play` (a command as typed at the table: a few dozen); a longer
one is refused unread, piped or typed, and the session goes on."""

OUT_OF_SESSION = {
    "new": "a session plays the fight it was opened on: start another from the shell "
    "(`woundlog new FIGHT --ruleset NAME`), then `woundlog play FIGHT`",
    "play": "this is a session already: `quit`, then `woundlog play FIGHT` plays another fight",
    "serve": "the service runs on its own: start it in another shell (`woundlog serve`); this "
    "session and the service share the store, and neither loses the other's events",
    "delete": "deleting the fight being played would leave this session on nothing: `quit`, then "
    "`woundlog delete FIGHT`",
    "rename": "renaming the fight being played would leave this session on nothing: `quit`, then "
    "`woundlog rename FIGHT NEW`",
    "import": "an import makes or fills a fight from a file: run it from the shell "
    "(`woundlog import ...`); its events show here as `meanwhile` at the next command",
    "demo": "the demo replays a fight of its own: run it from the shell (`woundlog demo`)",
    "replay": "replay reads a log file, not this fight: run it from the shell "
    "(`woundlog replay FILE.jsonl`); `state` and `log` show this fight",
}
"""Commands refused inside a session, each with why and what to do instead."""

SESSION_WORDS = {
    "help": "this list; `help COMMAND` (or `COMMAND -h`): the command's options",
    "quit": "leave the session (also `exit`, or Ctrl-D); Ctrl-C cancels the line being typed",
}
LEAVE = ("quit", "exit")

CONDITION = {
    "knocked_down": "down",
    "stunned": "down",
    "stabilised": "down",
    "downed": "dying",
    "out_of_action": "out",
    "dead": "out",
}
"""The status line's three groups, by state: down (on the floor, not bleeding out: knocked
down, stunned, stabilised), dying (downed: the rules roll for them each turn) and out (out of
action, dead). Upright characters are not listed."""

CHARACTER_METAVARS = ("TARGET", "CHARACTER")
CHARACTER_OPTIONS = ("--attacker", "--healer", "--character")
"""A command's arguments and options whose values are characters, to complete with ids and
display names."""


def status_line(characters: Mapping[str, Character]) -> str:
    """`down: Grim (stunned); out: Snik (out of action)`, or that nobody is."""
    groups: dict[str, list[str]] = {"down": [], "dying": [], "out": []}
    for cid, character in characters.items():
        group = CONDITION.get(character.state)
        if group is not None:
            groups[group].append(f"{character.name or cid} ({character.state.replace('_', ' ')})")
    said = [f"{group}: {', '.join(names)}" for group, names in groups.items() if names]
    return "  " + ("; ".join(said) if said else "nobody is down, dying or out")


def split_typed(text: str) -> tuple[list[str], str, str]:
    """A line being typed: the words before the one under the cursor, that word as it reads,
    and as it is written (its quote included), for completion. An open quote is closed."""
    for closing in ("", '"', "'"):
        try:
            words = split(text + closing)
        except ValueError:
            continue
        if closing:  # the last word is the quoted one being typed
            at = text.rfind(closing)
            return words[:-1], words[-1] if words else "", text[at:]
        if not text or text[-1].isspace():
            return words, "", ""
        raw = text.split()[-1] if text.split() else ""
        return words[:-1], words[-1], raw
    return text.split(), "", ""


class Session:
    """One fight played line by line (`handle`), over `app`, kept open by the caller."""

    def __init__(
        self,
        group: Any,
        app: Application,
        fight: str,
        db: str | None,
        *,
        say: Callable[[str], None] = say,
    ) -> None:
        # the CLI's commands: an OnDemand, or click's `woundlog` group with every one built
        self.cli = group if isinstance(group, OnDemand) else OnDemand(group)
        self.app = app
        self.fight = fight
        self.db = db
        self.say = say
        self.seen = app.version(fight)  # the version this session last showed
        self.code = 0  # the last refused line's exit code (0: none yet)

    # --- a line --------------------------------------------------------------------------

    def handle(self, line: str) -> bool:
        """Run one line; False when the session ends (`quit`, or the fight is gone)."""
        if len(line) > MAX_LINE // 4 and len(line.encode(errors="surrogatepass")) > MAX_LINE:
            self.too_long()
            return True
        try:
            words = split(line)
        except ValueError as error:  # an open quote: the shell's own words for it
            self.refuse(f"{str(error).lower()}: close the quote")
            return True
        if not words:
            return True
        word, rest = words[0], words[1:]
        if word in LEAVE:
            return False
        if word == "help":
            self.help(rest)
            return True
        refusal = self.refusal(word, rest)
        if refusal is not None:
            self.refuse(refusal)
            return True
        return self.run(word, rest)

    def run(self, word: str, rest: Sequence[str]) -> bool:
        """The command `word`, with the fight bound where it takes one, as the CLI runs it."""
        meanwhile = self.catch_up()
        if meanwhile is None:
            return False
        bound = [self.fight] if self.cli.takes_fight(word) else []
        store = ["--db", self.db] if self.db is not None else []
        try:
            code = self.cli.answer([*store, word, *bound, *rest])
        except SystemExit as exit_:  # nothing a line does ends the session but `quit`
            code = exit_.code if isinstance(exit_.code, int) else 1
        now = self.version()
        if now is None:
            return False
        if code != 0:
            self.code = code
            late = self.show_meanwhile(now) or []  # written by others: this line wrote nothing
            if meanwhile or late:
                said = ", ".join(f"#{seq}" for seq in [*meanwhile, *late])
                self.say(f"hint: the fight changed since your last command ({said}, above)")
        if now != self.seen or meanwhile:
            self.seen = now
            self.say(status_line(self.app.state(self.fight).characters))
        return True

    def refusal(self, word: str, rest: Sequence[str]) -> str | None:
        """Why a line is not run in the session; None: it is."""
        if word in OUT_OF_SESSION:
            return f"`{word}` is not for a session: {OUT_OF_SESSION[word]}"
        if word == "woundlog":
            return (
                "inside a session, a command goes without `woundlog` and the fight: "
                f"`hit grim 1`, not `woundlog hit {self.fight} grim 1`"
            )
        # the fight typed by habit; but `diff FIGHT` compares with a fight, and a character may
        # share the fight's id
        if (
            rest[:1] == [self.fight]
            and self.cli.takes_fight(word)
            and word != "diff"
            and self.fight not in self.characters()
        ):
            return f"the fight is `{self.fight}` already: `{word} {shlex.join(rest[1:])}`"
        return None

    def too_long(self) -> None:
        """A line past MAX_LINE is refused, and the session goes on."""
        self.refuse(
            f"a line of more than {MAX_LINE:,} bytes, the most a line of `play` may hold: not run"
        )

    def refuse(self, message: str) -> None:
        print_error(message)
        self.code = 2

    # --- what others wrote ----------------------------------------------------------------

    def version(self) -> int | None:
        """The fight's version now; None (said) when it is gone, deleted elsewhere."""
        version = self.app.store.version(self.fight)
        if version == 0:
            print_error(f"fight `{self.fight}` is gone: deleted elsewhere; the session ends")
            self.code = 1
            return None
        return version

    def catch_up(self) -> list[int] | None:
        """Show what was written since the session last looked; the seqs shown (None: gone)."""
        now = self.version()
        if now is None:
            return None
        shown = self.show_meanwhile(now)
        if shown:
            self.seen = now
        return shown

    def show_meanwhile(self, now: int) -> list[int]:
        """Each event after the version last shown, up to `now`, as `meanwhile: #8 hit: ...`."""
        if now <= self.seen:
            return []
        changes = self.app.changes_from(self.fight, self.seen + 1, now - self.seen)
        for each in changes:
            self.say(f"meanwhile: {event_line(each)}")
        return [each.seq for each in changes]

    # --- help and completion --------------------------------------------------------------

    def commands(self) -> list[str]:
        """The commands a session runs, in the order `woundlog -h` lists them."""
        names = self.cli.everything().list_commands(None)
        return [name for name in names if name not in OUT_OF_SESSION]

    def help(self, words: Sequence[str]) -> None:
        if words:  # the command's own help, as `COMMAND -h` prints it
            refusal = self.refusal(words[0], [])
            if refusal is not None:
                self.refuse(refusal)
            else:
                self.run(words[0], ["-h"])
            return
        self.say(f"commands on fight `{self.fight}`, as after `woundlog` without the fight:")
        every = self.cli.everything().commands
        rows = [(name, every[name].get_short_help_str(70)) for name in self.commands()]
        rows += list(SESSION_WORDS.items())
        width = max(len(name) for name, _ in rows)
        for name, text in rows:
            self.say(f"  {name.ljust(width)}  {text}")
        self.say("Tab completes commands, options, character ids and names; Up: history")

    def candidates(self, done: Sequence[str], typing: str) -> list[str]:
        """The words that may come next after `done`, starting as `typing` does (case
        ignored): commands, then a command's options, characters (ids and display names, read
        from the fight as it is now), sides and a tick's start or end."""
        if not done:
            words = [*self.commands(), *SESSION_WORDS, "exit"]
        elif done[0] == "help" and len(done) == 1:
            words = self.commands()
        else:
            command = self.cli.command(done[0])
            words = [] if command is None else self.next_words(command, done[1:], typing)
        folded = typing.casefold()
        return [word for word in dict.fromkeys(words) if word.casefold().startswith(folded)]

    def next_words(self, command: Any, done: Sequence[str], typing: str) -> list[str]:
        options = {
            name: param
            for param in command.params
            if param.param_type_name == "option" and not param.hidden
            for name in param.opts
        }
        if typing.startswith("-"):
            return [name for name in options if name.startswith("--")] + ["--help"]
        taking = options.get(done[-1]) if done else None
        if taking is not None and not taking.is_flag:
            return self.values_of(done[-1])
        arguments = [param for param in command.params if param.param_type_name == "argument"]
        if takes_fight(command):
            arguments = arguments[1:]
        place = positional_count(done, options)
        if place >= len(arguments):
            if not arguments or arguments[-1].nargs != -1:
                return []
            place = len(arguments) - 1  # an argument of many words (`order`'s characters)
        metavar = arguments[place].metavar or ""
        if metavar in CHARACTER_METAVARS:
            return self.characters()
        return metavar.split("|") if metavar == "start|end" else []

    def values_of(self, option: str) -> list[str]:
        if option in CHARACTER_OPTIONS:
            return self.characters()
        if option == "--side":
            state = self.now()
            return [c.side for c in state.characters.values() if c.side] if state else []
        return []

    def characters(self) -> list[str]:
        """Every character's id and display name, in join order."""
        state = self.now()
        if state is None:
            return []
        words = []
        for cid, character in state.characters.items():
            words.append(cid)
            if character.name and character.name != cid:
                words.append(character.name)
        return words

    def now(self) -> FightState[Any] | None:
        try:
            return self.app.state(self.fight)
        except WoundlogError:  # gone: the next command says so
            return None


def positional_count(done: Sequence[str], options: dict[str, Any]) -> int:
    """How many of a command's arguments `done` (its words after the command) has given."""
    count, skip = 0, False
    for word in done:
        if skip:
            skip = False
        elif word.startswith("-"):
            param = options.get(word.partition("=")[0])
            skip = param is not None and not param.is_flag and "=" not in word
        else:
            count += 1
    return count

"""A line of `woundlog play` into its words, as `shlex.split` reads it (POSIX shell quoting:
`'...'`, `"..."` with `\\"` and `\\\\`, a backslash outside quotes), in time linear in the
line: `shlex` builds each word a character at a time, quadratic in a long word (a 1 MB line:
112 s). The same words and the same errors (`No closing quotation`, `No escaped character`)
as `shlex.split`, which a property test holds it to. `quoted`: a word written back as a line
must hold it (completion's)."""

from __future__ import annotations

import re

_PIECES = re.compile(
    r"""(?P<space>[ \t\r\n]+)
      | '(?P<single>[^']*)'
      | "(?P<double>(?:[^"\\]|\\.)*)"
      | \\(?P<escaped>.)
      | (?P<plain>[^ \t\r\n'"\\]+)
      | (?P<open>['"])
      | (?P<trailing>\\)""",
    re.VERBOSE | re.DOTALL,
)
_ENDS_ESCAPING = re.compile(r"(?:[^\\]|\\.)*\\", re.DOTALL)  # the last backslash escapes nothing
_IN_DOUBLE = re.compile(r'\\(["\\])')  # in double quotes a backslash escapes only `"` and `\`


def split(line: str) -> list[str]:
    """The words of `line`, as `shlex.split(line)` gives them; ValueError as it raises it."""
    words: list[str] = []
    word: list[str] = []
    in_word = False  # a quote, even an empty one, makes a word
    for piece in _PIECES.finditer(line):
        kind = piece.lastgroup
        if kind == "space":
            if in_word:
                words.append("".join(word))
                word, in_word = [], False
            continue
        if kind == "open":  # shlex reads on to the end: an escape open there is said first
            after = line[piece.end() :]
            if piece.group(kind) == '"' and _ENDS_ESCAPING.fullmatch(after):
                raise ValueError("No escaped character")
            raise ValueError("No closing quotation")
        if kind == "trailing":
            raise ValueError("No escaped character")
        text = piece.group(kind or "plain")
        word.append(_IN_DOUBLE.sub(r"\1", text) if kind == "double" else text)
        in_word = True
    if in_word:
        words.append("".join(word))
    return words


def quoted(word: str) -> str:
    """A word as the line must hold it: a display name of several words in quotes."""
    import shlex

    return shlex.quote(word)

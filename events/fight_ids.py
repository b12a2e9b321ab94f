"""What a fight id may be: one rule for the CLI, the service and every store.

A fight id names a row in SQLite, a file `<id>.jsonl` in a JSON Lines store, and a path segment
of the service's URLs, so it must be safe as all three. The rule: a letter, digit or `_` first,
then letters, digits and `_ . -`; at most 200 characters and at most 249 bytes of UTF-8 (a file
name holds 255 bytes, `.jsonl` takes 6). "Letter" and "digit" are Unicode's (`Grüße`, `戦闘`
pass). That leaves out, with no list to keep up to date: whitespace, `/` and `\\`, NUL and every
other control character, bidi overrides and other invisible format characters (U+202E...),
combining marks, and `.`/`..`.
"""

from __future__ import annotations

import re

from .errors import UsageError

FIGHT_ID_PATTERN = r"^\w[\w.-]*$"
"""The characters allowed (Python `re`, Unicode `\\w`); the lengths are checked apart."""
MAX_CHARS = 200
MAX_BYTES = 255 - len(".jsonl")
RULE = (
    "a letter, digit or _ first, then letters, digits and _ . -; at most "
    f"{MAX_CHARS} characters and {MAX_BYTES} bytes of UTF-8"
)

_FIRST = re.compile(r"\w")
_REST = re.compile(r"[\w.-]")


class BadFightId(UsageError):
    """A fight id that breaks the rule above (exit 2; 422 from the service)."""


def check_fight_id(fight: str) -> str:
    """`fight` itself if it is a valid fight id; else BadFightId saying what is wrong."""
    if not fight:
        raise BadFightId(f"a fight id cannot be empty: use {RULE}")
    for position, char in enumerate(fight):
        allowed = _FIRST if position == 0 else _REST
        if not allowed.fullmatch(char):
            raise BadFightId(
                f"fight id {fight!r} has {describe_char(char)} at position {position + 1}: "
                f"use {RULE}"
            )
    if len(fight) > MAX_CHARS:
        raise BadFightId(f"fight id of {len(fight)} characters is too long: use {RULE}")
    size = len(fight.encode())
    if size > MAX_BYTES:
        raise BadFightId(
            f"a fight id of {len(fight)} characters is {size} bytes in UTF-8, too long for a "
            f"file name: use {RULE}"
        )
    return fight


def is_fight_id(name: str) -> bool:
    """Whether `name` keeps the rule (a file in a JSON Lines store that is no fight's is not)."""
    try:
        check_fight_id(name)
    except BadFightId:
        return False
    return True


_CONTROLS = {"\0": "NUL", "\a": "BEL (bell)", "\x1b": "ESC (escape)", "\x7f": "DEL"}
"""The control characters an attack on a terminal uses, which Unicode gives no name."""


def describe_char(char: str) -> str:
    """`U+202E RIGHT-TO-LEFT OVERRIDE`, `'/'`: a character a person can find again."""
    import unicodedata  # here: only a refused id needs Unicode's names (a large table)

    name = unicodedata.name(char, "") or _CONTROLS.get(char, "")
    code = f"U+{ord(char):04X}"
    if char.isprintable() and not char.isspace() and unicodedata.category(char)[0] != "M":
        return f"{char!r} ({code}{' ' + name if name else ''})"
    return f"{code}{' ' + name if name else ''}"


# --- a campaign's log: a stream of the same stores that no fight id can name ---------------
CAMPAIGN_PREFIX = "campaign~"
"""A campaign's log is the stream `campaign~NAME`, NAME keeping the fight id rule: `~` is no
character of a fight id, so no fight can ever collide with a campaign, and `~` is safe in a file
name (Windows too) and a URL path segment."""


def campaign_stream(campaign: str) -> str:
    """The stream id of campaign `campaign`; BadFightId if the name breaks the fight id rule."""
    try:
        check_fight_id(campaign)
    except BadFightId as exc:
        raise BadFightId(exc.message.replace("fight id", "campaign name")) from None
    if len(campaign.encode()) + len(CAMPAIGN_PREFIX) > MAX_BYTES:
        raise BadFightId(f"campaign name {campaign!r} is too long: use {RULE}")
    return CAMPAIGN_PREFIX + campaign


def is_campaign_stream(stream: str) -> bool:
    return stream.startswith(CAMPAIGN_PREFIX) and is_fight_id(stream[len(CAMPAIGN_PREFIX) :])


def check_stream_id(stream: str) -> str:
    """`stream` if it is a fight id or a campaign's stream id; else BadFightId (a store's check)."""
    if stream.startswith(CAMPAIGN_PREFIX):
        campaign_stream(stream[len(CAMPAIGN_PREFIX) :])
        return stream
    return check_fight_id(stream)

"""A character named as a person names them: by id (`grim`), or by display name (`Grim`,
`Gorbag the Shaman`) when that names one character of the fight. Resolved here, once, for every
front end, in the event's fields as given, before they are decoded (an id has no spaces, a name
may) and recorded: the event stores the id.

Decisions where nothing says:
- An id is matched exactly first, so an id that is also another character's name stays an id.
- Else a name or id is matched ignoring case (`bob` finds Bob): people type fast at a table.
- Two characters matched (two Bobs, or `Grim` the name of one and, ignoring case, the id of
  another) is refused: a guess would put the hit on the wrong card.
- A target or the character of a turn, choice or check that matches nobody is refused, naming
  the nearest ids and names. An attacker or healer that matches nobody is kept as written:
  DESIGN section 5 accepts one who is not in the fight (a trap, a spell, an unnamed monster).
  It is warned of (`strangers`), naming the nearest characters difflib finds (its cutoff, 0.6:
  `ork` is near `orc`, but not near `grim`, whom it would be wrong to suggest); when none is
  near, who joined, so a typo is seen before the next hit.
- A value that is no string, or longer than an id may be, is left as given, for decoding to
  refuse with its own words (and so that no hostile string is compared with every name).
- A what-if (`odds --hit Bob:2 --character Bob`) takes names as an event does, but nobody is
  recorded: a target, or a character asked about, that names no one or several is a usage
  error with the same "did you mean", not a path void on every outcome (a typo, not a question).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from woundlog.core import Character
from woundlog.events import Event, RuleError, UsageError

LONGEST = 200
"""The longest id or name compared: an id's bound (`CharacterId`); anything longer is no one."""

CHARACTER_FIELDS: dict[str, tuple[tuple[str, bool], ...]] = {
    # (field, whether it must be a character of the fight)
    "hit": (("target", True), ("attacker", False)),
    "heal": (("target", True), ("healer", False)),
    "choice": (("character", True),),
    "check": (("character", True),),
    "stat_changed": (("character", True),),
    "turn_started": (("character", True),),
    "turn_ended": (("character", True),),
}
"""Per event type, the fields that name a character."""


def matching(characters: Mapping[str, Character], given: str) -> list[str]:
    """The ids `given` names: its own id, else every character whose name or id it is, case
    ignored."""
    if given in characters:
        return [given]
    folded = given.casefold()
    return [
        cid
        for cid, character in characters.items()
        if folded in (cid.casefold(), character.name.casefold())
    ]


def labelled(characters: Mapping[str, Character], cid: str) -> str:
    """`` `grim` (Grim) ``: an id, and its name where it is not the id."""
    name = characters[cid].name
    return f"`{cid}`" + (f" ({name})" if name and name != cid else "")


def nearest(characters: Mapping[str, Character], given: str, n: int = 3) -> list[str]:
    """The ids of the characters whose id or name is nearest `given` (difflib), nearest first."""
    by_word: dict[str, str] = {}
    for cid, character in characters.items():
        by_word.setdefault(cid.casefold(), cid)
        if character.name:
            by_word.setdefault(character.name.casefold(), cid)
    import difflib  # here, not at the top: only a name that names no one needs it

    close = difflib.get_close_matches(given.casefold(), list(by_word), n=n * 2)
    return list(dict.fromkeys(by_word[word] for word in close))[:n]


def suggested(characters: Mapping[str, Character], given: str) -> str:
    """`did you mean `grim` (Grim)?`, or, with nobody near `given`, who joined."""
    near = nearest(characters, given)
    if near:
        return "did you mean " + " or ".join(labelled(characters, cid) for cid in near) + "?"
    return "joined: " + (", ".join(labelled(characters, c) for c in characters) or "nobody yet")


def character_id(
    characters: Mapping[str, Character], given: str, field: str, *, required: bool = True
) -> str:
    """The id of the one character `given` names (see the module's decisions); `given` itself
    for an actor who is no character (not `required`)."""
    found = matching(characters, given)
    if len(found) == 1:
        return found[0]
    if found:
        named = " or ".join(labelled(characters, cid) for cid in found)
        raise RuleError(
            f"`{given}` names {len(found)} characters: did you mean {named}?", field=field
        )
    if not required:
        return given
    raise RuleError(
        f"no character `{given}` in this fight; {suggested(characters, given)}", field=field
    )


def strangers(characters: Mapping[str, Character], event: Event) -> list[str]:
    """A warning for each attacker or healer of `event` who is no character of the fight."""
    warnings = []
    for field, required in CHARACTER_FIELDS.get(str(event.__struct_config__.tag), ()):
        given = getattr(event, field)
        if required or given is None or matching(characters, given):
            continue
        said = suggested(characters, given)
        warnings.append(f"{field} `{given}` is not a character of this fight; {said}")
    return warnings


def with_ids(characters: Mapping[str, Character], fields: Mapping[str, Any], where: str) -> Any:
    """An event's fields, as given, with each character named by display name named by id;
    `where` names the event in a refusal when it gives no id of its own (`#N`)."""
    kind = fields.get("type")
    changed: dict[str, str] = {}
    for field, required in CHARACTER_FIELDS.get(kind, ()) if isinstance(kind, str) else ():
        given = fields.get(field)
        if not isinstance(given, str) or len(given) > LONGEST:
            continue
        try:
            cid = character_id(characters, given, f"$.{field}", required=required)
        except RuleError as error:
            own = fields.get("id")
            raise error.located(event=own if isinstance(own, str) else where) from None
        if cid != given:
            changed[field] = cid
    return {**fields, **changed} if changed else fields


def asked_about(characters: Mapping[str, Character], given: str) -> str:
    """The id of the one character a question names (`odds --character Bob`)."""
    try:
        return character_id(characters, given, "")
    except RuleError as error:
        raise UsageError(error.message) from None


def in_whatif(characters: Mapping[str, Character], event: Event, place: int) -> Event:
    """A what-if's event (the `place`-th, from 1) with each character named by id."""
    changed: dict[str, str] = {}
    for field, required in CHARACTER_FIELDS.get(str(event.__struct_config__.tag), ()):
        given = getattr(event, field)
        if not isinstance(given, str) or len(given) > LONGEST:
            continue
        try:
            cid = character_id(characters, given, f"$.{field}", required=required)
        except RuleError as error:
            raise UsageError(f"the what-if's event {place}, {field}: {error.message}") from None
        if cid != given:
            changed[field] = cid
    return msgspec.structs.replace(event, **changed) if changed else event

"""Sharing a fight's pages (issue 26): the tokens a fight hands out and the links that open its
pages with one, as values every front end shares, and what a token keeper must do.

The use cases themselves are `Application.share`, `hand_out`, `tokens_of` and `revoke_token`;
the keeper (the tokens in the tables beside the store, `tokens.py`) is given to each: the
service keeps its own, with its admin token, and the CLI opens them with `kept_tokens`.

A token goes in the link's fragment (`#viewer=...`, `#gm=...`): a browser never sends the
fragment to the server, so no access log, history sync or Referer carries it, and the page's
auth.js moves it into the tab's sessionStorage and clears it from the address bar.
"""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Protocol
from urllib.parse import quote, urlencode, urlsplit

import msgspec
from msgspec import Meta

from woundlog.events import UsageError


class Role(StrEnum):
    VIEWER = "viewer"  # reads a fight
    GM = "gm"  # reads and writes a fight
    ADMIN = "admin"  # creates fights; may read and write every fight


NAME_PATTERN = r"^\w[\w.-]*$"
NAME_MAX = 64
NAME_RULE = f"a letter, digit or _ first, then letters, digits and _ . -; at most {NAME_MAX}"
TokenName = Annotated[
    str,
    Meta(min_length=1, max_length=NAME_MAX, pattern=NAME_PATTERN, description=f"{NAME_RULE}."),
]


class TokenInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A token of a fight as a listing shows it: never the token itself."""

    name: str
    role: Role
    issued: datetime | None  # None: issued before tokens had names and times


class Issued(msgspec.Struct, frozen=True, kw_only=True):
    """A token just issued: the only time it is shown."""

    fight: str
    name: str
    role: Role
    issued: datetime
    token: str


class Shared(msgspec.Struct, frozen=True, kw_only=True):
    """What `woundlog share` hands out: the tokens issued and the pages' links with them."""

    fight: str
    base: str
    viewer: Issued
    gm: Issued | None
    timeline: str  # the timeline with the gm token if one was issued, else the viewer's
    table: str  # the table view with the viewer token: the link the QR code holds


class TokenNameTaken(UsageError):
    """A fight already holds a token of that name (the service answers 409)."""


class NoSuchToken(UsageError):
    """No token of that name in the fight (the service answers 404)."""


class TokenNotYours(UsageError):
    """A token asked to hand out or revoke a token of a role above its own (403)."""


class TokenKeeper(Protocol):
    """Where a fight's tokens are kept, as hashes (the service's `Tokens`)."""

    def add(self, fight: str, role: Role, name: str | None = None) -> Issued: ...

    def named(self, fight: str) -> list[TokenInfo]: ...

    def role_of(self, fight: str, name: str) -> Role: ...

    def revoke_named(self, fight: str, name: str) -> None: ...


TIMELINE = "/fights/{fight}/"
"""The timeline page: every event, time travel, undo (a gm token writes)."""
TABLE = "/fights/{fight}/table"
"""The large-print live view for players."""
DEFAULT_BASE = "http://127.0.0.1:8000"
"""Where `woundlog serve` listens when given no --host or --port."""


def check_name(name: str) -> str:
    """`name` if it is a valid token name, else a UsageError naming the rule."""
    if len(name) > NAME_MAX or not re.fullmatch(NAME_PATTERN, name):
        raise UsageError(f"token name {name!r}: use {NAME_RULE} characters")
    return name


def may_manage(by: Role, role: Role, verb: str) -> None:
    """A gm hands out and revokes its fight's viewer tokens, as a GM hands players the table
    view; gm tokens, which write, only the admin (the service's admin token, or whoever holds
    the store itself, as the CLI does)."""
    if by is not Role.ADMIN and role is not Role.VIEWER:
        raise TokenNotYours(f"a {by} token cannot {verb} a {role} token: the admin's can")


def base_url(given: str) -> str:
    """`given` as the base of the pages' links (`http://host:port`, no trailing slash), or a
    UsageError saying what a base is."""
    parts = urlsplit(given.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--url {given!r}: give the service's base, as {DEFAULT_BASE}")
    if parts.query or parts.fragment:
        raise UsageError(f"--url {given!r}: the service's base takes no ? or # part")
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def link(base: str, page: str, fight: str, tokens: dict[str, str]) -> str:
    """`page` of `fight` under `base`, opening with `tokens` ({role: token}) in the fragment."""
    return f"{base}{page.format(fight=quote(fight, safe=''))}#{urlencode(tokens)}"


def shared(base: str, fight: str, viewer: Issued, gm: Issued | None) -> Shared:
    opener = {"gm": gm.token} if gm is not None else {"viewer": viewer.token}
    return Shared(
        fight=fight,
        base=base,
        viewer=viewer,
        gm=gm,
        timeline=link(base, TIMELINE, fight, opener),
        table=link(base, TABLE, fight, {"viewer": viewer.token}),
    )

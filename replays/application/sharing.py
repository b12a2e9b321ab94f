"""Sharing a fight's pages (issue 26): the tokens a fight hands out and the links that open its
pages with one, as values every front end shares, what a token keeper must do, and the use
cases:

    share(fight, keeper, *, base, gm=False, name=None) -> Shared   links with new tokens
    share_campaign(campaign, keeper, *, base, gm=False, name=None) -> SharedCampaign
    hand_out_campaign(campaign, keeper, role, name, by) -> Issued   a campaign page's token
    hand_out(fight, keeper, role, name, by) -> Issued;  tokens_of(fight, keeper) -> list[TokenInfo]
    revoke_token(fight, keeper, name, by) -> Role
    kept_tokens() -> context manager of a TokenKeeper   the store's side tables (tokens.py)

The keeper (the tokens in the tables beside the store, `tokens.py`) is given to each: the
service keeps its own, with its admin token, and the CLI opens them with `kept_tokens`.

A token goes in the link's fragment (`#viewer=...`, `#gm=...`): a browser never sends the
fragment to the server, so no access log, history sync or Referer carries it, and the page's
auth.js moves it into the tab's sessionStorage and clears it from the address bar.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol
from urllib.parse import quote, urlencode, urlsplit

import msgspec

from woundlog.events import UsageError
from woundlog.events.fight_ids import campaign_stream

from .base import UseCases
from .values import CampaignNotFoundError, Issued, Role, TokenInfo, TokenNotYours, check_name


class Shared(msgspec.Struct, frozen=True, kw_only=True):
    """What `woundlog share` hands out: the tokens issued and the pages' links with them."""

    fight: str
    base: str
    viewer: Issued
    gm: Issued | None
    timeline: str  # the timeline with the gm token if one was issued, else the viewer's
    table: str  # the table view with the viewer token: the link the QR code holds
    console: str | None = None  # the GM console with the gm token, if one was issued


class SharedCampaign(msgspec.Struct, frozen=True, kw_only=True):
    """What `woundlog share --campaign` hands out: the tokens issued, each kept under the
    campaign's stream (`campaign~NAME`, as `POST /campaigns` keeps its pair), and the link to the
    campaign's page that opens with them."""

    campaign: str
    base: str
    viewer: Issued
    gm: Issued | None
    page: str  # the campaign's page with the gm token if one was issued, else the viewer's


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
CONSOLE = "/fights/{fight}/console"
"""The GM console: the fight run from a phone at the table (a gm token)."""
CAMPAIGN_PAGE = "/campaigns/{fight}/"
"""A campaign's page: its roster and each member's history (read with a campaign token)."""
DEFAULT_BASE = "http://127.0.0.1:8000"
"""Where `woundlog serve` listens when given no --host or --port."""


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
        console=None if gm is None else link(base, CONSOLE, fight, {"gm": gm.token}),
    )


def _pair(
    keeper: TokenKeeper, stream: str, gm: bool, name: str | None
) -> tuple[Issued, Issued | None]:
    """A new viewer token of `stream` named `name` and, with `gm`, a gm token named `NAME-gm`;
    both names checked before either is kept, so a bad one hands out nothing."""
    if name is not None:
        check_name(name)
        if gm:
            check_name(f"{name}-gm")
    viewer = keeper.add(stream, Role.VIEWER, name)
    return viewer, keeper.add(stream, Role.GM, f"{name}-gm" if name else None) if gm else None


class SharingCases(UseCases):
    """A fight's tokens, named and handed out, and the links to its pages that open with one."""

    @contextmanager
    def kept_tokens(self) -> Iterator[TokenKeeper]:
        """The fights' tokens in the tables beside this store's fights (`Store.side`): the ones
        `woundlog serve` reads on every request, so a token handed out here works there at
        once. For a front end that holds the store itself (the CLI), so with no admin token;
        the service keeps its own, with its admin token (service/fights.py)."""
        from .tokens import Tokens  # with the use case: a hit needs none of it

        store = self.store
        store.side.check()  # a damaged file is exit 2 before a token is handed out
        yield Tokens(lambda: store)

    def share(
        self,
        fight: str,
        keeper: TokenKeeper,
        *,
        base: str = DEFAULT_BASE,
        gm: bool = False,
        name: str | None = None,
    ) -> Shared:
        """A new viewer token for the fight (`gm`: a gm token too, named `NAME-gm`), beside
        the tokens already out, and the links to its pages under `base` that open with them.

        Example: `share("yard", keeper, name="phones")` -> the table link
        `http://127.0.0.1:8000/fights/yard/table#viewer=...`, token named `phones`."""
        self.fight(fight)
        base = base_url(base)
        viewer, also = _pair(keeper, fight, gm, name)
        return shared(base, fight, viewer, also)

    def share_campaign(
        self,
        campaign: str,
        keeper: TokenKeeper,
        *,
        base: str = DEFAULT_BASE,
        gm: bool = False,
        name: str | None = None,
    ) -> SharedCampaign:
        """A new viewer token for the campaign's page (`gm`: a gm token too, named `NAME-gm`),
        beside the tokens already out, and the link to its page under `base` that opens with
        them: what a campaign made from the CLI has no other way to get.

        Example: `share_campaign("trail", keeper)` -> the page link
        `http://127.0.0.1:8000/campaigns/trail/#viewer=...`."""
        stream = self._campaign_stream(campaign)
        base = base_url(base)
        viewer, also = _pair(keeper, stream, gm, name)
        opener = {"gm": also.token} if also is not None else {"viewer": viewer.token}
        page = link(base, CAMPAIGN_PAGE, campaign, opener)
        return SharedCampaign(campaign=campaign, base=base, viewer=viewer, gm=also, page=page)

    def hand_out_campaign(
        self, campaign: str, keeper: TokenKeeper, role: Role, name: str | None, by: Role
    ) -> Issued:
        """One new `role` token of the campaign named `name` (None: `ROLE-N`), for its page;
        `by`, the role asking: a gm hands out viewer tokens, the admin either."""
        if name is not None:
            check_name(name)
        stream = self._campaign_stream(campaign)
        may_manage(by, role, "issue")
        return keeper.add(stream, role, name)

    def _campaign_stream(self, campaign: str) -> str:
        stream = campaign_stream(campaign)
        if self.store.version(stream) == 0:
            raise CampaignNotFoundError(f"no campaign `{campaign}` in this store")
        return stream

    def hand_out(
        self, fight: str, keeper: TokenKeeper, role: Role, name: str | None, by: Role
    ) -> Issued:
        """One new `role` token named `name` (None: `ROLE-N`) beside the fight's others;
        `by`, the role asking: a gm hands out viewer tokens, the admin either."""
        if name is not None:
            check_name(name)  # before any store call
        self.fight(fight)
        may_manage(by, role, "issue")
        return keeper.add(fight, role, name)

    def tokens_of(self, fight: str, keeper: TokenKeeper) -> list[TokenInfo]:
        """The fight's tokens, oldest first: names, roles and times, never the tokens."""
        self.fight(fight)
        return keeper.named(fight)

    def revoke_token(self, fight: str, keeper: TokenKeeper, name: str, by: Role) -> Role:
        """Revoke the fight's token `name`, the others kept; its role. `by` as in `hand_out`."""
        check_name(name)  # before any store call
        self.fight(fight)
        role = keeper.role_of(fight, name)
        may_manage(by, role, "revoke")
        keeper.revoke_named(fight, name)
        return role

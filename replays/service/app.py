"""The HTTP service: an ASGI app over the same stores as the CLI.

Handlers are async and hand every store call to a worker thread (`anyio.to_thread`), so a slow
fold or a wait for SQLite's write lock never blocks the event loop, and the live streams keep
flowing while appends run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from functools import partial
from typing import Annotated, Any
from urllib.parse import quote

import msgspec
import psycopg
from litestar import Litestar, Request, Response, delete, get, post
from litestar._openapi.plugin import OpenAPIPlugin
from litestar.config.cors import CORSConfig
from litestar.datastructures import State as AppState
from litestar.exceptions import HTTPException
from litestar.middleware import DefineMiddleware
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components, SecurityScheme
from litestar.params import Parameter
from litestar.response import ServerSentEvent

from woundlog.core import FightState
from woundlog.events import StructuralError, UsageError, WoundlogError, decode_document
from woundlog.events.fight_ids import campaign_stream
from woundlog.events.model import SAFE_INT
from woundlog.events.stores import is_postgres
from woundlog.events.stores.locate import ENV_VAR

from ..application import EventsPage, FightId, FightsPage, NewFight
from ..application.values import Issued, Role, TokenInfo, TokenName
from ..fight import Appended
from ..report import Report
from ..whatif import MAX_TICKS, Odds
from .bodies import BOM, decoded, strictly
from .campaigns import HANDLERS as CAMPAIGN_ROUTES
from .errors import (
    database_unavailable,
    http_error,
    internal_error,
    log,
    nested_too_deeply,
    woundlog_error,
)
from .fights import LIST_MAX, Fights, Keyed
from .guards import (
    CAMPAIGN_TOKEN,
    GUARDED,
    Service,
    also_allowed,
    bearer,
    grant_of,
    of_a_fight,
    run,
    service,
)
from .hosts import HostCheck
from .idempotency import HEADER, MAX_KEY, check_key, request_digest
from .integrations import integrations
from .limits import REPORT_MAX
from .openapi import (
    BRANCHED_AGAIN,
    CREATED_AGAIN,
    SCHEMA_PATH,
    STREAM,
    assets_router,
    complete,
    problems,
    render_plugins,
)
from .pages import pages_router
from .schemas import (
    BranchRequest,
    Created,
    Health,
    OddsRequest,
    StreamTicket,
    TokenRequest,
    UndoRequest,
)
from .stream import Listener, Notifier, changes_stream
from .tickets import TICKET_S

MAX_BODY = 1024 * 1024
MAX_BATCH = 1000

EventsBody = dict[str, Any] | list[Any]
"""One event or a list of events: validated one by one (see schemas.py), so kept loose here."""


# --- the endpoints ---------------------------------------------------------------------------


@get("/health", tags=["service"])
async def health() -> Health:
    """Liveness."""
    return Health()


@post(
    "/fights",
    status_code=201,
    role=Role.ADMIN,
    responses={200: CREATED_AGAIN, **problems(401, 403, 409, 413, 422, 503)},
    **GUARDED,
)
async def create_fight(
    request: Request[Any, Any, Any],
    data: NewFight,
    idempotency_key: Annotated[
        str | None,
        Parameter(
            header=HEADER,
            min_length=1,
            max_length=MAX_KEY,
            description="A random key (a UUID) naming this request: a retry with the same key "
            "and body gets the first answer again, the same tokens, for 24 hours. The same key "
            "with another body is 422.",
        ),
    ] = None,
) -> Response[Created]:
    """Start a fight (admin token); the answer holds its gm and viewer tokens, shown only once.

    Safe to retry. With an `Idempotency-Key`, a retry is answered exactly as the first request
    was (same status, same tokens). Without one, the same request for a fight already there with
    the same settings answers 200 with a new pair of tokens, which replaces the pair of any
    earlier answer."""
    data = strictly(await request.body(), NewFight)
    key = None
    if idempotency_key is not None:
        key = Keyed(check_key(idempotency_key), request_digest(msgspec.json.encode(data)))
    return await made(request, data.fight, service(request).fights.create, data, key)


@get("/fights", role=Role.VIEWER, responses=problems(401, 422, 503), **GUARDED)
async def list_fights(
    request: Request[Any, Any, Any],
    offset: Annotated[int, Parameter(ge=0, le=2**31)] = 0,
    limit: Annotated[int, Parameter(ge=1, le=LIST_MAX)] = 100,
) -> FightsPage:
    """The fights this token may see: every fight for the admin token, in the store's order
    (page on with `offset=next`); a gm or viewer token's own fight."""
    grant = grant_of(request)
    return await run(service(request).fights.listing, grant.fight, offset, limit)


@delete("/fights/{fight:str}", status_code=204, **of_a_fight(Role.ADMIN))
async def delete_fight(request: Request[Any, Any, Any], fight: FightId) -> None:
    """Delete the fight (admin): its whole log, its tokens, import cursors and stream tickets,
    in one transaction; its open streams end with a `deleted` message. A retry, the fight
    being gone, is 404."""
    await run(service(request).fights.delete, fight)
    after_commit(service(request).notifier.notify, fight)


@post("/fights/{fight:str}/tokens", status_code=200, **of_a_fight(Role.ADMIN))
async def reissue_tokens(request: Request[Any, Any, Any], fight: FightId) -> Created:
    """A new gm and viewer token for the fight (admin), shown once; the old pair stops
    working at once, and so do its stream tickets."""
    return await run(service(request).fights.reissue, fight)


@delete("/fights/{fight:str}/tokens", status_code=204, **of_a_fight(Role.ADMIN))
async def revoke_tokens(request: Request[Any, Any, Any], fight: FightId) -> None:
    """Revoke the fight's gm and viewer tokens (admin), and its stream tickets; only the admin
    token reaches the fight until `POST /fights/{fight}/tokens` issues a new pair."""
    await run(service(request).fights.revoke, fight)


@get("/fights/{fight:str}/tokens", **of_a_fight(Role.GM))
async def list_tokens(request: Request[Any, Any, Any], fight: FightId) -> list[TokenInfo]:
    """The fight's tokens (gm or admin), oldest first: each one's name, role and when it was
    issued, never the token (only its hash is kept)."""
    return await run(service(request).fights.tokens_of, fight)


@post(
    "/fights/{fight:str}/tokens/{name:str}",
    status_code=201,
    role=Role.GM,
    responses=problems(401, 403, 404, 409, 422, 503),
    **GUARDED,
)
async def issue_token(
    request: Request[Any, Any, Any],
    fight: FightId,
    name: TokenName,
    data: TokenRequest | None = None,
) -> Issued:
    """A new token named `name` for the fight, beside its others, shown once (body
    `{"role": "viewer"}`, the default, or `"gm"`): a gm token may issue viewer tokens, the
    admin's either. A name the fight holds already is 409: revoke it first (so a retry after a
    lost answer is 409 too, and the token it made stays unknown: revoke it and ask again)."""
    asked = strictly(await request.body(), TokenRequest) if data is not None else TokenRequest()
    grant = grant_of(request)
    return await run(service(request).fights.hand_out, fight, name, Role(asked.role), grant)


@delete("/fights/{fight:str}/tokens/{name:str}", status_code=204, **of_a_fight(Role.GM))
async def revoke_token(request: Request[Any, Any, Any], fight: FightId, name: TokenName) -> None:
    """Revoke the fight's token `name` (a gm token may revoke viewer tokens, the admin's any),
    and the fight's stream tickets (a page whose token still works asks for a new one); the
    fight's other tokens keep working. An unknown name is 404, naming the ones there are."""
    await run(service(request).fights.revoke_named, fight, name, grant_of(request))


@post("/fights/{fight:str}/stream-ticket", status_code=200, **of_a_fight(Role.VIEWER))
async def stream_ticket(request: Request[Any, Any, Any], fight: FightId) -> StreamTicket:
    """A ticket that opens this fight's stream, read-only, for a short while (viewer or gm):
    `new EventSource("/fights/FIGHT/stream?ticket=...")`. A browser's EventSource cannot send
    an Authorization header, and a token must never be in a URL."""
    ticket = await run(service(request).fights.tickets.issue, fight)
    return StreamTicket(
        ticket=ticket,
        expires_in=TICKET_S,
        stream=f"/fights/{quote(fight, safe='')}/stream?ticket={ticket}",
    )


async def as_sent(request: Request[Any, Any, Any]) -> None:
    """Before any handler reads its body (Litestar's `before_request`, after the guards): refuse
    what the body's own decoding lets through or words badly, as `woundlog` refuses it in a
    file: a key given twice (JSON keeps the last one silently), a byte order mark (which the
    decoder calls "invalid character (byte 0)"), JSON nested too deep. A 422 naming it."""
    body = await request.body()
    if not body.strip():  # an undo may send none
        return
    try:
        decode_document(body)
    except StructuralError as error:
        if error.field is None and not body.startswith(BOM):
            return  # not JSON at all: Litestar's own decoding answers it, 400
        raise


def after_commit(call: Callable[..., object], fight: str) -> None:
    """Work done once an append is committed (waking streams): a failure here is logged, never
    answered, since the client's events are written and a resend must not look needed."""
    try:
        call(fight)
    except Exception:
        log.exception("an append to `%s` is committed; what follows it failed", fight)


async def appending(
    request: Request[Any, Any, Any], fight: str, call: Callable[..., Appended], *args: Any
) -> Appended:
    """`call(fight, *args)`, a write, in a worker thread; once it has changed the fight, its
    streams are woken."""
    appended = await run(call, fight, *args)
    if appended.changes:
        after_commit(service(request).notifier.notify, fight)
    return appended


async def made(
    request: Request[Any, Any, Any],
    fight: str,
    call: Callable[..., tuple[Created, bool]],
    *args: Any,
) -> Response[Created]:
    """`call(*args)`, which makes the fight `fight` or (a retry) gives it new tokens, in a worker
    thread: 201 and its streams woken when it is new, else 200."""
    created, new = await run(call, *args)
    if new:
        after_commit(service(request).notifier.notify, fight)
    return Response(created, status_code=201 if new else 200)


@post("/fights/{fight:str}/events", status_code=200, role=Role.GM, **GUARDED)
async def append_events(
    request: Request[Any, Any, Any],
    fight: FightId,
    data: EventsBody,
    expected_version: Annotated[int | None, Parameter(ge=0, le=SAFE_INT)] = None,
) -> Appended:
    """Append one event or a list, atomically (gm). Events already there (same id, same content)
    are skipped, so a resend is harmless."""
    return await appending(request, fight, service(request).fights.append, data, expected_version)


@get("/fights/{fight:str}/state", role=Role.VIEWER, **GUARDED)
async def fight_state(
    request: Request[Any, Any, Any],
    fight: FightId,
    at: Annotated[int | None, Parameter(ge=1, le=SAFE_INT)] = None,
) -> FightState[Any]:
    """Every character's state, now or as the fight stood at event `at` (viewer)."""
    return await run(service(request).fights.state, fight, at)


async def reported(request: Request[Any, Any, Any], fight: str) -> Report:
    """The report, run as odds are: off the event loop, at most a few at once per token."""
    fights = service(request).fights
    return await service(request).odds.run(
        bearer(request), lambda stop: fights.app.report(fight, most=REPORT_MAX)
    )


@get("/fights/{fight:str}/report", role=Role.VIEWER, **GUARDED)
async def fight_report(request: Request[Any, Any, Any], fight: FightId) -> Report:
    """The fight's report (viewer): each character's and side's numbers, the exact luck of its
    dice, and its chronicle round by round; 413 past REPORT_MAX (50,000) events."""
    return await reported(request, fight)


@get("/fights/{fight:str}/report/fragment", role=Role.VIEWER, media_type="text/html", **GUARDED)
async def fight_report_fragment(request: Request[Any, Any, Any], fight: FightId) -> str:
    """The report as an HTML fragment with its SVG charts (viewer): what the report page
    shows, made by the same code as `woundlog report -o report.html`."""
    from ..report.html import report_fragment

    return report_fragment(await reported(request, fight), timeline="./")


@get("/fights/{fight:str}/events", role=Role.VIEWER, **GUARDED)
async def fight_events(
    request: Request[Any, Any, Any],
    fight: FightId,
    from_: Annotated[int, Parameter(query="from", ge=1, le=SAFE_INT)] = 1,
    limit: Annotated[int, Parameter(ge=1, le=5000)] = 1000,
) -> EventsPage:
    """The events from seq `from`, with their seq (viewer); page on with `next`."""
    return await run(service(request).fights.events, fight, from_, limit)


@post("/fights/{fight:str}/undo", status_code=200, role=Role.GM, **GUARDED)
async def undo(
    request: Request[Any, Any, Any], fight: FightId, data: UndoRequest | None = None
) -> Appended:
    """Retract an event (default: the newest live one) (gm); the changes carry its
    consequences."""
    asked = data or UndoRequest()
    undone = service(request).fights.undo
    return await appending(request, fight, undone, asked.event, asked.reason, asked.by, asked.id)


@get(
    "/fights/{fight:str}/stream",
    role=Role.VIEWER,
    ticket=True,
    media_type="text/event-stream",
    responses={200: STREAM, **problems(401, 403, 404, 422, 503)},
    **GUARDED,
)
async def stream(
    request: Request[Any, Any, Any],
    fight: FightId,
    ticket: Annotated[
        str | None,
        Parameter(
            description="A stream ticket (POST /fights/{fight}/stream-ticket), for a client "
            "that cannot send an Authorization header: a browser's EventSource. Never a token.",
            max_length=200,
        ),
    ] = None,
    from_: Annotated[int | None, Parameter(query="from", ge=1, le=SAFE_INT)] = None,
    last_event_id: Annotated[
        int | None, Parameter(header="Last-Event-ID", ge=0, le=SAFE_INT)
    ] = None,
) -> ServerSentEvent:
    """Server-sent events (viewer, or a stream ticket): one `changes` message per event, its
    `id` the event's seq, in order. From `from`, else after `Last-Event-ID`, else from the next
    append on. A `deleted` message ends the stream of a fight that was deleted."""
    fights = service(request).fights
    version = await run(fights.version, fight)
    if from_ is not None:
        first = from_
    elif last_event_id is not None:
        first = last_event_id + 1
    else:
        first = version + 1
    if first > version + 1:  # a stream would wait, silently, for events that may never come
        asked = f"from={from_}" if from_ is not None else f"Last-Event-ID {last_event_id}"
        raise UsageError(
            f"{asked}: fight `{fight}` has events 1 to {version}; a stream starts at one of "
            f"them, or at {version + 1} for the next"
        )
    return ServerSentEvent(changes_stream(fights, service(request).notifier, fight, first))


@post("/fights/{fight:str}/import/{format:str}", status_code=200, role=Role.GM, **GUARDED)
async def import_records(
    request: Request[Any, Any, Any],
    fight: FightId,
    format: str,
    data: EventsBody,
    campaign: Annotated[
        str | None,
        Parameter(
            min_length=1,
            max_length=190,
            description="A campaign to record the fight in (its gm token in "
            "`Woundlog-Campaign-Token`).",
        ),
    ] = None,
    campaign_token: Annotated[
        str | None,
        Parameter(
            header="Woundlog-Campaign-Token",
            max_length=200,
            description="The campaign's gm token, with `campaign`.",
        ),
    ] = None,
) -> Appended:
    """One record or a list in another program's format (`foundry`, `improved-initiative`,
    `avrae`), converted by its importer and appended (gm). An unknown format is 404, a
    malformed record 422 (nothing written).

    A record is a fact of the other program's table: an event of it that the fight's rules
    refuse (a heal on a character woundlog holds dead) is left out and named in `warnings`
    (its record, its event, the rules' reason), and the rest is appended, so the records after
    it still arrive; a blow or heal refused only for its attacker or healer is kept without
    them (id `...:unattributed`). Sending the same records again adds nothing.

    With `campaign`, the fight is then recorded in that campaign once (`recorded_in` says it
    was, this time), with its members who are characters of it under their own ids; a new
    fight plays the campaign's ruleset."""
    if campaign is not None:
        stream = campaign_stream(campaign)
        await also_allowed(request, CAMPAIGN_TOKEN, stream, f"campaign `{campaign}`", Role.GM)
    imports = service(request).fights.import_records
    return await appending(request, fight, imports, format, data, campaign)


@get("/fights/{fight:str}/odds", role=Role.VIEWER, **GUARDED)
async def fight_odds(
    request: Request[Any, Any, Any],
    fight: FightId,
    events: Annotated[
        str | None, Parameter(description="The what-if's events: a JSON list.")
    ] = None,
    hit: Annotated[list[str] | None, Parameter(description="TARGET:DAMAGE[:ATTACKER]")] = None,
    ticks: Annotated[int, Parameter(ge=0, le=MAX_TICKS)] = 0,
    character: list[str] | None = None,
    samples: Annotated[int | None, Parameter(ge=1, le=SAFE_INT)] = None,
    at: Annotated[int | None, Parameter(ge=1, le=SAFE_INT)] = None,
) -> Odds:
    """The exact chance of every outcome of a what-if (viewer): `events`, then each `hit`, then
    `ticks` rounds of turns, from now or event `at`; estimated from `samples` replays if asked.
    In the query, or as the same fields in a JSON body (not both). A question too large to
    answer is 422 as soon as the work reaches its bound, saying which bound and what would be
    answered; more than two at once for one token is 429 (Retry-After)."""
    body = await request.body()
    query = {
        "events": events, "hit": hit, "ticks": ticks or None, "character": character,
        "samples": samples, "at": at,
    }  # fmt: skip
    given: dict[str, object] = {name: value for name, value in query.items() if value is not None}
    if body.strip():
        if given:
            raise UsageError(
                f"the what-if is in the body and in the query ({', '.join(given)}): send one"
            )
        asked = decoded(body, OddsRequest, "the body")
    else:
        if events is not None:
            given["events"] = decoded(events.encode(), list[dict[str, Any]], "`events`")
        try:
            asked = msgspec.convert(given, OddsRequest)
        except msgspec.ValidationError as error:  # past a bound: the asker's to change
            raise UsageError(f"the query: {error}") from None
    work = partial(service(request).fights.odds, fight, asked)
    return await service(request).odds.run(bearer(request), lambda stop: work(stop=stop))


@post(
    "/fights/{fight:str}/branch",
    status_code=201,
    role=Role.GM,
    responses={200: BRANCHED_AGAIN},
    **GUARDED,
)
async def branch_fight(
    request: Request[Any, Any, Any], fight: FightId, data: BranchRequest
) -> Response[Created]:
    """A new fight `as` (gm of this one): this fight's log up to event `at` (default: all),
    then the events `then`; the answer holds its gm and viewer tokens, shown once. A fight
    already there under that name is 409, its tokens untouched: a branch never replaces or
    re-tokens a fight it does not own (the admin's token may: 200 with a new pair for a branch
    already made the same way, a retry)."""
    data = strictly(await request.body(), BranchRequest)
    owner = grant_of(request).covers(data.as_)  # the admin's token; a gm's covers its own
    return await made(request, data.as_, service(request).fights.branch, fight, data, owner)


# --- the app ---------------------------------------------------------------------------------


API_DESCRIPTION = """Send a fight's events, get authoritative state back.

Tokens: the admin token (`$WOUNDLOG_ADMIN_TOKEN`) creates, lists and deletes fights and reissues
or revokes a fight's tokens; each fight has gm tokens (read and write) and viewer tokens (read),
each named: `POST /fights` hands out the pair `gm` and `viewer`, `POST
/fights/{fight}/tokens/{name}` more (a gm token, viewer ones), `GET /fights/{fight}/tokens` lists
them and `DELETE /fights/{fight}/tokens/{name}` revokes one. Send a token as `Authorization:
Bearer TOKEN`, never in a URL. A browser's EventSource, which cannot send that header, opens
the stream with a ticket: `POST /fights/{fight}/stream-ticket`, then `GET
/fights/{fight}/stream?ticket=...` within 60 seconds.

Campaigns (`/campaigns/...`) have the same model: the admin token starts one, which answers with
its gm and viewer tokens. A request that reads one log into another takes a token of each:
recording a fight into a campaign, a token of the fight in `Woundlog-Fight-Token`; joining a
fight from a campaign's roster, a token of the campaign in `Woundlog-Campaign-Token`.

Every POST is safe to retry: events by their ids, an undo by its `id`, an import by its records'
identity, `POST /fights` by an `Idempotency-Key` (the same answer, tokens included, for 24 hours).

Every error is an RFC 9457 problem (`application/problem+json`) with `error` (its kind) and
`message`, and for refused events each of them in `errors`. A request that sends its head or body
too slowly is answered 408 and closed."""


def complete_openapi(app: Litestar) -> None:
    """Once, at startup: the document Litestar drew, completed (openapi.py) before anyone reads
    it (it is kept, and served, as this dict)."""
    complete(app.plugins.get(OpenAPIPlugin).provide_openapi_schema())


def shared_url(store_url: str | None) -> str | None:
    """The PostgreSQL URL of a store several processes share (`--db` or `$WOUNDLOG_DB`), or
    None for a store of this machine alone."""
    for url in (store_url, None if store_url else os.environ.get(ENV_VAR)):
        if url and is_postgres(url):
            return url
    return None


def create_app(
    store_url: str | None,
    admin_token: str,
    *,
    max_body: int = MAX_BODY,
    max_batch: int = MAX_BATCH,
    cors_origins: Sequence[str] = (),
    allowed_hosts: Sequence[str] = (),
    on_startup: Sequence[Callable[[], object]] = (),
) -> Litestar:
    """The app over the store at `store_url`. `cors_origins`: web pages allowed to call it from a
    browser (a Foundry VTT bridge module runs in the page at Foundry's own origin).
    `allowed_hosts`: the `Host` headers answered (`host` or `host:port`; none: every one), so a
    page whose name was rebound to 127.0.0.1 (DNS rebinding) is refused with 400."""
    fights = Fights(store_url, admin_token, max_batch=max_batch)
    notifier = Notifier()
    shared = shared_url(store_url)
    listeners = [Listener(shared, notifier)] if shared else []
    cors = (
        CORSConfig(
            allow_origins=list(cors_origins),
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["Authorization", "Content-Type", "Last-Event-ID", HEADER],
        )
        if cors_origins
        else None
    )
    openapi = OpenAPIConfig(
        title="woundlog",
        version="1",
        description=API_DESCRIPTION,
        path=SCHEMA_PATH,
        render_plugins=render_plugins(),
        components=Components(
            security_schemes={"bearer": SecurityScheme(type="http", scheme="bearer")}
        ),
    )
    return Litestar(
        route_handlers=[
            health,
            create_fight,
            list_fights,
            reissue_tokens,
            revoke_tokens,
            list_tokens,
            issue_token,
            revoke_token,
            stream_ticket,
            append_events,
            fight_state,
            fight_report,
            fight_report_fragment,
            fight_events,
            undo,
            stream,
            import_records,
            integrations,
            pages_router(GUARDED["guards"]),
            delete_fight,  # after the pages: its path is the timeline page's (see just above)
            fight_odds,
            branch_fight,
            *CAMPAIGN_ROUTES,
            assets_router(),
        ],
        state=AppState({"service": Service(fights, notifier)}),
        exception_handlers={
            psycopg.OperationalError: database_unavailable,
            RecursionError: nested_too_deeply,
            WoundlogError: woundlog_error,
            HTTPException: http_error,
            Exception: internal_error,
        },
        middleware=[DefineMiddleware(HostCheck, allowed=allowed_hosts)] if allowed_hosts else [],
        on_startup=[
            *on_startup,
            *(listener.start for listener in listeners),
            complete_openapi,
        ],
        request_max_body_size=max_body,
        before_request=as_sent,
        openapi_config=openapi,
        on_shutdown=[*(listener.stop for listener in listeners), fights.close],
        cors_config=cors,
    )

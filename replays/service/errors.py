"""Errors as HTTP responses: one body for every status the service returns, an RFC 9457 problem
(`application/problem+json`, made by Litestar's `ProblemDetailsException`) that also keeps the
fields woundlog's clients read (`ErrorBody`: `error`, `message`, `current_version`,
`most_samples`, `errors`).

401 missing or unknown token, 403 a token of another fight (or a viewer token on a write),
404 unknown fight (or importer format), 409 conflict (with the fight's current version),
413 over a limit, 422 refused events (each named by batch index, id, field) or a bad request,
503 the PostgreSQL database out of reach (a restart: the next request reconnects),
500 anything the service did not expect: logged with its traceback under an incident number that
the body repeats, so a person can find the one in the other (the body says nothing more: a
traceback can hold paths and data that are nobody's business).
"""

from __future__ import annotations

import logging
import secrets
from http import HTTPStatus
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.plugins.problem_details import ProblemDetailsException

from woundlog.events import (
    BatchRefused,
    ConflictError,
    RefusedError,
    StructuralError,
    WoundlogError,
)
from woundlog.events.stores.locate import StoreUnusable
from woundlog.events.stores.postgres import DatabaseUnreachable

from ..application import FightNotFound, TooLarge, UnknownFormat
from ..application.redaction import ViewerMayNotAsk
from ..application.values import NoSuchToken, TokenNameTaken, TokenNotYours
from .limits import OddsRefused
from .openapi import SCHEMA_PATH
from .schemas import ErrorBody, Refusal, refusal

log = logging.getLogger("woundlog.service")
CLIENT_GONE = "client disconnected prematurely"  # what Litestar raises (as a 500) for it


def status_of(error: WoundlogError) -> int:
    if isinstance(error, StoreUnusable):
        return 500  # the server's store went bad: nothing the client can change
    if isinstance(error, FightNotFound | UnknownFormat | NoSuchToken):
        return 404
    if isinstance(error, TokenNotYours | ViewerMayNotAsk):
        return 403
    if isinstance(error, TokenNameTaken):
        return 409
    if isinstance(error, ConflictError):
        return 409
    if isinstance(error, TooLarge):
        return 413
    return 422  # refused events, and any other request woundlog cannot act on


def body_of(error: WoundlogError) -> ErrorBody:
    if isinstance(error, BatchRefused):
        refused = [refusal(each) for each in error.errors]
        message = f"{len(refused)} events refused; nothing of the batch was written"
        return ErrorBody(error=type(error).__name__, message=message, errors=refused)
    located = isinstance(error, RefusedError | ConflictError) and (
        error.event is not None or error.index is not None or error.field is not None
    )
    return ErrorBody(
        error=type(error).__name__,
        message=str(error),
        current_version=error.current_version if isinstance(error, ConflictError) else None,
        most_samples=error.most_samples if isinstance(error, OddsRefused) else None,
        errors=[refusal(error)] if located else [],
    )


PROBLEM = "application/problem+json"


def problem(
    request: Request[Any, Any, Any],
    body: ErrorBody,
    status: int,
    headers: dict[str, str] | None = None,
) -> Response[Any]:
    """`body` as the RFC 9457 problem of `status`."""
    fields = msgspec.to_builtins(body)
    for name in ("type", "title", "status", "detail"):
        fields.pop(name, None)
    return ProblemDetailsException(
        detail=body.message,
        status_code=status,
        headers=headers,
        extra=fields,
        type_="about:blank",
        title=HTTPStatus(status).phrase,
    ).to_response(request)


def woundlog_error(request: Request[Any, Any, Any], error: WoundlogError) -> Response[Any]:
    if isinstance(error, DatabaseUnreachable):
        # a worker with no connection yet, opening one while the server is away (a restart):
        # the same as losing the connection mid-request, not a refusal of the request
        return database_unavailable(request, error)
    status = status_of(error)
    if status >= 500:
        return internal_error(request, error)
    return problem(request, body_of(error), status)


def internal_error(request: Request[Any, Any, Any], error: Exception) -> Response[Any]:
    """Every 500: the traceback to the log, an incident number to both."""
    incident = secrets.token_hex(4)
    log.error("500 incident %s: %s %s", incident, request.method, request.url.path, exc_info=error)
    body = ErrorBody(
        error="InternalError",
        message=f"the service failed on this request; its log tells why under incident {incident}",
    )
    return problem(request, body, 500)


def nested_too_deeply(request: Request[Any, Any, Any], error: RecursionError) -> Response[Any]:
    """A body nested past what can be read (JSON a thousand levels deep): the client's doing,
    refused as any event of that shape is, never a 500."""
    refused = StructuralError("the request body is nested too deeply to read", field="$")
    return woundlog_error(request, refused)


def database_unavailable(request: Request[Any, Any, Any], error: Exception) -> Response[Any]:
    """The PostgreSQL connection was lost mid-request: nothing of it was committed unless the
    commit itself was answered, and a resend is harmless (ids; `expected_version`)."""
    log.warning("the database is out of reach (%s): answered 503", str(error).strip())
    body = ErrorBody(
        error="DatabaseUnavailable",
        message="the database is out of reach (restarting?): send the request again",
    )
    return problem(request, body, 503, {"Retry-After": "1"})


def http_error(request: Request[Any, Any, Any], error: HTTPException) -> Response[Any]:
    """Litestar's own errors (auth, limits, bad parameters) in the same shape as ours."""
    status = error.status_code
    if error.detail == CLIENT_GONE:  # a client that went away (or was dropped as too slow)
        log.info("%s %s: the client went away before its request was whole", request.method,
                 request.url.path)  # fmt: skip
        return problem(request, ErrorBody(error="ClientGone", message=CLIENT_GONE), 400)
    if status >= 500:
        return internal_error(request, error)
    errors: list[Refusal] = []
    if isinstance(error, ValidationException):
        # a body or parameter that does not fit its declared type: refused, like a bad event
        status = 422
        errors = [_validation_item(item) for item in _items(error.extra)]
    message = _routing_miss(request, error) or error.detail
    body = ErrorBody(error=type(error).__name__, message=message, errors=errors)
    return problem(request, body, status, error.headers)


def _routing_miss(request: Request[Any, Any, Any], error: HTTPException) -> str | None:
    """What to say for a path or method no route has, where Litestar says only `Not Found`."""
    if error.detail != HTTPStatus(error.status_code).phrase:
        return None  # a message of our own (no fight `f`), or Litestar's with more to it
    where = f"{request.method} {request.url.path}"
    if error.status_code == 404:
        return f"no such path: {where} (every path is in the API description, {SCHEMA_PATH})"
    if error.status_code == 405:
        allowed = (error.headers or {}).get("allow", "")
        return f"{where}: this path takes {allowed or 'other methods'}, not {request.method}"
    return None


def _items(extra: Any) -> list[dict[str, Any]]:
    if isinstance(extra, list):
        return [item for item in extra if isinstance(item, dict)]
    return [extra] if isinstance(extra, dict) else []


def _validation_item(item: dict[str, Any]) -> Refusal:
    key, source = item.get("key"), item.get("source")
    field = f"{source}:{key}" if source and key else (key or None)
    return Refusal(error="ValidationError", message=str(item.get("message", "")), field=field)

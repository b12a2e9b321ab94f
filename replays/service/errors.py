"""Errors as HTTP responses: one body shape (`ErrorBody`) for every status the service returns.

401 missing or unknown token, 403 a token of another fight (or a viewer token on a write),
404 unknown fight (or importer format), 409 conflict (with the fight's current version),
413 over a limit, 422 refused events (each named by batch index, id, field) or a bad request.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException

from woundlog.events import BatchRefused, ConflictError, RefusedError, WoundlogError

from .fights import FightNotFound, TooLarge, UnknownFormat
from .schemas import ErrorBody, Refusal, refusal


def status_of(error: WoundlogError) -> int:
    if isinstance(error, FightNotFound | UnknownFormat):
        return 404
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
        errors=[refusal(error)] if located else [],
    )


def woundlog_error(_: Request[Any, Any, Any], error: WoundlogError) -> Response[ErrorBody]:
    return Response(body_of(error), status_code=status_of(error))


def http_error(_: Request[Any, Any, Any], error: HTTPException) -> Response[ErrorBody]:
    """Litestar's own errors (auth, limits, bad parameters) in the same shape as ours."""
    status = error.status_code
    errors: list[Refusal] = []
    if isinstance(error, ValidationException):
        # a body or parameter that does not fit its declared type: refused, like a bad event
        status = 422
        errors = [_validation_item(item) for item in _items(error.extra)]
    body = ErrorBody(error=type(error).__name__, message=error.detail, errors=errors)
    return Response(body, status_code=status, headers=error.headers)


def _items(extra: Any) -> list[dict[str, Any]]:
    if isinstance(extra, list):
        return [item for item in extra if isinstance(item, dict)]
    return [extra] if isinstance(extra, dict) else []


def _validation_item(item: dict[str, Any]) -> Refusal:
    key, source = item.get("key"), item.get("source")
    field = f"{source}:{key}" if source and key else (key or None)
    return Refusal(error="ValidationError", message=str(item.get("message", "")), field=field)

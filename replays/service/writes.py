"""What a route that writes does around the application's call: the call in a worker thread,
then, once it has changed a fight, that fight's streams woken (stream.py). A failure past the
commit is logged, never answered: the client's events are written, and a resend must not look
needed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from litestar import Response

from ..fight import Appended
from .errors import log
from .guards import Service, run
from .schemas import Created


def wake(service: Service, fight: str) -> None:
    """Wake the streams of `fight`, whose append is committed."""
    try:
        service.notifier.notify(fight)
    except Exception:
        log.exception("an append to `%s` is committed; what follows it failed", fight)


async def appending(
    service: Service, fight: str, call: Callable[..., Appended], *args: Any, **kwargs: Any
) -> Appended:
    """`call(fight, *args, **kwargs)`, a write, in a worker thread; once it has changed the
    fight, its streams are woken."""
    appended = await run(call, fight, *args, **kwargs)
    if appended.changes:
        wake(service, fight)
    return appended


async def made(
    service: Service, fight: str, call: Callable[..., tuple[Created, bool]], *args: Any
) -> Response[Created]:
    """`call(*args)`, which makes the fight `fight` or (a retry) gives it new tokens, in a worker
    thread: 201 and its streams woken when it is new, else 200."""
    created, new = await run(call, *args)
    if new:
        wake(service, fight)
    return Response(created, status_code=201 if new else 200)

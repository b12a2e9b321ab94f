"""Running the service under uvicorn, as `woundlog serve` does."""

from __future__ import annotations

import os
import sys

import uvicorn

from .app import create_app
from .tokens import new_token

ADMIN_ENV = "WOUNDLOG_ADMIN_TOKEN"
CORS_ENV = "WOUNDLOG_CORS_ORIGINS"  # comma-separated origins, e.g. http://localhost:30000
GRACE_S = 3  # open streams never end by themselves: on shutdown, close them after this


def admin_token() -> tuple[str, bool]:
    """The admin token from `$WOUNDLOG_ADMIN_TOKEN`, else a new one; and whether it is new."""
    given = os.environ.get(ADMIN_ENV, "").strip()
    return (given, False) if given else (new_token(), True)


def serve(store_url: str | None, host: str, port: int) -> None:
    token, generated = admin_token()
    origins = [o.strip() for o in os.environ.get(CORS_ENV, "").split(",") if o.strip()]
    app = create_app(store_url, token, cors_origins=origins)
    if generated:
        # stderr, flushed: the one place a person (or a test) can read it
        print(f"admin token: {token}  (set ${ADMIN_ENV} to choose one)", file=sys.stderr)
        sys.stderr.flush()
    uvicorn.run(app, host=host, port=port, timeout_graceful_shutdown=GRACE_S, log_level="info")

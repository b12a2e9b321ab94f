"""The access log without secrets: uvicorn writes every request's path and query as
sent, so a token someone put in a URL (refused, but already logged) or a stream ticket (a
browser's EventSource must send it in the URL) would sit in the log for anyone who reads it.

A filter on uvicorn's access logger writes the value of every query parameter that carries a
secret as `[redacted]`, whatever the case of its name, before the line is formatted.
"""

from __future__ import annotations

import logging
from urllib.parse import parse_qsl, quote, urlsplit

TOKEN_PARAMS = frozenset(
    {
        *("token", "access_token", "gm_token", "viewer_token", "admin_token"),
        *("bearer", "authorization", "auth", "auth_token", "id_token", "jwt"),
        *("api_key", "apikey", "api-key", "access-token", "auth-token"),
    }
)
"""Query parameters a token would be sent in (the names clients and libraries use for one:
OAuth's `access_token`, an `Authorization` header written as a parameter, an API key):
refused by the service, in any case, and never logged. No route takes a parameter of these
names."""
SECRET_PARAMS = TOKEN_PARAMS | {"ticket"}
"""Query parameters whose values are secrets (compared in lower case)."""
ACCESS_LOGGER = "uvicorn.access"
REDACTED = "[redacted]"
_PATH = 2  # uvicorn's access line: (client, method, full path, HTTP version, status)


def without_secrets(target: str) -> str:
    """`target` (a path and query) with every secret parameter's value replaced."""
    path, _, query = target.partition("?")
    if not query:
        return target
    pairs = parse_qsl(query, keep_blank_values=True)
    if not any(name.lower() in SECRET_PARAMS for name, _ in pairs):
        return target
    kept = [
        f"{quote(name, safe='')}={REDACTED if name.lower() in SECRET_PARAMS else quote(value)}"
        for name, value in pairs
    ]
    return f"{urlsplit(path).path}?{'&'.join(kept)}"


class SecretsFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) > _PATH:
            path = args[_PATH]
            if isinstance(path, str):
                record.args = (*args[:_PATH], without_secrets(path), *args[_PATH + 1 :])
        return True


def keep_secrets_out_of_the_access_log() -> None:
    """Once uvicorn has set up its loggers (it does so when its Config is made)."""
    logger = logging.getLogger(ACCESS_LOGGER)
    if not any(isinstance(each, SecretsFilter) for each in logger.filters):
        logger.addFilter(SecretsFilter())

"""What `woundlog serve` is asked to run: the settings a front end hands the HTTP service, as
values, apart from the web stack.

The service (replays/service/) has one entry, `woundlog.replays.service.run(Serving)`. The CLI's
`serve` and `share --serve` build a `Serving` from their options and call it, and that call is
the one import of the service by another front end (pyproject.toml's import contracts say so):
everything else they need to declare and check the options (the variables `serve` reads, the
limits, the admin token file) is here, so declaring them loads no web stack (`woundlog -h`
builds every command).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from woundlog.events import UsageError

ADMIN_ENV = "WOUNDLOG_ADMIN_TOKEN"
CORS_ENV = "WOUNDLOG_CORS_ORIGINS"  # comma-separated origins, e.g. http://localhost:30000


@dataclass(frozen=True)
class Limits:
    """The limits `woundlog serve` runs with; each is an option of `serve` (the service's
    limits.py says what each one guards against)."""

    max_connections: int = 1000
    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    keep_alive_s: int = 5
    max_header_bytes: int = 16 * 1024


@dataclass(frozen=True)
class Serving:
    """One run of the service: the store (`--db`, else `$WOUNDLOG_DB`), where it listens, its
    limits, the Host headers it also answers, its admin token (None: one made and kept in a
    file beside a SQLite store) and the pages of other software allowed to call it."""

    store_url: str | None
    host: str
    port: int
    limits: Limits = field(default_factory=Limits)
    extra_hosts: Sequence[str] = ()
    admin: str | None = None
    cors_origins: Sequence[str] = ()


def private_token_file(path: Path) -> None:
    """Refuse an admin token file that another user can read or write, as ssh refuses such a
    private key (`Permissions 0644 ... are too open`): the token opens every fight, and a
    warning scrolls by unread in a service's log. Only a regular file has a mode to check (a
    pipe, `<(pass show woundlog)`, is the reader's own)."""
    try:
        found = path.stat()
    except OSError:
        return  # reading it says what is wrong, as for any file named on the command line
    if os.name == "posix" and stat.S_ISREG(found.st_mode) and found.st_mode & 0o077:
        mode = stat.S_IMODE(found.st_mode)
        raise UsageError(
            f"--admin-token-file {path} can be read or written by other users (mode "
            f"{mode:04o}): `chmod 600 {path}`; like ssh with a private key, woundlog will not "
            "use a secret others can read"
        )

"""A real, throwaway PostgreSQL server for the tests: a new cluster in a temporary folder,
listening only on a Unix socket there, stopped when the tests end.

`$WOUNDLOG_TEST_POSTGRES` (a `postgresql://` URL) names a server to use instead. Without either,
the PostgreSQL tests are skipped, except under CI (`$CI` set), where a missing server is a
failure: `.ci/run` installs Debian's `postgresql` package.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PORT = 54329


def binaries() -> Path | None:
    """The folder of initdb and pg_ctl: on the PATH, or Debian's /usr/lib/postgresql/N/bin."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(versions[-1]).parent if versions else None


def _as_owner(args: list[str], owner: str | None) -> list[str]:
    """PostgreSQL refuses to run as root: run its programs as the `postgres` user then."""
    return ["runuser", "-u", owner, "--", *args] if owner else args


class Cluster:
    """A throwaway PostgreSQL cluster of the tests' own: `url`, and `stop`, `start`, `restart`
    (`pg_ctl`, as an operator would), for the tests of what a server going away does."""

    def __init__(self, bin_dir: Path, home: Path, owner: str | None) -> None:
        self.bin_dir, self.home, self.owner = bin_dir, home, owner
        self.data = home / "data"
        self.url = f"postgresql://woundlog@/postgres?host={home}&port={PORT}"

    def _pg_ctl(self, *args: str, check: bool = True) -> None:
        command = [str(self.bin_dir / "pg_ctl"), "-D", str(self.data), *args]
        subprocess.run(_as_owner(command, self.owner), check=check, capture_output=True)

    def start(self) -> None:
        options = f"-k {self.home} -c listen_addresses='' -p {PORT} -c fsync=off"
        self._pg_ctl("-o", options, "-w", "start", "-l", str(self.home / "log"))

    def stop(self, mode: str = "fast") -> None:
        self._pg_ctl("-m", mode, "-w", "stop", check=False)

    def restart(self) -> None:
        """Stopped (every connection dropped, `-m fast`) and started again, as `pg_ctl restart`."""
        self._pg_ctl("-m", "fast", "-w", "restart", "-l", str(self.home / "log"))


@contextmanager
def own_server() -> Iterator[Cluster | None]:
    """A new cluster in a temporary folder, listening only on a Unix socket there, stopped and
    removed at the end; None if PostgreSQL is not installed here."""
    bin_dir = binaries()
    if bin_dir is None:
        yield None
        return
    owner = "postgres" if os.geteuid() == 0 else None
    home = Path(tempfile.mkdtemp(prefix="woundlog-pg-"))
    try:
        if owner:
            shutil.chown(home, owner)
        subprocess.run(
            _as_owner(
                [
                    str(bin_dir / "initdb"),
                    "-D",
                    str(home / "data"),
                    "-A",
                    "trust",
                    "-U",
                    "woundlog",
                ],
                owner,
            ),
            check=True,
            capture_output=True,
        )
        cluster = Cluster(bin_dir, home, owner)
        cluster.start()
        try:
            yield cluster
        finally:
            cluster.stop()
    finally:
        shutil.rmtree(home, ignore_errors=True)


@contextmanager
def server() -> Iterator[str | None]:
    """The URL of a server for the tests, or None if there is none to be had."""
    given = os.environ.get("WOUNDLOG_TEST_POSTGRES")
    if given:
        yield given
        return
    with own_server() as cluster:
        yield None if cluster is None else cluster.url


def fresh_database(url: str) -> str:
    """A new, empty database on the server of `url`, and its URL."""
    import psycopg

    name = f"w_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(f'CREATE DATABASE "{name}"')
    base, _, query = url.partition("?")
    return f"{base.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")

"""Ids are checked with no mutable state shared between calls (issue 37): threads that decode
at once, some with new ids on every event and some with an optional id field left out, each
get their own answer, never a TypeError from another thread's half-done check."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator

import pytest

from woundlog.events import StructuralError, decode_json
from woundlog.events.model import misnamed

ROUNDS = 20_000


@pytest.fixture
def eager_switching() -> Iterator[None]:
    """Threads take turns every microsecond, so a check that is not thread-safe shows it."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def _new_ids(worker: int) -> None:
    for n in range(ROUNDS):  # a new id and target each time: a cache of them would fill
        line = b'{"type":"hit","id":"w%d-%d","target":"t%d-%d","damage":1}' % (
            worker,
            n,
            worker,
            n,
        )
        assert misnamed(decode_json(line)) is None


def _left_out(worker: int) -> None:
    for n in range(ROUNDS):  # `character` and `id` left out: None in an id field
        assert misnamed(decode_json(b'{"type":"turn_started","side":"s%d"}' % (n % 7))) is None


def _refused(worker: int) -> None:
    for n in range(ROUNDS // 10):
        with pytest.raises(StructuralError, match="matching regex"):
            decode_json(b'{"type":"hit","id":"#%d","target":"grim","damage":1}' % (n + 1))


@pytest.mark.usefixtures("eager_switching")
def test_threads_checking_ids_at_once_each_get_their_own_answer() -> None:
    failures: list[BaseException] = []
    work: list[Callable[[int], None]] = [_new_ids, _new_ids, _left_out, _left_out, _refused]

    def run(job: Callable[[int], None], worker: int) -> None:
        try:
            job(worker)
        except BaseException as exc:  # every failure is the test's to report
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(job, n)) for n, job in enumerate(work)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []

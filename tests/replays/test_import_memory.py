"""`woundlog import` keeps a bounded number of the states it folds along a batch (issue 28): the
newest RECENT at KEEP_EVERY apart, at most OLDER behind them, thinned as the batch grows. Which
ones it keeps changes where a refold starts, never what the import stores.
"""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import msgspec
import pytest

from tests.replays.test_import_linear import fight_log, run, write
from woundlog.events import decode_json
from woundlog.events.stores import Stored
from woundlog.replays import batch_fold
from woundlog.replays.batch_fold import KEEP_EVERY, OLDER, RECENT, BatchFold
from woundlog.replays.fold import fold_state
from woundlog.replays.undo import Undo


def test_a_hundred_thousand_event_batch_keeps_at_most_recent_plus_older_states() -> None:
    started = decode_json(b'{"type":"fight_started","ruleset":"mordheim","seed":7}')
    state = fold_state([Stored(1, started)], Undo())
    assert state is not None
    hit = decode_json(b'{"type":"hit","target":"grim","damage":0}')
    batch = BatchFold(None, 0, Undo())
    most = 0
    for seq in range(1, 100_001):
        batch.add(Stored(seq, hit), msgspec.structs.replace(state, seq=seq))
        most = max(most, len(batch.kept_seqs))
    assert most == RECENT + OLDER == 128
    kept = batch.kept_seqs
    # kept at 1, 65, 129, ...: the newest at or before 100,000 is 1 + 64 * 1562 = 99,969
    assert kept[-RECENT:] == list(range(99_969 - 63 * KEEP_EVERY, 99_970, KEEP_EVERY))
    assert kept[0] == 1  # the oldest stays: an undo of the first events refolds from it
    older = kept[: -RECENT + 1]
    gaps = [b - a for a, b in pairwise(older)]
    assert gaps == sorted(gaps, reverse=True), gaps  # further back, further apart


@pytest.mark.parametrize("recent, older", [(2, 3), (1, 1)])
def test_an_import_thinned_to_a_few_states_stands_as_its_file_replays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, recent: int, older: int
) -> None:
    """1,200 events keep 19 states at KEEP_EVERY apart; bounds of a few thin them many times,
    and the undo events (one in five, some reaching ten blocks back) refold from what is left."""
    monkeypatch.setattr(batch_fold, "RECENT", recent)
    monkeypatch.setattr(batch_fold, "OLDER", older)
    file = write(tmp_path / "long.jsonl", fight_log(1200))
    db = tmp_path / "fights.db"
    result = run("import", file, "--db", db)
    assert result.exit_code == 0, result.output
    assert "imported 1200 events" in result.stdout
    for at in (None, 130, 519, 520, 521, 1000, 1199, 1200):
        where = () if at is None else ("--at", str(at))
        stored = run("state", "long", *where, "--json", "--db", db)
        replayed = run("replay", file, *where, "--json")
        assert stored.exit_code == replayed.exit_code == 0, stored.output + replayed.output
        assert json.loads(stored.stdout) == json.loads(replayed.stdout), at

"""A batch that lost a race is revalidated against what the winner wrote (issue 11, item 10).

Two writers validate hits on the same fighter against the same version of the fight, while the
store's write lock is held (see race.py); then both go. Grim has one wound, and each hit takes
him out of action: whoever commits second has hit a fighter who is out of action, which the
rules refuse. Without revalidation both hits would be written. Run on every store, through
`Fight` (two threads, as the service runs them), and through two `woundlog` CLI processes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from woundlog.events import CharacterJoined, FightStarted, Hit, RuleError
from woundlog.events.stores import open_store
from woundlog.replays import Appended, Fight

from .race import store_url, wait_until_blocked, write_lock_held

FIGHT = "brawl"
KINDS = ["sqlite", "jsonl"]
CLI = [sys.executable, "-c", "from woundlog.replays.cli import main; main()"]


def brawl(url: str, *, wounds: int = 1) -> None:
    with open_store(url) as store:
        fight = Fight.create(store, FIGHT, FightStarted(ruleset="mordheim"))
        fight.append(
            [
                CharacterJoined(character="grim", side="reavers", stats={"wounds": wounds}),
                CharacterJoined(character="snik", side="skaven"),
            ]
        )


def racing_hits(url: str) -> dict[str, list[str]]:
    """Per writer (`a`, `b`), the `woundlog hit` that knocks grim out of action under the
    writer's own id, with a die of its own (6, 5): the two commands of the CLI race."""
    hit = [*CLI, "--db", url, "hit", FIGHT, "grim", "1", "--attacker", "snik"]
    return {
        writer: [*hit, "--roll", f"injury={die}", "--id", writer]
        for writer, die in (("a", 6), ("b", 5))
    }


def knockout(writer: str, die: int) -> Hit:
    """A hit that puts unwounded one-wound Grim out of action (a 5 or 6 on the injury roll)."""
    return Hit(id=writer, target="grim", damage=1, attacker="snik", rolls={"injury": [die]})


def race_through_fight(kind: str, url: str, hits: dict[str, Hit]) -> dict[str, object]:
    """Each hit appended by its own thread and store; what each append returned or raised."""
    outcome: dict[str, object] = {}

    def write(writer: str, hit: Hit) -> None:
        with open_store(url) as store:
            try:
                outcome[writer] = Fight(store, FIGHT).append([hit])
            except RuleError as exc:
                outcome[writer] = exc

    threads = [threading.Thread(target=write, args=item) for item in hits.items()]
    with write_lock_held(kind, url, FIGHT):
        for thread in threads:
            thread.start()
        wait_until_blocked(kind, [os.getpid()], writers=len(threads))
    for thread in threads:
        thread.join(timeout=60)
    return outcome


@pytest.mark.parametrize("kind", KINDS)
def test_through_fight_the_hit_that_lost_the_race_is_refused_against_the_winners(
    kind: str, tmp_path: Path
) -> None:
    url = store_url(kind, tmp_path)
    brawl(url)
    outcome = race_through_fight(kind, url, {"a": knockout("a", 6), "b": knockout("b", 5)})
    won = [w for w, result in outcome.items() if isinstance(result, Appended)]
    lost = [w for w, result in outcome.items() if isinstance(result, RuleError)]
    assert len(won) == 1 and len(lost) == 1, outcome
    assert "out of action" in str(outcome[lost[0]])
    with open_store(url) as store:
        fight = Fight(store, FIGHT)
        assert [s.event.id for s in fight.events(4)] == won  # the loser wrote nothing
        assert fight.state().characters["grim"].state == "out_of_action"


@pytest.mark.parametrize("kind", KINDS)
def test_through_fight_the_batch_that_lost_the_race_is_told_what_it_did_after_the_winner(
    kind: str, tmp_path: Path
) -> None:
    url = store_url(kind, tmp_path)
    brawl(url, wounds=3)
    # neither hit takes Grim out, so both stand; the second one lands on a wounded Grim
    first = Hit(id="a", target="grim", damage=1)
    second = Hit(id="b", target="grim", damage=1)
    outcome = race_through_fight(kind, url, {"a": first, "b": second})
    assert all(isinstance(result, Appended) for result in outcome.values()), outcome
    with open_store(url) as store:
        history = {c.event: c for c in Fight(store, FIGHT).history()}
    wounds = []
    for writer, result in outcome.items():
        assert isinstance(result, Appended)
        assert result.changes == [history[writer]]  # what it was told is what the log says
        wounds.append(tuple(result.changes[0].characters[0].counters["wounds"]))
    assert sorted(wounds) == [(2, 1), (3, 2)]


def test_through_two_cli_processes_the_hit_that_lost_the_race_is_refused(
    tmp_path: Path, kind: str
) -> None:
    url = store_url(kind, tmp_path)
    brawl(url)
    commands = racing_hits(url)
    with write_lock_held(kind, url, FIGHT):
        runs = {
            writer: subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for writer, command in commands.items()
        }
        try:
            wait_until_blocked(kind, [run.pid for run in runs.values()], writers=2)
        except AssertionError:
            for run in runs.values():
                run.kill()
            raise
    results = {writer: (run.wait(timeout=60), run.communicate()) for writer, run in runs.items()}
    codes = sorted(code for code, _ in results.values())
    assert codes == [0, 3], results
    [(_, (_, refusal))] = [r for r in results.values() if r[0] == 3]
    assert b"out of action" in refusal and b"Traceback" not in refusal
    [winner] = [writer for writer, r in results.items() if r[0] == 0]
    with open_store(url) as store:
        assert [s.event.id for s in store.read(FIGHT, 4)] == [winner]


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)

"""Two live `woundlog play` sessions, or a session and the service, on one fight, racing
(issue 26, section 1): no event is lost, and the one refused is told what changed.

Each session is a real `woundlog play` process with its lines piped in, its store kept open
for the whole session. Both writers read the fight and validate their hit against the same
version while the store's write lock is held (race.py), and wait on that lock; then it goes.
Which one commits first is the store's choice, so each test checks whichever lost."""

from __future__ import annotations

import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from woundlog.events import CharacterJoined, FightStarted
from woundlog.events.stores import open_store
from woundlog.replays import Fight

from .race import store_url, wait_until_blocked, write_lock_held
from .service.server import Server
from .test_lost_race_http import served_brawl

FIGHT = "brawl"
CLI = [sys.executable, "-c", "from woundlog.replays.cli import main; main()"]


@dataclass
class Played:
    code: int
    out: str
    err: str


def brawl(url: str, *, wounds: int) -> None:
    """Grim (`wounds` wounds, reavers) and Snik (skaven)."""
    with open_store(url) as store:
        fight = Fight.create(store, FIGHT, FightStarted(ruleset="mordheim"))
        fight.append(
            [
                CharacterJoined(character="grim", name="Grim", side="reavers",
                                stats={"wounds": wounds}),
                CharacterJoined(character="snik", name="Snik", side="skaven"),
            ]
        )  # fmt: skip


def session(url: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*CLI, "--db", url, "play", FIGHT],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def race_sessions(kind: str, url: str, lines: dict[str, str]) -> dict[str, Played]:
    """Per session, its line typed while the write lock is held; once both wait on the lock,
    it goes, and each session is then left (end of input)."""
    sessions = {name: session(url) for name in lines}
    try:
        with write_lock_held(kind, url, FIGHT):
            for name, played in sessions.items():
                assert played.stdin is not None
                played.stdin.write(lines[name] + "\n")
                played.stdin.flush()
            wait_until_blocked(kind, [played.pid for played in sessions.values()], writers=2)
        done = {name: played.communicate(timeout=60) for name, played in sessions.items()}
    finally:
        for played in sessions.values():
            if played.poll() is None:
                played.kill()
                played.wait()
    return {name: Played(sessions[name].returncode, *done[name]) for name in sessions}


def log_ids(url: str) -> list[str]:
    with open_store(url) as store:
        return [stored.event.id or "" for stored in store.read(FIGHT, 4)]


def knockout(writer: str, die: int) -> str:
    """A hit that takes unwounded one-wound Grim out of action (5 or 6 on the injury roll):
    whoever commits second hits a fighter already out, which the rules refuse."""
    return f"hit grim 1 --attacker snik --roll injury={die} --id {writer}"


def assert_told_what_changed(lost: Played, winner: str) -> None:
    """The refused session: the rules' reason, the winner's event shown, and the hint that
    names it."""
    assert lost.code == 3, lost
    assert "out of action" in lost.err and "Traceback" not in lost.err, lost
    meanwhile = [line for line in lost.out.splitlines() if line.startswith("meanwhile: ")]
    assert len(meanwhile) == 1, lost
    assert meanwhile[0].startswith(f"meanwhile: #4 {winner} hit: Grim loses 1 wound (1 -> 0)")
    assert f"injury d6={DIE[winner]} given" in meanwhile[0], lost
    assert "hint: the fight changed since your last command (#4, above)" in lost.out, lost


DIE = {"a": 6, "b": 5}


@pytest.mark.parametrize("kind", ["sqlite", "jsonl"])
def test_two_sessions_racing_one_knockout_write_one_and_the_refused_one_names_the_winner(
    kind: str, tmp_path: Path
) -> None:
    url = store_url(kind, tmp_path)
    brawl(url, wounds=1)
    played = race_sessions(kind, url, {w: knockout(w, die) for w, die in DIE.items()})
    won = [name for name, each in played.items() if each.code == 0]
    assert len(won) == 1, played
    [winner] = won
    [loser] = set(played) - {winner}
    assert log_ids(url) == [winner]  # the refused hit wrote nothing
    assert played[winner].out.startswith(f"#4 {winner} hit: Grim"), played[winner]
    assert_told_what_changed(played[loser], winner)


@pytest.mark.parametrize("kind", ["sqlite", "jsonl"])
def test_two_sessions_racing_hits_that_both_stand_lose_neither(kind: str, tmp_path: Path) -> None:
    url = store_url(kind, tmp_path)
    brawl(url, wounds=3)
    played = race_sessions(kind, url, {w: f"hit grim 1 --id {w}" for w in ("a", "b")})
    assert [each.code for each in played.values()] == [0, 0], played
    assert sorted(log_ids(url)) == ["a", "b"]
    # each was told the hit as it landed: the second on a Grim the first had wounded
    told = sorted(each.out.splitlines()[0] for each in played.values())
    assert [line[:2] for line in told] == ["#4", "#5"], told
    assert "(3 -> 2)" in told[0] and "(2 -> 1)" in told[1], told
    with open_store(url) as store:
        assert Fight(store, FIGHT).state().characters["grim"].wounds == 1


def test_a_session_racing_the_service_loses_no_event_and_the_refused_one_says_why(
    tmp_path: Path,
) -> None:
    url = store_url("sqlite", tmp_path)
    with (
        Server(url, logs=tmp_path) as server,
        httpx.Client(base_url=server.url, timeout=60) as client,
    ):
        gm = served_brawl(client)
        hit = {"type": "hit", "id": "b", "target": "grim", "damage": 1, "attacker": "snik",
               "rolls": {"injury": [DIE["b"]]}}  # fmt: skip
        answer: list[httpx.Response] = []

        def send() -> None:
            with httpx.Client(base_url=server.url, timeout=60) as own:
                answer.append(own.post(f"/fights/{FIGHT}/events", json=hit, headers=gm))

        sender = threading.Thread(target=send)
        played = session(url)
        assert played.stdin is not None and server.process is not None
        try:
            with write_lock_held("sqlite", url, FIGHT):
                played.stdin.write(knockout("a", DIE["a"]) + "\n")
                played.stdin.flush()
                sender.start()
                wait_until_blocked("sqlite", [played.pid, server.process.pid], writers=2)
            out, err = played.communicate(timeout=60)
        finally:
            if played.poll() is None:
                played.kill()
                played.wait()
        sender.join(timeout=60)
    [response] = answer
    ids = log_ids(url)
    assert len(ids) == 1, ids  # one knockout written, the other refused and not written
    if ids == ["a"]:  # the session won: the service refuses with the rules' reason
        assert played.returncode == 0 and out.startswith("#4 a hit: Grim"), (out, err)
        assert response.status_code == 422 and "out of action" in response.text, response.text
    else:  # the service won: the session is told what changed
        assert ids == ["b"] and response.status_code == 200, response.text
        assert_told_what_changed(Played(played.returncode, out, err), "b")

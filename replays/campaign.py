"""A campaign over a store: its log folded, each fight it names read by folding that fight's log.

`campaign_state` folds the campaign's stream (`campaign~NAME`) with its undo applied; each
`fight_played` reads its fight through the fight's own fold (`Fight.steps`), as the fight stands
now or at the version `fights_at` gives, so a retract in an old fight changes every record after
it. `consequences` compares two such folds: what changed for each member from which fight on,
and which later fights began from a record that is no longer true (their logs are left alone).

A fight's contribution (`fight_outcome`: its characters as they end, where each injury and
death happened) is folded once per version of its log and kept in the store's side table
(`Side.contributions`, DESIGN section 7): a cache that always equals the fold. Each row carries
a digest of the rules that folded it, the fight's version, its first and newest events (which
tell one log of a fight id from another, as `foldcache` explains) and the row's own bytes; a
row whose digest the log as it stands now does not give again (an undo or any later event in
the fight, a fight made again under its id, other rules, a damaged row) is never used: the
fight is folded again and the row replaced. So recording a campaign's k-th fight folds that
fight alone, and a read folds only the fights no row holds for.

Each call takes `stop` (`core.odds.Budget.stop`'s shape): called now and then while the work
goes on (every fight, every STOP_EVERY events folded), it may raise to end the work there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import msgspec

from woundlog.core.campaign import (
    CampaignState,
    FightOutcome,
    Played,
    advance_campaign,
    pass_over,
    permanence_of,
    start_campaign,
)
from woundlog.core.changes import show
from woundlog.core.rulesets import get_ruleset
from woundlog.events import RuleError, StructuralError, canonical
from woundlog.events.campaign import CampaignEvent, FightPlayed
from woundlog.events.fight_ids import campaign_stream
from woundlog.events.stores import Store, Stored
from woundlog.events.stores.side import KeptContribution

from .fight import Fight
from .snapshots import rules_fingerprint
from .undo import Undo

Stop = Callable[[], None] | None
"""What ends a read or a record early: called now and then, it may raise (`Budget.stop`)."""

STOP_EVERY = 256
"""Events of a fight folded between two calls of `stop`."""


def fight_outcome(
    store: Store,
    fight: str,
    at: int | None = None,
    *,
    stop: Stop = None,
    kept: Mapping[str, KeptContribution] | None = None,
) -> FightOutcome | None:
    """The fight's log folded (to seq `at`): its characters as they end, and the event where
    each of their injuries was gained and each death happened. None if there is no such fight.

    The fight as it stands now is its cached contribution where the row kept for it (`kept`, or
    read from the store) holds for the log as it is now; else it is folded and kept. Another
    seq `at` is folded, not kept (the row holds the fight as it stands)."""
    version = store.version(fight)
    if version == 0:
        return None
    if at is not None and at != version:  # an earlier seq; a later one is refused, naming both
        return _folded(store, fight, at, stop)
    row = (kept if kept is not None else kept_rows(store, [fight])).get(fight)
    ends = _ends(store, fight, version)
    if row is not None and row.version == version:
        cached = _cached(row, ends)
        if cached is not None:
            return msgspec.structs.replace(cached, fight=fight)
    outcome = _folded(store, fight, version, stop)
    _keep(store, fight, version, ends, outcome)
    return outcome


def _folded(store: Store, fight: str, at: int | None, stop: Stop) -> FightOutcome:
    """The contribution folded from the fight's log, to seq `at`."""
    gained: dict[str, dict[str, list[str]]] = {}
    fell: dict[str, str] = {}
    joined: dict[str, Any] = {}
    state = None
    for n, (state, changes) in enumerate(Fight(store, fight).steps(at), start=1):
        if stop is not None and n % STOP_EVERY == 0:
            stop()
        for change in changes.characters:
            if change.before is None and change.after is not None:  # as it joined
                joined[change.character] = state.characters[change.character]
            for injury in change.injuries:
                gained.setdefault(change.character, {}).setdefault(show(injury), []).append(
                    changes.event
                )
            if change.after == "dead" and change.before != "dead":
                fell[change.character] = changes.event
    assert state is not None
    return FightOutcome(
        fight=fight,
        ruleset=state.ruleset,
        characters=state.characters,
        gained=gained,
        fell=fell,
        joined=joined,
    )


class _Contribution(msgspec.Struct, array_like=True, frozen=True):
    """A contribution as its row keeps it (MessagePack): the characters as their ruleset's
    own Struct encodes them, decoded back into it. The fight's id is not kept: a renamed
    fight's row, carried with it, is the same log's."""

    ruleset: str
    characters: msgspec.Raw
    gained: dict[str, dict[str, list[str]]]
    fell: dict[str, str]
    joined: msgspec.Raw
    """Each character as it joined (what a campaign member brought into the fight). A row
    kept before it existed does not decode, and the fight is folded again."""


def _ends(store: Store, fight: str, version: int) -> bytes:
    """What tells the fight's log at `version` from another log at that version, under these
    rules: the rules' fingerprint, the version, the first and newest events (`foldcache.ends`)."""
    first, newest = "#1", f"#{version}"
    found = store.lookup(fight, [first, newest])
    said = [rules_fingerprint(), str(version).encode()]
    for ref in (first, newest):
        stored = found.get(ref)
        said.append(b"-" if stored is None else canonical(stored.event))
    return b"".join(len(part).to_bytes(8, "big") + part for part in said)


def _digest(ends: bytes, data: bytes) -> str:
    from woundlog.core.dice import blake2b  # the draw's, as snapshots.py takes it

    digest = blake2b(ends, digest_size=16)
    digest.update(data)
    return digest.hexdigest()


def _cached(row: KeptContribution, ends: bytes) -> FightOutcome | None:
    """The row's contribution, if the row holds for the log whose `ends` are given; else None."""
    if row.digest != _digest(ends, row.data):
        return None
    try:
        kept = msgspec.msgpack.decode(row.data, type=_Contribution)
        character = get_ruleset(kept.ruleset).character
        characters = msgspec.msgpack.decode(kept.characters, type=dict[str, character])  # type: ignore[valid-type]
        joined = msgspec.msgpack.decode(kept.joined, type=dict[str, character])  # type: ignore[valid-type]
    except (msgspec.DecodeError, msgspec.ValidationError, RuleError, StructuralError):
        return None
    return FightOutcome(
        fight=row.fight, ruleset=kept.ruleset, characters=characters, gained=kept.gained,
        fell=kept.fell, joined=joined,
    )  # fmt: skip


def kept_rows(store: Store, fights: list[str]) -> Mapping[str, KeptContribution]:
    """The rows kept for `fights`, in one query; none if they cannot be read (a store whose side
    tables cannot be opened, as a JSON Lines directory one may not write to): then each fight
    is folded, as it would be with no row."""
    try:
        return store.side.contributions.of(fights)
    except Exception as exc:  # a read must not fail for want of its cache
        _not_kept("contributions of %d fights not read", len(fights), exc)
        return {}


def _not_kept(what: str, *args: object) -> None:
    import logging  # here, not at the top: only a cache that fails needs it

    *said, exc = args
    logging.getLogger(__name__).warning(
        f"{what} (%s: %s); the fights are folded from their logs", *said, type(exc).__name__, exc
    )


def _keep(store: Store, fight: str, version: int, ends: bytes, outcome: FightOutcome) -> None:
    """Keep the fight's contribution if it can be kept: a cache, never worth an error."""
    data = msgspec.msgpack.encode(
        _Contribution(
            ruleset=outcome.ruleset,
            characters=msgspec.Raw(msgspec.msgpack.encode(outcome.characters)),
            gained=outcome.gained,
            fell=outcome.fell,
            joined=msgspec.Raw(msgspec.msgpack.encode(outcome.joined)),
        )
    )
    row = KeptContribution(fight=fight, version=version, digest=_digest(ends, data), data=data)
    try:
        store.side.contributions.put(row)
    except Exception as exc:  # a read must not fail for want of its cache
        _not_kept("contribution of fight `%s` at version %d not kept", fight, version, exc)


class Step(msgspec.Struct, frozen=True, kw_only=True):
    """One event of a campaign's log folded: the campaign after it, and, if it did nothing, why
    (`undone`: a retract took it back; `void`: the rules refuse it on replay, as a fight's
    fold voids an event an earlier undo left making no sense)."""

    stored: Stored[CampaignEvent]
    state: CampaignState
    undone: str | None = None
    void: str | None = None


def campaign_steps(
    store: Store,
    campaign: str,
    *,
    at: int | None = None,
    fights_at: Mapping[str, int] | None = None,
    then: tuple[CampaignEvent, ...] = (),
    stop: Stop = None,
) -> Iterator[Step]:
    """The campaign's log folded event by event, to its seq `at` (default: now), then the events
    `then` (refused, not voided: an append's check). Each `fight_played` reads its fight as it
    stands now (its contribution, cached where the cache holds), or at the version `fights_at`
    gives it."""
    stream = campaign_stream(campaign)
    undo = Undo(store.campaign_undo_events(stream, at))
    state: CampaignState | None = None
    logged = list(undo.played(store.campaign_read(stream, 1, at)))
    end = logged[-1][0].seq if logged else 0
    fresh = [(Stored(end + i, event), event, None) for i, event in enumerate(then, start=1)]
    if not logged and store.version(stream) == 0:
        raise CampaignNotFound(f"no campaign `{campaign}` in this store")
    steps = [*logged, *fresh]
    kept = kept_rows(store, _fights_named(step[1] for step in steps))
    for stored, played, undone in steps:
        if stop is not None:
            stop()
        event = stored.event
        if state is None:
            state = start_campaign(event)
            yield Step(stored=stored, state=state)
            continue
        if played is None:  # taken back
            state = pass_over(state)
            yield Step(stored=stored, state=state, undone=undone)
            continue
        assert played is event  # a campaign's log holds no amend (its decoder refuses one)
        outcome = None
        if isinstance(event, FightPlayed):
            limit = (fights_at or {}).get(event.fight)
            outcome = fight_outcome(store, event.fight, limit, stop=stop, kept=kept)
        try:
            state = advance_campaign(state, event, outcome, replaying=stored.seq <= end)
        except RuleError as error:
            if stored.seq > end:
                raise
            state = pass_over(state)
            yield Step(stored=stored, state=state, void=error.message)
            continue
        yield Step(stored=stored, state=state)


def campaign_then(
    store: Store, before: CampaignState, then: tuple[CampaignEvent, ...], *, stop: Stop = None
) -> CampaignState:
    """The campaign `before` (its log folded to its seq) with the events `then` after it,
    refused, not voided, as `campaign_steps` takes them: an append's check, without folding the
    log again."""
    state = before
    kept = kept_rows(store, _fights_named(then))
    for event in then:
        if stop is not None:
            stop()
        outcome = None
        if isinstance(event, FightPlayed):
            outcome = fight_outcome(store, event.fight, stop=stop, kept=kept)
        state = advance_campaign(state, event, outcome)
    return state


def _fights_named(events: Iterable[object]) -> list[str]:
    """The fights the live `fight_played` events among `events` name."""
    return [event.fight for event in events if isinstance(event, FightPlayed)]


def campaign_state(
    store: Store,
    campaign: str,
    *,
    at: int | None = None,
    fights_at: Mapping[str, int] | None = None,
    then: tuple[CampaignEvent, ...] = (),
    stop: Stop = None,
) -> CampaignState:
    """The campaign at its seq `at` (default: now), plus the events `then` (`campaign_steps`)."""
    state: CampaignState | None = None
    steps = campaign_steps(store, campaign, at=at, fights_at=fights_at, then=then, stop=stop)
    for step in steps:
        state = step.state
    if state is None:
        raise CampaignNotFound(f"no campaign `{campaign}` in this store")
    return state


class CampaignNotFound(RuleError):
    exit_code = 2


class Consequence(msgspec.Struct, frozen=True, kw_only=True):
    """One member's stat, changed from one fight on (None: in the record now, after the last)."""

    member: str
    name: str
    stat: str
    label: str
    before: Any
    after: Any
    from_fight: str | None

    def line(self) -> str:
        since = f"from fight {self.from_fight} on" if self.from_fight else "now"
        return f"{self.name}: {self.label} {self.before} -> {self.after} {since}"


class Consequences(msgspec.Struct, frozen=True, kw_only=True):
    changes: list[Consequence]
    records: list[str]  # other differences of the record now (injuries, death, retirement)
    stale: list[Played]  # later fights that began from a record no longer true

    def lines(self) -> Iterator[str]:
        yield from (c.line() for c in self.changes)
        yield from self.records
        for played in self.stale:
            yield (
                f"fight {played.fight} began {played.member} from a record no longer true "
                f"(joined {played.joined}, the record now says {played.record}); its log is "
                "left as it is: amend its join to carry the correction in"
            )


def consequences(before: CampaignState, after: CampaignState) -> Consequences:
    """What changed between two folds of one campaign, member by member, fight by fight."""
    permanence = permanence_of(after.ruleset)
    found: list[Consequence] = []
    seen: set[tuple[str, str]] = set()
    was = {(p.fight, p.member): p for p in before.played}
    # (fight or None for the record now, member, as that point was before, record after it)
    points: list[tuple[str | None, str, Played | None, dict[str, int]]] = [
        (p.fight, p.member, was.get((p.fight, p.member)), p.record) for p in after.played
    ]
    points += [(None, m, None, r.current) for m, r in after.members.items()]  # and the record now
    for fight, member, then, now in points:
        old = then.record if then is not None else before.members[member].current
        if fight is None:
            old = before.members[member].current if member in before.members else {}
        name = after.members[member].name
        for stat in dict.fromkeys([*old, *now]):
            if (member, stat) in seen or old.get(stat) == now.get(stat):
                continue
            seen.add((member, stat))
            found.append(
                Consequence(
                    member=member,
                    name=name,
                    stat=stat,
                    label=permanence.label(stat),
                    before=old.get(stat),
                    after=now.get(stat),
                    from_fight=fight,
                )
            )
    records: list[str] = []
    for member, record in after.members.items():
        old_record = before.members.get(member)
        if old_record is None:
            continue
        lost = {i.name for i in old_record.injuries} - {i.name for i in record.injuries}
        new = {i.name for i in record.injuries} - {i.name for i in old_record.injuries}
        records += [f"{record.name}: no longer has {name}" for name in sorted(lost)]
        records += [f"{record.name}: now has {name}" for name in sorted(new)]
        if old_record.dead != record.dead:
            records.append(f"{record.name}: dead {old_record.dead} -> {record.dead}")
    return Consequences(changes=found, records=records, stale=[p for p in after.played if p.stale])

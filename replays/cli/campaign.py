"""`woundlog campaign ...`: a roster carried from fight to fight. Each command parses, calls the
campaign's use case (`application/campaigns.py`) and prints what it did: the records of the
members it touched, or with `--json` the use case's value as it is."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

import typer

from woundlog.core.campaign import permanence_of
from woundlog.events import Retract, type_name
from woundlog.events.campaign import (
    Died,
    FightPlayed,
    MemberJoined,
    Repair,
    Rest,
    Retired,
    TimePassed,
    Treatment,
)

from ..application.values import (
    CampaignAppended,
    CampaignHistory,
    CampaignView,
    HistoryEntry,
    MemberChange,
    MemberRecord,
)
from ..campaign import Consequences
from . import inputs as given
from .application import application, known_ruleset, one_event
from .options import AsJson, Db, EventId, FightId, Note, Reason, whole_number
from .output import print_appended, print_json, say
from .written import chosen_format

CampaignName = Annotated[
    str, typer.Argument(metavar="CAMPAIGN", help="The campaign's id in the store.")
]
Member = Annotated[str, typer.Argument(metavar="MEMBER", help="The member's id on the roster.")]
Amount = Annotated[
    int | None,
    typer.Option(
        help="Hit points the table rolled back (dnd5e: the Hit Dice spent).",
        parser=whole_number,
        metavar="N",
    ),
]


def new(
    campaign: CampaignName,
    ruleset: Annotated[str, typer.Option(help="The ruleset every fight of it plays.")],
    name: Annotated[str, typer.Option(help="Display name.")] = "",
    event_id: EventId = None,
    note: Note = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Start a campaign: a roster whose records carry from one fight to the next."""
    known_ruleset(ruleset, "--ruleset")
    with application(db) as app, one_event():
        done = app.campaign_new(campaign, ruleset, name=name, event_id=event_id, note=note)
    print_recorded(done, as_json)


def join(
    campaign: CampaignName,
    member: Member,
    name: Annotated[str, typer.Option(help="Display name (default: the id).")] = "",
    side: Annotated[str, typer.Option(help="Warband, party or team.")] = "",
    kind: Annotated[str, typer.Option(help="Ruleset-defined kind.")] = "",
    stat: Annotated[
        list[str] | None, typer.Option("--stat", metavar="KEY=VALUE", help="A stat (repeatable).")
    ] = None,
    gear: Annotated[
        list[str] | None, typer.Option("--gear", metavar="SLOT=ITEM", help="Gear (repeatable).")
    ] = None,
    event_id: EventId = None,
    note: Note = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A character joins the roster with their starting stats and gear."""
    stats = given.mapping(stat or [], "--stat")
    with application(db, create=False) as app, one_event():
        done = app.campaign_join(
            campaign,
            member,
            name=name,
            side=side,
            kind=kind,
            stats=stats,
            gear=given.mapping(gear or [], "--gear", typed=False),
            event_id=event_id,
            note=note,
        )
    print_recorded(done, as_json)


def record(
    campaign: CampaignName,
    fight: FightId,
    member: Annotated[
        list[str] | None,
        typer.Option(
            "--member",
            metavar="MEMBER=CHARACTER",
            help="Who played whom in the fight (repeatable; default: every member who is a "
            "character of the fight under their own id).",
        ),
    ] = None,
    event_id: EventId = None,
    note: Note = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A fight of the campaign was played: its log, folded, moves the records of who took part."""
    members = dict(given.pairs(member, "--member")) if member else None
    with application(db, create=False) as app, one_event():
        done = app.campaign_record(campaign, fight, members, event_id=event_id, note=note)
    print_recorded(done, as_json)


def rest(
    campaign: CampaignName,
    kind: Annotated[
        str, typer.Argument(metavar="[KIND]", help="The ruleset's rest (dnd5e: short, long).")
    ] = "",
    member: Annotated[str | None, typer.Option(help="One member (default: everyone).")] = None,
    amount: Amount = None,
    event_id: EventId = None,
    note: Note = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A rest between fights: what the ruleset's text says a rest restores."""
    with application(db, create=False) as app, one_event():
        done = app.campaign_rest(
            campaign, kind, member=member, amount=amount, event_id=event_id, note=note
        )
    print_recorded(done, as_json)


def treat(
    campaign: CampaignName,
    member: Member,
    injury: Annotated[
        str, typer.Option(help="The injury, by name or the event that dealt it.")
    ] = "",
    means: Annotated[str, typer.Option(help="The ruleset's word (contractor: prosthetic).")] = "",
    amount: Amount = None,
    event_id: EventId = None,
    note: Note = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A member's injury treated between fights."""
    with application(db, create=False) as app, one_event():
        done = app.campaign_treat(
            campaign,
            member,
            injury=injury,
            means=means,
            amount=amount,
            event_id=event_id,
            note=note,
        )
    print_recorded(done, as_json)


def repair(
    campaign: CampaignName,
    member: Member,
    item: Annotated[
        str,
        typer.Argument(help="What is repaired, the ruleset's word (dragonquest: armour, shield)."),
    ],
    event_id: EventId = None,
    note: Note = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A member's gear repaired or replaced between fights."""
    with application(db, create=False) as app, one_event():
        done = app.campaign_repair(campaign, member, item, event_id=event_id, note=note)
    print_recorded(done, as_json)


def time(
    campaign: CampaignName,
    days: Annotated[int, typer.Argument(metavar="DAYS", parser=whole_number, help="Days.")],
    event_id: EventId = None,
    note: Note = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Days go by between fights (healing times, where the ruleset's text gives them)."""
    with application(db, create=False) as app, one_event():
        done = app.campaign_time(campaign, days, event_id=event_id, note=note)
    print_recorded(done, as_json)


def retire(
    campaign: CampaignName,
    member: Member,
    reason: Reason = "",
    event_id: EventId = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A member leaves the campaign alive: no fight joins them from the roster again."""
    with application(db, create=False) as app, one_event():
        done = app.campaign_retire(campaign, member, reason=reason, event_id=event_id)
    print_recorded(done, as_json)


def died(
    campaign: CampaignName,
    member: Member,
    cause: Annotated[str, typer.Option(help="How, kept in the log.")] = "",
    event_id: EventId = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A member's death the GM records (a death in a fight is read from the fight's log)."""
    with application(db, create=False) as app, one_event():
        done = app.campaign_died(campaign, member, cause=cause, event_id=event_id)
    print_recorded(done, as_json)


def undo(
    campaign: CampaignName,
    event: Annotated[
        str | None,
        typer.Argument(
            metavar="EVENT", help="The event's id or number (default: the newest still live)."
        ),
    ] = None,
    fight: Annotated[
        str | None, typer.Option(help="Undo in this fight of the campaign, not its own log.")
    ] = None,
    reason: Reason = "",
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Retract an event of the campaign or of one of its fights, and print what that changes
    across the campaign, from which fight on."""
    name = None if event is None else given.event_name(event)
    with application(db, create=False) as app, one_event():
        done = app.campaign_undo(campaign, name, fight=fight, reason=reason)
        if as_json:
            print_json(done)
            return
        if done.fight_changes is not None:
            print_appended(done.fight_changes, as_json=False)
        else:
            say(f"#{done.version} retract {done.retracted}")
        print_consequences(done.consequences)


def show(
    campaign: CampaignName,
    at: Annotated[
        int | None, typer.Option("--at", min=1, metavar="N", help="As it stood at event N.")
    ] = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Every member's record: current stats, injuries and where each was taken, fights played."""
    with application(db, create=False) as app:
        view = app.campaign_show(campaign, at)
    if as_json:
        print_json(view)
        return
    print_view(view)


def history(
    campaign: CampaignName,
    member: Annotated[str | None, typer.Option(help="Only what concerns this member.")] = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """The campaign's log, each event with what it did to each member's record."""
    with application(db, create=False) as app:
        found = app.campaign_history(campaign, member)
    if as_json:
        print_json(found)
        return
    print_history(found)


def report(
    campaign: CampaignName,
    as_json: AsJson = False,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            metavar="REPORT.md|-",
            help="Write the report to a Markdown file; `-` is standard output.",
        ),
    ] = None,
    db: Db = None,
) -> None:
    """Each member's numbers summed over the campaign's fights.

    Luck and the chronicle are each fight's own: `woundlog report FIGHT`."""
    shape = chosen_format(output, None, ("md",))
    with application(db, create=False) as app:
        made = app.campaign_report(campaign)
    from ..render.markdown import campaign_markdown
    from .report import write_report

    write_report(made, as_json, output, shape, lambda _shape: campaign_markdown(made))


# --- printing ----------------------------------------------------------------------------


def print_recorded(done: CampaignAppended, as_json: bool) -> None:
    if as_json:
        print_json(done)
        return
    tag = type(done.event).__struct_config__.tag
    if done.skipped:
        say(f"already recorded, nothing appended: {done.event.id}")
        return
    say(f"#{done.version} {tag}")
    for line in record_lines(done.members, done.ruleset):
        say(f"    {line}")


def record_lines(records: Iterable[MemberRecord], ruleset: str) -> list[str]:
    """One line per member, then one per injury (where and when it was taken)."""
    permanence = permanence_of(ruleset)
    lines = []
    for record in records:
        stats = ", ".join(f"{permanence.label(k)} {v}" for k, v in record.current.items())
        status = (
            f" - dead: {record.dead}"
            if record.dead
            else f" - retired: {record.retired}"
            if record.retired
            else ""
        )
        lines.append(f"{record.name} ({record.member}): {stats or 'no stats'}{status}")
        lines += [f"    injury: {i.name} (fight {i.fight}, {i.event})" for i in record.injuries]
        if record.conditions:
            lines.append(f"    conditions: {', '.join(record.conditions)}")
        if record.fights:
            lines.append(f"    fights: {', '.join(record.fights)}")
    return lines


def print_view(view: CampaignView) -> None:
    title = view.name or view.campaign
    say(f"campaign {title} ({view.ruleset}), at event {view.seq} of {view.version}")
    for line in record_lines(view.members, view.ruleset):
        say(f"  {line}")
    for played in view.stale:
        say(
            f"  fight {played.fight} began {played.member} from a record no longer true "
            f"(joined {played.joined}, the record now says {played.record})"
        )


def print_history(found: CampaignHistory) -> None:
    for entry in found.entries:
        say(entry_line(entry))
        for change in entry.changes:
            for part in change_parts(change):
                say(f"    {change.name}: {part}")


def entry_line(entry: HistoryEntry) -> str:
    event = entry.event
    match event:
        case MemberJoined() | Retired() | Died():
            what = event.member
        case FightPlayed():
            what = f"{event.fight} " + ", ".join(f"{m}={c}" for m, c in event.members.items())
        case Rest():
            what = event.kind or ""
        case Treatment():
            what = f"{event.member} {event.injury}".strip()
        case Repair():
            what = f"{event.member} {event.item}"
        case TimePassed():
            what = f"{event.days} days"
        case Retract():
            what = event.event
        case _:  # campaign_started: its type says it all
            what = ""
    line = f"#{entry.seq} {type_name(event)} {what}".rstrip()
    if entry.undone:
        line += f" - undone: {entry.undone}"
    if entry.void:
        line += f" - void: {entry.void}"
    for left in entry.unmoved:
        line += f" - {left.member} unmoved: {left.why}"
    return line


def change_parts(change: MemberChange) -> list[str]:
    parts = ["joined"] if change.joined else []
    parts += [f"{s.label} {_shown(s.before)} -> {_shown(s.after)}" for s in change.stats]
    parts += [f"injured: {i.name} ({i.event})" for i in change.gained]
    parts += [f"no longer has {name}" for name in change.lost]
    if change.conditions:
        parts.append(f"conditions: {', '.join(change.conditions)}")
    if change.dead:
        parts.append(f"dead: {change.dead}")
    if change.retired:
        parts.append(f"retired: {change.retired}")
    return parts


def _shown(value: int | None) -> str:
    return "unset" if value is None else str(value)


def print_consequences(found: Consequences) -> None:
    lines = list(found.lines())
    for line in lines:
        say(f"    consequence: {line}")
    if not lines:
        say("    no consequences: no member's record changed")

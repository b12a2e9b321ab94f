"""`woundlog campaign ...`: a roster that outlives its fights. Each command parses, calls the
Application's campaign use case, and prints its value (`--json`: the same Struct as JSON)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from . import inputs as given
from .application import application
from .options import AsJson, Db
from .output import print_json, say

Campaign = Annotated[str, typer.Argument(metavar="CAMPAIGN", help="The campaign's name.")]
Member = Annotated[str, typer.Argument(metavar="MEMBER", help="The member's id on the roster.")]


def _said(value: Any, as_json: bool) -> None:
    """A recorded campaign event: what it did to each member it touched."""
    if as_json:
        print_json(value)
        return
    if value.skipped:
        say(f"already recorded: {value.event.id}")
    for record in value.members:
        stats = ", ".join(f"{k} {v}" for k, v in record.current.items())
        said = f"{record.name}: {stats}"
        if record.injuries:
            said += "; injuries: " + ", ".join(i.name for i in record.injuries)
        say(said)
    say(f"campaign `{value.campaign}` at event {value.version}")


def new(
    campaign: Campaign,
    ruleset: Annotated[str, typer.Option("--ruleset", help="The game's rules (woundlog rules).")],
    name: Annotated[str, typer.Option(help="The campaign's name for people.")] = "",
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Start a campaign: a roster whose fights all play one ruleset."""
    with application(db) as app:
        _said(app.campaign_new(campaign, ruleset, name=name), as_json)


def join(
    campaign: Campaign,
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
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A character joins the roster with their starting stats and gear."""
    with application(db, create=False) as app:
        joined = app.campaign_join(
            campaign, member, name=name, side=side, kind=kind,
            stats=given.mapping(stat or [], "--stat"),
            gear=given.mapping(gear or [], "--gear", typed=False),
        )
        _said(joined, as_json)


def record(
    campaign: Campaign,
    fight: Annotated[str, typer.Argument(metavar="FIGHT", help="The fight played.")],
    member: Annotated[
        list[str] | None,
        typer.Option(
            "--member", metavar="MEMBER=CHARACTER",
            help="Who played whom (repeatable). Default: each member under their own id.",
        ),
    ] = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A fight of the campaign was played: its result is read by folding its log."""
    members = given.mapping(member, "--member", typed=False) if member else None
    with application(db, create=False) as app:
        _said(app.campaign_record(campaign, fight, members), as_json)


def rest(
    campaign: Campaign,
    kind: Annotated[str, typer.Option("--kind", help="The ruleset's rest (dnd5e: short, long).")] = "",
    member: Annotated[str | None, typer.Option(help="One member (default: everyone).")] = None,
    amount: Annotated[
        int | None, typer.Option(help="What the table rolled back (dnd5e short rest: the HP).")
    ] = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A rest between fights."""
    with application(db, create=False) as app:
        _said(app.campaign_rest(campaign, kind, member=member, amount=amount), as_json)


def show(
    campaign: Campaign,
    at: Annotated[int | None, typer.Option(help="As the campaign stood at its event N.")] = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Every member's record: current stats, injuries with where each was taken, fights."""
    with application(db, create=False) as app:
        view = app.campaign_show(campaign, at)
    if as_json:
        print_json(view)
        return
    say(f"campaign `{view.campaign}` ({view.ruleset}), event {view.seq} of {view.version}")
    for record in view.members:
        stats = ", ".join(f"{k} {v}" for k, v in record.current.items())
        state = f" DEAD ({record.dead})" if record.dead else ""
        state += f" RETIRED ({record.retired})" if record.retired else ""
        say(f"{record.name}: {stats}{state}")
        for injury in record.injuries:
            say(f"  {injury.name} (fight {injury.fight}, {injury.event})")
        if record.fights:
            say(f"  fights: {', '.join(record.fights)}")
    for played in view.stale:
        say(f"fight {played.fight} began {played.member} from a record no longer true")


def history(
    campaign: Campaign,
    member: Annotated[str | None, typer.Option(help="One member's history alone.")] = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """The campaign's events, each with what it did to each member."""
    with application(db, create=False) as app:
        told = app.campaign_history(campaign, member)
    if as_json:
        print_json(told)
        return
    for entry in told.entries:
        kind = entry.event.__struct_config__.tag
        head = f"#{entry.seq} {kind}"
        if entry.undone or entry.void:
            say(f"{head}: {entry.undone or 'void: ' + (entry.void or '')}")
            continue
        parts = []
        for change in entry.changes:
            bits = [f"{s.label} {s.before} -> {s.after}" for s in change.stats]
            bits += [f"now has {i.name}" for i in change.gained]
            bits += [f"no longer has {name}" for name in change.lost]
            if change.joined:
                bits.append("joins")
            if change.dead:
                bits.append(f"dead ({change.dead})")
            if change.retired:
                bits.append(f"retired ({change.retired})")
            parts.append(f"{change.name}: {', '.join(bits) or 'no change'}")
        say(f"{head}: {'; '.join(parts) or 'no change'}")


def undo(
    campaign: Campaign,
    event: Annotated[str | None, typer.Argument(metavar="EVENT", help="Default: the newest.")] = None,
    fight: Annotated[str | None, typer.Option(help="Undo in this fight of the campaign.")] = None,
    reason: Annotated[str, typer.Option(help="Why.")] = "",
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Retract a campaign event, or one of a fight's, and say what changed across fights."""
    with application(db, create=False) as app:
        undone = app.campaign_undo(campaign, event, fight=fight, reason=reason)
    if as_json:
        print_json(undone)
        return
    say(f"retracted {undone.retracted}" + (f" in fight {undone.fight}" if undone.fight else ""))
    for line in undone.consequences.lines():
        say(line)

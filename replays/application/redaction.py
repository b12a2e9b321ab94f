"""The players' view (issue 40): what a fight's viewer tokens are shown of the GM's characters,
redacted here, by the server, so that what players must not see never leaves it (DESIGN
section 9). The GM's and the admin's reads are whole.

    players_view(fight) -> PlayersView            the fight's setting (default: bands)
    set_players_view(fight, monsters) -> PlayersView
    redaction(fight) -> Redaction | None          None: nothing to hide from a viewer
    seen_by_viewer(fight, value) -> value         state, events page, timeline page, changes
    viewer_report(fight, *, most, stop) -> Report the report, as a viewer is shown it
    check_viewer_whatif(fight, events, hits)      refuses a viewer's what-if aimed at one
    seen_by_campaign_viewer(campaign, value), set_campaign_players_view(campaign, monsters)

`monsters`, per fight, the GM's choice, as Improved Initiative's Player View has it per
encounter (release 3.11.8, client/Combatant/ToPlayerViewCombatantState.ts, GetHPDisplay;
common/Settings.ts, `MonsterHPVerbosity`, a label by default): `shown`, the numbers; `bands`
(the default), a word in place of each pool of a GM's character: Defeated at 0 or less,
Bloodied under half its maximum, Hurt under it, else Healthy; `hidden`, no number at all. Which
kinds are the GM's and which counters are pools each ruleset declares (`Presentation.gm_kinds`,
`pools`). The setting is not a rule, so it is not in the log: it is kept beside the fight in
the store (`Side.settings`), carried by a rename or a delete as the fight's tokens are, and
set by the GM (`woundlog share FIGHT --monsters ...`, `PUT /fights/{fight}/players-view`).

Decisions where the issue is silent:
- A GM's character is one whose kind the fight's ruleset gives the GM, as the fight stands
  now, or as a `character_joined` in what is shown says (one whose joining was undone).
- Every number of it goes, from its state, its `stats` and every change's counters (a maximum
  may be a counter of its own: Warhammer Quest's `starting_wounds`), but the counters a page
  draws as pips (dnd5e's death saves); a band takes their place (`health`, in a state and,
  before and after, in a change where its pool moved; under `hidden` a change says only which
  way, as a player at the table sees a blow land).
- Of the events, a `hit`'s damage, a `heal`'s amount, any `value` and the GM's `note` are left
  out where the event's target or character is a GM's character, its `character_joined`
  loses its stats, and an `amend`'s replacement is shown as that event would be.
- An explanation (or a voided event's reason) that names a GM's character is the rules' own
  sentence, numbers and all, so it is replaced by what changed as the viewer may see it
  ("Goblin 1: upright -> dead (health Hurt -> Defeated)"). The report's chronicle lines and
  its luckiest and unluckiest moments likewise; the damage and healing a GM's character took,
  and its side's, are 0 there and named in `withheld`, and its health track is left out.
- Odds read the GM's numbers whatever is shown (a what-if of a blow says whether it kills):
  a viewer's what-if aimed at a GM's character (a hit, a heal, a check on it) is refused, and
  the GM's characters are left out of the odds a viewer is answered.
- A campaign's viewer tokens see its members of a GM's kind the same way, by the campaign's
  own setting (kept as a fight's, under its stream `campaign~NAME`; bands till `woundlog share
  --campaign C --monsters ...` says otherwise): its record, history, consequences and report.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import msgspec

from woundlog.core import Changes, CharacterChange, FightState, get_ruleset
from woundlog.core.presentation import Presentation
from woundlog.events import Event, UsageError
from woundlog.events.fight_ids import campaign_stream
from woundlog.events.stores import Stored

from ..campaign import Consequences
from .campaign_views import CampaignViews
from .fights import FightCases
from .reports import ReportCases
from .values import CampaignHistory, CampaignView, EventsPage, TimelinePage

if TYPE_CHECKING:  # loaded by the reads that need them: `woundlog hit` needs none of them
    from ..report import Report
    from ..whatif import Odds


class MonsterHp(StrEnum):
    """What a viewer token is shown of the hit points of the GM's characters."""

    HIDDEN = "hidden"
    BANDS = "bands"
    SHOWN = "shown"


SETTING = "monsters"
"""The setting's name among the fight's settings (`Side.settings`)."""
DEFAULT = MonsterHp.BANDS
"""Improved Initiative's Player View default: a word, never a number."""
REVEALING = ("damage", "amount", "value", "note")
"""An event's fields that tell a GM's character's numbers when it is its target or character."""
NOT_SHOWN = "what changed is the GM's to see"
CURRENT = "current_"
"""What a campaign's record calls a pool's current value, beside its maximum (dnd5e)."""
HEALTH = "health"
"""The counter a GM's character's pools become: its band (Healthy, Hurt, Bloodied, Defeated) in
a state and, before and after, in a change where its pool moved (under `hidden`, a change says
only which way: `[null, "down"]` or `[null, "up"]`)."""


class PlayersView(msgspec.Struct, frozen=True, kw_only=True):
    """What a fight's viewer tokens are shown of the GM's characters (`monsters`)."""

    fight: str
    monsters: MonsterHp


class ViewerMayNotAsk(UsageError):
    """A viewer's question whose answer reads the numbers the players' view hides (403)."""


def band(current: int, maximum: int) -> str:
    """A pool as Improved Initiative's Player View words it (GetHPDisplay)."""
    if current <= 0:
        return "Defeated"
    if 2 * current < maximum:  # currentHP < maxHP / 2, in integers
        return "Bloodied"
    if current < maximum:
        return "Hurt"
    return "Healthy"


class Hidden(msgspec.Struct, frozen=True):
    """A GM's character as a redaction knows it: its name and its pools' maximums."""

    name: str
    maximums: dict[str, int]


def _maximums(character: Any, presentation: Presentation) -> dict[str, int]:
    """Each pool's maximum as it stands in the fight: the rules' current one where they keep it
    (`presentation.maximums`), else the stat the character joined with."""
    found: dict[str, int] = {}
    for pool, joined in character.stats.items():
        if pool in presentation.pools:
            now = getattr(character, presentation.maximums.get(pool, ""), None)
            found[pool] = now if isinstance(now, int) else joined
    return found


class Redaction:
    """What a viewer is shown of one fight: `rule`, over the GM's characters `hidden` (by id),
    whose pools the ruleset's `presentation` names."""

    def __init__(
        self, rule: MonsterHp, presentation: Presentation, hidden: dict[str, Hidden]
    ) -> None:
        self.rule = rule
        self.pools = presentation.pools
        self.pips = set(presentation.pips.counters) if presentation.pips else set()
        self.numbers = {*self.pools, *(f"{CURRENT}{pool}" for pool in self.pools)}
        """What tells a pool: the pool (the current value in a fight, the maximum in a
        campaign's record) and the current value a campaign carries (dnd5e's `current_hp`)."""
        self.gm_kinds = presentation.gm_kinds
        self.maximums = presentation.maximums
        """A pool's maximum as it stands now, where the rules keep one apart from the joined
        stat (dnd5e's `max_hp`, moved by `stat_changed`): a band is worded against it."""
        self.hidden = hidden
        self._named: re.Pattern[str] | None = None
        self._compile()

    def _compile(self) -> None:
        names = sorted({h.name for h in self.hidden.values() if h.name} | set(self.hidden))
        alternatives = "|".join(rf"(?<!\w){re.escape(n)}(?!\w)" for n in names)
        self._named = re.compile(alternatives) if names else None

    def learn(self, events: list[dict[str, Any]]) -> None:
        """Take as GM's characters those the events shown (as JSON) join as one: a character
        whose joining was undone is in no state, but its events are still read."""
        learnt = False
        for event in events:
            joined = event.get("replacement") if event.get("type") == "amend" else event
            if not isinstance(joined, dict) or joined.get("type") != "character_joined":
                continue
            if joined.get("kind") in self.gm_kinds and joined["character"] not in self.hidden:
                stats = joined.get("stats") or {}
                maximums = {p: v for p, v in stats.items() if p in self.pools}
                self.hidden[joined["character"]] = Hidden(
                    name=joined.get("name") or joined["character"], maximums=maximums
                )
                learnt = True
        if learnt:
            self._compile()

    @classmethod
    def of(cls, rule: MonsterHp, state: FightState[Any]) -> Redaction:
        presentation = get_ruleset(state.ruleset).presentation
        hidden = {
            cid: Hidden(name=character.name or cid, maximums=_maximums(character, presentation))
            for cid, character in state.characters.items()
            if character.kind in presentation.gm_kinds
        }
        return cls(rule, presentation, hidden)

    @property
    def hides(self) -> bool:
        """Whether a viewer is kept from anything: some GM's character, numbers not shown."""
        return self.rule is not MonsterHp.SHOWN and bool(self.hidden)

    def is_hidden(self, who: str) -> bool:
        """Whether `who` (an id, or a name as a what-if may give it) is a GM's character."""
        folded = who.strip().casefold()
        return who in self.hidden or any(h.name.casefold() == folded for h in self.hidden.values())

    def names_one(self, text: str | None) -> bool:
        """Whether `text` names a GM's character (by its name or id)."""
        return bool(text) and self._named is not None and self._named.search(text or "") is not None

    # --- state --------------------------------------------------------------------------------

    def state(self, state: FightState[Any]) -> dict[str, Any]:
        """The state as JSON, each GM's character's pools a band or nothing."""
        shown: dict[str, Any] = msgspec.to_builtins(state)
        characters: dict[str, dict[str, Any]] = shown["characters"]
        for cid, character in characters.items():
            if cid in self.hidden or character.get("kind") in self.gm_kinds:
                self._character(character)
        return shown

    def character(self, cid: str, character: Any) -> Any:
        """One character of a fight's state (a Struct) as `state` shows it: JSON values where
        it is a GM's character, else the same Struct."""
        if cid not in self.hidden and character.kind not in self.gm_kinds:
            return character
        shown: dict[str, Any] = msgspec.to_builtins(character)
        self._character(shown)
        return shown

    def _character(self, character: dict[str, Any]) -> None:
        """A character of a fight's state, or a member of a campaign's record (its pools at
        the top level its maximums, its current values `current_POOL`): its band (under
        `bands`) in place of every number it has but the pips a page draws (a maximum may be
        a counter of its own: Warhammer Quest's `starting_wounds`)."""
        stats: dict[str, Any] = character.get("stats") or {}
        word = None
        for pool in self.pools:
            carried, current = character.get(f"{CURRENT}{pool}"), character.get(pool)
            current = carried if carried is not None else current
            now = character.get(self.maximums.get(pool, ""))
            maximum = now if isinstance(now, int) else stats.get(pool)
            if word is None and isinstance(current, int) and isinstance(maximum, int):
                word = band(current, maximum)
        for name, value in list(character.items()):
            if _number(value) and name not in self.pips:
                del character[name]
        if "stats" in character:
            character["stats"] = {}
        if word is not None and self.rule is MonsterHp.BANDS:
            character[HEALTH] = word

    # --- events -------------------------------------------------------------------------------

    def event(self, event: Event) -> dict[str, Any]:
        """The event as JSON, with what it tells of a GM's character's numbers left out."""
        shown: dict[str, Any] = msgspec.to_builtins(event)
        return self._event(shown)

    def _event(self, shown: dict[str, Any]) -> dict[str, Any]:
        kind = shown.get("type")
        if kind == "amend" and isinstance(shown.get("replacement"), dict):
            shown["replacement"] = self._event(shown["replacement"])
            return shown
        concerns = shown.get("target") or shown.get("character") or shown.get("member")
        if kind in ("character_joined", "member_joined"):
            if concerns in self.hidden or shown.get("kind") in self.gm_kinds:
                if "stats" in shown:
                    shown["stats"] = {}
                shown.pop("note", None)
        elif concerns in self.hidden:
            for field in REVEALING:
                shown.pop(field, None)
        return shown

    def events(self, page: EventsPage) -> dict[str, Any]:
        shown: dict[str, Any] = msgspec.to_builtins(page)
        self.learn([stored["event"] for stored in shown["events"]])
        for stored in shown["events"]:
            stored["event"] = self._event(stored["event"])
        return shown

    # --- changes ------------------------------------------------------------------------------

    def changes(self, changes: Changes) -> Changes:
        """What an event did, each GM's character's pools a band (where it moved) or nothing,
        and its sentence, if it names one, said again from what the viewer may see."""
        characters = [self._change(c) for c in changes.characters]
        consequences = [self._change(c) for c in changes.consequences]
        concerned = any(c.character in self.hidden for c in changes.characters)
        concerned = concerned or any(c.character in self.hidden for c in changes.consequences)
        explanation = changes.explanation
        if concerned or self.names_one(explanation):
            explanation = self.said([*characters, *consequences]) or NOT_SHOWN
        void = changes.void
        if self.names_one(void):
            void = f"set aside by the rules ({NOT_SHOWN})"
        return msgspec.structs.replace(
            changes,
            characters=characters,
            consequences=consequences,
            explanation=explanation,
            void=void,
        )

    @staticmethod
    def said(characters: list[CharacterChange]) -> str:
        return "; ".join(change.summary() for change in characters)

    def _change(self, change: CharacterChange) -> CharacterChange:
        hidden = self.hidden.get(change.character)
        if hidden is None:
            return change
        counters = {
            k: v
            for k, v in change.counters.items()
            if k in self.pips or not any(_number(end) for end in v)
        }
        moved = next((p for p in self.pools if p in change.counters), None)
        if moved is not None:
            was, now = change.counters[moved]
            maximum = hidden.maximums.get(moved)
            if self.rule is MonsterHp.BANDS and maximum is not None:
                worded = [band(v, maximum) if isinstance(v, int) else None for v in (was, now)]
                counters[HEALTH] = (worded[0], worded[1])
            elif isinstance(was, int) and isinstance(now, int):  # which way alone, no number
                counters[HEALTH] = (None, "down" if now < was else "up")
        return msgspec.structs.replace(change, counters=counters)

    def odds(self, odds: Odds) -> Odds:
        """A what-if's odds without the GM's characters (their outcomes are their numbers),
        a void reason naming one said again."""
        return msgspec.structs.replace(
            odds,
            characters={c: o for c, o in odds.characters.items() if c not in self.hidden},
            void=[
                msgspec.structs.replace(v, reason=NOT_SHOWN) if self.names_one(v.reason) else v
                for v in odds.void
            ],
        )

    def timeline(self, page: TimelinePage) -> dict[str, Any]:
        shown: dict[str, Any] = msgspec.to_builtins(page)
        self.learn([moment["event"] for moment in shown["moments"]])
        for moment, was in zip(shown["moments"], page.moments, strict=True):
            moment["event"] = self._event(moment["event"])
            moment["changes"] = msgspec.to_builtins(self.changes(was.changes))
        return shown

    # --- a campaign's reads -------------------------------------------------------------------

    @classmethod
    def of_campaign(cls, rule: MonsterHp, view: CampaignView) -> Redaction:
        """Over a campaign's members: its GM's characters are the members of a GM's kind."""
        presentation = get_ruleset(view.ruleset).presentation
        hidden = {
            member.member: Hidden(
                name=member.name or member.member,
                maximums={p: v for p, v in member.stats.items() if p in presentation.pools},
            )
            for member in view.members
            if member.kind in presentation.gm_kinds
        }
        return cls(rule, presentation, hidden)

    def campaign(self, value: Any) -> Any:
        """A campaign's read (its record, history, consequences or report) as JSON, what it
        tells of a GM's character's pools a band or nothing, as a fight's reads."""
        from ..report.campaign import CampaignReport

        shown: dict[str, Any] = msgspec.to_builtins(value)
        if isinstance(value, CampaignView):
            for member in shown["members"]:
                if member["member"] in self.hidden:
                    self._character(member)
        elif isinstance(value, CampaignHistory):
            for entry in shown["entries"]:
                entry["event"] = self._event(entry["event"])
                for change in entry.get("changes", []):
                    if change["member"] in self.hidden:
                        change["stats"] = self._stat_moves(
                            change["member"], change.get("stats", [])
                        )
        elif isinstance(value, Consequences):
            shown["changes"] = [c for c in shown["changes"] if c["member"] not in self.hidden]
            shown["records"] = [line for line in shown["records"] if not self.names_one(line)]
        elif isinstance(value, CampaignReport):
            for member in shown["members"]:
                if member["member"] in self.hidden:
                    for tally in (member["tally"], shown["total"]):
                        tally.pop("damage_taken", None)
                        tally.pop("healing_taken", None)
        else:
            raise TypeError(f"no players' view of {type(value).__name__}")
        return shown

    def _stat_moves(self, member: str, moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A member's stat changes, its numbers left out (under `bands`: its band's move)."""
        kept = [m for m in moves if not (_number(m["before"]) or _number(m["after"]))]
        moved = next((m for m in moves if m["stat"] in self.numbers), None)
        pool = moved["stat"].removeprefix(CURRENT) if moved else ""
        maximum = self.hidden[member].maximums.get(pool)
        if moved is not None and maximum is not None and self.rule is MonsterHp.BANDS:
            before, after = (
                band(moved[end], maximum) if isinstance(moved[end], int) else None
                for end in ("before", "after")
            )
            kept.append({"stat": HEALTH, "label": "Health", "before": before, "after": after})
        return kept

    # --- the report ---------------------------------------------------------------------------

    def report(self, report: Report, said_at: dict[int, str]) -> Report:
        """The report, each GM's character's damage and healing taken (and its side's) 0 and
        named in `withheld`, its track left out, every sentence naming one said again as the
        redacted explanation of its event (`said_at`, by seq)."""
        from ..report.chronicle import sentence

        def told(seq: int) -> str:
            return sentence(said_at.get(seq, NOT_SHOWN))

        withheld = [c.character for c in report.characters if c.character in self.hidden]
        characters = [
            msgspec.structs.replace(c, tally=_untaken(c.tally)) if c.character in withheld else c
            for c in report.characters
        ]
        sides = [
            msgspec.structs.replace(s, tally=_untaken(s.tally))
            if any(c in self.hidden for c in s.characters)
            else s
            for s in report.sides
        ]
        chronicle = [
            msgspec.structs.replace(
                chapter,
                lines=[
                    msgspec.structs.replace(line, text=told(line.seq))
                    if self.names_one(line.text)
                    else line
                    for line in chapter.lines
                ],
            )
            for chapter in report.chronicle
        ]
        luck = report.luck
        for end in ("luckiest", "unluckiest"):
            moment = getattr(luck, end)
            if moment is not None and (
                moment.character in self.hidden or self.names_one(moment.explanation)
            ):
                moment = msgspec.structs.replace(moment, explanation=told(moment.seq))
                luck = msgspec.structs.replace(luck, **{end: moment})
        return msgspec.structs.replace(
            report,
            characters=characters,
            sides=sides,
            chronicle=chronicle,
            luck=luck,
            tracks=[t for t in report.tracks if t.character not in self.hidden],
            withheld=withheld,
        )


def _aim(event: Mapping[str, Any]) -> str | None:
    """Whom a what-if's event (as sent) aims at: its target or character, or its replacement's."""
    replacement = event.get("replacement")
    if isinstance(replacement, Mapping):
        return _aim(replacement)
    aimed = event.get("target") or event.get("character")
    return aimed if isinstance(aimed, str) else None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _untaken(tally: Any) -> Any:
    return msgspec.structs.replace(tally, damage_taken=0, healing_taken=0)


class PlayersViewCases(CampaignViews, ReportCases, FightCases):
    """What a fight's viewer tokens are shown, the GM's setting, and the redaction it makes."""

    def players_view(self, fight: str) -> PlayersView:
        """The fight's setting: what its viewer tokens are shown of the GM's characters."""
        self.fight(fight)
        kept = self.store.side.settings.get(fight, SETTING)
        monsters = MonsterHp(kept) if kept in set(MonsterHp) else DEFAULT
        return PlayersView(fight=fight, monsters=monsters)

    def set_players_view(self, fight: str, monsters: MonsterHp | str) -> PlayersView:
        """Keep `monsters` as the fight's setting (`hidden`, `bands` or `shown`)."""
        if monsters not in set(MonsterHp):
            raise UsageError(
                f"monsters={monsters!r}: give one of {', '.join(m.value for m in MonsterHp)}"
            )
        self.fight(fight)
        self.store.side.settings.put(fight, SETTING, MonsterHp(monsters).value)
        return PlayersView(fight=fight, monsters=MonsterHp(monsters))

    def redaction(self, fight: str) -> Redaction | None:
        """What a viewer of the fight is kept from, as it stands; None for nothing."""
        found = self._viewers(fight)
        return found if found is not None and found.hides else None

    def _viewers(self, fight: str) -> Redaction | None:
        """The fight's redaction over its GM's characters as it stands (maybe none, whom what
        it reads may add to: `Redaction.learn`); None where the GM shows the numbers."""
        rule = self.players_view(fight).monsters
        return None if rule is MonsterHp.SHOWN else Redaction.of(rule, self.state(fight))

    def seen_by_viewer(self, fight: str, value: Any) -> Any:
        """`value` (a state, an events page, a timeline page, a list of changes, odds), read from
        `fight`, as a viewer token is shown it: JSON values, or the same value where nothing is
        hidden."""
        redaction = self._viewers(fight)
        if redaction is None:
            return value
        if isinstance(value, FightState):  # the GM's characters of that point of the fight
            at = Redaction.of(redaction.rule, value)
            return at.state(value) if at.hides else value
        if isinstance(value, EventsPage):
            return redaction.events(value)
        if isinstance(value, TimelinePage):
            return redaction.timeline(value)
        if not redaction.hides:
            return value
        from ..whatif import Odds

        if isinstance(value, Odds):
            return redaction.odds(value)
        if isinstance(value, list) and all(isinstance(each, Changes) for each in value):
            return [redaction.changes(each) for each in value]
        raise TypeError(f"no players' view of {type(value).__name__}")

    def seen_by_campaign_viewer(self, campaign: str, value: Any) -> Any:
        """`value` (a record, a history, consequences or a report), read from `campaign`, as a
        viewer token of it is shown it: its members of a GM's kind as the campaign's setting
        says (kept as a fight's, under the campaign's stream; `woundlog share --campaign C
        --monsters ...`), JSON values; or the same value where nothing is hidden."""
        kept = self.store.side.settings.get(campaign_stream(campaign), SETTING)
        rule = MonsterHp(kept) if kept in set(MonsterHp) else DEFAULT
        if rule is MonsterHp.SHOWN:
            return value
        view = value if isinstance(value, CampaignView) else self.campaign_show(campaign)
        redaction = Redaction.of_campaign(rule, view)
        return redaction.campaign(value) if redaction.hides else value

    def set_campaign_players_view(self, campaign: str, monsters: MonsterHp | str) -> PlayersView:
        """Keep `monsters` as what the campaign's viewer tokens are shown of its members of a
        GM's kind."""
        if monsters not in set(MonsterHp):
            raise UsageError(
                f"monsters={monsters!r}: give one of {', '.join(m.value for m in MonsterHp)}"
            )
        self.campaign_show(campaign)  # a campaign not there is said so
        self.store.side.settings.put(campaign_stream(campaign), SETTING, MonsterHp(monsters).value)
        return PlayersView(fight=campaign, monsters=MonsterHp(monsters))

    def check_viewer_whatif(
        self, fight: str, events: Sequence[Mapping[str, Any]], hits: Sequence[str]
    ) -> None:
        """Refuse a viewer's what-if whose events aim at a GM's character the players' view
        keeps the numbers of (the module's docstring says why); its answer is then redacted
        (`seen_by_viewer`)."""
        redaction = self.redaction(fight)
        if redaction is None:
            return
        aimed = [_aim(event) for event in events] + [hit.split(":", 1)[0] for hit in hits]
        for who in aimed:
            if who is not None and redaction.is_hidden(who):
                raise ViewerMayNotAsk(
                    f"{who}: fight `{fight}` keeps its monsters' hit points from viewers, and "
                    "the odds of a blow or a heal on one would tell them: ask with the gm "
                    f"token, or the GM shows them (`woundlog share {fight} --monsters shown`)"
                )

    def viewer_report(
        self, fight: str, *, most: int | None = None, stop: Callable[[], None] | None = None
    ) -> Report:
        """The fight's report as a viewer token is shown it."""
        redaction = self.redaction(fight)
        if redaction is None:
            return self.report(fight, most=most, stop=stop)
        kept: dict[int, str] = {}  # the explanations a line may be told again with, redacted

        def keep(history: Iterator[tuple[Stored[Event], Changes]]) -> Iterator[Any]:
            for stored, changes in history:
                # a hit's or a heal's line names who dealt it, who may be a GM's character
                if (
                    changes.type in ("hit", "heal")
                    or redaction.names_one(changes.explanation)
                    or any(
                        c.character in redaction.hidden
                        for c in (*changes.characters, *changes.consequences)
                    )
                ):
                    kept[stored.seq] = redaction.changes(changes).explanation
                yield stored, changes

        report = self.report(fight, most=most, stop=stop, watch=keep)
        return redaction.report(report, kept)

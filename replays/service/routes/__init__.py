"""The service's routes, one Litestar controller per resource, each setting its path, guard
and tags once; each handler is given the application (`app`) and the service's own state
(`service`) by dependency injection, and makes one call of the application.

    fights.py        /fights: start one, list them, delete one
    events.py        /fights/{fight}: events appended and read, its state, undo, imports, a
                     campaign member joined
    dice.py          /fights/{fight}/dice-asked and /next/dice-asked: the next die the rules
                     need, for a table that rolls its own
    streams.py       /fights/{fight}/stream and its ticket
    tokens.py        /fights/{fight}/tokens
    players_view.py  /fights/{fight}/players-view: what viewer tokens are shown of monsters
    whatifs.py       /fights/{fight}/odds and /branch
    reports.py       /fights/{fight}/report, its HTML fragment, /timeline
    campaigns.py     /campaigns
    pages.py         the pages and the files they load
    integrations.py  /integrations/foundry: the Foundry VTT module

A new route of a resource is a handler in its controller; a new resource, a module here and
its controller's one line in `create_app` (app.py).
"""

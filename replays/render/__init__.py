"""Renderers: the values the application gives, drawn or written for people to read.

    svg.py        the states' colours, and a picture as SVG or PNG (CairoSVG)
    timeline.py   a fight's timeline picture (`woundlog timeline`)
    odds.py       the odds of a what-if as a bar chart (`woundlog odds --plot`)
    markdown.py   a fight's report, its chronicle and a campaign's report as Markdown
    html.py       a fight's report as one self-contained HTML page, or a fragment of one
    charts.py     the report's small SVG charts

Each takes a value (`Report`, `Odds`, the moments of `Application.history`) and returns text or
bytes; none reads a store or a rule. What they draw is worked out by the application and the
modules under it (report/, whatif.py); a front end calls a renderer with what it was given.
"""

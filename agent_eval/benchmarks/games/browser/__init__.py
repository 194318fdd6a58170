"""The browser game kinds' base (aigamestore, gameworld): what the two do alike, once. Both play a page in the
browser host (agent_eval/browser) on its virtual clock, through an MCP `game` server, in VISTA's continuous session
or the benchmark's official protocol; each kind keeps its page and runtime, its actions, its observation words and
its scoring.

options.py        the options every browser kind takes (BrowserOptions), checked once
kind.py           BrowserKind: the Benchmark both kinds are (load, samples, hand-off, VISTA's session, redirects.jsonl)
reading.py        BrowserReading: the kinds' reading hooks, each one call into the kind's module of that name
vista_play.py     VISTA's game tools for both kinds: its actions' answers and task tools, images counted to the cap
"""

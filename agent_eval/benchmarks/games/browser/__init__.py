"""The browser game kinds' base (aigamestore, gameworld): what the two do alike, once (a page in the browser host on
its virtual clock, a `game` MCP server, VISTA's continuous session); each keeps its page, actions, words and scores.

kind.py           BrowserOptions, checked once; BrowserKind: the Benchmark both kinds are (load, samples, hand-off,
                  VISTA's session, redirects.jsonl)
vista_play.py     VISTA's game tools for both kinds: its actions' answers and task tools, images counted to the cap
"""

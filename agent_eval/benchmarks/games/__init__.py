"""The game core: the episode policies every game kind (arcgames, aigamestore, gameworld) applies alike, VISTA's
way by default. Not a kind (no registry line): a shared package the kinds import; it never imports a kind.

A game kind keeps only what is its own (its environment, actions, observation, scoring and words) and hands the
core its session as a `recovery.LiveGame`, its frames in a `frames.NumberedArchive`, and its words where VISTA's
differ between games. Each policy below is a kind option recorded in the run's identity, VISTA's by default.

__init__.py       this design
frames.py         the numbered frame archive (NumberedArchive; FrameArchive of PNGs), FRAMES_DIR, FrameRefused
looks.py          our looks at the archive as shown: recall, inspect, read_pixels (FrameLooks)
observation.py    one action per observation (ObservationGate, its words)
recovery.py       never quitting early: stops.jsonl, after_the_stop over a LiveGame
protocol.py       the episode's switches as kind options (Protocol)
handoff.py        when a session hands its game on (HandoffState), --context's parsing, the hand-off words
working_scope.py  WORKING.md archived with its provenance and cleared at each level (--working-scope level)
restores.py       a game restored by replay or started over (the kind's replay), the restore log, the time budget
timeline.py       the game's timeline.jsonl, synced before the model is answered (Timeline), and its readers
folder.py         the game's folder (GAME_DIR, result.json) and its JSON files written whole
tools.py          the `game` server's shared pieces: our looks as MCP tools, the note tools, a server of functions
served.py         the game's MCP server mounted and offered in the mode's tool set; mode python's frames mirror
reading.py        GameReading: the kinds' shared reading hooks (the game column, no dataset, the live game, the report);
                  BrowserReading: the browser kinds', each one call into the kind's module of that name
comparison.py     a game kind's part of `compare` as two tables of cells: the runs, then each game by run
paged.py          a long timeline paged for `show` (PAGE entries a page; the first and the last by default)
vista/            VISTA's tools, one implementation for every kind: MCP pieces, looks, history, notes
browser/          the browser kinds' base (aigamestore, gameworld): options, Benchmark, game server pieces, VISTA play
"""

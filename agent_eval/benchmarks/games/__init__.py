"""The game core: the episode policies every game kind (arcgames, aigamestore, gameworld) applies alike, VISTA's
way by default. Not a kind (no registry line): a shared package the kinds import; it never imports a kind.

A game kind keeps only what is its own (its environment, actions, observation, scoring and words) and hands the
core its session as a `recovery.LiveGame`, its frames in a `frames.NumberedArchive`, and its words where VISTA's
differ between games. Each policy below is a kind option recorded in the run's identity, VISTA's by default.

__init__.py       this design
frames.py         the numbered frame archive (NumberedArchive; FrameArchive of PNGs), FRAMES_DIR, FrameRefused
recovery.py       never quitting early: stops.jsonl, after_the_stop over a LiveGame
protocol.py       the episode's switches as kind options (Protocol); one action per observation (ObservationGate)
handoff.py        when a session hands its game on (HandoffState), --context's parsing, the hand-off words
working_scope.py  WORKING.md archived with its provenance and cleared at each level (--working-scope level)
folder.py         the game's folder (GAME_DIR, result.json), its JSON files written whole, the timeline synced
                  before the model is answered (Timeline), the restore log and start over, the time budget
tools.py          the `game` server's shared pieces: our looks at the archive (FrameLooks) as MCP tools, the note
                  tools, a server of functions
served.py         the game's MCP server mounted and offered in the mode's tool set; mode python's frames mirror
reading.py        GameReading: the kinds' shared reading hooks (the game column, no dataset, the live game, the report);
                  BrowserReading: the browser kinds'; compare's two tables (GameTables); show's pages (print_paged)
vista/            VISTA's tools, one implementation for every kind: MCP pieces, looks, history, notes
browser/          the browser kinds' base (aigamestore, gameworld): options, Benchmark, game server pieces, VISTA play
"""

"""The game core: the episode policies every game kind (arcgames, aigamestore, gameworld) applies alike, VISTA's
way by default. Not a kind (no registry line): a shared package the kinds import; it never imports a kind.

A game kind keeps only what is its own: its environment (the toolkit's process, the page host), its actions, its
observation and its scoring, and its words. What it hands the core, typed:

- its game session, which the policies read as a `recovery.LiveGame` (folder, actions used, level, progress words)
  and drive through the hooks the engine offers (`ItemSetup`: on_model_request, on_context, on_compaction_point,
  on_request_images, next_session);
- its frames, added to the core's numbered archive (`frames.NumberedArchive`: PNGs as captured in
  `frames.FrameArchive`, or a subclass that keeps more, arcgames' colour indices);
- its words where VISTA's differ between games: what an agent is asked at a hand-off (`handoff.HandoffState`'s
  ask), what a live game's early stop is answered (`recovery.after_the_stop`'s going_on), what a refused blind
  action says (`observation.ObservationGate`'s words).

The policies (each a module, each a kind option recorded in the run's identity):

- one action per observation: an action refused while the previous result has not reached the model
  (observation.py);
- a live game never ended early: the same session told to go on once per session and level, then up to
  `--recoveries` fresh sessions, VISTA's bounds 1 + 2x5 (recovery.py, stops.jsonl); or, VISTA's browser games, a
  final reply redirected in the kind's words and bounded by its budget (final_answers.py, redirects.jsonl);
- the episode's switches: the first observation up front, batches or one action per observation, early stops
  continued or graded, our task prompt or VISTA's (protocol.py);
- the hand-off to a fresh session: at --context handoff:N tokens, at the CLI's own compaction point
  (handoff:cli), or before a session holds --session-images N images (handoff.py; the engine keeps N at most the
  CLI's own per-request image cap for the model, agents' image_cap, and says so in the run's first lines);
- WORKING.md scoped to a level (working_scope.py); GUIDE.md and WORKING.md are benchmarks/notes.py's;
- a game that survives the harness: the restore log, an abandoned game moved aside, the time budget
  (restores.py), the durable timeline (timeline.py), restore by replay (each kind replays its own moves);
- the frame archive (frames.py) and our looks over it, recall / inspect / read_pixels (looks.py);
- the game served to the agent: its MCP server, the mode's tool set, the frames mirrored for mode python (served.py).

__init__.py       this design
frames.py         the numbered frame archive (NumberedArchive; FrameArchive of PNGs), FRAMES_DIR, FrameRefused
looks.py          our looks at the archive as shown: recall, inspect, read_pixels (FrameLooks)
observation.py    one action per observation (ObservationGate, its words)
recovery.py       never quitting early: stops.jsonl, after_the_stop over a LiveGame
final_answers.py  a final reply that is not a game action: redirected in the kind's words, bounded (redirects.jsonl)
protocol.py       the episode's switches as kind options (Protocol)
handoff.py        when a session hands its game on (HandoffState), --context's parsing, the hand-off words
working_scope.py  WORKING.md archived with its provenance and cleared at each level (--working-scope level)
restores.py       a game restored by replay or started over (the kind's replay), the restore log, the time budget
timeline.py       the game's timeline.jsonl, synced before the model is answered (Timeline), and its readers
folder.py         the game's folder (GAME_DIR, result.json) and its JSON files written whole
tools.py          the `game` server's shared pieces: our looks as MCP tools, the note tools, a server of functions
served.py         the game's MCP server mounted and offered in the mode's tool set; mode python's frames mirror
reading.py        GameReading: the kinds' shared reading hooks (the game column, no dataset, the live game, the report)
comparison.py     a game kind's part of `compare` as two tables of cells: the runs, then each game by run
paged.py          a long timeline paged for `show` (PAGE entries a page; the first and the last by default)
vista/            VISTA's tools, one implementation for every kind: MCP pieces, looks, history, notes
browser/          the browser kinds' base (aigamestore, gameworld): options, Benchmark, game server pieces, VISTA play
"""

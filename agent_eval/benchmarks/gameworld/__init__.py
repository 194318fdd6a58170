"""GameWorld (gameworld-project/gameworld): browser games played through their computer-use or semantic controls,
each task scored by GameWorld's own evaluator from the game's serialized state (window.gameAPI). The page runs in
the shared browser host (agent_eval/browser) on a clock only the harness moves.

benchmark.py      GameWorld: items are tasks (loader.py), the page host and the `game` tools per item
evaluator.py      GameWorld's task evaluator (game_api_metric) as a pure module; the suite's measures
catalog.py        GameWorld's catalog files (games, roles, controls, tasks), every bad value an error at its line
yamlfile.py       a YAML file read with the line of every key (the catalog's errors name it)
loader.py         a user's checkout and game library as a dataset: one item per task whose game is installed
actions.py        the computer-use actions and semantic controls, checked against a role, compiled into inputs
gameapi.py        window.gameAPI on the harness's clock: start (2048's race), readiness, reset, state reads
session.py        TaskSession: one task's steps as GameWorld's coordinator takes them, the evaluator, resets, replay
records.py        what a task leaves in the item's folder (task.json, timeline.jsonl, result.json) and its reading
recheck.py        a task's verdicts evaluated again from the states its timeline kept (ours or GameWorld's)
rung.py           the run's switches (protocol, interface, steps, real time, notes, context) and their tools
protocol.py       how turns go: the official protocol's decisions, VISTA's continuous session; what each is told
game_server.py    the `game` MCP server: act or control; recall, inspect, read_pixels, history; notes
vista_act.py      --act-schema vista: VISTA's act for one role (its schema, description, refusal of bad input)
roles.py          --roles isolated: each role its own session, notes and events, taking turns one action each
grading.py        the evaluator's last verdict as the record's metrics (TaskMetrics), the suite's rollup
measures.py       its own measures where a run is read (the suite's success rate and mean progress)
hooks.py          how runs read (show.py: timeline; report.py + templates/: filmstrips; compare.py: paired tests)
live.py           the game as it goes from its folder alone (watch, report --live) and its frames for a replay
demo.py           the test game's known plays, as scripted-model scenarios for both protocols
samples/          the project's own GameWorld-style test game (90_beacon) and its tasks, in GameWorld's layout
"""

"""GameWorld (gameworld-project/gameworld): browser games played through their computer-use or semantic controls,
each task scored by GameWorld's own evaluator from the game's serialized state (window.gameAPI).

evaluator.py      GameWorld's task evaluator (game_api_metric) as a pure module: score, best per episode, progress,
                  success, reset on a failed terminal, stop reasons; the suite's success rate and mean progress
catalog.py        GameWorld's catalog files (games, roles, controls; tasks and their evaluator settings), every bad
                  value an error naming its file and line (yamlfile.py: YAML read with the line of every key)
loader.py         a user's checkout and game library as a dataset: one item per task whose game is in the library
actions.py        the computer-use actions and the semantic controls, checked against a role, compiled into timed inputs
samples/          the project's own GameWorld-style test game (90_beacon: window.gameAPI) and its task files, in
                  GameWorld's layout (what `sample-data --kind gameworld` writes)
"""

"""GameWorld (gameworld-project/gameworld): browser games played through their computer-use or semantic controls,
each task scored by GameWorld's own evaluator from the game's serialized state (window.gameAPI).

evaluator.py      GameWorld's task evaluator (game_api_metric) as a pure module: score, best per episode, progress,
                  success, reset on a failed terminal, stop reasons; the suite's success rate and mean progress
"""

"""ARC-AGI-3 games: an agent plays, each action returns frames, the official toolkit scores the game.

game_process.py   GameProcess: one game under the toolkit's Python (>= 3.12, .venv-arc) in a bubblewrap jail of
                  its own, spoken to in JSON lines; StepResult, GameError, toolkit_python, TOOLKIT_MISSING
game_host.py      the script that process runs (never imported here): loads the game offline, steps it, reads
                  the toolkit's scorecard
games/            the project's own games (ae01-ae03), in the toolkit's environment_files layout, and a winning
                  action sequence for each
"""

"""The project's own ARC-AGI-3 games (written for agent-eval on ARCEngine, MIT), in the toolkit's
`environment_files/<game>/<version>/` layout: metadata.json (with the levels' baseline_actions) and
`<class_name lower>.py`.

ae01  a walker (ACTION1-4 = up, down, left, right) reaching a goal; a hazard ends the game (GAME_OVER)
ae02  a board of tiles; clicking (ACTION6 at x, y) every lit tile clears the level
ae03  a carrier (ACTION3/ACTION4) dropping a ball (ACTION1) that falls as an animation of several frames

WINNING holds a shortest winning action sequence for each, at the baselines (tests and scripted demos play
them). The game files are data: agent-eval never imports them; the toolkit exec()s them in the jail.
"""

from pathlib import Path

GAMES_DIR = Path(__file__).parent

U, D, L, R = "ACTION1", "ACTION2", "ACTION3", "ACTION4"

# A step is an action name, or ("ACTION6", x, y) for a click.
WINNING: dict[str, list] = {
    "ae01-v1": ["RESET"] + [R] * 5 + [R] * 5 + [D] * 5 + [U] * 7 + [R] * 7,
    "ae02-v1": [
        "RESET",
        ("ACTION6", 40, 24),
        ("ACTION6", 8, 56),
        ("ACTION6", 56, 8),
        ("ACTION6", 24, 24),
        ("ACTION6", 40, 40),
        ("ACTION6", 56, 56),
    ],
    "ae03-v1": ["RESET"] + [R] * 3 + [U] + [L] * 5 + [U] + [R] * 7 + [U],
}

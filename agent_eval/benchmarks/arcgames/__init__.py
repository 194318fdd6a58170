"""ARC-AGI-3 games: the game side (game_process.py runs one game under the official toolkit, confined; the
project's own games are in games/)."""

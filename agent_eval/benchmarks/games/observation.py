"""One action per observation (VISTA's harness, backends/claude/mcp_host.py): an action is refused while the
previous action's result has not reached the model (no model request has begun since it was answered), so the
model never acts on a result it has not seen. Several action calls in one message run one after another without
the model seeing each result: all but the first are refused, nothing spent. Every game kind offers it; off
(`--action-batches on`), the calls of one message all run."""

from __future__ import annotations

import threading

BLIND = (
    "No action taken: one action per observation. The result of your previous play has not reached you yet "
    "(several play calls in one message run one after another without you seeing each result): look at it, then "
    "choose the next action. Nothing was spent."
)


# VISTA's words for it (backends/claude/mcp_host.py action_cycle_ready), with its tools (--game-tools vista)
UNSEEN = "Observe the previous play result before another action."


class ObservationGate:
    """on: the rule is kept. The engine's model-request hook calls `model_asked`; the kind's action tool calls
    `refuses()` before acting and `acted(shown)` after (shown: its result carries an observation)."""

    def __init__(self, on: bool, words: str = BLIND):
        self.on, self.words = on, words
        self.unseen = False  # an action's result has not yet reached the model
        self.refused = 0  # actions refused for that (a message of several actions: all but the first)
        self._lock = threading.Lock()

    def model_asked(self) -> None:
        """A model request of this item began: every action answered before it has reached the model."""
        with self._lock:
            self.unseen = False

    def refuses(self) -> str | None:
        """The refusal (counted) when the previous result has not been seen; None: the action may go."""
        with self._lock:
            if not (self.on and self.unseen):
                return None
            self.refused += 1
            return self.words

    def acted(self, shown: bool) -> None:
        with self._lock:
            self.unseen = shown

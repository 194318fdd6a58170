"""How a game's episode runs, for every game kind, beside what the model sees and may call (arcgames' ladder.py):
each switch a kind option, so in the run's identity, VISTA's by default (arc3/claude/harness.py,
backends/claude/mcp_host.py, lifecycle.py). One action per observation (ObservationGate): an action is refused
while the previous action's result has not reached the model, so of several calls in one message all but the first
are refused, nothing spent."""

from __future__ import annotations

import threading
from dataclasses import dataclass

DEFAULT_RECOVERIES = 5  # VISTA's MAX_DECISION_LEASE_RECOVERIES_PER_STEP


@dataclass(frozen=True)
class Protocol:
    initial_frame: bool = True  # the game's first frame in the first prompt (off: the first play shows it)
    action_batches: bool = False  # on: several plays in one message all run (the model acts on unseen results)
    early_stop: str = "continue"  # continue: a session that ends with the game live is continued; grade: it ends
    recoveries: int = DEFAULT_RECOVERIES  # fresh sessions per step (no action between) after early stops
    task_prompt: str = "ours"  # what each session is told: our templates, or VISTA's words (vista_prompts.py)

    @classmethod
    def from_options(cls, given: dict) -> "Protocol":
        """From the kind's options (None: the default); ValueError naming the flag for a bad value."""
        recoveries = given.get("recoveries")
        recoveries = DEFAULT_RECOVERIES if recoveries is None else int(recoveries)
        if not 0 <= recoveries <= 50:
            raise ValueError(f"--recoveries must be 0-50 (fresh sessions in a row after early stops), got {recoveries}")
        return cls(
            task_prompt=given.get("task_prompt") or "ours",
            initial_frame=given.get("initial_frame") != "off",
            action_batches=given.get("action_batches") == "on",
            early_stop=given.get("early_stop") or "continue",
            recoveries=recoveries,
        )


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

"""The scorer hashes are part of every run's identity: a run graded under another hash is refused on resume and
sent to `agent-eval regrade`. They are computed from the scorers' source, so a change of formatting alone (a
formatter, a refactor) must not move them; a change of the rules must, on purpose, with this test updated."""

from agent_eval.benchmarks.activeobs.grading import rules_hash
from agent_eval.benchmarks.activevision.scoring import scorer_hash

# The values main has carried since the scorers last changed (issue 12 for ActiveVision, issue 8's rules for
# active observation).
ACTIVEVISION = "f4379cd4b6121c6f"
ACTIVE_OBSERVATION_RULES = "2b49d1080f61e422"


def test_activevision_scorer_hash_is_the_released_one():
    assert scorer_hash() == ACTIVEVISION


def test_active_observation_rules_hash_is_the_released_one():
    assert rules_hash() == ACTIVE_OBSERVATION_RULES

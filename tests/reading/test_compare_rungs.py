"""compare pairs two runs of a ladder (a game's rungs) only when they differ in one thing: one rung with the same
model, or the model on the same rung; else it refuses, unless --force."""

from types import SimpleNamespace

import pytest

from agent_eval.benchmarks.arcgames.hooks import GameReading
from agent_eval.benchmarks.presentation import ReadingHooks
from agent_eval.reading.comparison import check_rungs
from agent_eval.reading.runs import RunError


def run(tools="image", model="m1", hooks=None, **options):
    config = SimpleNamespace(
        tools=tools,
        kind_options={"max_actions": 200, **options},
        agent="codex",
        model=model,
        effort=None,
        max_turns=None,
        judge_model=None,
    )
    return SimpleNamespace(config=config, hooks=hooks or GameReading())


def test_one_rung_apart_or_one_model_apart_is_paired():
    assert check_rungs([run(), run(observation="text")], ["A", "B"], force=False) == []
    assert check_rungs([run(), run(pixel_readout="off")], ["A", "B"], force=False) == []
    assert check_rungs([run(), run(model="m2")], ["A", "B"], force=False) == []  # a comparison of models
    native, handoff = run(), run(context="handoff:150000", notes="on")  # VISTA's (iii) -> (iv): one step
    assert check_rungs([native, handoff], ["A", "B"], force=False) == []
    assert check_rungs([run(tools="none"), run(tools="image", pixel_readout="off")], ["A", "B"], False) == []
    assert check_rungs([run(), run(tools="python")], ["A", "B"], force=False) == []  # one rung: the shell


@pytest.mark.parametrize(
    "other,named",
    [
        (run(observation="text", notes="on"), ["observation (i)", "context and notes"]),
        (run(observation="text", model="m2"), ["observation (i)", "model (m1 vs m2)"]),
    ],
)
def test_more_than_one_difference_is_refused_unless_forced(other, named):
    runs = [run(), other]
    with pytest.raises(RunError, match="differ in more than the rung under study") as refused:
        check_rungs(runs, ["A", "B"], force=False)
    assert all(name.split(" (")[0] in str(refused.value) for name in named)
    (note,) = check_rungs(runs, ["A", "B"], force=True)
    assert note.startswith("--force: A and B differ")


def test_kinds_without_a_ladder_are_not_checked():
    plain = [run(hooks=ReadingHooks()), run(hooks=ReadingHooks(), tools="none", model="m2")]
    assert check_rungs(plain, ["A", "B"], force=False) == []


def test_the_episode_protocol_is_one_thing_a_run_can_differ_in():
    """A rung stated relative to --profile vista: one switch of the episode is one difference; with a rung more,
    refused (the protocol is no hidden confound)."""
    from agent_eval.benchmarks.registry import profile_of

    vista = {
        k: v
        for k, v in profile_of("vista", "arcgames").options.items()
        if k not in ("tools", "system_prompt", "silent_minutes")
    }
    assert check_rungs([run(**vista), run(**{**vista, "action_batches": "on"})], ["A", "B"], force=False) == []
    assert check_rungs([run(**vista), run(**{**vista, "early_stop": "grade"})], ["A", "B"], force=False) == []
    with pytest.raises(RunError, match="episode .*batches"):
        check_rungs([run(**vista), run(tools="python", **{**vista, "action_batches": "on"})], ["A", "B"], False)


def test_a_rung_and_the_system_prompt_together_are_two_differences():
    own, task = run(), run(pixel_readout="off")
    task.config.system_prompt_sha256 = "ab" * 32
    with pytest.raises(RunError, match="system_prompt_sha256"):
        check_rungs([own, task], ["A", "B"], force=False)
    alone = run()
    alone.config.system_prompt_sha256 = "ab" * 32
    assert check_rungs([own, alone], ["A", "B"], force=False) == []  # the system prompt alone: one difference

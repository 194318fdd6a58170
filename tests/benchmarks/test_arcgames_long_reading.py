"""show and report of a 2,000-action game stay bounded: the timeline paged (the first and the last page, the
steps where a level ended, `--page N` for the rest), the report's filmstrip sampled. The item folder is made
here as a run writes it (timeline.jsonl lines of session.Play, frames through the FrameArchive); sizes and
line counts are asserted, never times."""

import json
import re
from dataclasses import asdict

import numpy as np
import pytest
from click.testing import CliRunner

from agent_eval.benchmarks.arcgames.frames import FrameArchive
from agent_eval.benchmarks.arcgames.game_record import GameEnd, Play, write_end
from agent_eval.benchmarks.arcgames.report import MAX_SHOTS
from agent_eval.benchmarks.games.folder import GAME_DIR, TIMELINE
from agent_eval.benchmarks.games.reading import PAGE
from agent_eval.commands.report import command as report_command
from agent_eval.commands.show import command as show_command
from agent_eval.datamodel.manifest import RunManifest
from agent_eval.datamodel.records import ItemRecord
from agent_eval.datamodel.results import RunStore
from agent_eval.datamodel.transcript import Step, Transcript

ACTIONS = 2000
LEVEL_ENDS = (700, 1500)  # the plays that complete level 1 and level 2 (of 3)
ANIMATED = 5  # every 5th play returns 3 frames


def long_game_run(root):
    run_dir = root / "long"
    store = RunStore(run_dir)
    store.write_manifest(
        RunManifest.from_json(
            {
                "schema_version": 1,
                "run_name": "long",
                "config": {"agent": "claude-code", "model": "m", "tools": "image", "benchmark": "arcgames"},
                "scripted_model": True,
            }
        )
    )
    item = store.sandbox_dir("ae01")
    game = item / GAME_DIR
    archive = FrameArchive(game / "frames", scale=4)
    levels, lines = 0, []
    for step in range(1, ACTIONS + 1):
        frames = []
        for k in range(3 if step % ANIMATED == 0 else 1):
            frame = np.zeros((64, 64), dtype=np.uint8)
            frame[step % 64, (step // 64 + k) % 64] = 1 + step % 15
            frames.append(archive.add(frame)[0])
        levels += step in LEVEL_ENDS
        action = "RESET" if step % 10 == 1 else ("ACTION1", "ACTION2")[step % 2]
        play = Play(step, action, None, None, "NOT_FINISHED", levels, 3, frames, ["ACTION1", "ACTION2"], step, 1.5)
        lines.append(json.dumps(asdict(play)) + "\n")
    (game / TIMELINE).write_text("".join(lines))
    end = GameEnd("ae01", "v1", "NOT_FINISHED", levels, 3, ACTIONS, ACTIONS, True, archive.count)
    write_end(game, end)
    Transcript(
        "claude-code", prompt="Play the game.", steps=[Step("text", "<answer>DONE</answer>")], final_text="DONE"
    ).save(item / "steps.json")
    metrics = {"game": "ae01", "version": "v1", "state": "NOT_FINISHED", "levels_completed": 2, "win_levels": 3}
    metrics.update({"actions": ACTIONS, "max_actions": ACTIONS, "budget_spent": True, "plays": ACTIONS})
    store.append(ItemRecord("ae01", "ae01", "game", "WIN", "ok", prediction="DONE", metrics=metrics))
    store.write_summaries()
    return run_dir


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return long_game_run(tmp_path_factory.mktemp("arc-long"))


def invoke(command, *args) -> str:
    result = CliRunner().invoke(command, [str(a) for a in args], env={"COLUMNS": "160"})
    assert result.exit_code == 0, (result.output, result.exception)
    return result.output


def timeline_rows(output: str) -> list[int]:
    """The step numbers of the timeline table's rows."""
    return [int(m.group(1)) for m in re.finditer(r"^│\s*(\d+)\s*│", output, re.MULTILINE)]


def test_show_prints_the_first_and_the_last_page_and_says_how_to_see_the_rest(run):
    out = invoke(show_command, run, "ae01")
    rows = timeline_rows(out)
    assert rows == list(range(1, PAGE + 1)) + list(range(ACTIONS - PAGE + 1, ACTIONS + 1))
    assert f"({ACTIONS - 2 * PAGE} not shown)" in out
    assert f"game timeline ({ACTIONS} play call(s)): the first and the last page of {ACTIONS // PAGE}" in out
    assert "levels completed at step(s): 700 (level 1), 1500 (level 2)" in out
    assert f"pages 1-{ACTIONS // PAGE} of {PAGE} play calls: agent-eval show {run} ae01 --page N" in out
    assert len(out.splitlines()) < 3 * PAGE  # bounded whatever the game's length


def test_show_page_n_prints_that_page(run):
    out = invoke(show_command, run, "ae01", "--page", 15)
    assert timeline_rows(out) == list(range(14 * PAGE + 1, 15 * PAGE + 1))
    assert f"page 15 of {ACTIONS // PAGE}" in out and "not shown" not in out
    assert timeline_rows(invoke(show_command, run, "ae01", "--page", 999))[-1] == ACTIONS  # past the end: the last


def test_the_reports_filmstrip_is_sampled_evenly_with_every_level_end_and_the_last_play(run, tmp_path):
    html = tmp_path / "r.html"
    invoke(report_command, run, "-o", html)
    text = html.read_text()
    steps = [int(s) for s in re.findall(r'<li class="arc-shot [a-z_]+">.*?<span>(\d+) · ', text, re.DOTALL)]
    assert MAX_SHOTS <= len(steps) <= MAX_SHOTS + len(LEVEL_ENDS) + 1
    assert steps == sorted(steps) and steps[0] == 1 and steps[-1] == ACTIONS
    assert set(LEVEL_ENDS) <= set(steps)
    gaps = np.diff(steps)
    assert gaps.max() <= 2 * ACTIONS / MAX_SHOTS  # evenly spread over the game, not the first 60
    assert text.count('<img src="data:image/png') == len(steps)
    assert text.count('class="arc-strip"') == 3
    assert len(re.findall(r"\d+ not shown", text)) == 3
    assert len(text) < 1_000_000  # the game's part is bounded (the frames drawn are ~1 KB each)

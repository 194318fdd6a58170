"""The prompt never names a tool the run does not offer (step 20's defect: `--pixel-readout off` still described
read_pixels), for every mode x rung x tool style, from the real templates; the default rung's prompt is the
template as it was; the rendering and coordinate switches are said where the template says how frames look."""

import itertools
import re
from pathlib import Path

import pytest

from agent_eval.benchmarks.arcgames.benchmark import ArcGames
from agent_eval.benchmarks.arcgames.ladder import Ladder
from agent_eval.benchmarks.arcgames.prompt_text import CLICK, LOOKING_END, LOOKING_START, drawn
from agent_eval.datamodel.prompts import load_template

PROMPTS = Path(__file__).parents[2] / "prompts" / "arcgames"
MODES = ("none", "image", "python")
EVERY_TOOL = (
    "play", "recall", "inspect", "read_pixels", "read_notes", "write_note",
    "history", "read_guide", "write_guide", "read_working", "write_working",
)  # fmt: skip
RUNGS = [
    dict(zip(("game_tools", "pixel_readout", "notes", "working_scope"), values))
    for values in itertools.product(("ours", "vista"), ("on", "off"), ("on", "off"), ("game", "level"))
    if values[2] == "on" or values[3] == "game"  # the scope of WORKING.md is a switch of the notes
]


def prompt_of(mode: str, options: dict) -> str:
    games = ArcGames()
    games.configure(options)
    return games.task_prompt(load_template(mode, PROMPTS).text, mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("options", RUNGS, ids=lambda o: "-".join(o.values()))
def test_the_prompt_names_exactly_the_tools_offered(mode, options):
    offered = Ladder.from_options(options).tools(mode)
    prompt = prompt_of(mode, options)
    named = {tool for tool in EVERY_TOOL if re.search(rf"(?<![\w-]){tool}(?![\w-])", prompt)}
    assert named == set(offered), (sorted(named - set(offered)), sorted(set(offered) - named))


@pytest.mark.parametrize("mode", MODES)
def test_every_template_holds_the_passages_the_switches_replace(mode):
    text = load_template(mode, PROMPTS).text
    assert CLICK in text and drawn(1).replace("1x1", "{scale}x{scale}") in text
    if mode != "none":
        assert LOOKING_START in text and LOOKING_END in text


@pytest.mark.parametrize("mode", MODES)
def test_the_default_rung_asks_what_earlier_runs_asked(mode):
    template = load_template(mode, PROMPTS).text
    before = template.replace("{max_actions}", "200").replace("{scale}", "4").replace("{frames_dir}", "frames")
    before = before.replace("{start}", "Start with RESET.")  # the prompt before the first frame was shown up front
    assert prompt_of(mode, {"initial_frame": "off"}) == before.strip() + "\n"


def test_pixel_readout_off_drops_read_pixels_from_the_sentence():
    prompt = prompt_of("image", {"pixel_readout": "off"})
    assert (
        "Every frame you are shown is kept and numbered: `recall` shows earlier frames again (by number, or all the "
        "frames of a step), and `inspect` enlarges part of a frame with a coordinate grid. These cost no actions."
    ) in prompt


def test_display_coordinates_and_grid_lines_are_said():
    prompt = prompt_of("image", {"frame_scale": 8, "coordinates": "display", "frame_grid": "on", "game_tools": "vista"})
    assert "ACTION6 is a click at x, y in pixels of the image as shown (0-511, the 512x512 image))" in prompt
    assert "each game pixel drawn as a 8x8 square with grid lines" in prompt
    assert "turn N is the result of your N-th action" in prompt

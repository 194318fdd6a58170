"""Layer 2, the benchmark kinds: one package per kind behind benchmarks/registry.py. Never imports agents/ nor
reading/ (a run is a presentation.RunOnDisk to a kind).

activeobs/        active observation: questions about a panoramic video, views through the `observe` tool
aigamestore/      AI GameStore's browser games, played in the browser host (agent_eval/browser) outside the sandbox
activevision/     ActiveVision-style static images: loader, the reference scorer, the sample generators
arcgames/         ARC-AGI-3 games played under the official toolkit in a jail of their own
answers.py        the <answer> tag every kind asks for, and how a reply's answer is found
babyvision/       BabyVision's meta_data.jsonl layout, prompted and graded (\\boxed{} and a judge) as its reference
base.py           Benchmark (load, setup, grade, scorer hash), Item, HashedDataset, ItemSetup, ItemError,
                  BenchmarkGrade, KindMetrics
fieldformats.py   what the field's formats share: images from base64 or files, the verbatim prompt, the judge
games/            the game core: the episode policies every game kind shares (not a kind: no registry line)
gameworld/        GameWorld's browser-game tasks (catalog + game library), played in the browser host, scored by its
                  own evaluator from the page's window.gameAPI state
fieldsamples.py   small generated sets in the VLMEvalKit TSV and BabyVision layouts (`sample-data`)
notes.py          the agent's notes (--notes on): GUIDE.md and WORKING.md, every version kept, and how they read
notes_server.py   the notes tools (read_notes, write_note) as an MCP server of their own
profiles.py       each kind's named configurations (`run --profile`): VISTA's setting of each benchmark it reports
presentation.py   ReadingHooks and the typed views a kind returns to show, report, compare and plots; JudgedHooks:
                  how `show` presents a judged item (what was read, by what, each judge call)
registry.py       name -> "module:Class", tool modes, dataset detection, help texts
shared.py         what several kinds offer alike: the image tools, placing an image, the prompt placeholders
vlmeval/          VLMEvalKit's multiple-choice TSV (HR-Bench, V* Bench, ...), prompted and graded as VLMEvalKit does
"""

from __future__ import annotations

from pathlib import Path

from agent_eval.benchmarks.base import Benchmark, ItemError
from agent_eval.benchmarks.registry import all_tool_modes, detect_kind, get_benchmark

__all__ = ["Benchmark", "ItemError", "get_benchmark", "load_benchmark"]

ALL_TOOL_MODES = all_tool_modes()


def load_benchmark(root: Path):
    """(benchmark, dataset) for a dataset directory of any registered kind."""
    benchmark = get_benchmark(detect_kind(Path(root)))
    return benchmark, benchmark.load(Path(root))

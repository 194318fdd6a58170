"""Build realistic run directories for the show/report/compare tests.

A run made here looks like what the runner writes: `run.json`, `<task>/items.jsonl` through
`RunStore.append`, and per item `sandboxes/<id>/` with the raw `transcript.jsonl`, the
normalised `steps.json`, the original (`work/image.png` in tool modes, `home/attachment.png`
in mode none), the lossless views in `work/views/NNN-<tool>.png`, and `seen/NNN.png`: the
copies of every image that reached the model, which the steps point at. `make_cot_results` writes what the benchmark's own no-tool
chain-of-thought evaluation leaves: bare `<task>/items.jsonl` rows, no run.json.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

from PIL import Image, ImageDraw

from agent_eval.records import ItemRecord, Usage
from agent_eval.results import RunStore
from agent_eval.transcript import Step, Transcript

# A slice of the real bank: ids, tasks, categories and answer formats as released.
ITEMS = [
    ("ACF-0", "arrow_chain_following", "sequential_traversal", "H"),
    ("ACF-1", "arrow_chain_following", "sequential_traversal", "B"),
    ("ACF-2", "arrow_chain_following", "sequential_traversal", "B"),
    ("BFC-0", "bounded_face_counting", "distributed_scanning", "7"),
    ("BFC-1", "bounded_face_counting", "distributed_scanning", "11"),
    ("CZS-0", "color_zone_sequencing", "sequential_traversal", "C,A,D,B"),
    ("CMC-0", "constellation_match_counting", "visual_attribute_transfer", "3"),
    ("FDS-0", "field_difference_spotting", "visual_attribute_transfer", "4-7"),
]
QUESTION = ("The piece highlighted by a green ring is the starting point. Follow the chain and report "
            "the letter of the terminus marker. Provide your final answer enclosed in <answer>...</answer> tags.")
TOOL_NAMES = {
    ("claude-code", "image"): "mcp__image_tools__inspect",
    ("claude-code", "python"): "Bash",
    ("codex", "image"): "mcp__image_tools.inspect",
    ("codex", "python"): "exec_command",
}


def bank_items(n: int | None = None) -> list[tuple[str, str, str, str]]:
    """(id, task, category, answer) of the real bank when present, else the built-in slice."""
    bank = Path(__file__).resolve().parent.parent.parent / "shared" / "activevision" / "items.jsonl"
    if bank.is_file():
        rows = [json.loads(line) for line in bank.read_text().splitlines() if line.strip()]
        items = [(r["id"], r["task"], r["category"], str(r["answer"])) for r in rows]
    else:
        items = list(ITEMS)
    return items[:n] if n else items


def draw_original(path: Path, seed: int, size=(640, 480)) -> None:
    """A busy synthetic puzzle image: shapes, letters, a green ring."""
    rng = random.Random(seed)
    img = Image.new("RGB", size, (250, 250, 246))
    draw = ImageDraw.Draw(img)
    w, h = size
    for _ in range(40):
        x, y = rng.randrange(w), rng.randrange(h)
        colour = rng.choice([(40, 40, 40), (200, 60, 60), (60, 90, 200), (230, 170, 30)])
        draw.polygon([(x, y - 9), (x + 7, y + 6), (x - 7, y + 6)], fill=colour)
    for letter in "ABCDH":
        x, y = rng.randrange(30, w - 30), rng.randrange(30, h - 30)
        draw.ellipse([x - 16, y - 16, x + 16, y + 16], outline=(0, 0, 0), width=2)
        draw.text((x - 3, y - 6), letter, fill=(0, 0, 0))
    draw.ellipse([w // 3 - 14, h // 2 - 14, w // 3 + 14, h // 2 + 14], outline=(0, 170, 60), width=4)
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path)


def save_view(original: Path, target: Path, box: tuple[int, int, int, int], size: int = 512) -> None:
    """An enlarged exact crop, nearest neighbour, like the inspect tool's views."""
    with Image.open(original) as img:
        crop = img.crop(box)
    scale = size / max(crop.size)
    target.parent.mkdir(parents=True, exist_ok=True)
    crop.resize((round(crop.width * scale), round(crop.height * scale)), Image.NEAREST).save(target)


class _Seen:
    """Like the event parsers: every image that reached the model is saved as `seen/NNN.png`."""

    def __init__(self, item_dir: Path):
        self.item_dir, self.count = item_dir, 0

    def __call__(self, source: Path) -> str:
        self.count += 1
        target = self.item_dir / "seen" / f"{self.count:03d}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes())
        return target.relative_to(self.item_dir).as_posix()


def _steps(agent: str, tools: str, item_dir: Path, answer: str, long_output: bool) -> list[Step]:
    """A plausible episode: look, zoom (tool modes), maybe measure with Python, answer."""
    if tools == "none":
        return [Step("reasoning", "The start ring is left of centre; the arrows point right."),
                Step("text", f"Following the chain I reach the marker.\n<answer>{answer}</answer>")]
    original = item_dir / "work" / "image.png"
    seen = _Seen(item_dir)
    steps = [Step("text", "I'll enlarge the region around the green ring first.", t=1.5)]
    for n, box in enumerate([(160, 180, 320, 300), (280, 120, 440, 240)], start=1):
        view = f"work/views/{n:03d}-inspect.png"
        save_view(original, item_dir / view, box)
        tool = TOOL_NAMES[(agent, "image")]
        args = {"x": box[0], "y": box[1], "width": box[2] - box[0], "height": box[3] - box[1], "size": 512}
        steps += [Step("tool_call", tool=tool, call_id=f"call_{n}", input=args, t=2.0 + n),
                  Step("tool_result", json.dumps({"saved": view[5:], "scale": 3.2}), call_id=f"call_{n}",
                       images=[seen(item_dir / view)], t=2.5 + n)]
    if tools == "python":
        tool = TOOL_NAMES[(agent, "python")]
        key = "command" if agent == "claude-code" else "cmd"
        script = "python3 -c \"from PIL import Image; im=Image.open('image.png'); print(im.size)\n" \
                 "for y in range(0, im.height, 8): print(y, im.getpixel((200, y)))\""
        lines = ["(640, 480)"] + [f"{y} (250, 250, 246)" for y in range(0, 480, 8)] if long_output else ["(640, 480)"]
        steps += [Step("tool_call", tool=tool, call_id="call_py", input={key: script}, t=6.0),
                  Step("tool_result", "\n".join(lines), call_id="call_py", t=6.4),
                  Step("tool_call", tool="Read", call_id="call_read", input={"file_path": "image.png"}, t=7.0),
                  Step("tool_result", "", call_id="call_read", images=[seen(original)], t=7.1)]
    steps.append(Step("text", f"The ray from the ringed piece enters marker {answer}.\n<answer>{answer}</answer>", t=9.0))
    return steps


def make_run(root: Path, name: str, *, agent: str = "claude-code", model: str = "claude-opus-4-8",
             effort: str | None = "high", tools: str = "python", sandbox: str = "bwrap",
             scripted: bool = False, items=None, outcomes: dict | None = None, p_correct: float = 0.6,
             seed: int = 0, scorer_hash: str = "scorer-aaaa", dataset_hash: str = "data-1111",
             cost_per_item: float | None = 0.05, repeats: int = 1, long_output: bool = True,
             original_size=(640, 480), sandboxes: bool = True) -> Path:
    """Write a run dir under `root/name`; `outcomes` maps id -> True/False (or a list, one per repeat)
    or a failure status. `sandboxes=False` writes records only (fast, for statistics tests)."""
    run_dir = root / name
    store = RunStore(run_dir)
    items = items if items is not None else ITEMS
    rng = random.Random(seed)
    store.write_manifest({
        "schema_version": 1, "run_name": name,
        "config": {"agent": agent, "model": model, "effort": effort, "tools": tools, "sandbox": sandbox,
                   "max_turns": 30, "prompt_hash": f"prompt-{tools}", "scorer_hash": scorer_hash,
                   "dataset_hash": dataset_hash, "cli_version": "2.1.197" if agent == "claude-code" else "0.171.0"},
        "dataset": {"path": "/data/activevision", "layout": "metadata.jsonl", "n_items": len(items)},
        "auth": {"kind": "api_key", "endpoint_host": "127.0.0.1" if scripted else "api.anthropic.com"},
        "scripted_model": scripted, "project_version": "0.1.0",
        "started_at": "2026-11-30T10:00:00+0000", "finished_at": "2026-11-30T10:40:00+0000",
    })
    for index, (item_id, task, category, truth) in enumerate(items):
        for repeat in range(repeats):
            outcome = (outcomes or {}).get(item_id, rng.random() < p_correct)
            if isinstance(outcome, (list, tuple)):
                outcome = outcome[repeat]
            store.append(_item(store, item_id, task, category, truth, outcome, agent, tools, repeat,
                               seed + index, cost_per_item, long_output, original_size, sandboxes))
    store.write_summaries()
    return run_dir


def _item(store, item_id, task, category, truth, outcome, agent, tools, repeat, seed, cost, long_output, size, sandboxes):
    item_dir = store.sandbox_dir(item_id, repeat)
    failed = isinstance(outcome, str)
    correct = outcome is True
    prediction = truth if correct else ("" if failed else _wrong(truth))
    if sandboxes:  # as the runner does: a workdir copy in tool modes, a private attachment in mode none
        draw_original(item_dir / ("home/attachment.png" if tools == "none" else "work/image.png"), seed, size)
        (item_dir / "work").mkdir(parents=True, exist_ok=True)
    where = "attached to this message" if tools == "none" else "the file `image.png` in your working directory"
    transcript = Transcript(agent=agent, prompt=f"The image for this question is {where}.\n\n{QUESTION}")
    if tools == "none":
        transcript.prompt_images = ["home/attachment.png"]
    if failed:
        transcript.steps = [Step("text", "Let me look at the image.", t=1.0)]
        transcript.error = {"timeout": "timed out after 600 s", "agent_error": "API Error: 529 overloaded"}.get(outcome, outcome)
    else:
        transcript.steps = _steps(agent, tools, item_dir, prediction, long_output) if sandboxes else [
            Step("text", f"<answer>{prediction}</answer>")]
        transcript.final_text = transcript.steps[-1].text
    transcript.usage = Usage(input_tokens=12000 + seed, cached_input_tokens=8000, output_tokens=900, reasoning_tokens=300)
    transcript.num_turns = len([s for s in transcript.steps if s.kind == "tool_call"]) + 1
    transcript.cost_usd = None if cost is None else round(cost * (1 + seed % 5 / 10), 4)
    if sandboxes:
        transcript.save(item_dir / "steps.json")
        (item_dir / "transcript.jsonl").write_text('{"type":"system","subtype":"init"}\n')
    return ItemRecord(
        id=item_id, task=task, category=category, ground_truth=truth,
        status=outcome if failed else "ok", prediction=prediction, correct=correct,
        answer_text=transcript.final_text, error=transcript.error, elapsed_s=30.0 + seed % 7 * 11,
        usage=transcript.usage, cost_usd=transcript.cost_usd, num_turns=transcript.num_turns,
        tool_calls=transcript.tool_calls,
        transcript=(item_dir / "transcript.jsonl").relative_to(store.root).as_posix() if sandboxes else None,
        repeat=repeat,
    )


def _wrong(truth: str) -> str:
    return "7" if truth.isdigit() and truth != "7" else ("Z" if truth != "Z" else "Y")


def make_cot_results(root: Path, name: str, items=None, outcomes: dict | None = None,
                     p_correct: float = 0.4, seed: int = 1) -> Path:
    """The benchmark's own no-tool evaluation output: `<task>/items.jsonl`, no run.json."""
    run_dir = root / name
    rng = random.Random(seed)
    for item_id, task, category, truth in (items if items is not None else ITEMS):
        correct = (outcomes or {}).get(item_id, rng.random() < p_correct)
        path = run_dir / task / "items.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        row = {"id": item_id, "task": task, "category": category, "correct": correct,
               "prediction": truth if correct else _wrong(truth), "answer": truth}
        with path.open("a") as handle:
            handle.write(json.dumps(row) + "\n")
    return run_dir

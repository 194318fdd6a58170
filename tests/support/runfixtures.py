"""Build realistic run directories for the show/report/compare tests.

A run made here looks like what the runner writes: `run.json`, `<task>/items.jsonl` through
`RunStore.append`, and per item `sandboxes/<id>/` with the raw `transcript.jsonl`, the
normalised `steps.json`, the original (`work/image.png` in tool modes, `home/attachment.png`
in mode none), the lossless views in `work/views/NNN-<tool>.png`, and `seen/NNN.png`: the
copies of every image that reached the model, which the steps point at. `make_cot_results` writes what the benchmark's
own no-tool
chain-of-thought evaluation leaves: bare `<task>/items.jsonl` rows, no run.json.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from PIL import Image, ImageDraw

from agent_eval.datamodel.itemdir import ItemDir
from agent_eval.datamodel.manifest import RunManifest
from agent_eval.datamodel.records import ItemRecord, Usage
from agent_eval.datamodel.results import RunStore
from agent_eval.datamodel.transcript import Step, Transcript

QUESTION = (
    "The piece highlighted by a green ring is the starting point. Follow the chain and report "
    "the letter of the terminus marker. Provide your final answer enclosed in <answer>...</answer> tags."
)
TOOL_NAMES = {
    ("claude-code", "image"): "mcp__image_tools__inspect",
    ("claude-code", "python"): "Bash",
    ("codex", "image"): "mcp__image_tools.inspect",
    ("codex", "python"): "exec_command",
}


# A hand-picked slice of the real bank's ids, tasks and categories, with answer formats as released.
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


def bank_items(n: int | None = None) -> list[tuple[str, str, str, str]]:
    """(id, task, category, answer) of the real bank, from the answers kept in the project."""
    path = Path(__file__).resolve().parents[1] / "data" / "activevision_answers.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    items = [(r["id"], r["task"], r["category"], str(r["answer"])) for r in rows]
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
        return [
            Step("reasoning", "The start ring is left of centre; the arrows point right."),
            Step("text", f"Following the chain I reach the marker.\n<answer>{answer}</answer>"),
        ]
    original = item_dir / "work" / "image.png"
    seen = _Seen(item_dir)
    steps = [Step("text", "I'll enlarge the region around the green ring first.", t=1.5)]
    for n, box in enumerate([(160, 180, 320, 300), (280, 120, 440, 240)], start=1):
        view = f"work/views/{n:03d}-inspect.png"
        save_view(original, item_dir / view, box)
        tool = TOOL_NAMES[(agent, "image")]
        args = {"x": box[0], "y": box[1], "width": box[2] - box[0], "height": box[3] - box[1], "size": 512}
        steps += [
            Step("tool_call", tool=tool, call_id=f"call_{n}", input=args, t=2.0 + n),
            Step(
                "tool_result",
                json.dumps({"saved": view[5:], "scale": 3.2}),
                call_id=f"call_{n}",
                images=[seen(item_dir / view)],
                t=2.5 + n,
            ),
        ]
    if tools == "python":
        tool = TOOL_NAMES[(agent, "python")]
        key = "command" if agent == "claude-code" else "cmd"
        script = (
            "python3 -c \"from PIL import Image; im=Image.open('image.png'); print(im.size)\n"
            'for y in range(0, im.height, 8): print(y, im.getpixel((200, y)))"'
        )
        lines = ["(640, 480)"] + [f"{y} (250, 250, 246)" for y in range(0, 480, 8)] if long_output else ["(640, 480)"]
        steps += [
            Step("tool_call", tool=tool, call_id="call_py", input={key: script}, t=6.0),
            Step("tool_result", "\n".join(lines), call_id="call_py", t=6.4),
            Step("tool_call", tool="Read", call_id="call_read", input={"file_path": "image.png"}, t=7.0),
            Step("tool_result", "", call_id="call_read", images=[seen(original)], t=7.1),
        ]
    steps.append(
        Step("text", f"The ray from the ringed piece enters marker {answer}.\n<answer>{answer}</answer>", t=9.0)
    )
    return steps


def make_run(
    root: Path,
    name: str,
    *,
    agent: str = "claude-code",
    model: str = "claude-opus-4-8",
    effort: str | None = "high",
    tools: str = "python",
    sandbox: str = "bwrap",
    scripted: bool = False,
    items=None,
    outcomes: dict | None = None,
    p_correct: float = 0.6,
    seed: int = 0,
    scorer_hash: str = "scorer-aaaa",
    dataset_hash: str = "data-1111",
    cost_per_item: float | None = 0.05,
    repeats: int = 1,
    long_output: bool = True,
    original_size=(640, 480),
    sandboxes: bool = True,
) -> Path:
    """Write a run dir under `root/name`; `outcomes` maps id -> True/False (or a list, one per repeat)
    or a failure status. `sandboxes=False` writes records only (fast, for statistics tests)."""
    run_dir = root / name
    store = RunStore(run_dir)
    items = items if items is not None else ITEMS
    rng = random.Random(seed)
    store.write_manifest(
        RunManifest.from_json(
            {
                "schema_version": 1,
                "run_name": name,
                "config": {
                    "agent": agent,
                    "model": model,
                    "effort": effort,
                    "tools": tools,
                    "sandbox": sandbox,
                    "max_turns": 30,
                    "prompt_hash": f"prompt-{tools}",
                    "scorer_hash": scorer_hash,
                    "dataset_hash": dataset_hash,
                    "cli_version": "2.1.197" if agent == "claude-code" else "0.171.0",
                },
                "dataset": {"path": "/data/activevision", "layout": "metadata.jsonl", "n_items": len(items)},
                "auth": {"kind": "api_key", "endpoint_host": "127.0.0.1" if scripted else "api.anthropic.com"},
                "scripted_model": scripted,
                "project_version": "0.1.0",
                "started_at": "2026-11-30T10:00:00+0000",
                "finished_at": "2026-11-30T10:40:00+0000",
            }
        )
    )
    for index, (item_id, task, category, truth) in enumerate(items):
        for repeat in range(repeats):
            outcome = (outcomes or {}).get(item_id, rng.random() < p_correct)
            if isinstance(outcome, (list, tuple)):
                outcome = outcome[repeat]
            store.append(
                _item(
                    store,
                    item_id,
                    task,
                    category,
                    truth,
                    outcome,
                    agent,
                    tools,
                    repeat,
                    seed + index,
                    cost_per_item,
                    long_output,
                    original_size,
                    sandboxes,
                )
            )
    store.write_summaries()
    return run_dir


def _item(
    store, item_id, task, category, truth, outcome, agent, tools, repeat, seed, cost, long_output, size, sandboxes
):
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
        transcript.error = {"timeout": "timed out after 600 s", "agent_error": "API Error: 529 overloaded"}.get(
            outcome, outcome
        )
    else:
        transcript.steps = (
            _steps(agent, tools, item_dir, prediction, long_output)
            if sandboxes
            else [Step("text", f"<answer>{prediction}</answer>")]
        )
        transcript.final_text = transcript.steps[-1].text
    transcript.usage = Usage(
        input_tokens=12000 + seed, cached_input_tokens=8000, output_tokens=900, reasoning_tokens=300
    )
    transcript.num_turns = len([s for s in transcript.steps if s.kind == "tool_call"]) + 1
    transcript.cost_usd = None if cost is None else round(cost * (1 + seed % 5 / 10), 4)
    if sandboxes:
        transcript.save(item_dir / "steps.json")
        (item_dir / "transcript.jsonl").write_text('{"type":"system","subtype":"init"}\n')
    return ItemRecord(
        id=item_id,
        task=task,
        category=category,
        ground_truth=truth,
        status=outcome if failed else "ok",
        prediction=prediction,
        correct=correct,
        answer_text=transcript.final_text,
        error=transcript.error,
        elapsed_s=30.0 + seed % 7 * 11,
        usage=transcript.usage,
        cost_usd=transcript.cost_usd,
        num_turns=transcript.num_turns,
        tool_calls=transcript.tool_calls,
        transcript=(item_dir / "transcript.jsonl").relative_to(store.root).as_posix() if sandboxes else None,
        repeat=repeat,
    )


def _wrong(truth: str) -> str:
    return "7" if truth.isdigit() and truth != "7" else ("Z" if truth != "Z" else "Y")


def make_cot_results(
    root: Path, name: str, items=None, outcomes: dict | None = None, p_correct: float = 0.4, seed: int = 1
) -> Path:
    """The benchmark's own no-tool evaluation output: `<task>/items.jsonl`, no run.json."""
    run_dir = root / name
    rng = random.Random(seed)
    for item_id, task, category, truth in items if items is not None else ITEMS:
        correct = (outcomes or {}).get(item_id, rng.random() < p_correct)
        path = run_dir / task / "items.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        row = {
            "id": item_id,
            "task": task,
            "category": category,
            "correct": correct,
            "prediction": truth if correct else _wrong(truth),
            "answer": truth,
        }
        with path.open("a") as handle:
            handle.write(json.dumps(row) + "\n")
    return run_dir


# -- active observation ------------------------------------------------------------------------
# What the runner leaves for an active-observation item: `observations/observations.jsonl` and
# `observations/NNN-fFFFF-aAAA.A.png` (the observe log), `seen/NNN.png` (what reached the model),
# `steps.json`; in mode none `home/passive/panorama-NN-fFFFF.png` attached to the prompt. Records
# are graded by the benchmark's own grader, so their metrics are exactly the runner's.
ACTIVE_OUTCOMES = ("right", "hallucinated", "wrong", "no_answer")


def active_evidence(item, shift_deg: float = 0.0) -> dict:
    """A correct evidence pointer derived from the truth (shift the angle to make it wrong)."""
    from agent_eval.benchmarks.activeobs.geometry import (
        pano_box_to_view,
        view_px_to_norm,
        x_to_angle,
    )

    frame = sorted(item.boxes)[len(item.boxes) // 2]
    box = item.boxes[frame]
    angle = x_to_angle((box[0] + box[2]) / 2, item.width)
    bbox = [round(v) for v in view_px_to_norm(pano_box_to_view(box, angle, item.width))]
    return {"frame": frame, "angle": round((angle + shift_deg) % 360, 2), "bbox": bbox}


def _wrong_answer(item):
    if item.answer_mode == "choice":
        return item.answer % len(item.choices) + 1
    if item.answer_mode == "span":
        return [0, 1]
    if item.answer_mode == "frame_angle":
        return [item.answer[0], (item.answer[1] + 180) % 360]
    return item.answer * 5 if item.answer_mode == "numeric" else (item.answer + 60) % item.n_frames


def _active_final(item, outcome: str) -> str:
    if outcome == "no_answer":
        return 'I could not find them. <answer>{"answer": 1, "evidence": </answer>'
    answer = item.answer if outcome in ("right", "hallucinated") else _wrong_answer(item)
    evidence = active_evidence(item, 180 if outcome == "hallucinated" else 0)
    return f"Found the target. <answer>{json.dumps({'answer': answer, 'evidence': evidence})}</answer>"


def make_active_run(
    root: Path,
    name: str,
    data_dir: Path,
    outcomes: dict,
    *,
    tools: str = "observe",
    agent: str = "claude-code",
    model: str = "claude-opus-4-8",
    cost_per_item: float | None = 0.02,
    dataset_path: str | None = None,
    scripted: bool = True,
) -> Path:
    """An active-observation run dir over the dataset at `data_dir`; `outcomes` maps item id -> one of
    ACTIVE_OUTCOMES or a failure status (e.g. "timeout"). In tool modes each item observes the
    evidence view of its target, then asks for an out-of-range frame (a logged error)."""
    from agent_eval.benchmarks.activeobs.benchmark import ActiveObservation
    from agent_eval.benchmarks.activeobs.loader import load_active_dataset
    from agent_eval.benchmarks.activeobs.passive import write_passive_sample
    from agent_eval.benchmarks.activeobs.render import render_view

    dataset = load_active_dataset(data_dir)
    benchmark = ActiveObservation()
    store = RunStore(root / name)
    store.write_manifest(
        RunManifest.from_json(
            {
                "schema_version": 1,
                "run_name": name,
                "config": {
                    "agent": agent,
                    "model": model,
                    "effort": None,
                    "tools": tools,
                    "sandbox": "bwrap",
                    "max_turns": None,
                    "prompt_hash": f"prompt-{tools}",
                    "scorer_hash": benchmark.scorer_hash(),
                    "dataset_hash": dataset.content_hash(),
                    "cli_version": "2.1.332",
                    "benchmark": "activeobs",
                },
                "dataset": {
                    "path": dataset_path if dataset_path is not None else str(data_dir),
                    "layout": "activeobs",
                    "n_items": len(dataset.items),
                },
                "scripted_model": scripted,
                "project_version": "0.1.0",
                "started_at": "2026-11-30T10:00:00+0000",
                "finished_at": "2026-11-30T10:40:00+0000",
            }
        )
    )
    for n, item in enumerate(dataset.items):
        if item.id not in outcomes:
            continue
        outcome, scene = outcomes[item.id], dataset.scene(item.sequence)
        item_dir = store.sandbox_dir(item.id)
        (item_dir / "work").mkdir(parents=True, exist_ok=True)
        transcript = Transcript(
            agent=agent, prompt=f"This question is about a 360° panoramic video.\n\n{item.question}"
        )
        if tools == "none":
            frames = write_passive_sample(scene, item_dir / "home" / "passive")
            transcript.prompt_images = [f.path.relative_to(item_dir).as_posix() for f in frames]
        else:
            look = active_evidence(item)
            view = render_view(scene, look["frame"], look["angle"])
            png = f"001-f{look['frame']:04d}-a{look['angle']:05.1f}.png"
            (item_dir / "observations").mkdir(parents=True)
            view.save(item_dir / "observations" / png)
            (item_dir / "seen").mkdir()
            view.save(item_dir / "seen" / "001.png")
            log = [
                {
                    "n": 1,
                    "at": "2026-11-30T10:00:01.000+00:00",
                    "elapsed_s": 1.5,
                    "ok": True,
                    "request": {"frame_index": look["frame"], "angle_deg": look["angle"]},
                    "sequence": item.sequence,
                    "frame_index": look["frame"],
                    "time_s": round(look["frame"] / item.fps, 3),
                    "angle_deg": look["angle"],
                    "wraps_seam": False,
                    "image": png,
                },
                {
                    "n": 2,
                    "at": "2026-11-30T10:00:02.000+00:00",
                    "elapsed_s": 2.5,
                    "ok": False,
                    "request": {"frame_index": 999, "angle_deg": 10},
                    "error": f"frame_index 999 is out of range: this video has frames 0..{item.n_frames - 1}",
                },
            ]
            (item_dir / "observations" / "observations.jsonl").write_text("".join(json.dumps(e) + "\n" for e in log))
            call = {"frame_index": look["frame"], "angle_deg": look["angle"]}
            transcript.steps = [
                Step("tool_call", tool="mcp__observe__observe", call_id="c1", input=call, t=1.0),
                Step(
                    "tool_result", json.dumps({**call, "observation": 1}), call_id="c1", images=["seen/001.png"], t=1.5
                ),
                Step(
                    "tool_call",
                    tool="mcp__observe__observe",
                    call_id="c2",
                    input={"frame_index": 999, "angle_deg": 10},
                    t=2.0,
                ),
                Step("tool_result", log[1]["error"], call_id="c2", is_error=True, t=2.5),
            ]
        failed = outcome not in ACTIVE_OUTCOMES
        if failed:
            transcript.error = "timed out after 600 s"
        else:
            transcript.steps.append(Step("text", _active_final(item, outcome), t=3.0))
            transcript.final_text = transcript.steps[-1].text
        transcript.num_turns, transcript.cost_usd = len(transcript.steps) // 2 + 1, cost_per_item
        transcript.save(item_dir / "steps.json")
        (item_dir / "transcript.jsonl").write_text('{"type":"system","subtype":"init"}\n')
        grade = None if failed else benchmark.grade(transcript.final_text, item, ItemDir(item_dir))
        store.append(
            ItemRecord(
                id=item.id,
                task=item.task,
                category=item.category,
                ground_truth=item.truth_text(),
                status=outcome if failed else ("no_answer" if grade.malformed else "ok"),
                prediction=grade.prediction if grade else "",
                correct=bool(grade and grade.correct),
                answer_text=transcript.final_text,
                error=transcript.error,
                elapsed_s=20.0 + n,
                cost_usd=cost_per_item,
                num_turns=transcript.num_turns,
                tool_calls=transcript.tool_calls,
                metrics=grade.metrics_json() if grade else {},
                transcript=(item_dir / "transcript.jsonl").relative_to(store.root).as_posix(),
            )
        )
    store.write_summaries(benchmark.extra_rollup)
    return store.root


ACTIVE_PLAN = ("right", "hallucinated", "wrong", "no_answer", "timeout")  # one per item, in dataset order


def make_active_pair(root: Path) -> tuple[Path, Path, Path, dict]:
    """A 5-item active dataset (one item per family), an `observe` run with one item of each outcome in
    ACTIVE_PLAN, and a `none` run wrong everywhere: (data dir, observe run, none run, {outcome: id})."""
    from agent_eval.benchmarks.activeobs.generate import generate_dataset

    dataset = generate_dataset(root / "data", sequences=1, n_frames=120, per_family=1)
    ids = {outcome: item.id for outcome, item in zip(ACTIVE_PLAN, dataset.items)}
    observe = make_active_run(root, "claude-observe", root / "data", {i: o for o, i in ids.items()})
    none = make_active_run(
        root, "claude-none", root / "data", {i: "wrong" for i in ids.values()}, tools="none", cost_per_item=0.005
    )
    return root / "data", observe, none, ids

"""Generate a synthetic active-observation dataset with exact ground truth.

Writes DATA/items.jsonl, DATA/scenes/<sequence>.json (frames are rendered on demand from the scene) and
DATA/validation.json (what each rule of validation.py removed). Same arguments, same bytes; keep DATA outside every
sandbox (docs/kinds/activeobs.md, "Dataset layout").
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path

from agent_eval.benchmarks.activeobs.loader import ITEMS_FILE, SCENES_DIR, ActiveDataset, load_active_dataset
from agent_eval.benchmarks.activeobs.questions import FAMILIES
from agent_eval.benchmarks.activeobs.schema import item_to_row
from agent_eval.benchmarks.activeobs.synth import make_scene
from agent_eval.benchmarks.activeobs.validation import Validator

TRIES_PER_ITEM = 400  # candidates proposed per item before giving up on it (most fail a rule)
REPORT_FILE = "validation.json"


def generate_dataset(
    out: Path | str,
    sequences: int = 3,
    n_frames: int = 300,
    n_people: int = 6,
    per_family: int = 2,
    seed: int = 0,
    families: tuple[str, ...] | None = None,
) -> ActiveDataset:
    out = Path(out)
    (out / SCENES_DIR).mkdir(parents=True, exist_ok=True)
    rows = []
    validator = Validator()
    for number in range(sequences):
        scene = make_scene(f"seq{number:02d}", seed, n_frames=n_frames, n_people=n_people)
        scene.save(out / SCENES_DIR / f"{scene.sequence}.json")
        for family in families or tuple(FAMILIES):
            for index in range(1, per_family + 1):
                for attempt in range(TRIES_PER_ITEM):
                    rng = random.Random(f"{scene.sequence}/{seed}/{family}/{index}/{attempt}")
                    item = FAMILIES[family](scene, rng, index)
                    if item is not None and validator.keep(item, scene):
                        rows.append(item_to_row(item))
                        break
    (out / ITEMS_FILE).write_text("".join(json.dumps(row) + "\n" for row in rows))
    (out / REPORT_FILE).write_text(json.dumps(validator.report(), indent=1) + "\n")
    return load_active_dataset(out, check_boxes=True)


def validation_summary(root: Path | str) -> str:
    """One line from DATA/validation.json: candidates, kept, and removals per rule."""
    report = json.loads((Path(root) / REPORT_FILE).read_text())
    total = report["total"]
    removed = ", ".join(f"{rule} {total[rule]}" for rule in report["rules"])
    return f"validation: {total['candidates']} candidates, {total['kept']} kept; removed by rule: {removed}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="dataset directory to write")
    parser.add_argument("--sequences", type=int, default=3)
    parser.add_argument("--frames", type=int, default=300, help="frames per sequence (15 FPS)")
    parser.add_argument("--people", type=int, default=6)
    parser.add_argument("--per-family", type=int, default=2, help="items per question family and sequence")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    dataset = generate_dataset(args.out, args.sequences, args.frames, args.people, args.per_family, args.seed)
    counts = Counter(item.family for item in dataset.items)
    print(f"{len(dataset.items)} items in {args.out} ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})")
    print(validation_summary(args.out))


if __name__ == "__main__":
    main()

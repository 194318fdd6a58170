"""Loading an active-observation dataset dir (items.jsonl, scenes/; docs/kinds/activeobs.md), checked: every
problem raises DataError naming the file (and line) and what to do, so the CLI prints one line and exits 2."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from agent_eval.benchmarks.activeobs.scene import Scene, SceneError, load_scene
from agent_eval.benchmarks.activeobs.schema import ActiveItem, SchemaError, item_from_row
from agent_eval.benchmarks.base import GroupedItems
from agent_eval.datamodel.jsonl import DataError, jsonl_rows

ITEMS_FILE = "items.jsonl"
SCENES_DIR = "scenes"
LAYOUT = "activeobs"


@dataclass
class ActiveDataset(GroupedItems):
    root: Path
    items: list[ActiveItem] = field(default_factory=list)
    layout: str = LAYOUT

    def scene_path(self, sequence: str) -> Path:
        return self.root / SCENES_DIR / f"{sequence}.json"

    def scene(self, sequence: str) -> Scene:
        return load_scene(self.scene_path(sequence))

    def content_hash(self) -> str:
        """Hash of items.jsonl and every scene used: equal hashes, same questions and pixels."""
        digest = hashlib.sha256((self.root / ITEMS_FILE).read_bytes())
        for sequence in sorted({item.sequence for item in self.items}):
            digest.update(self.scene_path(sequence).read_bytes())
        return digest.hexdigest()[:16]


def is_active_dataset(root: Path | str) -> bool:
    root = Path(root)
    return (root / ITEMS_FILE).is_file() and (root / SCENES_DIR).is_dir()


def load_active_dataset(root: Path | str, check_boxes: bool = False) -> ActiveDataset:
    """Read and check items and scenes. check_boxes=True also recomputes every evidence box from
    the scene (slower; for datasets from elsewhere, or after editing a scene by hand)."""
    root = Path(root)
    items_path = root / ITEMS_FILE
    if not items_path.is_file():
        raise DataError(
            f"{items_path}: not found; generate a dataset with "
            f"`python -m agent_eval.benchmarks.activeobs.generate --out {root}` or pass the right --data DIR"
        )
    dataset = ActiveDataset(root=root)
    seen: dict[str, str] = {}
    scenes: dict[str, Scene] = {}
    for where, row in jsonl_rows(items_path):
        try:
            item = item_from_row(row)
        except SchemaError as error:
            raise DataError(f"{where}: {error}; fix the item (schema: docs/kinds/activeobs.md)") from None
        if item.id in seen:
            raise DataError(f"{where}: duplicate id {item.id!r} (first at {seen[item.id]})")
        seen[item.id] = where
        if item.sequence not in scenes:
            scenes[item.sequence] = _scene(dataset, item.sequence, where)
        _check_against_scene(item, scenes[item.sequence], where, check_boxes)
        dataset.items.append(item)
    if not dataset.items:
        raise DataError(f"{items_path}: holds no items")
    return dataset


def _scene(dataset: ActiveDataset, sequence: str, where: str) -> Scene:
    path = dataset.scene_path(sequence)
    if not path.is_file():
        raise DataError(
            f"{where}: scene file {path} for sequence {sequence!r} is missing; "
            f"regenerate the dataset or fix the item's sequence"
        )
    try:
        scene = load_scene(path)
    except SceneError as error:
        raise DataError(f"{path}: {error}; regenerate the scene or fix it by hand") from None
    if scene.sequence != sequence:
        raise DataError(f"{path}: describes sequence {scene.sequence!r}, not {sequence!r}; rename the file")
    return scene


def _check_against_scene(item: ActiveItem, scene: Scene, where: str, check_boxes: bool) -> None:
    if abs(item.fps - scene.fps) > 1e-9 or item.n_frames != scene.n_frames:
        raise DataError(
            f"{where}: fps/n_frames {item.fps}/{item.n_frames} differ from the scene's "
            f"{scene.fps}/{scene.n_frames}; fix the item"
        )
    if (item.width, item.height) != (scene.width, scene.height):
        raise DataError(
            f"{where}: panorama size {item.width}x{item.height} differs from the scene's {scene.width}x{scene.height}"
        )
    try:
        person = scene.person(item.track)
    except SceneError:
        raise DataError(
            f"{where}: evidence track {item.track!r} is not a person of scene {scene.sequence}; fix the item"
        ) from None
    if check_boxes:
        from agent_eval.benchmarks.activeobs.geometry import at_least, circular_iou
        from agent_eval.benchmarks.activeobs.render import person_box  # numpy: only when boxes are checked

        for frame, box in item.boxes.items():
            iou = circular_iou(box, person_box(scene, person, frame), scene.width)
            if not at_least(iou, 0.95):
                raise DataError(
                    f"{where}: evidence box at frame {frame} does not match person {person.id} in "
                    f"the scene (IoU {iou:.2f}); regenerate the dataset"
                )

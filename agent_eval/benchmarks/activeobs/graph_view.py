"""The agent's world model as `show` and `report` read it: the graph as tables, and each entity's box drawn on the
view (or the panorama frame, mode none) of the observation it cites."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from PIL import Image
from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from agent_eval.benchmarks.activeobs.evidence import draw_box, load_observations, open_rgb
from agent_eval.benchmarks.activeobs.seen import PASSIVE_FILE
from agent_eval.benchmarks.activeobs.worldmodel import FOLDER, GRAPH_FILE, HISTORY_FILE, StoredGraph, load_graph

ENTITY_COLOUR = (40, 140, 255)  # the graph's boxes: blue (the evidence is orange, the truth green)


SHOWN = {  # each table of the graph: the keys shown, in order
    "entities": ("id", "kind", "label", "observation", "frame", "angle", "bbox"),
    "attributes": ("id", "entity", "type", "value", "observation"),
    "relations": ("id", "subject", "predicate", "object", "type", "observation"),
}
HEADERS = {"observation": "obs.", "bbox": "box (0-1000)"}


def _cell(record: dict, key: str) -> str:
    value = record.get(key)
    if key == "angle":
        return "whole" if value is None else f"{value:g}°"
    if key == "bbox":
        return "[" + ", ".join(f"{v:g}" for v in value) + "]" if isinstance(value, list) else "?"
    return f"#{value}" if key == "observation" else str(value)


def graph_tables(graph: StoredGraph) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) for the entities, attributes and relations."""
    tables = []
    for title, keys in SHOWN.items():
        rows = [[_cell(record, key) for key in keys] for record in getattr(graph, title)]
        tables.append((title, [HEADERS.get(key, key) for key in keys], rows))
    return tables


def graph_summary(graph: StoredGraph, base: Path) -> str:
    versions = len(list((base / FOLDER / "versions").glob("*.json")))
    return (
        f"world model: {len(graph.entities)} entities, {len(graph.attributes)} attributes, {len(graph.relations)} "
        f"relations; {sum(bool(h.get('ok')) for h in graph.history)} writes accepted, {graph.refused} refused; "
        f"{versions} versions kept"
    )


KEPT = f"kept in {FOLDER}/{GRAPH_FILE}, every version in {FOLDER}/versions/, every write in {FOLDER}/{HISTORY_FILE}"


def print_graph(console: Console, base: Path) -> None:
    """The item's graph as tables (nothing when the item had no world model), and the refused writes."""
    graph = load_graph(base)
    if graph is None:
        return
    console.print(Rule(graph_summary(graph, base)))
    console.print(Text(KEPT, style="dim"))
    for title, header, rows in graph_tables(graph):
        if not rows:
            console.print(Text(f"{title}: none", style="dim"))
            continue
        table = Table(title=title, title_justify="left", header_style="bold")
        for name in header:
            table.add_column(name, overflow="fold")
        for row in rows:
            table.add_row(*row)
        console.print(table)
    for h in graph.history:
        if not h.get("ok"):
            console.print(Text(f"refused {h.get('tool')} {json.dumps(h.get('args'))}: {h.get('error')}", style="red"))


def _observation_images(base: Path) -> dict[int, Path]:
    """Observation number -> its image in the item's folder: the logged views, or the panorama frames shown."""
    observations, _ = load_observations(base)
    out = {o.n: base / o.image for o in observations or [] if o.image}
    passive = base / "observations" / PASSIVE_FILE
    if passive.is_file():
        with contextlib.suppress(ValueError, KeyError, TypeError):
            for row in json.loads(passive.read_text(encoding="utf-8")):
                found = sorted((base / "home" / "passive").glob(f"panorama-{int(row['n']):02d}-f*.png"))
                if found:
                    out[int(row["n"])] = found[0]
    return out


def graph_figures(base: Path, scene=None) -> list[tuple[Image.Image, str]]:
    """Each observation the graph's entities cite, with their boxes drawn (blue, labelled with the entity id): its
    image as kept in the item's folder, else rendered again from the scene when the dataset is at hand."""
    graph = load_graph(base)
    if graph is None:
        return []
    images = _observation_images(base)
    cited: dict[int | None, list[dict]] = {}
    for entity in graph.entities:
        cited.setdefault(entity.get("observation"), []).append(entity)
    figures = []
    for number, entities in sorted(cited.items(), key=lambda pair: str(pair[0])):
        image = open_rgb(images.get(number) if number is not None else None) or _render(scene, entities[0])
        if image is None:
            continue
        for entity in entities:
            try:
                x1, y1, x2, y2 = (float(v) for v in entity["bbox"])
            except (KeyError, TypeError, ValueError):
                continue
            label = f"{entity.get('id')} {entity.get('label', '')}"[:40]
            draw_box(image, (x1, y1, x2, y2), ENTITY_COLOUR, label, (255, 255, 255))
        names = ", ".join(str(e.get("id")) for e in entities)
        frame, angle = entities[0].get("frame"), entities[0].get("angle")
        where = "the whole panorama" if angle is None else f"{angle:g}°"
        figures.append((image, f"world model: observation #{number} (frame {frame}, {where}) with {names} (blue)"))
    return figures


def _render(scene, entity: dict) -> Image.Image | None:
    from agent_eval.benchmarks.activeobs.render import render_panorama, render_view

    frame, angle = entity.get("frame"), entity.get("angle")
    if scene is None or not isinstance(frame, int) or not 0 <= frame < scene.n_frames:
        return None
    return render_panorama(scene, frame) if angle is None else render_view(scene, frame, float(angle))

"""A checkout of AI GameStore's games, read without running any: `games/<name>/index.html` (lance-ying/aigamestore's
`model evaluation/`, or lance-ying/aigamestore_harness), each game one item. A game's description and controls are
the page's `#gameDescription` and `#gameControls` (what the official harness reads), else, as six of the ten public
pages lack them, the checkout's `games-manifest.json` entry under the game's original name. Its human median comes
from human_medians.json (shipped here, with its source and date), or a `human-medians.json` beside `games/`."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

from agent_eval.benchmarks.games.folder import GameDataset, files_hash
from agent_eval.datamodel.jsonl import DataError

TASK = "aigamestore"
LAYOUT = "aigamestore"
PUBLISHED_MEDIANS = Path(__file__).with_name("human_medians.json")
LOCAL_MEDIANS = "human-medians.json"
MANIFEST = "games-manifest.json"
MANIFEST_PLACES = (MANIFEST, f"human experiment/frontend/public/{MANIFEST}")
SITE_PLACES = (".", "model evaluation")  # where `games/` sits under --data
MANIFEST_HINT = (
    f"lance-ying/aigamestore's 'human experiment/frontend/public/{MANIFEST}' has them: clone "
    f"https://github.com/lance-ying/aigamestore and give --data that checkout, or put its {MANIFEST} beside games/"
)


@dataclass(frozen=True)
class GameItem:
    id: str  # the game's folder name, e.g. "game1"
    site: Path  # the folder served to the page (it holds games/)
    page: str  # the page, relative to site: games/game1/index.html
    description: str
    controls: str
    described_by: str  # where the description came from: "page", "manifest" or "none" (played without one)
    controls_by: str  # where the controls came from: "page", "manifest" or "none"
    original_name: str | None
    human_median: float | None  # None: no median known (no normalised score)
    median_source: str | None
    files_sha256: str
    category: ClassVar[str] = TASK
    answer: ClassVar[str] = "score"

    @property
    def task(self) -> str:  # `--tasks game1,game3` picks games
        return self.id

    def describe(self) -> dict:
        recorded = ("files_sha256", "original_name", "human_median", "median_source", "described_by", "controls_by")
        return {name: getattr(self, name) for name in recorded}


@dataclass
class GameStoreDataset(GameDataset):
    root: Path  # the site: the folder that holds games/
    items: list[GameItem] = field(default_factory=list)
    layout: str = LAYOUT

    @property
    def tasks(self) -> list[str]:
        return [item.id for item in self.items]

    @property
    def categories(self) -> list[str]:
        return [TASK]

    def content_hash(self) -> str:
        digest = hashlib.sha256()
        for item in sorted(self.items, key=lambda i: i.id):
            digest.update(
                f"{item.id}:{item.files_sha256}:{item.human_median}:{item.description}:{item.controls}\n".encode()
            )
        return digest.hexdigest()[:16]

    def notes(self, items: list) -> list[str]:  # said once by `run`
        missing = [
            f"without {part} ({element} is not on the page and no {MANIFEST} gives it): {', '.join(names)}"
            for part, element, names in (
                ("a description", "#gameDescription", [i.id for i in items if i.described_by == "none"]),
                ("controls", "#gameControls", [i.id for i in items if i.controls_by == "none"]),
            )
            if names
        ]
        return [f"games played {'; '.join(missing)}. {MANIFEST_HINT}"] if missing else []


def site_of(root: Path) -> Path | None:
    for place in SITE_PLACES:
        candidate = Path(root) / place
        if any(candidate.glob("games/*/index.html")):
            return candidate.resolve()
    return None


def is_gamestore_dataset(root: Path | str) -> bool:
    """Some game's page or scripts (beside its page) define getGameState."""
    site = site_of(Path(root))
    pages = site.glob("games/*/index.html") if site is not None else ()
    files = (p for page in pages for p in page.parent.glob("*.*") if p.suffix in (".html", ".js"))
    return any("getGameState" in p.read_text(errors="replace") for p in files)


def _natural(name: str) -> tuple:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


class _Described(HTMLParser):
    """The text of #gameDescription and #gameControls, and <meta name="game_name">."""

    WANTED = ("gameDescription", "gameControls")

    def __init__(self):
        super().__init__()
        self.text = {key: "" for key in self.WANTED}
        self.game_name: str | None = None
        self._open: list[str | None] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "meta" and attributes.get("name") == "game_name":
            self.game_name = (attributes.get("content") or "").strip() or None
            return
        if tag in ("br", "img", "input", "meta", "link", "hr"):
            return
        element = attributes.get("id")
        self._open.append(element if element in self.WANTED else None)

    def handle_endtag(self, tag):
        if self._open and tag not in ("br", "img", "input", "meta", "link", "hr"):
            self._open.pop()

    def handle_data(self, data):
        inside = next((e for e in reversed(self._open) if e is not None), None)
        if inside is not None:
            self.text[inside] += data


def _tidy(text: str) -> str:
    return "\n".join(" ".join(line.split()) for line in text.strip().splitlines() if line.strip())


def _from(on_page: str, in_manifest: str) -> tuple[str, str]:
    """(the text, where it came from): the page's own, else the manifest's, else none."""
    if on_page:
        return on_page, "page"
    return (in_manifest, "manifest") if in_manifest else ("", "none")


def _read_json(path: Path, what: str):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DataError(f"{path}: not readable JSON ({error}); {what}") from None


def medians_table(path: Path) -> tuple[dict[str, dict], str]:
    """(game -> {original_name, human_median}, the source in words) from a medians file."""
    data = _read_json(path, "it holds the human median of each game (see agent_eval/benchmarks/aigamestore/)")
    games = data.get("games") if isinstance(data, dict) else None
    if not isinstance(games, dict):
        raise DataError(f"{path}: a medians file is {{'source': ..., 'games': {{'game1': {{'human_median': N}}}}}}")
    for name, entry in games.items():
        median = entry.get("human_median") if isinstance(entry, dict) else None
        if isinstance(median, bool) or not isinstance(median, (int, float)) or median <= 0:
            raise DataError(f"{path}: {name}'s human_median must be a positive number, got {median!r}")
    source = f"{data.get('source', path.name)} (recorded {data.get('recorded_on', '?')})"
    return games, source


def _manifest(root: Path, site: Path) -> dict[str, dict]:
    """originalName -> its manifest entry, from the first games-manifest.json found."""
    for base in dict.fromkeys((root, site, site.parent)):
        for place in MANIFEST_PLACES:
            path = base / place
            if path.is_file():
                entries = _read_json(path, "it is the games' manifest (descriptions and controls)")
                if not isinstance(entries, list):
                    raise DataError(f"{path}: a games manifest is a JSON list of games")
                return {
                    str(e.get("originalName") or str(e.get("id", "")).rpartition("/")[2]): e
                    for e in entries
                    if isinstance(e, dict)
                }
    return {}


def load_games(root: Path | str) -> GameStoreDataset:
    root = Path(root).resolve()
    site = site_of(root)
    if site is None:
        raise DataError(
            f"{root}: holds no AI GameStore games (games/<name>/index.html, or the same under 'model evaluation/'); "
            "clone lance-ying/aigamestore or lance-ying/aigamestore_harness, or write the project's own test games "
            "with `agent-eval sample-data DIR --kind aigamestore`"
        )
    published, published_source = medians_table(PUBLISHED_MEDIANS)
    local, local_source = medians_table(site / LOCAL_MEDIANS) if (site / LOCAL_MEDIANS).is_file() else ({}, "")
    manifest = _manifest(root, site)
    dataset = GameStoreDataset(root=site)
    for page in sorted(site.glob("games/*/index.html"), key=lambda p: _natural(p.parent.name)):
        name = page.parent.name
        parsed = _Described()
        parsed.feed(page.read_text(encoding="utf-8", errors="replace"))
        entry, source = (local[name], local_source) if name in local else (published.get(name), published_source)
        original = (entry or {}).get("original_name") or parsed.game_name or name
        description, controls = _tidy(parsed.text["gameDescription"]), _tidy(parsed.text["gameControls"])
        listed = manifest.get(original) or manifest.get(name) or {}
        description, described_by = _from(description, _tidy(str(listed.get("description") or "")))
        controls, controls_by = _from(controls, _tidy(str(listed.get("controls") or "")))
        dataset.items.append(
            GameItem(
                id=name,
                site=site,
                page=page.relative_to(site).as_posix(),
                description=description,
                controls=controls,
                described_by=described_by,
                controls_by=controls_by,
                original_name=original,
                human_median=float(entry["human_median"]) if entry else None,
                median_source=source if entry else None,
                files_sha256=files_hash(page.parent),
            )
        )
    return dataset

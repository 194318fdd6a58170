"""The libraries a game page loads from CDNs, answered from the project's own pinned npm copies.

A page's `<script src="https://cdnjs.cloudflare.com/ajax/libs/p5.js/1.4.0/p5.js">` or
`https://unpkg.com/p5.collide2d@0.7.3/p5.collide2d.js` is mapped to a package name, a version and a path; the
request is answered from `node_modules/<package>/` when that package is pinned (package.json's
`pageLibraries`, installed by `make setup`'s `npm ci`) at exactly that version, else refused. Standard library
only: the page host imports this inside its jail as a plain module."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

PROJECT_ROOT = Path(__file__).resolve().parents[2]
PACKAGE_JSON = PROJECT_ROOT / "package.json"
NODE_MODULES = PROJECT_ROOT / "node_modules"
PINNED_KEY = "pageLibraries"  # package.json: the npm packages game pages may load (the rest are the CLIs)

# The CDNs' URL forms: npm-style (jsDelivr, unpkg: name@version/path) and cdnjs (ajax/libs/name/version/path).
_NPM_STYLE = {"cdn.jsdelivr.net": "/npm/", "unpkg.com": "/", "fastly.jsdelivr.net": "/npm/"}
_CDNJS = "cdnjs.cloudflare.com"
_NPM_SPEC = re.compile(r"^(?P<name>(?:@[^/@]+/)?[^/@]+)@(?P<version>[^/]+)(?:/(?P<path>.*))?$")


@dataclass(frozen=True)
class LibraryRequest:
    """What a CDN URL asks for: an npm package (cdnjs names mapped to npm's), a version, a path ('' = main)."""

    names: tuple[str, ...]  # candidate npm names, most likely first (cdnjs "p5.js" -> "p5.js", "p5")
    version: str
    path: str


@dataclass(frozen=True)
class Answer:
    """How a library request is answered: a file, or why not (said in the request log)."""

    file: Path | None
    why: str


def parse_cdn_url(url: str) -> LibraryRequest | None:
    """The package a CDN URL names, or None when the URL is not a known CDN's package URL."""
    parts = urlsplit(url)
    host, path = parts.hostname or "", unquote(parts.path)
    if host in _NPM_STYLE and path.startswith(_NPM_STYLE[host]):
        match = _NPM_SPEC.match(path[len(_NPM_STYLE[host]) :])
        if match is None:
            return None
        return LibraryRequest((match["name"],), match["version"], match["path"] or "")
    if host == _CDNJS and path.startswith("/ajax/libs/"):
        pieces = path[len("/ajax/libs/") :].split("/", 2)
        if len(pieces) < 3:
            return None
        name, version, rest = pieces
        names = (name, name[: -len(".js")]) if name.endswith(".js") else (name,)
        return LibraryRequest(names, version, rest)
    return None


def pinned_libraries(package_json: Path = PACKAGE_JSON, node_modules: Path = NODE_MODULES) -> dict[str, dict]:
    """The pinned page libraries as installed: npm name -> {"version", "dir"}. A listed package missing from
    node_modules is left out (its requests are then refused and logged, naming `make setup`)."""
    wanted = json.loads(Path(package_json).read_text(encoding="utf-8")).get(PINNED_KEY, [])
    found = {}
    for name in wanted:
        manifest = Path(node_modules) / name / "package.json"
        if manifest.is_file():
            version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
            found[name] = {"version": version, "dir": str(manifest.parent.resolve())}
    return found


def answer(request: LibraryRequest, libraries: dict[str, dict]) -> Answer:
    """The pinned file that answers a library request, or why none does."""
    name = next((n for n in request.names if n in libraries), None)
    if name is None:
        return Answer(None, f"{request.names[0]}@{request.version} is not a pinned page library")
    pinned = libraries[name]
    if pinned["version"] != request.version:
        return Answer(None, f"{name}@{request.version} asked, {name}@{pinned['version']} pinned")
    root = Path(pinned["dir"])
    file = _find(root, request.path) if request.path else _main(root)
    if file is None:
        return Answer(None, f"{name}@{request.version} has no file {request.path or '(main)'}")
    return Answer(file, f"{name}@{request.version}")


def _main(root: Path) -> Path | None:
    manifest = json.loads((root / "package.json").read_text(encoding="utf-8"))
    for key in ("unpkg", "jsdelivr", "browser", "main"):
        value = manifest.get(key)
        if isinstance(value, str) and (root / value).is_file():
            return (root / value).resolve()
    return None


def _find(root: Path, path: str) -> Path | None:
    """The package's file at `path`; else (cdnjs lays files out its own way: p5.js/1.4.0/p5.js is npm's
    lib/p5.js) the one file whose path ends with it, the shallowest if several."""
    root = root.resolve()
    exact = (root / path).resolve()
    if exact.is_file() and exact.is_relative_to(root):
        return exact
    if ".." in Path(path).parts:
        return None
    ends = [p for p in root.rglob(Path(path).name) if p.is_file() and p.as_posix().endswith("/" + path)]
    ends = [p for p in ends if "node_modules" not in p.relative_to(root).parts]
    return min(ends, key=lambda p: (len(p.parts), p.as_posix())) if ends else None

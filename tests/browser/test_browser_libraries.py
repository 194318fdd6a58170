"""CDN URLs are answered from the pinned npm copies only at exactly the pinned version: the package and path each
CDN's URL form names, cdnjs's own file layout found in npm's, everything else refused with a reason."""

import json

import pytest

from agent_eval.browser.libraries import LibraryRequest, answer, parse_cdn_url, pinned_libraries


@pytest.mark.parametrize(
    "url, names, version, path",
    [
        ("https://cdnjs.cloudflare.com/ajax/libs/p5.js/1.4.0/p5.js", ("p5.js", "p5"), "1.4.0", "p5.js"),
        ("https://unpkg.com/p5.collide2d@0.7.3/p5.collide2d.js", ("p5.collide2d",), "0.7.3", "p5.collide2d.js"),
        (
            "https://cdn.jsdelivr.net/npm/matter-js@0.19.0/build/matter.min.js",
            ("matter-js",),
            "0.19.0",
            "build/matter.min.js",
        ),
        ("https://unpkg.com/three@0.160.0", ("three",), "0.160.0", ""),
        ("https://cdn.jsdelivr.net/npm/@scope/pkg@1.2.3/x.js", ("@scope/pkg",), "1.2.3", "x.js"),
    ],
)
def test_each_cdn_url_form_names_a_package_version_and_path(url, names, version, path):
    assert parse_cdn_url(url) == LibraryRequest(names, version, path)


@pytest.mark.parametrize(
    "url",
    [
        "https://www.googletagmanager.com/gtag/js?id=G-X",
        "https://unpkg.com/",
        "https://cdnjs.cloudflare.com/ajax/libs/p5.js",
    ],
)
def test_other_urls_are_not_library_requests(url):
    assert parse_cdn_url(url) is None


@pytest.fixture
def installed(tmp_path):
    """A package.json listing two page libraries and a node_modules holding one of them (and a third, unlisted)."""
    (tmp_path / "package.json").write_text(json.dumps({"pageLibraries": ["p5", "seedrandom"]}))
    for name, version, files in (
        ("p5", "1.4.0", ["lib/p5.js", "lib/p5.min.js"]),
        ("three", "0.160.0", ["build/three.module.js"]),
    ):
        root = tmp_path / "node_modules" / name
        for file in files:
            (root / file).parent.mkdir(parents=True, exist_ok=True)
            (root / file).write_text(f"// {name} {file}")
        (root / "package.json").write_text(json.dumps({"name": name, "version": version, "main": files[0]}))
    return pinned_libraries(tmp_path / "package.json", tmp_path / "node_modules")


def test_only_listed_and_installed_packages_are_pinned(installed):
    assert set(installed) == {"p5"} and installed["p5"]["version"] == "1.4.0"


def test_a_pinned_library_is_answered_from_its_npm_copy(installed):
    found = answer(parse_cdn_url("https://cdnjs.cloudflare.com/ajax/libs/p5.js/1.4.0/p5.min.js"), installed)
    assert found.file is not None and found.file.as_posix().endswith("node_modules/p5/lib/p5.min.js")
    main = answer(parse_cdn_url("https://unpkg.com/p5@1.4.0"), installed)
    assert main.file is not None and main.file.name == "p5.js"


@pytest.mark.parametrize(
    "url, why",
    [
        ("https://unpkg.com/p5@1.5.0/lib/p5.js", "p5@1.5.0 asked, p5@1.4.0 pinned"),
        ("https://unpkg.com/three@0.160.0/build/three.module.js", "three@0.160.0 is not a pinned page library"),
        ("https://unpkg.com/p5@1.4.0/lib/p5.sound.js", "p5@1.4.0 has no file lib/p5.sound.js"),
        ("https://unpkg.com/p5@1.4.0/../../package.json", "p5@1.4.0 has no file ../../package.json"),
    ],
)
def test_anything_else_is_refused_with_its_reason(installed, url, why):
    found = answer(parse_cdn_url(url), installed)
    assert found.file is None and found.why == why


def test_the_projects_pins_are_installed():
    """`make setup` installs every page library package.json lists, at the version it pins."""
    root = pinned_libraries()
    wanted = json.loads((__import__("pathlib").Path(__file__).parents[2] / "package.json").read_text())
    assert {name: lib["version"] for name, lib in root.items()} == {
        n: wanted["dependencies"][n] for n in wanted["pageLibraries"]
    }

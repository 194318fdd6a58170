"""The browser host with headless Chromium (installed by make setup: missing is a failure): the page's clock moves
only in the harness's advances, the same steps give the same frames in fresh browsers and another seed other
ones, every request is answered from the folder or the pins or refused at once and logged, a tap is held one
frame, a WebGL canvas is captured, and the host lives in a network namespace of its own."""

import os
import shutil
import time
from pathlib import Path

import pytest

from agent_eval.benchmarks.aigamestore.benchmark import SAMPLES
from agent_eval.browser import steps as S
from agent_eval.browser.host import BrowserError, PageHost, chromium_missing

PROBE = """<!DOCTYPE html><html><head><script src="https://cdnjs.cloudflare.com/ajax/libs/seedrandom/3.0.5/seedrandom.min.js"></script></head>
<body><canvas id="c" width="40" height="30"></canvas><script>
window.log = [];
window.frames = 0;
window.downFrames = 0;
window.held = false;
addEventListener("keydown", () => { window.held = true; });
addEventListener("keyup", () => { window.held = false; });
setTimeout(() => log.push(["timeout50", performance.now()]), 50);
setTimeout(() => log.push(["timeout10", performance.now()]), 10);
const every = setInterval(() => { log.push(["interval100", performance.now()]); }, 100);
setTimeout(() => clearInterval(every), 250);
function tick(t) {
  frames += 1;
  if (held) downFrames += 1;
  const g = document.getElementById("c").getContext("2d");
  g.fillStyle = `rgb(${Math.floor(Math.random() * 255)}, ${frames % 255}, 0)`;
  g.fillRect(0, 0, 40, 30);
  requestAnimationFrame(tick);
}
requestAnimationFrame(tick);
window.reach = async () => {
  const out = {};
  try { await fetch("https://api.example.com/x"); out.fetch = "answered"; } catch (e) { out.fetch = "refused"; }
  try { const r = await fetch("../../outside.txt"); out.outside = r.status; } catch (e) { out.outside = "error"; }
  try { const r = await fetch("/%2e%2e/%2e%2e/etc/passwd"); out.passwd = r.status; } catch (e) { out.passwd = "error"; }
  return out;
};
</script></body></html>"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    assert chromium_missing() is None, chromium_missing()
    root = tmp_path_factory.mktemp("site")
    (root / "probe").mkdir()
    (root / "probe" / "index.html").write_text(PROBE)
    (root.parent / "outside.txt").write_text("CANARY-OUTSIDE")
    shutil.copytree(SAMPLES / "games", root / "games")
    return root


def host(site, tmp_path, seed=0, name="h"):
    return PageHost(site, seed=seed, scratch=tmp_path / name, request_log=tmp_path / f"{name}.jsonl")


READ = "[performance.now(), Date.now(), frames, log, downFrames]"


def test_the_clock_moves_only_in_advances(site, tmp_path):
    with host(site, tmp_path) as page:
        page.open("probe/index.html")
        now, date, frames, log, _ = page.run([S.evaluate(READ)]).results[0]
        assert (now, frames, log) == (0, 0, []) and date == 1767225600000  # 2026-01-01T00:00:00Z
        time.sleep(0.5)  # real time passes, the game's does not
        assert page.run([S.evaluate(READ)]).results[0][:3] == [0, date, 0]
        batch = page.run([S.advance(300), S.evaluate(READ)])
        now, date2, frames, log, _ = batch.results[-1]
        assert (now, frames, date2 - date) == (300, 18, 300) and batch.clock_ms == 300
        # timers at their times, in order; the interval twice, then cleared at 250
        assert log == [["timeout10", 10], ["timeout50", 50], ["interval100", 100], ["interval100", 200]]


def test_a_tap_is_held_exactly_one_frame(site, tmp_path):
    with host(site, tmp_path) as page:
        page.open("probe/index.html")
        batch = page.run(
            [*S.keys_for(200, taps=("ArrowLeft",)), *S.keys_for(200, holds=("ArrowRight",)), S.evaluate(READ)]
        )
        assert batch.results[-1][4] == 1 + 12  # the tap one frame, the hold all twelve


def test_same_steps_same_frames_and_another_seed_other_frames(site, tmp_path):
    steps = [S.advance(100, canvas="#c"), *S.keys_for(200, taps=("Space",), canvas="#c"), S.advance(500, canvas="#c")]
    runs = []
    for seed, name in ((0, "a"), (0, "b"), (7, "c")):
        with host(site, tmp_path, seed, name) as page:
            page.open("probe/index.html")
            runs.append([c.hash for c in page.run(steps).captures])
    assert runs[0] == runs[1] and len(set(runs[0])) == 3
    assert runs[2] != runs[0]


def test_every_request_is_answered_or_refused_at_once_and_logged(site, tmp_path):
    with host(site, tmp_path) as page:
        opened = page.open("probe/index.html")
        started = time.monotonic()
        reached = page.run([S.evaluate("reach()")]).results[0]
        assert time.monotonic() - started < 30  # refused, not left to time out
    assert reached == {"fetch": "refused", "outside": 404, "passwd": 404}
    log = [__import__("json").loads(line) for line in (tmp_path / "h.jsonl").read_text().splitlines()]
    outcomes = {(entry["url"].split("?")[0], entry["outcome"]) for entry in log}
    assert ("https://cdnjs.cloudflare.com/ajax/libs/seedrandom/3.0.5/seedrandom.min.js", "library") in outcomes
    assert ("https://api.example.com/x", "refused") in outcomes
    assert any(outcome == "missing" and url.endswith("outside.txt") for url, outcome in outcomes)
    assert opened["requests"][0]["outcome"] == "site"


def test_the_sample_games_requests(site, tmp_path):
    with host(site, tmp_path) as page:
        page.open("games/game2/index.html")
        page.run([S.advance(100)])
    log = (tmp_path / "h.jsonl").read_text()
    for url in (
        "https://www.googletagmanager.com/gtag/js",
        "https://leaderboard.example.com/api/scores",
        "wss://live.example.com/feed",
    ):
        assert f'"url": "{url}' in log and "refused" in log
    assert log.count('"outcome": "library"') == 4 and '"outcome": "missing"' in log  # dev_mode.js


def test_a_webgl_canvas_is_captured_with_its_drawing(site, tmp_path):
    from io import BytesIO

    from PIL import Image

    with host(site, tmp_path) as page:
        page.open("games/game3/index.html")
        capture = page.run([S.advance(200, canvas="canvas")]).captures[0]
    image = Image.open(BytesIO(capture.png)).convert("RGB")
    assert (capture.width, capture.height) == (200, 150) and len(
        image.getcolors(1 << 16) or []
    ) > 1  # not a blank buffer


def test_a_failing_step_is_one_line_and_the_host_goes_on(site, tmp_path):
    with host(site, tmp_path) as page:
        page.open("probe/index.html")
        with pytest.raises(BrowserError, match="no canvas matches '#nothing'"):
            page.run([S.advance(10, canvas="#nothing")])
        assert page.run([S.evaluate("1 + 1")]).results == [2]


def test_the_host_has_no_network_of_its_own_and_dies_with_the_harness(site, tmp_path):
    page = host(site, tmp_path)
    try:
        pid = page._proc.pid
        assert os.readlink(f"/proc/{pid}/ns/net") == os.readlink("/proc/self/ns/net")  # bwrap itself, outside
        inner = [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        assert inner and all(os.readlink(f"/proc/{p}/ns/net") != os.readlink("/proc/self/ns/net") for p in inner)
    finally:
        page.close()
    assert page._proc.poll() is not None

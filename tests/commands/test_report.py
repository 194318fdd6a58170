"""`agent-eval report`: the self-contained HTML, checked as text and in headless Chromium."""

import json
import re

import pytest
from click.testing import CliRunner
from PIL import Image, ImageStat

from agent_eval.commands.report import command
from support.browser import chromium
from support.datasets import write_metadata_layout
from support.runfixtures import ITEMS, make_cot_results, make_run

OUTCOMES = {
    "ACF-0": False,
    "ACF-1": "timeout",
    "ACF-2": True,
    "BFC-0": True,
    "BFC-1": False,
    "CZS-0": True,
    "CMC-0": True,
    "FDS-0": True,
}
COT = {i: i in {"ACF-0", "BFC-0"} for i, *_ in ITEMS}


def report(*args):
    result = CliRunner().invoke(command, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    return [
        make_run(root, "claude-python", outcomes=OUTCOMES),
        make_run(
            root,
            "codex-image",
            agent="codex",
            model="gpt-5.5",
            effort="medium",
            tools="image",
            sandbox="none",
            scripted=True,
            outcomes={i: True for i, *_ in ITEMS},
            seed=3,
        ),
        make_cot_results(root, "api-cot", outcomes=COT),
        make_run(root, "claude-none", tools="none", outcomes={i: True for i, *_ in ITEMS}, seed=5),
    ]


@pytest.fixture(scope="module")
def html_path(runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    result = report(*runs, "-o", out)
    assert result.exit_code == 0, result.output
    assert "32 items" in result.output
    return out


def test_report_is_self_contained_and_complete(html_path):
    html = html_path.read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)  # nothing fetched from anywhere
    assert html.count('<details class="item ') == 32
    assert 'id="count-total">32<' in html
    # originals of three runs, two views per graded item of the two tool runs
    items = html[html.index('id="items"') :]
    assert items.count("data:image/png;base64,") == 3 * 8 + 2 * 7 + 2 * 8
    # changed items vs A: B and D only right on ACF-0, ACF-1 (A timed out), BFC-1; C alone on ACF-0, A alone on four
    changed = html[html.index('id="changed"') : html.index('id="items"')]
    assert changed.count('class="changed-item"') == 3 + 1 + 4 + 3 and "4 items only A got right" in changed
    assert "SANDBOX NONE" in html and "SCRIPTED MODEL" in html and "no run.json" in html
    assert "mcp__image_tools.inspect" in html and "exec_command" not in html  # codex image mode: no shell
    assert "seen/001.png = work/views/001-inspect.png · 512×384 px" in html
    assert "same image as the original above" in html  # the original read back: not embedded twice
    assert "not shown in the steps above" not in html
    assert "timed out after 600 s" in html
    assert "At a glance" in html


def test_text_is_escaped(tmp_path):
    run = make_run(tmp_path, "r", items=ITEMS[:1], outcomes={"ACF-0": True})
    steps = run / "sandboxes" / "ACF-0" / "steps.json"
    data = json.loads(steps.read_text())
    data["steps"][0]["text"] = "<script>alert('x')</script> & <b>bold</b>"
    steps.write_text(json.dumps(data))
    html = tmp_path / "r.html"
    report(run, "-o", html)
    text = html.read_text()
    assert "<script>alert" not in text and "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &lt;b&gt;" in text


def test_scratch_images_never_shown_are_listed_but_home_is_never_read(tmp_path):
    run = make_run(tmp_path, "r", items=ITEMS[:1], outcomes={"ACF-0": True})
    Image.new("RGB", (30, 20), (200, 0, 0)).save(run / "sandboxes" / "ACF-0" / "work" / "crop.png")
    (run / "sandboxes" / "ACF-0" / "home").mkdir()
    Image.new("RGB", (31, 21)).save(run / "sandboxes" / "ACF-0" / "home" / "secret.png")
    out = tmp_path / "r.html"
    report(run, "-o", out)
    html = out.read_text()
    assert "1 image(s) in the workdir not shown in the steps above" in html and "work/crop.png · 30×20 px" in html
    assert "secret.png" not in html


def test_huge_originals_are_downscaled_with_a_note(tmp_path):
    run = make_run(tmp_path, "big", items=ITEMS[:1], outcomes={"ACF-0": True}, original_size=(3000, 2000))
    out = tmp_path / "big.html"
    report(run, "-o", out, "--max-image-px", "1200")
    html = out.read_text()
    assert "shown at 1200×800, downscaled from 3000×2000" in html
    assert "original · 3000×2000 px" in html


def test_dataset_supplies_questions_and_images_for_no_tool_results(tmp_path, bank):
    rows = [r for r in bank if r["id"] in {"ACF-0", "BFC-0"}]
    data = write_metadata_layout(tmp_path / "data", rows)
    cot = make_cot_results(tmp_path, "cot", items=[i for i in ITEMS if i[0] in {"ACF-0", "BFC-0"}])
    out = tmp_path / "cot.html"
    report(cot, "-o", out, "--data", data)
    html = out.read_text()
    assert rows[0]["question"][:60] in html.replace("&#39;", "'").replace("&#34;", '"')
    assert html.count("data:image/png;base64,") == 2
    assert "no transcript saved" in html
    bad = report(cot, "-o", out, "--data", tmp_path / "nowhere")
    assert bad.exit_code == 2


def test_unknown_run_exits_2(tmp_path):
    result = report(tmp_path / "nope", "-o", tmp_path / "x.html")
    assert result.exit_code == 2 and "no such run directory" in result.output


def test_report_in_headless_chromium(html_path, tmp_path):
    """Loads without console errors, shows the right counts, every image decodes, filters work."""
    done = chromium(tmp_path, "--virtual-time-budget=10000", "--dump-dom", url=f"file://{html_path}#selftest")
    match = re.search(r'<pre id="selftest-result">(.*?)</pre>', done.stdout)
    assert match, f"no selftest result; chromium said:\n{done.stderr[-2000:]}"
    status = json.loads(match.group(1).replace("&quot;", '"'))
    assert status["errors"] == []
    assert status["items"] == status["count_total"] == status["count_shown"] == status["all_shown"] == 32
    assert status["images"] == html_path.read_text().count("<img ") and status["images_loaded"] == status["images"]
    assert status["images"] > 3 * 8 + 2 * 7 + 2 * 8  # the items' images, and the changed items' views again
    assert status["external_refs"] == 0
    wrong = sum(1 for v in OUTCOMES.values() if v is not True) + sum(1 for v in COT.values() if not v)
    assert status["wrong_shown"] == wrong and status["errors_shown"] == 1
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line]
    assert not [line for line in console if "Uncaught" in line or "Error" in line], console


def test_report_screenshot_is_not_blank(html_path, tmp_path):
    shot = tmp_path / "report.png"
    chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,2000", url=f"file://{html_path}#expand")
    with Image.open(shot) as img:
        assert img.size == (1280, 2000)
        grey = img.convert("L")
        assert ImageStat.Stat(grey).stddev[0] > 20  # text, tables, bars: not a flat page
        assert len(grey.getcolors(256)) > 50
        top = img.convert("RGB").crop((0, 0, 1280, 400))
        assert len(top.getcolors(1 << 20) or []) > 20  # the summary at the top rendered too


# -- active observation -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def active(tmp_path_factory):
    from support.runfixtures import make_active_pair

    root = tmp_path_factory.mktemp("active")
    data, observe, none, ids = make_active_pair(root)
    out = root / "active.html"
    result = report(none, observe, "-o", out)
    assert result.exit_code == 0, result.output
    return data, observe, none, ids, out


def item_html(html: str, run_letter: str, item_id: str) -> str:
    start = html.index(f'data-run="{run_letter}" data-task="activeobs" data-id="{item_id}"')
    return html[start : html.index("</details>\n", html.index('<div class="outcome', start))]


def test_active_report_shows_views_in_call_order_and_evidence_drawn(active):
    data, observe, none, ids, out = active
    html = out.read_text()
    assert html.count('<details class="item ') == 10
    # per observe item: its logged view once, then 1 figure (evidence right) or 2 (+ where the evidence is);
    # per passive item: its 8 inline frames and the evidence view
    items = html[html.index('id="items"') :]
    assert items.count("data:image/png;base64,") == 5 + (1 + 2 + 1 + 1 + 1) + 5 * (8 + 1)
    # changed vs mode none: B alone right on "right" and "hallucinated", each side showing the view it chose
    changed = html[html.index('id="changed"') : html.index('id="items"')]
    assert changed.count('class="changed-item"') == 2 and changed.count("views chosen, in call order (2):") == 2
    item = item_html(html, "B", ids["hallucinated"])
    first, second = item.index('<li class="obs'), item.index('<li class="obs failed')
    assert first < second and "#1" in item[first:second] and "frame_index 999 is out of range" in item[second:]
    assert "same image as observation #1 above" in item  # the transcript points back to it
    assert "the evidence view: frame" in item and "(rendered from the scene)" in item
    assert "the target (p" in item and "is not in this view" in item  # shifted 180°: the target is elsewhere
    assert "where the evidence is: target p" in item
    assert "combined (answer and evidence): wrong" in item and 'class="item half"' in html
    right = item_html(html, "B", ids["right"])
    assert "named as evidence" in right and "green: the target&#39;s true box" in right
    assert "where the evidence is" not in right
    passive = item_html(html, "A", ids["right"])
    assert "8 whole panorama frames attached to the prompt" in passive and "image 1 · frame " in passive
    assert "views chosen" not in passive


def test_active_report_summaries_per_family(active):
    data, observe, none, ids, out = active
    html = out.read_text()
    card = html[html.index("claude-observe</h2>") :]
    card = card[: card.index("</article>")]
    assert "40.0%</b><span>answer · 2/5" in card and "20.0%</b><span>combined · 1/5" in card
    assert "40.0%</b><span>evidence · 2/5" in card and "50.0%</b><span>hallucination" in card
    for family in ("unique_anchor", "action_boundary", "chain", "frame_viewpoint", "numeric"):
        assert f"<td>{family}</td>" in card
    assert "active observation: answer · evidence · combined · hallucination" in html  # at a glance


def test_active_report_without_the_dataset_keeps_the_logged_views(active, tmp_path):
    from support.runfixtures import make_active_run

    data, observe, none, ids, _ = active
    moved = make_active_run(
        tmp_path,
        "moved",
        data,
        {ids["right"]: "right", ids["hallucinated"]: "hallucinated"},
        dataset_path=str(tmp_path / "gone"),
    )
    out = tmp_path / "moved.html"
    assert report(moved, "-o", out).exit_code == 0
    html = out.read_text()
    assert html.count("views chosen, in call order (2)") == 2 and "dataset not readable" in html
    # evidence naming a logged view is drawn on it; the other cannot be drawn and says why
    assert "(observation #1 as logged)" in html and "never observed and the dataset is not available" in html
    assert "where the evidence is" not in html
    assert html.count("data:image/png;base64,") == 2 + 1
    report(moved, "-o", out, "--data", data)
    assert "where the evidence is" in out.read_text() and "dataset not readable" not in out.read_text()


def test_active_report_in_headless_chromium(active, tmp_path):
    data, observe, none, ids, out = active
    done = chromium(tmp_path, "--virtual-time-budget=10000", "--dump-dom", url=f"file://{out}#selftest")
    match = re.search(r'<pre id="selftest-result">(.*?)</pre>', done.stdout)
    assert match, f"no selftest result; chromium said:\n{done.stderr[-2000:]}"
    status = json.loads(match.group(1).replace("&quot;", '"'))
    assert status["errors"] == [] and status["items"] == status["all_shown"] == 10
    assert status["images"] == 56 + 2 and status["images_loaded"] == status["images"]  # + the changed items' views
    assert status["half_shown"] == 1 and status["errors_shown"] == 1 and status["external_refs"] == 0


def test_active_odd_evidence_and_a_lost_view_are_reported_not_fatal(active, tmp_path):
    from agent_eval.commands.show import command as show_command
    from agent_eval.datamodel.results import RunStore
    from support.runfixtures import make_active_run

    data, observe, none, ids, _ = active
    run = make_active_run(
        tmp_path, "odd", data, {ids["right"]: "right", ids["wrong"]: "wrong"}, dataset_path=str(tmp_path / "gone")
    )
    items = run / "activeobs" / "items.jsonl"
    rows = [json.loads(line) for line in items.read_text().splitlines()]
    rows[0]["metrics"]["evidence"] = {"frame": 10, "angle": float("nan"), "bbox": [1, 2, 3, 4]}  # json writes NaN
    items.write_text("".join(json.dumps(row) + "\n" for row in rows))
    lost = next((RunStore(run).sandbox_dir(rows[1]["id"]) / "observations").glob("*.png"))
    lost.unlink()
    out = tmp_path / "odd.html"
    result = report(run, "-o", out)
    assert result.exit_code == 0, result.output
    html = out.read_text()
    assert "no evidence" in html and "missing or unreadable" in html and "its logged image is unreadable" in html
    for item_id in (rows[0]["id"], rows[1]["id"]):
        shown = CliRunner().invoke(show_command, [str(run), item_id])
        assert shown.exit_code == 0 and "#1 frame " in shown.output, shown.output


def test_runs_that_cannot_be_paired_still_report_and_say_why(tmp_path):
    a = make_run(tmp_path, "a", outcomes={i: False for i, *_ in ITEMS}, sandboxes=False)
    b = make_run(tmp_path, "b", outcomes={i: True for i, *_ in ITEMS}, scorer_hash="scorer-bbbb", sandboxes=False)
    out = tmp_path / "r.html"
    assert report(a, b, "-o", out).exit_code == 0
    html = out.read_text()
    assert "no paired comparison: runs differ in scorer_hash" in html and "B vs A:" not in html
    assert 'id="changed"' not in html

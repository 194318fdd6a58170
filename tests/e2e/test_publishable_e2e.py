"""Numbers you can publish, with the real CLIs against the scripted model: the image sizes the model
really received (checked against the request bodies the server got), formats the APIs refuse sent as
PNG, a refused request stopping the run, and `regrade` / `regrade --reparse` on a real run."""

import base64
import io
import json
import re
from dataclasses import replace

import pytest
from click.testing import CliRunner
from PIL import Image

from agent_eval.cli import main
from agent_eval.datamodel.results import RunStore
from agent_eval.scripted import ScriptedServer
from support.agentrun import AGENTS, run_agent
from support.datasets import write_metadata_layout

pytestmark = pytest.mark.e2e

IMAGE_DATA = re.compile(r'"data": "([A-Za-z0-9+/=]{100,})"|data:image/[a-z]+;base64,([A-Za-z0-9+/=]{100,})')
VIEW_THEN_ANSWER = {
    "rules": [{"turns": [{"call": "view_file", "input": {"path": "image.png"}}, {"final": "<answer>A</answer>"}]}]
}
ANSWER = {"rules": [{"turns": [{"final": "<answer>A</answer>"}]}]}


def sizes_received(server) -> list[tuple[int, int]]:
    """Every image in the main requests' bodies, as the API got it (last request: the whole conversation)."""
    main = [r for r in server.requests if r.kind == "main"]
    body = json.dumps(main[-1].body)
    return [Image.open(io.BytesIO(base64.b64decode(a or b))).size for a, b in IMAGE_DATA.findall(body)]


def one_item(tmp_path, size=(3000, 2200), fmt="PNG", suffix=".png"):
    data = write_metadata_layout(
        tmp_path / "data",
        [{"id": "BIG-0", "task": "big", "category": "c", "question": "Which letter? <answer></answer>", "answer": "A"}],
    )
    (data / "BIG-0.png").unlink()
    Image.new("RGB", size, (10, 200, 30)).save(data / f"BIG-0{suffix}", format=fmt)
    rows = [json.loads(line) for line in (data / "metadata.jsonl").read_text().splitlines()]
    rows[0]["file_name"] = f"BIG-0{suffix}"
    (data / "metadata.jsonl").write_text(json.dumps(rows[0]) + "\n")
    return data


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("mode", ["none", "image"])
def test_record_says_which_pixels_the_model_received(agent, mode, tmp_path):
    data = one_item(tmp_path)
    with ScriptedServer(ANSWER if mode == "none" else VIEW_THEN_ANSWER) as server:
        outcome = run_agent(agent, mode, server, data, tmp_path / "out")
        got = sizes_received(server)
    record = outcome.store.records()[0]
    assert record.status == "ok", record.error
    assert len(got) == 1 and len(record.images) == 1
    image = record.images[0]
    assert image["via"] == ("inline" if mode == "none" else "file_view")
    assert tuple(image["received"]) == got[0]  # what the CLI logged is what the API got
    assert image["at_api"] == image["received"]  # and the run's gateway saw the same bytes
    assert image["source_size"] == [3000, 2200]
    if agent == "claude-code":
        assert image["received"] == [2000, 1467]  # measured: Claude Code shrinks it
    shown = CliRunner().invoke(main, ["show", str(outcome.store.root), "BIG-0"])
    reduced = tuple(image["received"]) != (3000, 2200)
    expected = (
        f"model received {got[0][0]}×{got[0][1]} of 3000×2200 (reduced by the CLI)"
        if reduced
        else f"model received {got[0][0]}×{got[0][1]} (whole)"
    )
    assert expected in " ".join(shown.output.split()), shown.output


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("fmt,suffix", [("BMP", ".bmp"), ("TIFF", ".tif")])
def test_formats_the_apis_refuse_are_sent_as_png(agent, fmt, suffix, tmp_path):
    data = one_item(tmp_path, size=(320, 200), fmt=fmt, suffix=suffix)
    with ScriptedServer(ANSWER) as server:
        outcome = run_agent(agent, "none", server, data, tmp_path / "out")
        got = sizes_received(server)
    record = outcome.store.records()[0]
    assert got == [(320, 200)]  # it reached the model
    assert record.status == "ok" and record.images[0]["received"] == [320, 200]
    assert record.image_conversions and fmt in record.image_conversions[0] and "lossless" in record.image_conversions[0]
    attachment = outcome.store.root / "sandboxes" / "BIG-0" / "home" / "attachment.png"
    original = Image.open(data / f"BIG-0{suffix}").convert("RGB")
    assert Image.open(attachment).convert("RGB").tobytes() == original.tobytes()


@pytest.mark.parametrize("agent,status", [("codex", 404), ("codex", 400), ("claude-code", 400), ("claude-code", 404)])
def test_an_invalid_request_stops_the_run_after_the_first_item(agent, status, sample_data, tmp_path):
    with ScriptedServer(ANSWER, faults={"status": status}) as server:
        outcome = run_agent(agent, "none", server, sample_data, tmp_path, jobs=1)
    records = outcome.store.records()
    assert [r.status for r in records] == ["request_error"]
    assert "refused the request" in outcome.stopped_for_auth and "configuration's fault" in outcome.stopped_for_auth


def test_regrade_rescoring_and_reparse_on_a_real_run(sample_data, sample_truth, tmp_path):
    truth = sample_truth["MPT-0"]["answer"]
    scenario = {"rules": [{"turns": [{"final": f"Let me see.\n**Answer:** {truth}"}]}]}
    with ScriptedServer(scenario) as server:
        outcome = run_agent("codex", "none", server, sample_data, tmp_path, ids="MPT-0")
    store = RunStore(outcome.store.root)
    record = store.records()[0]
    assert record.status == "no_answer" and record.correct and record.prediction == f"** {truth}"
    # Make it look graded by an older scorer (a wrong verdict, another hash) and parsed by an older parser.
    path = store.items_path(record.task)
    old = {**record.to_json(), "correct": False, "prediction": "", "usage": {}, "images": []}
    path.write_text(json.dumps(old) + "\n")
    manifest = store.read_manifest()
    current_hash = manifest.config.scorer_hash
    store.write_manifest(manifest.but(config=replace(manifest.config, scorer_hash="0ld5c0rer0000000")))
    cli = CliRunner()
    refused = cli.invoke(main, ["compare", str(store.root), str(store.root.parent / "other")])
    result = cli.invoke(main, ["regrade", str(store.root)])
    assert result.exit_code == 0, result.output
    assert "1 verdict(s) changed (1 now right, 0 now wrong)" in result.output
    regraded = store.records()[0]
    assert regraded.correct and regraded.prediction == f"** {truth}" and regraded.usage.input_tokens is None
    assert store.read_manifest().config.scorer_hash == current_hash
    assert json.loads((store.root / "rollup.json").read_text())["overall"]["correct"] == 1
    reparsed = cli.invoke(main, ["regrade", "--reparse", str(store.root)])
    assert reparsed.exit_code == 0, reparsed.output
    again = store.records()[0]
    assert again.usage.input_tokens and again.images and again.images[0]["via"] == "inline"
    assert again.images[0]["at_api"] == again.images[0]["received"]  # re-confirmed from the gateway's ledger
    assert refused.exit_code != 0


@pytest.mark.parametrize("agent", AGENTS)
def test_an_image_that_never_reached_the_model_is_an_error_not_a_grade(agent, tmp_path, monkeypatch):
    # Hand the CLI a TIFF as it is (as the harness once did): neither CLI sends it, and the model answers blind.
    monkeypatch.setattr("agent_eval.benchmarks.shared.API_FORMATS", {"PNG", "TIFF"})
    data = one_item(tmp_path, size=(320, 200), fmt="TIFF", suffix=".tif")
    with ScriptedServer(ANSWER) as server:
        outcome = run_agent(agent, "none", server, data, tmp_path / "out")
        got = sizes_received(server)
    record = outcome.store.records()[0]
    assert got == [] and record.images == []
    assert record.status == "image_dropped" and not record.correct and record.prediction == ""
    shown = CliRunner().invoke(main, ["show", str(outcome.store.root), "BIG-0"])
    assert "the model received no image here" in shown.output


def test_compare_warns_and_report_says_when_arms_received_different_pixels(tmp_path):
    data = one_item(tmp_path)
    runs = []
    for agent in AGENTS:
        with ScriptedServer(ANSWER) as server:
            runs.append(run_agent(agent, "none", server, data, tmp_path / "out").store.root)
    cli = CliRunner()
    compared = cli.invoke(main, ["compare", *map(str, runs)])
    assert compared.exit_code == 0, compared.output
    flat = " ".join(compared.output.split())
    assert (
        "received the item's image at different sizes in A and B on 1 item(s), e.g. BIG-0: A 2000×1467, B 3000×2200"
        in flat
    ), compared.output
    html = tmp_path / "report.html"
    assert cli.invoke(main, ["report", *map(str, runs), "-o", str(html)]).exit_code == 0
    page = html.read_text()
    assert "model received 2000×1467 of 3000×2200 (reduced by the CLI)" in page
    assert "model received 3000×2200 (whole)" in page

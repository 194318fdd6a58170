"""Runs of both real CLIs (modes none, image, python, and an active-observation run), exported with
`agent-eval export --format inspect` and read back with Inspect's own reader; then the exported
folder in Inspect's viewer (`inspect view`, loopback only) in headless Chromium."""

import base64
import contextlib
import io
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from inspect_ai.log import list_eval_logs, read_eval_log  # make setup installs inspect-ai: never skipped
from PIL import Image
from rich.console import Console

from agent_eval.agents.registry import scripted_environ
from agent_eval.benchmarks.activeobs.generate import generate_dataset
from agent_eval.commands.export import command as export_command
from agent_eval.commands.options import sweep_options
from agent_eval.datamodel.results import RunStore
from agent_eval.datamodel.transcript import Transcript
from agent_eval.engine.sweeps import load_sweep, run_sweep
from agent_eval.reading.grid import write_grid_comparison
from agent_eval.scripted import ScriptedServer
from support.activeobs import evidence_for
from support.agentrun import AGENTS, MODELS, run_agent

pytestmark = pytest.mark.e2e

ITEMS = ("MPT-0", "RC-0")
FAILING = "CCC-0"  # its stream cut short in the codex python run: Codex gives up, a sample error
CROP = {"views": [{"x": 560, "y": 400, "width": 90, "height": 60}], "size": 270}  # a 270x180 view


def turns(tools: str, answer: str) -> list[dict]:
    looks = {
        "none": [],
        "image": [{"call": "view_file", "input": {"path": "image.png"}}, {"call": "inspect", "input": CROP}],
        "python": [
            {"say": "Measuring.", "call": "shell", "input": {"command": "python3 -c 'print(6 * 7)'"}},
            {"call": "inspect", "input": CROP},
        ],
    }[tools]
    return looks + [{"final": f"Done. <answer>{answer}</answer>"}]


@pytest.fixture(scope="module")
def runs(sample_data, sample_truth, tmp_path_factory):
    """Six activevision runs (2 CLIs x 3 modes; claude-code none twice per item) and one active run."""
    out = tmp_path_factory.mktemp("export-runs")
    made = {}
    for agent in AGENTS:
        for tools in ("none", "image", "python"):
            rules = [
                {
                    "match": re.escape(sample_truth[i]["question"][:60]),
                    "turns": turns(tools, sample_truth[i]["answer"] if i == "MPT-0" else "999"),
                }
                for i in ITEMS
            ]
            ids, faults, extra = ",".join(ITEMS), None, {}
            if (agent, tools) == ("codex", "python"):
                ids += f",{FAILING}"
                faults = {"truncate": True, "match": re.escape(sample_truth[FAILING]["question"][:60])}
                extra["outage_hold_minutes"] = 0.2  # run last, alone, its failures look like an outage: held 12 s
            if (agent, tools) == ("claude-code", "none"):
                extra["repeats"] = 2
            with ScriptedServer({"rules": rules}, faults=faults) as server:
                made[agent, tools] = run_agent(agent, tools, server, sample_data, out, ids=ids, **extra).store.root
    active = out / "active-data"
    dataset = generate_dataset(active, sequences=1, n_frames=120, per_family=1)
    right, hallucinated = sorted(dataset.items, key=lambda i: i.id)[:2]
    rules = [
        {
            "match": re.escape(item.question[:50]),
            "turns": [
                {"call": "observe", "input": {"frame_index": 3, "angle_deg": 350}},
                {
                    "final": f'<answer>{{"answer": {json.dumps(item.answer)}, '
                    f'"evidence": {json.dumps(evidence_for(item, shift))}}}</answer>'
                },
            ],
        }
        for item, shift in ((right, 0), (hallucinated, 180))
    ]
    with ScriptedServer({"rules": rules}) as server:
        made["codex", "observe"] = run_agent(
            "codex", "observe", server, active, out, ids=f"{right.id},{hallucinated.id}"
        ).store.root
    return made


def export(run_dir: Path, target: Path):
    result = CliRunner().invoke(export_command, ["--format", "inspect", str(run_dir), "-o", str(target)])
    assert result.exit_code == 0, result.output
    return read_eval_log(str(target), resolve_attachments=True)


def decoded(content) -> Image.Image:
    assert content.image.startswith("data:image/png;base64,"), content.image[:40]
    return Image.open(io.BytesIO(base64.b64decode(content.image.split(",", 1)[1])))


def images_of(message) -> list:
    return (
        [c for c in message.content if getattr(c, "type", None) == "image"] if isinstance(message.content, list) else []
    )


def same_pixels(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and a.convert("RGB").tobytes() == b.convert("RGB").tobytes()


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("tools", ("none", "image", "python"))
def test_round_trip_matches_the_records(agent, tools, runs, sample_data, sample_truth, tmp_path):
    run_dir = runs[agent, tools]
    log = export(run_dir, tmp_path / "run.eval")
    records = {r.key: r for r in RunStore(run_dir).records()}
    config = json.loads((run_dir / "run.json").read_text())["config"]

    assert (
        log.status == "success"
        and log.eval.model == {"claude-code": "anthropic/", "codex": "openai/"}[agent] + MODELS[agent]
    )
    for key in (
        "agent",
        "cli_version",
        "model",
        "effort",
        "tools",
        "sandbox",
        "prompt_hash",
        "scorer_hash",
        "dataset_hash",
    ):
        assert log.eval.metadata[key] == config[key], key
    assert log.eval.metadata["sandbox"] == "bwrap" and log.eval.metadata["scripted_model"] is True
    assert "scripted-model" in log.eval.tags and "scripted model server" in log.eval.metadata["model_note"]
    assert len(log.samples) == len(records)
    assert {(s.id, s.epoch) for s in log.samples} == {(i, r + 1) for i, r in records}
    correct = sum(r.correct for r in records.values())
    assert log.results.scores[0].name == "correct"
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(correct / len(records))

    for sample in log.samples:
        record = records[sample.id, sample.epoch - 1]
        score = sample.scores["correct"]
        assert score.value == ("C" if record.correct else "I") and score.answer == record.prediction
        assert sample.target == record.ground_truth == str(sample_truth[sample.id]["answer"])
        if sample.id == FAILING:  # failed before any usage was reported: none is made up
            # every stream cut: the provider's failure as the gateway saw it
            assert record.status == "upstream_error" and sample.error is not None and sample.model_usage == {}
            assert sample.error.message == f"upstream_error: {record.error}" and "stream cut x" in record.error
            continue
        assert sample.error is None and record.status == "ok" and record.usage.input_tokens
        assert log.eval.model in sample.model_usage  # side calls, when broken down, under their own models
        usages = sample.model_usage.values()
        assert sum(u.input_tokens for u in usages) == record.usage.input_tokens
        assert sum(u.output_tokens for u in usages) == record.usage.output_tokens
        assert sum(u.input_tokens_cache_read or 0 for u in usages) == (record.usage.cached_input_tokens or 0)
        original = Image.open(sample_data / f"{sample.id}.png")
        user, *conversation = sample.messages
        assert sample.input[0].text == user.text and "<answer>" in user.text
        if tools == "none":  # the image went inline: it is the input's image content, pixel for pixel
            assert len(images_of(user)) == 1 and same_pixels(decoded(images_of(user)[0]), original)
        else:
            assert images_of(user) == []
        transcript = Transcript.load(
            run_dir / "sandboxes" / (sample.id if sample.epoch == 1 else f"{sample.id}.r1") / "steps.json"
        )
        calls = [c for m in conversation if m.role == "assistant" for c in (m.tool_calls or [])]
        assert [(c.function, c.arguments) for c in calls] == [
            (s.tool, s.input) for s in transcript.steps if s.kind == "tool_call"
        ]
        results = [m for m in conversation if m.role == "tool"]
        assert [m.tool_call_id for m in results] == [c.id for c in calls]
        views = [decoded(image) for m in results for image in images_of(m)]
        if tools == "image":  # the whole file through the CLI's viewer, then the tool's enlarged crop
            assert len(views) == 2 and same_pixels(views[0], original) and views[1].size == (270, 180)
        elif tools == "python":
            assert "42" in results[0].text and len(views) == 1 and views[0].size == (270, 180)
        assert conversation[-1].role == "assistant" and conversation[-1].text == record.answer_text
        kinds = [
            e.event for e in sample.events
        ]  # the viewer's Transcript tab: a model event per turn, a tool event per call
        assert kinds == [{"assistant": "model", "tool": "tool"}[m.role] for m in conversation] + ["score"]
        model_events = [e for e in sample.events if e.event == "model"]
        assert [len(e.input) for e in model_events] == [
            i + 1 for i, m in enumerate(conversation) if m.role == "assistant"
        ]
        assert [e.result for e in sample.events if e.event == "tool"] == [m.content for m in results]
        assert sample.output.completion == record.answer_text


def test_active_observation_scores_and_views(runs, tmp_path):
    run_dir = runs["codex", "observe"]
    log = export(run_dir, tmp_path / "active.eval")
    records = {r.id: r for r in RunStore(run_dir).records()}
    assert log.eval.metadata["benchmark"] == "activeobs" and log.eval.metadata["tools"] == "observe"
    # evidence_view_observed: whether the evidence names a view the agent obtained (a boolean metric, exported)
    names = ["correct", "combined", "evidence_correct", "evidence_view_observed"]
    assert [s.name for s in log.results.scores] == names
    outcomes = set()
    for sample in log.samples:
        record = records[sample.id]
        for name, value in (
            ("correct", record.correct),
            ("evidence_correct", record.metrics["evidence_correct"]),
            ("combined", record.metrics["combined"]),
        ):
            assert sample.scores[name].value == ("C" if value else "I"), name
        assert sample.scores["correct"].metadata["evidence"] == record.metrics["evidence"]
        outcomes.add((record.correct, record.metrics["evidence_correct"]))
        tool = next(m for m in sample.messages if m.role == "tool")
        assert tool.function == "mcp__observe__observe" and len(images_of(tool)) == 1
        assert decoded(images_of(tool)[0]).size == (480, 480)  # the observed view as the model got it
    assert outcomes == {(True, True), (True, False)}  # one right, one hallucinated evidence


def test_a_sweep_exports_one_log_per_cell_into_a_folder_inspect_lists(sample_data, tmp_path):
    """A real sweep (codex x {none, python}, one item) through `agent-eval sweep`'s own runner."""
    (tmp_path / "sweep.yaml").write_text(
        f"name: grid\ndata: {sample_data}\nids: MPT-0\nout_dir: {tmp_path / 'out'}\n"
        "unpriced: true\ngrid:\n  - agent: codex\n    models: [gpt-5.5]\n"
        "tools: [none, python]\n"
    )
    sweep = load_sweep(tmp_path / "sweep.yaml", sweep_options())
    console = Console(file=open(os.devnull, "w"))
    scenario = {
        "rules": [
            {
                "match": "You also have a shell",
                "turns": [{"call": "shell", "input": {"command": "echo A-D"}}, "<answer>{last_tool_output}</answer>"],
            },
            {"turns": ["<answer>A-B</answer>"]},
        ]
    }
    with ScriptedServer(scenario) as server:
        cells = run_sweep(sweep, console, environ=scripted_environ("codex", server.url), scripted_model=True)
    write_grid_comparison(cells, sweep.root, console)  # the sweep folder as users have it
    out = tmp_path / "logs"
    result = CliRunner().invoke(export_command, [str(sweep.root), "-o", str(out)])
    assert result.exit_code == 0, result.output
    listed = {Path(info.name.removeprefix("file://")).name: info for info in list_eval_logs(str(out))}
    assert sorted(listed) == sorted(f"{cell.name}.eval" for cell in cells) and len(listed) == 2
    scores = {
        log.eval.metadata["tools"]: log.samples[0].scores["correct"].value
        for log in (read_eval_log(info) for info in listed.values())
    }
    assert scores == {"none": "I", "python": "C"}
    assert f"inspect view --log-dir {out}" in result.output


# -- in a real browser ---------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def listening_addresses(port: int) -> set[str]:
    """Local addresses of the listening TCP sockets on `port` (IPv4 and IPv6), from /proc/net."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:
                found.add(address)
    return found


@pytest.fixture
def exported(runs, tmp_path) -> Path:
    """A folder of two exported runs, for `inspect view`."""
    from support.cdp import Browser  # noqa: F401  (fails here, not mid-test, if the helper is broken)

    folder = tmp_path / "logs"
    for key in (("claude-code", "python"), ("codex", "none")):
        export(runs[key], folder / f"{runs[key].name}.eval")
    return folder


@contextlib.contextmanager
def inspect_view(folder: Path, scratch: Path):
    """`inspect view` on `folder`, bound to 127.0.0.1: (base url, the file it logs to)."""
    scratch.mkdir(parents=True)
    inspect = Path(sys.executable).with_name("inspect")
    # Its own data and cache dirs: Inspect keeps per-user state there (the view's notifications, the sample buffer
    # databases) that other test workers' Inspect calls would share.
    private = {"XDG_DATA_HOME": str(scratch / "xdg-data"), "XDG_CACHE_HOME": str(scratch / "xdg-cache")}
    log, port = scratch / "inspect-view.log", free_port()
    process = subprocess.Popen(
        [str(inspect), "view", "--log-dir", str(folder), "--host", "127.0.0.1", "--port", str(port)],
        env={**os.environ, **private},
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while not listening_addresses(port):
            started = process.poll() is None and time.monotonic() < deadline
            assert started, f"inspect view did not start: {log.read_text()}"
            time.sleep(0.2)
        assert listening_addresses(port) == {"0100007F"}, "inspect view must listen on 127.0.0.1 only"
        yield f"http://127.0.0.1:{port}", log
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def viewer(exported, tmp_path):
    """`inspect view` on the exported runs: (base url, the file it logs to)."""
    with inspect_view(exported, tmp_path / "server") as served:
        yield served


SLOWER = 6  # the page's JavaScript runs this many times slower (CDP CPU throttling), as on a loaded CI machine


class ViewerPages:
    """The viewer's pages in headless Chromium with its JavaScript slowed down. The pages are hash routes of one
    app: each page after the first is the app's own navigation in the same browser, as a user clicks through (its
    bundle is not loaded and started again at the slowed speed each time). A page that does not show in the app
    is opened afresh, in a new browser with a new profile, up to `tries` openings; then it fails with what each
    showed, the requests it was still waiting on and what the server said.

    The slowing down is on purpose: CI machines run this test among three other busy workers, and Inspect's
    viewer (0.3.285) does not render a log's details in the list when they arrive before its preview is
    stored (found by throttling: at 4x a list row's task args, tags, samples and tokens stay "-" in most
    openings, with every request answered 200). So the list is checked on its preview columns only, and
    each log's details on its own page, which loads in every opening at up to 16x."""

    def __init__(self, viewer, scratch: Path, *, tries: int = 3, timeout: float = 60):
        self.base, self.log = viewer
        self.scratch, self.tries, self.timeout = scratch, tries, timeout
        self.browser = None

    def _open(self):
        from support.cdp import Browser

        browser = Browser(Path(tempfile.mkdtemp(prefix="chromium-", dir=self.scratch)))
        browser.call("Emulation.setCPUThrottlingRate", rate=SLOWER)
        return browser

    def show(self, path: str, ready: str):
        """`path` of the viewer until the JS `ready` holds: (the browser, its value)."""
        shown = []
        for attempt in range(self.tries + (self.browser is not None)):
            if self.browser is None:
                self.browser = self._open()
            try:
                self.browser.goto(self.base + path)
                value = self.browser.wait_for(ready, timeout=self.timeout)
            except TimeoutError as e:
                shown.append(f"opening {attempt}: {e}")
                self.close()
                continue
            if shown:
                print(f"{path} shown at opening {attempt}; before it:\n" + "\n".join(shown))
            return self.browser, value
        raise TimeoutError("\n".join(shown) + f"\ninspect view said:\n{self.log.read_text()[-3000:]}")

    def close(self) -> None:
        if self.browser is not None:
            self.browser.close()
            self.browser = None


def test_inspect_view_lists_the_runs_and_renders_a_transcript_with_its_image(viewer, runs, tmp_path):
    python_run, none_run = runs["claude-code", "python"], runs["codex", "none"]
    pages = ViewerPages(viewer, tmp_path)
    try:
        # Both runs listed with their models and scores (the list's preview columns; see ViewerPages on the rest).
        shown = [python_run.name, none_run.name, "anthropic/claude-opus-4-8", "openai/gpt-5.5", "2 rows"]
        listed = f"{json.dumps(shown)}.every(t => document.body.innerText.includes(t)) && document.body.innerText"
        browser, text = pages.show("/", listed)
        rows = text.split(none_run.name, 1)[1], text.split(python_run.name, 1)[1]
        assert all(row.split("\n")[1:8].count("0.5") == 1 for row in rows), text  # each run's score: 1 of 2 right
        browser.screenshot(tmp_path / "inspect-view-logs.png")

        # Each log's page: its samples, their targets, and its task args (the tool mode).
        for run, tools in ((none_run, "none"), (python_run, "python")):
            samples = f"['RC-0', 'tools: {tools},'].every(t => document.body.innerText.includes(t))"
            samples += " && document.body.innerText"
            browser, text = pages.show(f"/#/tasks/{run.name}.eval", samples)
            assert "MPT-0" in text and "A-D" in text  # the truth of MPT-0 as the target column

        # The inspect tool's view, decoded by the browser, in the transcript of a sample.
        decoded = (
            "[...document.images].filter(i => i.src.startsWith('data:image/png') && i.complete"
            " && i.naturalWidth === 270 && i.naturalHeight === 180).length"
        )
        browser.console_errors.clear()  # the sample page's own, not the pages before it
        browser, _ = pages.show(f"/#/tasks/{python_run.name}.eval/samples/sample/MPT-0/1/", decoded)
        text = browser.evaluate("document.body.innerText")
        for expected in ("Sample MPT-0", "Measuring.", "Bash", "mcp__imagetools__inspect", "<answer>A-D</answer>"):
            assert expected in text, expected
        assert browser.console_errors == []
        browser.evaluate("[...document.images].find(i => i.naturalWidth === 270).scrollIntoView({block: 'center'})")
        time.sleep(0.5)
        shot = browser.screenshot(tmp_path / "inspect-view-sample.png")
    finally:
        pages.close()
    with Image.open(shot) as image:
        assert image.size == (1400, 1000) and len(image.convert("RGB").getcolors(1 << 20) or []) > 50
    print(f"screenshots: {tmp_path / 'inspect-view-logs.png'} {shot}")

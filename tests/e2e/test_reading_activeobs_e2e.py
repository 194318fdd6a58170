"""show, report and compare on active-observation runs the real CLIs produced against the scripted
model: Claude Code with `observe`, Codex with `python`, and the passive baseline (`none`)."""

import json
import re

import pytest
from click.testing import CliRunner
from PIL import Image, ImageStat

from agent_eval.benchmarks.activeobs.generate import generate_dataset
from agent_eval.commands.compare import command as compare_command
from agent_eval.commands.report import command as report_command
from agent_eval.commands.show import command as show_command
from agent_eval.scripted import ScriptedServer
from support.agentrun import run_agent
from support.browser import chromium
from support.runfixtures import active_evidence, make_run

pytestmark = pytest.mark.e2e


def invoke(command, *args):
    result = CliRunner().invoke(command, [str(a) for a in args], env={"COLUMNS": "200"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def rules(items: dict, tools: str) -> dict:
    """Every item first looks where its evidence is, then asks for a frame that does not exist; then
    `right` answers with that view as evidence, `hallucinated` right but pointing 180° away, `broken`
    with unreadable JSON."""
    right, hallucinated, broken = (items[k] for k in ("right", "hallucinated", "broken"))
    out = []
    for item, final in (
        (right, {"answer": right.answer, "evidence": active_evidence(right)}),
        (hallucinated, {"answer": hallucinated.answer, "evidence": active_evidence(hallucinated, 180)}),
        (broken, None),
    ):
        look = active_evidence(item)
        turns = [
            {"call": "observe", "input": {"frame_index": look["frame"], "angle_deg": look["angle"]}},
            {"call": "observe", "input": {"frame_index": 500, "angle_deg": 10}},
        ]
        if tools == "python":
            turns.append({"call": "shell", "input": {"command": "ls views"}})
        text = f"<answer>{json.dumps(final)}</answer>" if final else '<answer>{"answer": 1, "evidence": </answer>'
        out.append({"match": re.escape(item.question), "turns": turns + [{"final": f"I looked. {text}"}]})
    return {"rules": out}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("activeobs-reading")
    dataset = generate_dataset(root / "data", sequences=1, n_frames=120, per_family=1)
    chosen = dict(zip(("right", "hallucinated", "broken"), sorted(dataset.items, key=lambda i: i.id)))
    ids = ",".join(item.id for item in chosen.values())
    out = {}
    for name, agent, tools in (("observe", "claude-code", "observe"), ("python", "codex", "python")):
        with ScriptedServer(rules(chosen, tools)) as server:
            out[name] = run_agent(agent, tools, server, root / "data", root / "runs", ids=ids).store.root
    passive = '<answer>{"answer": 1, "evidence": {"frame": 0, "angle": 0, "bbox": [0, 0, 10, 10]}}</answer>'
    with ScriptedServer({"turns": [passive]}) as server:
        out["none"] = run_agent("claude-code", "none", server, root / "data", root / "runs", ids=ids).store.root
    return root, out, {k: v.id for k, v in chosen.items()}


def test_show_table_and_one_active_item(runs):
    root, out, ids = runs
    table = invoke(show_command, out["observe"]).output
    header = next(line for line in table.splitlines() if " id " in line)
    assert "evidence" in header and "combined" in header and "family" in header
    assert "answer 66.7% (2/3), evidence 33.3%, combined 33.3%, hallucination 50.0%" in table
    item = invoke(show_command, out["observe"], ids["right"]).output
    lines = item.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("#1 frame "))
    assert "→ observations/001-f" in lines[first] and "(480×480 px)" in lines[first]
    assert lines[first + 1].startswith("#2 frame 500") and "out of range" in lines[first + 1]
    assert "(the view of observation #1)" in item and "evidence correct" in item and "truth: target p" in item
    assert "combined (answer and evidence): correct ✓" in item
    wrong = invoke(show_command, out["python"], ids["hallucinated"]).output
    assert "(a view the agent never observed)" in wrong and "evidence wrong" in wrong
    assert "combined (answer and evidence): wrong ✗" in wrong
    passive = invoke(show_command, out["none"], ids["right"]).output
    assert "attached image: home/passive/panorama-01-f" in passive and "observations: none logged" in passive


def test_compare_answer_and_combined_side_by_side(runs, tmp_path):
    root, out, ids = runs
    result = invoke(compare_command, out["none"], out["observe"], out["python"], "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    overall = data["active"]["rows"][0]
    assert overall["n"] == 3 and overall["answer"][1:] == pytest.approx([2 / 3, 2 / 3])
    assert overall["combined"][1:] == pytest.approx([1 / 3, 1 / 3]) and overall["hallucination"][1:] == [0.5, 0.5]
    for metric in ("answer", "combined"):
        stat = overall[f"{metric}_vs_first"][1]
        assert stat["a_only"] + stat["b_only"] == stat["discordant"] and 0 <= stat["p_value"] <= 1
        assert stat["ci_low"] <= stat["diff"] <= stat["ci_high"]
    assert len(data["active"]["rows"]) == 1 + 3  # overall and the three families
    table = invoke(compare_command, out["none"], out["observe"]).output
    assert "B vs A, answer:" in table and "B vs A, combined (answer and evidence):" in table
    still = make_run(tmp_path, "still-images", outcomes={})
    refused = invoke(compare_command, still, out["observe"])
    assert refused.exit_code == 2 and "different benchmarks" in refused.output


def test_report_of_active_runs_renders_in_chromium(runs, tmp_path):
    root, out, ids = runs
    html = tmp_path / "active.html"
    result = invoke(report_command, out["none"], out["observe"], out["python"], "-o", html)
    assert result.exit_code == 0, result.output
    text = html.read_text()
    changed, text = text[text.index('id="changed"') : text.index('id="items"')], text[text.index('id="items"') :]
    assert text.count("views chosen, in call order (2)") == 6
    assert text.count("same image as observation #1 above") == 6  # what the model saw is the logged view
    # the changed items vs mode none, each tool run's side with the views it chose
    assert changed.count('class="changed-item"') >= 2 and "views chosen, in call order (2):" in changed
    assert "not shown in the steps above" not in text  # python mode: work/views match the log
    assert text.count("(rendered from the scene)") >= 3 and "where the evidence is" in text
    done = chromium(tmp_path, "--virtual-time-budget=10000", "--dump-dom", url=f"file://{html}#selftest")
    match = re.search(r'<pre id="selftest-result">(.*?)</pre>', done.stdout)
    assert match, f"no selftest result; chromium said:\n{done.stderr[-2000:]}"
    status = json.loads(match.group(1).replace("&quot;", '"'))
    assert status["errors"] == [] and status["items"] == 9 and status["external_refs"] == 0
    assert status["images"] >= 6 + 3 * 8 and status["images_loaded"] == status["images"]
    assert status["half_shown"] == 2  # the hallucinated item of each tool run
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line]
    assert not [line for line in console if "Uncaught" in line or "Error" in line], console
    shot = tmp_path / "active.png"
    chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,2400", url=f"file://{html}#expand")
    with Image.open(shot) as img:
        assert img.size == (1280, 2400) and ImageStat.Stat(img.convert("L")).stddev[0] > 20

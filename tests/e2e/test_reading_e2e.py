"""show, report and compare on runs the real CLIs produced against the scripted model: a `none` vs
`python` pair, as a researcher would read them."""

import json
import re

import pytest
from click.testing import CliRunner

from agent_eval.commands.compare import command as compare_command
from agent_eval.commands.report import command as report_command
from agent_eval.commands.show import command as show_command
from agent_eval.scripted import ScriptedServer
from support.agentrun import run_agent
from support.browser import chromium

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def pair(sample_data, sample_truth, tmp_path_factory):
    """Mode none answers wrong everywhere; mode python looks (a crop, an enlarged view) and is right on
    three items out of six."""
    out = tmp_path_factory.mktemp("pair")
    right = {"CCC-0", "MPT-0", "LIS-0"}
    python_rules = []
    for item_id, row in sample_truth.items():
        answer = row["answer"] if item_id in right else "Z"
        python_rules.append(
            {
                "match": re.escape(row["question"][-160:-60]),
                "turns": [
                    {
                        "call": "shell",
                        "input": {
                            "command": 'python3 -c "from PIL import Image; '
                            "Image.open('image.png').crop((0, 0, 90, 60)).save('crop.png')\""
                        },
                    },
                    {"call": "inspect", "input": {"views": [{"x": 0, "y": 0, "width": 90, "height": 60}], "size": 270}},
                    {"final": f"Looked twice. <answer>{answer}</answer>"},
                ],
            }
        )
    with ScriptedServer({"turns": ["<answer>Z</answer>"]}) as server:
        none_run = run_agent("claude-code", "none", server, sample_data, out, jobs=3).store.root
    with ScriptedServer({"rules": python_rules}) as server:
        python_run = run_agent("claude-code", "python", server, sample_data, out, jobs=3).store.root
    return none_run, python_run


def test_show_lists_items_and_a_transcript(pair):
    none_run, python_run = pair
    table = CliRunner().invoke(show_command, [str(python_run)], terminal_width=200)
    assert table.exit_code == 0 and all(i in table.output for i in ("CCC-0", "RC-0", "MPT-0", "FDS-0"))
    assert "SCRIPTED MODEL" in table.output
    one = CliRunner().invoke(show_command, [str(python_run), "MPT-0"], terminal_width=200)
    assert one.exit_code == 0
    for text in ("tool call: Bash", "crop.png", "mcp__imagetools__inspect", "270×180", "Looked twice."):
        assert text in one.output, text
    assert CliRunner().invoke(show_command, [str(python_run), "NOPE-1"]).exit_code == 2


def test_compare_none_vs_python(pair):
    none_run, python_run = pair
    result = CliRunner().invoke(compare_command, [str(none_run), str(python_run), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    overall = next(row for row in data["rows"] if row["scope"] == "overall")
    assert overall["n"] == 6 and overall["accuracy"] == [0.0, 0.5]
    stat = overall["vs_first"][1]
    assert (stat["a_only"], stat["b_only"]) == (0, 3) and stat["p_value"] == pytest.approx(0.25)
    assert stat["ci_low"] <= 0.5 <= stat["ci_high"] and not stat["significant"]
    assert "not significant" in data["verdicts"][0]
    markdown = CliRunner().invoke(compare_command, [str(none_run), str(python_run), "--format", "markdown"])
    assert markdown.exit_code == 0 and "not significant" in markdown.output


def test_report_of_the_pair_renders_in_chromium(pair, tmp_path):
    none_run, python_run = pair
    html = tmp_path / "report.html"
    result = CliRunner().invoke(report_command, [str(none_run), str(python_run), "-o", str(html)])
    assert result.exit_code == 0, result.output
    done = chromium(tmp_path, "--virtual-time-budget=10000", "--dump-dom", url=f"file://{html}#selftest")
    status = json.loads(
        re.search(r'<pre id="selftest-result">(.*?)</pre>', done.stdout).group(1).replace("&quot;", '"')
    )
    assert status["errors"] == [] and status["items"] == 12
    assert status["images"] >= 6 + 6 * 2 and status["images_loaded"] == status["images"]
    shot = tmp_path / "report.png"
    chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,1600", url=f"file://{html}#expand")
    assert shot.stat().st_size > 20000

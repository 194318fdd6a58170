"""A dollar cap on a model no price map prices cannot be kept: `agent-eval run --max-cost-usd` refuses it before the
first item and says what would make it keepable; with the user's own price ($AGENT_EVAL_PRICING) the same cap
stops the run after 2 of 8 items. An unknown cost reads as unknown on the progress line and in show, never $0.00.
The real `agent-eval run` drives the real Codex CLI against the scripted model."""

import csv
import io
import json
import os

import pytest

from agent_eval.agents.registry import scripted_environ
from agent_eval.scripted import ScriptedServer
from support.clirun import AGENT_EVAL, invoke

pytestmark = pytest.mark.e2e

MODEL = "gpt-unpriced-9"  # neither genai-prices nor the project knows it
# Every answer reports 10,000 input and 1,000 output tokens: at $1 and $20 per million, $0.03 an item (one
# answer each), so a $0.05 cap is reached by the second item and no third one starts.
SCENARIO = {"turns": ["<answer>3</answer>"], "usage": {"responses": {"input_tokens": 10000, "output_tokens": 1000}}}


@pytest.fixture(scope="module")
def eight_items(tmp_path_factory):
    from agent_eval.benchmarks.activevision.samples import write_sample_set

    root = tmp_path_factory.mktemp("eight") / "data"
    write_sample_set(root, seed=0, per_task=2)
    rows = [json.loads(line) for line in (root / "metadata.jsonl").read_text().splitlines()]
    return root, ",".join(row["id"] for row in rows[:8])


def run_args(items, out, *extra, ids=None):
    data, eight = items
    return ["run", "--agent", "codex", "--model", MODEL, "--tools", "none", "--data", data, "--out-dir", out,
            "--run-name", "r", "--ids", ids or eight, "--jobs", "1", *extra]  # fmt: skip


def test_a_dollar_cap_on_an_unpriced_model_is_refused_before_the_first_item(eight_items, tmp_path):
    with ScriptedServer(SCENARIO) as server:
        env = {**scripted_environ("codex", server.url), "AGENT_EVAL_PRICING": ""}
        result = invoke(*run_args(eight_items, tmp_path, "--unpriced", "--max-cost-usd", "0.05"), env=env)
        assert server.main_requests() == []  # nothing reached the model
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "--max-cost-usd 0.05 cannot be kept" in text and f"no price for model {MODEL!r}" in text
    assert "$AGENT_EVAL_PRICING" in text and "--max-item-tokens" in text
    assert not list(tmp_path.glob("r/*/items.jsonl"))


def test_with_the_users_price_the_same_cap_stops_after_two_of_eight(eight_items, tmp_path):
    prices = tmp_path / "prices.yaml"
    prices.write_text(f"models: {{{MODEL}: {{input: 1, output: 20}}}}\n")
    with ScriptedServer(SCENARIO) as server:
        env = {**scripted_environ("codex", server.url), "AGENT_EVAL_PRICING": str(prices)}
        result = invoke(*run_args(eight_items, tmp_path / "out", "--max-cost-usd", "0.05"), env=env)
    assert result.exit_code == 0, result.output
    logs = (tmp_path / "out" / "r").glob("*/items.jsonl")
    records = [json.loads(line) for path in logs for line in path.read_text().splitlines()]
    assert len(records) == 2 and all(r["cost_usd"] == pytest.approx(0.03) for r in records)
    assert "6 item(s) not run: recorded cost reached --max-cost-usd 0.05" in " ".join(result.output.split())
    # What priced them is named: the user's file (and its hash), not genai-prices, in the record and the CSV.
    label = records[0]["gateway"]["cost"]["price_data"]
    assert label.startswith(f"$AGENT_EVAL_PRICING {prices.resolve()} (sha256 ") and "genai-prices" not in label
    assert all(r["gateway"]["cost"]["price_data"] == label for r in records)
    table = invoke("table", tmp_path / "out" / "r", "--format", "csv", env={"AGENT_EVAL_PRICING": str(prices)})
    assert table.exit_code == 0, table.output
    rows = list(csv.DictReader(io.StringIO(table.output)))
    assert rows and all(row["price_data"] == label for row in rows), rows


def test_an_unknown_cost_reads_unknown_on_the_progress_line_and_in_show(eight_items, tmp_path):
    import pexpect

    three = ",".join(eight_items[1].split(",")[:3])
    with ScriptedServer(SCENARIO) as server:
        env = {**os.environ, **scripted_environ("codex", server.url), "COLUMNS": "120", "TERM": "xterm"}
        env.pop("AGENT_EVAL_PRICING", None)
        child = pexpect.spawn(
            AGENT_EVAL,
            [str(a) for a in run_args(eight_items, tmp_path, "--unpriced", ids=three)],
            env=env,
            encoding="utf-8",
            timeout=90,
            dimensions=(40, 120),
        )
        child.expect(pexpect.EOF)
        child.close()
    screen = child.before
    assert child.exitstatus == 0, screen
    assert "cost unknown" in screen and "$0.00" not in screen
    shown = invoke("show", tmp_path / "r", env={"COLUMNS": "160"}).output
    assert "cost unknown (3 items)" in shown and "$0.00" not in shown

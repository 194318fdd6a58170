"""The engine's half of a game's context policy: where each CLI's compaction point is learned (Claude Code's
blocking PreCompact hook writes a line, Codex's own threshold is computed from its catalog), what the kind is told
as answers stream by, and the gateway's count of the images each request carries. The real CLIs:
tests/e2e/test_compaction_hook_e2e.py."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from agent_eval.agents.base import Auth, ItemContext
from agent_eval.agents.claude_code.adapter import ClaudeCode
from agent_eval.agents.codex.adapter import Codex
from agent_eval.benchmarks.base import ItemSetup
from agent_eval.engine.context_watch import SIGNAL, ContextWatch
from agent_eval.engine.gateway import Gateway, RunSpend
from agent_eval.tools.toolset import ToolSet
from support.gateway_upstream import REAL, png_b64, post, serve


def setup_telling(told: list, **more) -> ItemSetup:
    return ItemSetup(prompt="p", tools=ToolSet(), cli_compaction=False, on_compaction_point=told.append, **more)


def test_claude_codes_hook_lines_tell_the_kind_once_each(tmp_path):
    told: list[str] = []
    watch = ContextWatch(setup_telling(told), ClaudeCode(), "claude-opus-4-8", tmp_path)
    assert watch.signal == tmp_path / SIGNAL and watch.point is None
    watch.usage({"input_tokens": 970_000})
    assert told == []  # no line yet: the point is the CLI's, not a count of tokens
    line = json.dumps({"hook_event_name": "PreCompact", "trigger": "auto"})
    watch.signal.write_text(f"{line}\n\n{line[:10]}")  # a second line still being written
    watch.usage({"input_tokens": 970_100})
    assert told == ["claude-code's PreCompact hook blocked its compaction (trigger auto)"]
    with watch.signal.open("a") as handle:
        handle.write(line[10:] + "\n")
    watch.usage({"input_tokens": 5})
    assert len(told) == 2  # the rest of the line, once


def test_codex_has_no_blocking_hook_so_its_own_threshold_is_watched(tmp_path):
    codex = Codex()
    assert codex.compaction_point("gpt-5.5") == 244_800  # 90% of its catalog's 272,000
    assert codex.compaction_point("some-unknown-model") == 244_800  # measured: as a 272,000 window
    told: list[str] = []
    contexts: list[int] = []
    watch = ContextWatch(setup_telling(told, on_context=contexts.append), codex, "gpt-5.5", tmp_path)
    assert watch.signal is None and watch.point == 244_800
    watch.usage({"input_tokens": 244_000, "output_tokens": 799})
    assert told == [] and contexts == [244_799]
    watch.usage({"input_tokens": 244_000, "output_tokens": 800})
    assert told == ["the context reached 244800 tokens, codex's own threshold for gpt-5.5 (244800)"]


def context(tmp_path: Path, signal: Path | None) -> ItemContext:
    for name in ("home", "work"):
        (tmp_path / name).mkdir(parents=True, exist_ok=True)
    auth = Auth("custom_endpoint", ["127.0.0.1:9"], env={"ANTHROPIC_API_KEY": "k"}, base_url="http://127.0.0.1:9")
    return ItemContext(
        "g", "m", None, None, "play", tmp_path / "work", tmp_path / "home", ToolSet(shell=True), [], auth,
        auto_compact=False, compaction_signal=signal,
    )  # fmt: skip


def test_claude_code_keeps_its_compaction_point_and_a_hook_that_blocks_it(tmp_path):
    signal = tmp_path / "home" / SIGNAL
    invocation = ClaudeCode().prepare(context(tmp_path, signal))
    assert "DISABLE_AUTO_COMPACT" not in invocation.env  # it must reach its point for the hook to run
    settings = json.loads(Path(invocation.argv[invocation.argv.index("--settings") + 1]).read_text())
    (hook,) = settings["hooks"]["PreCompact"][0]["hooks"]
    assert hook["type"] == "command" and str(signal) in hook["command"] and hook["command"].endswith("exit 2")
    off = ClaudeCode().prepare(context(tmp_path / "off", None))
    assert off.env["DISABLE_AUTO_COMPACT"] == "1" and "--settings" not in off.argv


@pytest.fixture
def upstream():
    server = serve()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_the_gateway_counts_each_requests_image_blocks_repeats_included(upstream, tmp_path):
    frame, other = png_b64(10, 10), png_b64(11, 10)
    block = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": frame}}
    second = {**block, "source": {**block["source"], "data": other}}
    body = {"model": "claude-haiku-4-5", "messages": [{"role": "user", "content": [block, block, second]}]}
    auth = Auth("custom_endpoint", ["x"], env={"ANTHROPIC_API_KEY": REAL}, base_url=upstream)
    seen: list[tuple[int, float]] = []
    began = time.monotonic()
    with Gateway("claude-code", auth, RunSpend(model="claude-haiku-4-5")) as gateway, gateway.lease(tmp_path) as lease:
        lease.ledger.on_request_images = lambda n, at: seen.append((n, at))
        post(f"{gateway.base_url}/v1/messages", body, {"x-api-key": lease.auth.env["ANTHROPIC_API_KEY"]}).read()
        lease.ledger.settle()
    assert [n for n, _ in seen] == [3] and began <= seen[0][1] <= time.monotonic()
    line = json.loads((tmp_path / "gateway.jsonl").read_text().splitlines()[0])
    assert line["image_blocks"] == 3 and line["image_count"] == 2  # blocks as an API counts them; distinct images

"""The walk kind: a 1-D walk played through the `move` tool, on the game core. What it writes is what a game kind
writes (docs/extending.md, "A game kind"): its environment, action, observation and scoring; the episode's
policies (the first observation up front, one action per observation, a live game never ended early, restores)
are agent_eval/benchmarks/games'."""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from agent_eval.benchmarks.base import Benchmark, BenchmarkGrade, Continuation, GroupedItems, ItemSetup
from agent_eval.benchmarks.games.folder import GAME_DIR, RESULT, read_json, read_timeline, restored_or_started_over
from agent_eval.benchmarks.games.protocol import Protocol
from agent_eval.benchmarks.games.recovery import STILL_ACTIVE, after_the_stop
from agent_eval.tools.mcp_http import McpHost, load_sdk_module
from agent_eval.tools.toolset import McpServer, ToolSet
from support.walk.session import NotReplayable, WalkItem, WalkSession

SERVER_MODULE = "support.walk.game_server"
DATA = "walk.json"  # {"walks": [{"id": "w1", "length": 4}, ...]}


def is_walk(root: Path) -> bool:
    return (Path(root) / DATA).is_file()


@dataclass
class WalkDataset(GroupedItems):
    root: Path
    layout: str = "walk"
    items: list = field(default_factory=list)

    def content_hash(self) -> str:
        return str(abs(hash(json.dumps([(i.id, i.length) for i in self.items]))))[:16]


class Walk(Benchmark):
    name = "walk"
    tool_modes = ("none",)
    grades_failed_attempts = True  # the walk keeps the score whatever the agent's process did

    def __init__(self):
        self.protocol = Protocol()
        self.max_moves = 20

    def configure(self, options: dict, timeout_s: float | None = None) -> None:
        self.protocol = Protocol.from_options({k: v for k, v in options.items() if v is not None})

    def load(self, root: Path) -> WalkDataset:
        walks = json.loads((Path(root) / DATA).read_text(encoding="utf-8"))["walks"]
        return WalkDataset(Path(root), items=[WalkItem(w["id"], int(w["length"])) for w in walks])

    def prompts_dir(self) -> Path:
        return Path(__file__).resolve().parent / "prompts"

    def carries_on(self, item_root: Path) -> str | None:
        moves = read_timeline(item_root)
        return f"a walk in progress ({len(moves)} move(s))" if moves else None

    @contextlib.contextmanager
    def setup(self, item, tools, work, home, item_root, template_text) -> Iterator[ItemSetup]:
        server = load_sdk_module(SERVER_MODULE)
        directory = item_root / GAME_DIR
        gated = not self.protocol.action_batches
        with contextlib.ExitStack() as stack:
            session = restored_or_started_over(
                directory, lambda: WalkSession(item, directory, self.max_moves, gated), NotReplayable
            )
            stack.callback(session.finish)
            mount = stack.enter_context(McpHost.shared().mount(lambda: server.build_server(session), name="game"))
            prompt = template_text.replace("{length}", str(item.length)).replace("{max_moves}", str(self.max_moves))

            def going_on(reason: str, resume: bool) -> Continuation:
                """The walk's words for a session that goes on (an early stop, a restart of the harness)."""
                where = f"You stand {session.progress_words()}."
                return Continuation(
                    note=f"{STILL_ACTIVE} {where}",
                    prompt=f"{prompt.rstrip()}\n\nThis walk is already in progress. {where} Go on.\n",
                    images=[session.last_frame()],
                    reason=reason,
                    resume=resume,
                )

            def next_session(ran_out_of_context: bool) -> Continuation | None:
                if session.over or self.protocol.early_stop != "continue":
                    return None
                return after_the_stop(session, item_root, self.protocol.recoveries, going_on)

            yield ItemSetup(
                prompt=prompt,
                tools=ToolSet(mcp=(McpServer(server.SERVER_NAME, ("move",), url=mount.url),)),
                inline_images=[] if session.moves else [session.last_frame()],  # the first observation up front
                endpoints=[mount.endpoint],
                continuation=going_on("harness restarted", False) if session.moves else None,
                next_session=next_session,
                on_model_request=session.gate.model_asked,
            )

    def grade(self, final_text, item, item_dir) -> BenchmarkGrade:
        end = read_json(item_dir.root / GAME_DIR / RESULT) or {}
        won = bool(end.get("won"))
        return BenchmarkGrade(
            prediction=f"{'reached the goal' if won else 'short of the goal'} in {end.get('moves_used', 0)} moves",
            correct=won,
            has_answer_tag="<answer>" in (final_text or ""),
            metrics=end,
        )

    def scorer_hash(self) -> str:
        return "walk-1"

    def truth_text(self, item) -> str:
        return "goal"

"""Check agent-eval's GameWorld evaluator and catalog reader against a GameWorld checkout of your own.

    .venv/bin/python scripts/gameworld_reference_check.py ~/gameworld [--trials 3000] [--seed 0] [--run RUN]

1. Every catalog file of the checkout (catalog/games/*.yaml, catalog/tasks/*/*.yaml) is read by agent-eval's
   reader (agent_eval/benchmarks/gameworld/catalog.py): a file it refuses is named with its line and why.
2. GameWorld's own evaluator (the checkout's env/task_evaluator.py, loaded as a file: none of the rest of GameWorld
   is imported) and agent-eval's (agent_eval/benchmarks/gameworld/evaluator.py) evaluate the same random states,
   step after step, with the catalog's evaluator settings and some broken ones; every field of every evaluation
   (status, summary, metrics, stop and reset, stop reason) must be equal, and so must the metrics after a reset.
3. With --run RUN (a run's folder, or any folder under it): every GameWorld task played there is evaluated again by
   GameWorld's own evaluator from the states its timeline kept (agent_eval/benchmarks/gameworld/recheck.py), the
   task file's settings read from this checkout; every verdict (status, stop reason, stop, reset, progress) must
   be the one recorded.

GameWorld carries no licence, so nothing of it is in this project: this script reads your copy."""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent_eval.benchmarks.gameworld.catalog import read_game, read_task  # noqa: E402
from agent_eval.benchmarks.gameworld.evaluator import TaskEvaluator, TaskRules, evaluate, reset_episode  # noqa: E402
from agent_eval.benchmarks.gameworld.recheck import NotRecheckable, recheck_folder  # noqa: E402
from agent_eval.benchmarks.gameworld.records import TASK_RECORD  # noqa: E402
from agent_eval.datamodel.jsonl import DataError  # noqa: E402

BROKEN = [
    {"aggregate_score_fields": []},
    {"end_field": 3, "score_field": "game_state.level"},
    {},
    {"aggregate_score_fields": ["game_state.level", ""]},
    {"score_field": "game_state.score", "end_field": "game_state.phase", "end_value": "over"},
]


def reference(checkout: Path):
    path = checkout / "env" / "task_evaluator.py"
    spec = importlib.util.spec_from_file_location("gameworld_task_evaluator", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path}: not found; give the root of a GameWorld checkout")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def random_state(rng: random.Random):
    def value():
        return rng.choice([None, True, False, 0, 1, 2, 3.5, 8, 16, 32, 64, 1024, "x", -4])

    if rng.random() < 0.05:
        return None
    state = {
        "terminal": {
            "isTerminal": rng.choice([True, False, None, 1]),
            "outcome": rng.choice(["fail", "success", None]),
        },
        "game_state": {"level": value(), "score": value(), "completion_progress": value(), "phase": "over"},
        "metrics": {"primary_score": value(), "coins": value(), "kills": value()},
        "gameTimeMs": value(),
    }
    if rng.random() < 0.1:
        del state["terminal"]
    return state


def reference_evaluator(ref, rules: TaskRules) -> TaskEvaluator:
    """A task evaluator whose rule and reset are GameWorld's own."""
    theirs = ref.build_task_evaluator(
        "game_api_metric", rules.config, rules.start_score, rules.target_score, rules.max_steps, rules.continue_on_fail
    )

    def rule(_rules, state, step, metrics, finalized=False):
        return asyncio.run(theirs(state, step, metrics, finalized=finalized))

    return TaskEvaluator(rules, rule=rule, clear=ref.reset_task_evaluator_episode_metrics)


def check_run(ref, checkout: Path, run: Path) -> bool:
    """Every task folder under `run` evaluated again by GameWorld's evaluator; True when every verdict is equal."""
    tasks = {path.stem: path for path in (checkout / "catalog" / "tasks").glob("*/*.yaml")}
    folders = sorted(record.parent for record in run.rglob(TASK_RECORD))
    equal, verdicts = 0, 0
    for folder in folders:
        try:
            task_id = str(json.loads((folder / TASK_RECORD).read_text())["task"])
            if task_id not in tasks:
                raise NotRecheckable(f"{folder}: task {task_id} is not in {checkout / 'catalog' / 'tasks'}")
            rules = read_task(tasks[task_id]).rules
            checked = recheck_folder(folder, rules, lambda r: reference_evaluator(ref, r))
        except NotRecheckable as why:
            print(f"not checked: {why}")
            continue
        verdicts += checked.verdicts
        for difference in checked.differences:
            print(f"DIFFERENT {checked.task} ({folder}) {difference}")
        equal += not checked.differences
    print(f"run: {equal} of {len(folders)} task(s) gave their recorded verdicts again ({verdicts} in all)")
    return equal == len(folders)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--trials", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--run", type=Path, help="a run's folder: its tasks' kept states evaluated again")
    args = parser.parse_args()
    tasks, refused = [], 0
    for path in sorted((args.checkout / "catalog" / "games").glob("*.yaml")):
        try:
            read_game(path)
        except DataError as error:
            refused += 1
            print(f"refused: {error}")
    for path in sorted((args.checkout / "catalog" / "tasks").glob("*/*.yaml")):
        try:
            tasks.append(read_task(path))
        except DataError as error:
            refused += 1
            print(f"refused: {error}")
    print(f"catalog: {len(tasks)} task file(s) read, {refused} refused")
    ref = reference(args.checkout)
    rng = random.Random(args.seed)
    configs = [t.rules.config for t in tasks] + BROKEN
    evaluations = 0
    for _ in range(args.trials):
        config = rng.choice(configs)
        start, target = rng.choice([0, 0.0, 4, "x", None]), rng.choice([32, 2.0, 0, 4, None, 60000, "y"])
        max_steps, keep_going = rng.choice([5, 10, None]), rng.choice([True, False])
        theirs = ref.build_task_evaluator("game_api_metric", config, start, target, max_steps, keep_going)
        ours = TaskRules(config, start, target, max_steps, keep_going)  # type: ignore[arg-type]
        m_ref: dict = {}
        m_ours: dict = {}
        for step in range(1, 12):
            state, finalized = random_state(rng), rng.random() < 0.2
            a = asyncio.run(theirs(state, step, m_ref, finalized=finalized))
            b = evaluate(ours, state, step, m_ours, finalized=finalized)
            fields = ("status", "summary", "metrics", "should_stop", "should_reset", "stop_reason", "finalized")
            differ = [f for f in fields if getattr(a, f) != getattr(b, f)]
            if differ:
                raise SystemExit(f"DIFFERENT {differ} at step {step}: config {config}, state {state}")
            m_ref, m_ours = a.metrics, b.metrics
            if a.should_reset:
                m_ref, m_ours = ref.reset_task_evaluator_episode_metrics(m_ref), reset_episode(m_ours)
                if m_ref != m_ours:
                    raise SystemExit(f"DIFFERENT metrics after a reset: config {config}")
            evaluations += 1
    print(f"evaluator: {evaluations} evaluations over {len(configs)} settings, every field equal to GameWorld's")
    if args.run is not None and not check_run(ref, args.checkout, args.run):
        raise SystemExit(1)


if __name__ == "__main__":
    main()

"""Start-up of `agent-eval show RUN` and of the `run` command's imports, this checkout against another
(e.g. a worktree of an earlier commit), measured side by side: the two trees alternate, round by round.

    python perf/startup.py --baseline /path/to/other/checkout [--rounds 15]

Each sample is one fresh interpreter; the figure is its CPU time (user + sys, children included), which
load on the machine disturbs less than wall time. Both trees run with this checkout's venv.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def cpu_of(argv: list[str], cwd: Path) -> float:
    """CPU seconds of one child process (and its children)."""
    before = os.times()
    subprocess.run(
        argv,
        cwd=cwd,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(cwd)},
    )
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def make_fixture_run(out: Path) -> Path:
    """A 60-item finished run, written by the tests' own fixture (no agent needed)."""
    sys.path.insert(0, str(HERE / "tests"))
    from support.runfixtures import make_run

    return make_run(out, "startup-probe", sandboxes=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="another checkout of agent-eval")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="agent-eval-startup-") as tmp:
        run = make_fixture_run(Path(tmp))
        probes = {
            "show RUN": [
                python,
                "-c",
                f"import sys; from agent_eval.cli import main; sys.argv[1:] = ['show', {str(run)!r}]; main()",
            ],
            "import the run command": [python, "-c", "import agent_eval.cli, agent_eval.commands.run"],
        }
        trees = {"baseline": args.baseline.resolve(), "this": HERE}
        samples = {(p, t): [] for p in probes for t in trees}
        for k in range(args.rounds):
            for probe, argv in probes.items():
                for tree in list(trees) if k % 2 == 0 else list(trees)[::-1]:
                    samples[(probe, tree)].append(cpu_of(argv, trees[tree]))
        print(f"median CPU seconds of {args.rounds} fresh processes each, trees alternating")
        print(f"{'':26} {'baseline':>9} {'this':>9} {'ratio':>7}")
        for probe in probes:
            base, this = (statistics.median(samples[(probe, t)]) for t in trees)
            print(f"{probe:26} {base:9.3f} {this:9.3f} {this / base:7.2f}")


if __name__ == "__main__":
    main()

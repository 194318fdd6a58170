"""The ARC-AGI-3 game process: the project's own games played through the real toolkit (Python >= 3.12,
.venv-arc) in the real bubblewrap jail, checked against the toolkit run directly, and bad game files."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from agent_eval.benchmarks.arcgames import game_process
from agent_eval.benchmarks.arcgames.game_process import GameProcess
from agent_eval.benchmarks.arcgames.games import GAMES_DIR, WINNING
from agent_eval.benchmarks.arcgames.toolkit_process import TOOLKIT_ENV_VAR, TOOLKIT_MISSING, GameError, toolkit_python
from agent_eval.datamodel.sandbox_policy import PROJECT_ROOT

U, D, L, R = "ACTION1", "ACTION2", "ACTION3", "ACTION4"


@pytest.fixture(scope="module")
def python() -> Path:
    py = toolkit_python()
    assert py is not None, "the game toolkit is missing: `make setup` builds .venv-arc (needs Python >= 3.12)"
    return py


def play(envs: Path, game: str, seq: list, scratch: Path, **kw):
    gid, version = game.split("-", 1)
    with GameProcess(envs, gid, version, scratch=scratch, **kw) as g:
        results = [g.step(*a) if isinstance(a, tuple) else g.step(a) for a in seq]
        return results, g.scorecard()


def direct(python: Path, envs: Path, game: str, seq: list, cwd: Path) -> dict:
    """The same play-through with the toolkit imported directly (no jail, no host): its states and scorecard."""
    script = textwrap.dedent("""
        import json, logging, sys
        from arc_agi import Arcade, OperationMode
        from arcengine import GameAction
        envs, game, seq = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
        arcade = Arcade(operation_mode=OperationMode.OFFLINE, environments_dir=envs, logger=logging.getLogger("t"))
        env = arcade.make(game)
        states = []
        for a in seq:
            name, data = (a[0], {"x": a[1], "y": a[2]}) if isinstance(a, list) else (a, {})
            r = env.step(GameAction.from_name(name), data=data)
            states.append([r.state.name, r.levels_completed, len(r.frame)])
        card = arcade.get_scorecard().model_dump(mode="json")
        card.pop("card_id"); card.pop("api_key", None)
        for e in card["environments"]:
            for run in e["runs"]:
                run.pop("guid")
        sys.stdout = sys.__stdout__
        print("RESULT " + json.dumps({"states": states, "scorecard": card}))
    """)
    cwd.mkdir(parents=True, exist_ok=True)
    out = subprocess.run(
        [str(python), "-c", script, str(envs), game, json.dumps(seq)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(cwd)},
    )
    line = next((x for x in out.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line, out.stdout + out.stderr
    return json.loads(line[len("RESULT ") :])


def expected_score(level_actions: list[int], baselines: list[int], completed: int) -> float:
    """The published rule, written out: a completed level scores min(1.15, (baseline/actions)^2), levels are
    weighted by their 1-based index, the game is capped by the weight share of the levels completed."""
    w = list(range(1, len(baselines) + 1))
    s = [min(1.15, (b / a) ** 2) if i < completed else 0.0 for i, (a, b) in enumerate(zip(level_actions, baselines))]
    return 100 * min(sum(wi * si for wi, si in zip(w, s)) / sum(w), sum(w[:completed]) / sum(w))


# ---------------------------------------------------------------- the toolkit's interpreter


def test_toolkit_venv_has_exactly_the_locked_versions(python):
    pins = {}
    for line in (PROJECT_ROOT / "requirements-arc.lock").read_text().splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            name, _, version = line.split(" ")[0].partition("==")
            pins[name.lower().replace("_", "-")] = version
    assert {"arc-agi", "arcengine"} <= pins.keys()
    script = (
        "import json, sys; from importlib import metadata as m; "
        "print(json.dumps({n: m.version(n) for n in sys.argv[1:]}))"
    )
    out = subprocess.run([str(python), "-c", script, *pins], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == pins, "run `make setup` (or `make lock-arc` after changing requirements-arc.in)"


def test_the_host_loads_pyplot_only_when_something_draws(python, tmp_path):
    """The host's start-up skips matplotlib's pyplot (half its CPU), and the toolkit's own drawing still works."""
    script = textwrap.dedent("""
        import json, runpy, sys
        host = runpy.run_path(sys.argv[1], run_name="game_host")  # its __main__ block does not run
        host["defer_plotting"]()
        import arc_agi, arc_agi.rendering as rendering
        seen = {"pyplot_run": "figure" in vars(sys.modules["matplotlib.pyplot"]),
                "font_list_built": "matplotlib.font_manager" in sys.modules}
        figure, _ = rendering.plt.subplots()
        seen["drawn"] = type(figure).__name__
        seen["animation"] = rendering.animation.FuncAnimation.__name__
        seen["same_module"] = rendering.plt is sys.modules["matplotlib.pyplot"]
        host["PROTOCOL"].write(json.dumps(seen))
    """)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "MPLCONFIGDIR": str(tmp_path), "MPLBACKEND": "Agg"}
    out = subprocess.run(
        [str(python), "-I", "-c", script, str(game_process.HOST_SCRIPT)], capture_output=True, text=True, env=env
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {
        "pyplot_run": False,
        "font_list_built": False,
        "drawn": "Figure",
        "animation": "FuncAnimation",
        "same_module": True,
    }


def test_without_the_toolkit_the_game_says_so_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv(TOOLKIT_ENV_VAR, str(tmp_path / "no-python"))
    assert toolkit_python() is None
    with pytest.raises(GameError) as e:
        GameProcess(GAMES_DIR, "ae01", "v1", scratch=tmp_path)
    assert str(e.value) == f"ae01-v1: {TOOLKIT_MISSING}" and "\n" not in TOOLKIT_MISSING


# ---------------------------------------------------------------- the project's games


@pytest.mark.parametrize("game", sorted(WINNING))
def test_winning_sequence_wins_and_scorecard_is_the_toolkits(game, python, tmp_path):
    seq = WINNING[game]
    results, card = play(GAMES_DIR, game, seq, tmp_path / "scratch")
    assert [r.state for r in results[:-1]] == ["NOT_FINISHED"] * (len(seq) - 1)
    assert results[-1].state == "WIN" and results[-1].levels_completed == results[-1].win_levels == 3
    assert card["won"] is True and card["score"] == pytest.approx(100.0) and card["levels_completed"] == 3
    for r in results:
        assert r.frames and all(f.shape == (64, 64) and f.dtype == np.uint8 and f.max() <= 15 for f in r.frames)
    seen = direct(python, GAMES_DIR, game, [list(a) if isinstance(a, tuple) else a for a in seq], tmp_path / "direct")
    assert card["toolkit_scorecard"] == seen["scorecard"]
    assert [[r.state, r.levels_completed, len(r.frames)] for r in results] == seen["states"]


def test_wasted_actions_score_lower_by_the_formula(python, tmp_path):
    # ae01: level 1 in 5+2 actions (a step back and forth), level 2 in 10+4, level 3 not finished (3 moves).
    seq = [L, R] + [R] * 5 + [U, D, U, D] + [R] * 5 + [D] * 5 + [U, U, U]
    results, card = play(GAMES_DIR, "ae01-v1", ["RESET", *seq], tmp_path / "scratch")
    assert results[-1].state == "NOT_FINISHED" and results[-1].levels_completed == 2
    assert card["level_actions"] == [7, 14, 3]
    want = expected_score([7, 14, 3], [5, 10, 14], completed=2)
    assert card["score"] == pytest.approx(want) and card["score"] < 100
    assert card["level_scores"] == pytest.approx([100 * (5 / 7) ** 2, 100 * (10 / 14) ** 2, 0.0])
    seen = direct(python, GAMES_DIR, "ae01-v1", ["RESET", *seq], tmp_path / "direct")
    assert card["toolkit_scorecard"] == seen["scorecard"]


def test_game_over_then_reset(tmp_path):
    with GameProcess(GAMES_DIR, "ae01", "v1", scratch=tmp_path) as g:
        for _ in range(5):
            r = g.step(R)
        assert r.levels_completed == 1
        start = r.frames[-1]  # level 2's first frame: the player at (1, 1)
        g.step(D)
        over = g.step(D)  # onto the hazard row
        assert over.state == "GAME_OVER" and over.levels_completed == 1
        ignored = g.step(R)  # the toolkit ignores actions once the game is over
        assert ignored.state == "GAME_OVER" and ignored.frames == [] and ignored.levels_completed == 1
        back = g.step("RESET")
        assert back.state == "NOT_FINISHED" and back.levels_completed == 1
        assert np.array_equal(back.frames[-1], start)
        for a in [R] * 5 + [D] * 5 + [U] * 7 + [R] * 7:
            r = g.step(a)
        assert r.state == "WIN"
        card = g.scorecard()
    assert card["won"] and card["resets"] == 1
    assert card["level_actions"] == [5, 2 + 1 + 10, 14]  # the level-2 attempt, the RESET, the clean run


def test_click_with_coordinates(tmp_path):
    with GameProcess(GAMES_DIR, "ae02", "v1", scratch=tmp_path) as g:
        first = g.step("RESET").frames[-1]
        assert first[24, 40] == 11 and first[8, 8] == 3  # the lit tile (2, 1), a dark one (0, 0)
        miss = g.step("ACTION6", 8, 8)
        assert miss.levels_completed == 0 and np.array_equal(miss.frames[-1], first)
        hit = g.step("ACTION6", 40, 24)
        assert hit.levels_completed == 1 and hit.available_actions == ("ACTION6",)
        half = g.step("ACTION6", 8, 56)  # level 2: one of its two lit tiles
        assert half.levels_completed == 1 and half.frames[-1][56, 8] == 3 and half.frames[-1][8, 56] == 11
        for bad in [("ACTION6", 64, 0), ("ACTION6",), ("ACTION1", 3, 4), ("ACTION8",), ("reset",)]:
            with pytest.raises(ValueError):
                g.step(*bad)
        assert g.step("ACTION6", 56, 8).levels_completed == 2  # still playing after the refusals


def test_animation_returns_all_its_frames_in_order(tmp_path):
    with GameProcess(GAMES_DIR, "ae03", "v1", scratch=tmp_path) as g:
        for _ in range(3):
            g.step(R)
        drop = g.step(U)
    # The ball (colour 10) falls from row 1 to row 7 of the 8x8 board (8 pixels a cell) in column 4, a frame a
    # row; the frame after it lands shows the target taken; the last shows level 2.
    assert drop.levels_completed == 1 and len(drop.frames) == 9
    for i, f in enumerate(drop.frames[:7]):
        rows = {y // 8 for y, x in zip(*np.nonzero(f == 10))}
        cols = {x // 8 for y, x in zip(*np.nonzero(f == 10))}
        assert rows == {i + 1} and cols == {4}, (i, rows, cols)
    assert not (drop.frames[7] == 10).any() and not (drop.frames[8] == 10).any()
    assert drop.frames[8][7 * 8, 1 * 8] == 14  # level 2's target at column 1


# ---------------------------------------------------------------- bad games


GOOD_HEAD = """from arcengine import ARCBaseGame, Camera, GameAction, Level, Sprite
LEVELS = [Level(sprites=[Sprite([[9]], name="p", x=0, y=0)], grid_size=(8, 8))]
"""


def write_game(envs: Path, gid: str, source: str, *, class_name: str | None = None, baselines=(3,)) -> Path:
    d = envs / gid / "v1"
    d.mkdir(parents=True)
    meta = {"game_id": f"{gid}-v1", "title": gid, "class_name": class_name or gid.capitalize()}
    if baselines is not None:
        meta["baseline_actions"] = list(baselines)
    (d / "metadata.json").write_text(json.dumps(meta))
    (d / f"{(class_name or gid).lower()}.py").write_text(textwrap.dedent(source))
    return d


def game_class(gid: str, step_body: str) -> str:
    return (
        GOOD_HEAD
        + textwrap.dedent(f"""
class {gid.capitalize()}(ARCBaseGame):
    def __init__(self, seed=0):
        super().__init__(game_id="{gid}", levels=LEVELS, camera=Camera(width=8, height=8), available_actions=[1, 2])

    def step(self):
        if self.action.id == GameAction.ACTION1:
""")
        + textwrap.indent(textwrap.dedent(step_body), " " * 12)
        + "\n        self.complete_action()\n"
    )


def host_processes(marker: str) -> list[int]:
    """Processes whose command line names `marker` (a test's own folder): what a game left behind."""
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if marker in (p / "cmdline").read_bytes().decode(errors="replace"):
                    out.append(int(p.name))
            except OSError:
                pass
    return out


def test_syntax_error(tmp_path):
    write_game(tmp_path / "envs", "bx01", GOOD_HEAD + "class Bx01(ARCBaseGame:\n    pass\n")
    with pytest.raises(GameError, match=r"^bx01-v1: bx01.py has a syntax error at line 3 \(SyntaxError: .+\)$"):
        GameProcess(tmp_path / "envs", "bx01", "v1", scratch=tmp_path / "s")


def test_missing_class(tmp_path):
    write_game(tmp_path / "envs", "bx02", game_class("bx03", "pass"), class_name="Bx02")
    with pytest.raises(GameError, match=r"^bx02-v1: .*Bx02.* not found"):
        GameProcess(tmp_path / "envs", "bx02", "v1", scratch=tmp_path / "s")


def test_exception_in_step(tmp_path):
    source = game_class("bx04", "1 / 0")
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "1 / 0" in text)
    write_game(tmp_path / "envs", "bx04", source)
    with GameProcess(tmp_path / "envs", "bx04", "v1", scratch=tmp_path / "s") as g:
        assert g.step("ACTION2").state == "NOT_FINISHED"
        with pytest.raises(
            GameError,
            match=rf"^bx04-v1: exception in step ACTION1: ZeroDivisionError: division by zero \(bx04.py line {line}\)$",
        ):
            g.step("ACTION1")
        with pytest.raises(GameError, match="ZeroDivisionError"):  # it stays failed
            g.step("ACTION2")


def test_endless_step_is_ended_by_the_timeout(tmp_path):
    envs = tmp_path / "envs"
    write_game(envs, "bx05", game_class("bx05", "while True:\n    pass"))
    g = GameProcess(envs, "bx05", "v1", scratch=tmp_path / "s", step_timeout_s=2)
    try:
        assert host_processes(str(envs)), "the marker should find the running host"
        started = time.monotonic()
        with pytest.raises(GameError, match=r"^bx05-v1: step ACTION1 did not return within 2 s"):
            g.step("ACTION1")
        assert time.monotonic() - started < 10
        assert g._proc.poll() is not None
    finally:
        g.close()
    assert host_processes(str(envs)) == []


# A game's ACTION1 body, and the one line its GameError must be after "GAME-v1: ".
BROKEN_STEPS = {
    "exits the process": ("import os; os._exit(7)", r"the game process ended during step ACTION1 \(exit status 7\)"),
    "raises SystemExit": ("raise SystemExit(3)", r"exception in step ACTION1: SystemExit: 3 \(bx\d+.py line \d+\)"),
    "eats memory": ("self.hoard = bytearray(8 << 30)", r"exception in step ACTION1: MemoryError"),
    "renders 8x8": (
        "import numpy as np\nself.camera.render = lambda sprites: np.zeros((8, 8), dtype=np.int8)",
        r"step ACTION1 returned frames of shape \[\[8, 8\]\], not 64x64",
    ),
    "paints colour 20": (
        "import numpy as np\nself.camera.render = lambda sprites: np.full((64, 64), 20, dtype=np.int8)",
        r"step ACTION1 returned a colour index outside 0-15 \(20\)",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN_STEPS))
def test_a_broken_step_is_one_named_line_and_leaves_nothing(case, tmp_path):
    body, error = BROKEN_STEPS[case]
    envs, gid = tmp_path / "envs", f"bx2{sorted(BROKEN_STEPS).index(case)}"
    write_game(envs, gid, game_class(gid, body))
    with GameProcess(envs, gid, "v1", scratch=tmp_path / "s") as g:
        with pytest.raises(GameError, match=rf"^{gid}-v1: {error}"):
            g.step("ACTION1")
    assert host_processes(str(envs)) == []


def test_a_killed_harness_leaves_no_game_process(tmp_path):
    """SIGKILL of the process holding a GameProcess (no close(), no finally) while the game is stuck in a
    step, so the host never reads its stdin's end: the jail goes with its parent (bwrap's --die-with-parent)."""
    envs = tmp_path / "envs"
    write_game(envs, "bx09", game_class("bx09", "while True:\n    pass"))
    holder = textwrap.dedent(f"""
        from pathlib import Path
        from agent_eval.benchmarks.arcgames.game_process import GameProcess
        g = GameProcess(Path({str(envs)!r}), "bx09", "v1", scratch=Path({str(tmp_path / "s")!r}), step_timeout_s=600)
        print("playing", flush=True)
        g.step("ACTION1")
    """)
    proc = subprocess.Popen([sys.executable, "-c", holder], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "playing"
        time.sleep(1)
        assert host_processes(str(envs))
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 10
        while host_processes(str(envs)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert host_processes(str(envs)) == []
    finally:
        proc.kill()
        for pid in host_processes(str(envs)):
            os.kill(pid, 9)


def test_unknown_game_and_version(tmp_path):
    with pytest.raises(GameError, match=r"^zz99-v1: no such game or version .*ae01-v1"):
        GameProcess(GAMES_DIR, "zz99", "v1", scratch=tmp_path)
    with pytest.raises(GameError, match=r"^ae01-v9: no such game or version"):
        GameProcess(GAMES_DIR, "ae01", "v9", scratch=tmp_path)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "metadata.json").write_text("{}")
    with pytest.raises(GameError, match="plain names"):
        GameProcess(GAMES_DIR, "..", str(Path("..") / tmp_path.name / "outside"), scratch=tmp_path)


def test_metadata_without_baselines_scores_none(tmp_path):
    envs = tmp_path / "envs"
    shutil.copytree(GAMES_DIR / "ae02", envs / "ae02")
    meta = json.loads((envs / "ae02/v1/metadata.json").read_text())
    del meta["baseline_actions"]
    (envs / "ae02/v1/metadata.json").write_text(json.dumps(meta))
    results, card = play(envs, "ae02-v1", WINNING["ae02-v1"], tmp_path / "s")
    assert results[-1].state == "WIN" and card["won"] is True
    assert card["score"] is None and "metadata.json gives no baseline_actions" in card["score_unavailable"]
    assert card["level_scores"] is None and card["level_actions"] == [1, 2, 3]


# ---------------------------------------------------------------- confinement


PROBE = """\
ok = False
try:
{probe}
    ok = True
except Exception:
    pass
if ok:
    self.next_level()
"""


def probe_game(envs: Path, gid: str, probe: str) -> None:
    """A game whose ACTION1 clears its level only if `probe` runs without an exception."""
    write_game(envs, gid, game_class(gid, PROBE.format(probe=textwrap.indent(textwrap.dedent(probe), "    "))))


def levels_after_action1(envs: Path, gid: str, scratch: Path) -> int:
    with GameProcess(envs, gid, "v1", scratch=scratch) as g:
        return g.step("ACTION1").levels_completed


@pytest.fixture
def loopback_server():
    srv = socket.create_server(("127.0.0.1", 0))
    accepted: list = []

    def serve():
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            accepted.append(conn.recv(100))
            conn.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield srv.getsockname()[1], accepted
    srv.close()


def test_the_host_has_no_network(python, tmp_path, loopback_server):
    port, accepted = loopback_server
    envs = tmp_path / "envs"
    probe_game(
        envs,
        "bx07",
        f"""
        import socket
        s = socket.create_connection(("127.0.0.1", {port}), timeout=3)
        s.sendall(b"from the game")
    """,
    )
    assert levels_after_action1(envs, "bx07", tmp_path / "s") == 0
    assert accepted == []
    # The same game run by the toolkit without the jail reaches the server: the probe works.
    assert direct(python, envs, "bx07-v1", ["ACTION1"], tmp_path / "direct")["states"][0][1] == 1
    assert accepted == [b"from the game"]


def test_the_host_reads_neither_results_nor_home(python, tmp_path):
    results = tmp_path / "results" / "run1"
    results.mkdir(parents=True)
    canaries = [results / "canary.txt", Path.home() / f".agent-eval-canary-{uuid.uuid4().hex}"]
    envs = tmp_path / "envs"
    try:
        for c in canaries:
            c.write_text("canary-7d1f")
        for i, c in enumerate(canaries):
            probe_game(envs, f"bx1{i}", f"assert open({str(c)!r}).read() == 'canary-7d1f'")
            assert levels_after_action1(envs, f"bx1{i}", tmp_path / "s") == 0, c
            assert direct(python, envs, f"bx1{i}-v1", ["ACTION1"], tmp_path / "direct")["states"][0][1] == 1
        # Nor can it write to its own game files, which it sees read-only.
        probe_game(envs, "bx12", f"open({str(envs / 'bx12/v1/bx12.py')!r}, 'a').write('#')")
        assert levels_after_action1(envs, "bx12", tmp_path / "s") == 0
    finally:
        for c in canaries:
            c.unlink(missing_ok=True)


def test_no_dotenv_and_offline_mode(tmp_path):
    """Importing the toolkit loads .env from the cwd; the host's cwd is an empty private /tmp, and
    OPERATION_MODE is forced offline whatever the caller's environment says."""
    envs = tmp_path / "envs"
    probe_game(
        envs,
        "bx13",
        """
        import os
        assert os.getcwd() == "/tmp" and not os.path.exists(".env")
        assert os.environ["OPERATION_MODE"] == "offline" and "ARC_API_KEY" not in os.environ
    """,
    )
    os.environ["ARC_API_KEY"] = "leaked"
    try:
        assert levels_after_action1(envs, "bx13", tmp_path / "s") == 1
    finally:
        del os.environ["ARC_API_KEY"]

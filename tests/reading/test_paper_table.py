"""`agent-eval table`: the runs as a paper prints them, with compare's own numbers (checked against `compare --format
json` on the same runs), in Markdown, LaTeX (compiled where a TeX is installed, checked by its structure always)
and CSV; and the figure (`--plot`): PNG and well-formed SVG, every label inside the figure at any number of runs."""

import csv
import io
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree

import pytest
from click.testing import CliRunner
from matplotlib.text import Text
from PIL import Image

from agent_eval.analysis.stats import holm, wilson_interval
from agent_eval.commands.compare import command as compare_command
from agent_eval.commands.table import command as table_command
from agent_eval.datamodel.manifest import RunManifest
from agent_eval.datamodel.records import ItemRecord
from agent_eval.datamodel.results import RunStore
from agent_eval.reading.paper_figure import build_figure
from agent_eval.reading.paper_table import build_table
from agent_eval.reading.runs import load_run
from support.runfixtures import ITEMS, make_run

IDS = [item[0] for item in ITEMS]
MODES = ("none", "image", "python")
ROWS = (("claude-code", "claude-opus-4-8", "high"), ("codex", "gpt_5.5", "medium"))  # an underscore for LaTeX


def invoke(command, *args):
    result = CliRunner().invoke(command, [str(a) for a in args], env={"COLUMNS": "200"})
    assert result.exit_code == 0, (result.output, result.exception)
    return result.output


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    root = tmp_path_factory.mktemp("grid")
    runs = {}
    for r, (agent, model, effort) in enumerate(ROWS):
        for m, tools in enumerate(MODES):
            outcomes = {i: (k + m + r) % 3 != 0 for k, i in enumerate(IDS)}
            if (r, tools) == (1, "python"):
                outcomes["FDS-0"] = "timeout"  # a harness failure: counted wrong, and said
            runs[(r, tools)] = make_run(
                root,
                f"{agent}-{tools}",
                agent=agent,
                model=model,
                effort=effort,
                tools=tools,
                outcomes=outcomes,
                seed=10 * r + m,
                cost_per_item=None if (r, tools) == (1, "image") else 0.01 * (m + 1),
                sandboxes=False,
            )
    return runs


def compare_json(*runs):
    out = invoke(compare_command, *runs, "--format", "json", "--resamples", "2000")
    return json.loads(out)


def table(fmt, *runs, extra=()):
    return invoke(table_command, *runs, "--format", fmt, "--resamples", "2000", *extra)


def test_csv_has_compares_numbers_and_holm_over_the_table(grid):
    rows = list(csv.DictReader(io.StringIO(table("csv", *grid.values()))))
    assert len(rows) == 6
    by = {(r["agent"], r["column"]): r for r in rows}
    ps = []
    for r, (agent, *_rest) in enumerate(ROWS):
        data = compare_json(*(grid[(r, m)] for m in MODES))
        overall = data["rows"][0]
        for k, mode in enumerate(MODES):
            row = by[(agent, mode)]
            assert float(row["accuracy"]) == pytest.approx(overall["accuracy"][k])
            low, high = wilson_interval(overall["accuracy"][k], data["shared"])
            assert (float(row["ci_low"]), float(row["ci_high"])) == pytest.approx((low, high))
            cost = data["runs"][k]["efficiency"]["cost_usd"]
            if cost["mean"] is None:
                assert row["cost_per_item_usd"] == "" and int(row["cost_unknown"]) == 8
            else:
                assert float(row["cost_per_item_usd"]) == pytest.approx(cost["mean"])
            if k == 0:
                assert row["diff_vs_none"] == row["p_value"] == ""
                continue
            stat = overall["vs_first"][k]
            assert float(row["diff_vs_none"]) == pytest.approx(stat["diff"])
            assert (float(row["diff_ci_low"]), float(row["diff_ci_high"])) == pytest.approx(
                (stat["ci_low"], stat["ci_high"])
            )
            assert float(row["p_value"]) == pytest.approx(stat["p_value"])
            ps.append((row, stat["p_value"]))
    for (row, _), adjusted in zip(ps, holm([p for _, p in ps])):
        assert float(row["p_holm_table"]) == pytest.approx(adjusted)
    assert all(r["cli_version"] and r["harness_version"] == "0.1.0" and r["started_at"] for r in rows)


def test_markdown_lays_rows_by_model_and_columns_by_mode(grid):
    md = table("markdown", *reversed(list(grid.values())))  # any order in: none, image, python out
    assert md.count("| agent | model | effort | none | image | python |") == 5  # five panels
    for title in ("accuracy (%) [95% CI]", "change against none", "p against none (Holm)", "API cost per item"):
        assert f"*{title}" in md
    data = compare_json(*(grid[(0, m)] for m in MODES))
    acc = data["rows"][0]["accuracy"]
    stat = data["rows"][0]["vs_first"][2]
    line = next(x for x in md.splitlines() if x.startswith("| claude-code |") and "[" in x)
    assert f"| {acc[0] * 100:.1f} [" in line and f"| {acc[2] * 100:.1f} [" in line
    change = next(x for x in md.split("*change against none")[1].splitlines() if x.startswith("| claude-code"))
    assert f"{stat['diff'] * 100:+.1f}" in change and change.split("|")[4].strip() == "—"
    cost = next(x for x in md.split("*API cost per item")[1].splitlines() if x.startswith("| codex"))
    assert "unknown" in cost and "$0.00 " not in cost  # an unknown cost is never $0
    compared = invoke(compare_command, grid[(1, "none")], grid[(1, "image")], "--format", "markdown")
    assert "| cost median | $0.0" in compared and "| unknown |" in compared  # compare says it too
    notes = md.split("Notes:")[1]
    assert "agent-eval 0.1.0" in notes and "claude-code 2.1.197" in notes and "codex 0.171.0" in notes
    assert "2026-11-30" in notes and "repeats per item: 1" in notes and "Wilson" in notes
    assert "1 item run(s) failed in the harness (1 timeout)" in notes and "Holm" in notes


def latex_structure(tex: str, columns: int) -> None:
    assert tex.count("\\begin{") == tex.count("\\end{")
    for env in ("table", "tabular", "minipage"):
        assert tex.count(f"\\begin{{{env}}}") == tex.count(f"\\end{{{env}}}") == 1
    body = tex.split("\\toprule")[1].split("\\bottomrule")[0]
    for line in body.splitlines():
        if line.endswith("\\\\") and "\\multicolumn" not in line:
            assert len(re.findall(r"(?<!\\)&", line)) == columns - 1, line
    text = re.sub(r"\\[a-zA-Z]+|\\.", "", tex)  # commands and escaped characters out
    for special in "%&_#$":
        unescaped = [line for line in text.splitlines() if special in line and not line.startswith("%")]
        assert not unescaped or special in "&$", unescaped
    assert "gpt\\_5.5" in tex and "gpt_5.5" not in tex  # a name's underscore, escaped
    assert not re.search(r"[^\x00-\x7f]", tex)  # plain pdflatex sets every character


def test_latex_compiles_or_is_well_formed(grid, tmp_path):
    tex = table("latex", *grid.values())
    latex_structure(tex, 3 + len(MODES))
    assert "\\$0.0" in tex and "\\%" in tex and "\\toprule" in tex
    if shutil.which("pdflatex") is None:
        return  # the structure is what a machine without TeX can check
    (tmp_path / "table.tex").write_text(tex)
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\\usepackage{booktabs}\\usepackage[margin=1cm,landscape]{geometry}"
        "\\begin{document}\\input{table.tex}\\end{document}\n"
    )
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert (tmp_path / "paper.pdf").stat().st_size > 1000


def test_two_runs_in_one_cell_are_refused(grid, tmp_path):
    twin = make_run(tmp_path, "again", tools="none", sandboxes=False)
    result = CliRunner().invoke(table_command, [str(grid[(0, "none")]), str(twin)])
    assert result.exit_code == 2 and "one run per cell" in result.output


# -- the kinds' own measures -------------------------------------------------------------------------------
def game_run(root, name, tools, games):
    """An ARC-AGI-3 run's records as grading writes them: won, levels, score, actions per game."""
    store = RunStore(root / name)
    config = {"agent": "codex", "model": "gpt-5.5", "effort": "high", "tools": tools, "benchmark": "arcgames"}
    store.write_manifest(RunManifest.from_json({"run_name": name, "config": config, "scripted_model": True}))
    for game, (won, levels, score, actions) in games.items():
        metrics = {"game": game, "won": won, "levels_completed": levels, "win_levels": 2, "score": score}
        metrics["actions"] = actions
        store.append(ItemRecord(game, game, "game", "WIN", "ok", correct=won, cost_usd=0.2, metrics=metrics))
    store.write_summaries()
    return store.root


def test_games_show_score_levels_and_actions_as_compare_does(tmp_path):
    none = game_run(tmp_path, "none", "none", {"g1": (False, 1, 20.0, 40), "g2": (True, 2, 50.0, 30)})
    python = game_run(tmp_path, "python", "python", {"g1": (True, 2, 90.0, 12), "g2": (True, 2, 80.0, 10)})
    games = compare_json(none, python, "--force")["games"]["overall"]
    md = table("markdown", none, python, extra=("--force",))
    for title in ("mean game score (0-100)", "levels completed (total)", "actions per completed level"):
        assert f"*{title}*" in md
    panel = lambda title: next(  # noqa: E731
        x for x in md.split(f"*{title}")[1].splitlines() if x.startswith("| codex")
    )
    assert f"| {games['score'][0]:.1f} | {games['score'][1]:.1f} |" in panel("mean game score (0-100)")
    assert f"| {games['levels'][0]:.1f} | {games['levels'][1]:.1f} |" in panel("levels completed (total)")
    assert f"{games['actions_per_level'][1]:.1f} |" in panel("actions per completed level")
    assert f"{games['score_vs_first'][1]['diff']:+.1f}" in panel("change in mean game score")
    assert "games won (%)" in md and "--force" in md  # the rung rule was overridden, and the notes say so


def test_active_observation_shows_its_four_rates_as_compare_does(tmp_path):
    from support.runfixtures import make_active_pair

    _, observe, none, _ = make_active_pair(tmp_path)
    active = compare_json(none, observe)["active"]["rows"][0]
    rows = list(csv.DictReader(io.StringIO(table("csv", observe, none))))
    b = next(r for r in rows if r["column"] == "observe")
    assert float(b["accuracy"]) == pytest.approx(active["answer"][1])
    assert float(b["evidence_accuracy"]) == pytest.approx(active["evidence"][1])
    assert float(b["combined_answer_and_evidence"]) == pytest.approx(active["combined"][1])
    assert float(b["hallucination_right_answers_without_evidence"]) == pytest.approx(active["hallucination"][1])
    assert float(b["combined_answer_and_evidence_p_value"]) == pytest.approx(active["combined_vs_first"][1]["p_value"])
    md = table("markdown", observe, none)
    assert "*answer accuracy (%) [95% CI]*" in md and "*hallucination (right answers without evidence) (%)*" in md


# -- the figure ------------------------------------------------------------------------------------------
def test_figure_writes_png_and_svg(grid, tmp_path):
    invoke(table_command, *grid.values(), "--plot", tmp_path / "fig.png", "--resamples", "200")
    with Image.open(tmp_path / "fig.png") as img:
        assert img.size[0] >= 1200 and len(img.convert("L").getcolors(1 << 16)) > 20
    root = ElementTree.parse(tmp_path / "fig.svg").getroot()  # well-formed XML, or this raises
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("width", "").endswith("pt")
    assert len(list(root.iter("{http://www.w3.org/2000/svg}path"))) > 50
    figure = build_figure(build_table([load_run(p) for p in grid.values()], False, 100, 1))
    texts = [t.get_text() for t in figure.findobj(Text)]
    assert any("cost unknown, not plotted: codex · gpt_5.5 · medium · image" in t for t in texts)
    assert "codex · gpt_5.5" in texts and "effort high" in texts  # one legend entry per model and per effort


def test_no_label_is_clipped_at_many_runs(tmp_path):
    runs = []
    for r in range(7):
        for effort in ("low", "high"):
            for m, tools in enumerate(MODES):
                runs.append(
                    make_run(
                        tmp_path,
                        f"m{r}-{effort}-{tools}",
                        agent="codex",
                        model=f"a-rather-long-model-name-{r}",
                        effort=effort,
                        tools=tools,
                        p_correct=0.1 + 0.12 * m + 0.05 * r,
                        seed=r * 7 + m,
                        cost_per_item=None if (r, effort, tools) == (6, "low", "image") else 0.001 * 3 ** (r % 5 + m),
                        sandboxes=False,
                    )
                )
    figure = build_figure(build_table([load_run(p) for p in runs], False, 100, 1))
    figure.canvas.draw()
    box = figure.bbox
    unseen = set()  # tick labels past the axes' limits exist but are never drawn
    for ax in figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not low <= tick.get_loc() <= high:
                    unseen |= {id(tick.label1), id(tick.label2)}
    texts = [t for t in figure.findobj(Text) if t.get_visible() and t.get_text().strip() and id(t) not in unseen]
    assert len(texts) > 42  # every run's mode name, the legend, the axes' labels
    for text in texts:
        extent = text.get_window_extent()
        assert box.x0 - 0.5 <= extent.x0 and extent.x1 <= box.x1 + 0.5, text.get_text()
        assert box.y0 - 0.5 <= extent.y0 and extent.y1 <= box.y1 + 0.5, text.get_text()
    assert any("cost unknown, not plotted" in t.get_text() for t in texts)

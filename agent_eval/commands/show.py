"""`agent-eval show RUN [ITEM]`: a run's items as a table, or one item's transcript, in the terminal.

Also home of the small run-reading helpers that report and compare share (`load_run`,
`run_warnings`, `load_transcript`): one place decides what a run directory is.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import click
from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from agent_eval.agents.received import describe as describe_received
from agent_eval.analysis.formatting import (
    fmt_agent_time,
    fmt_cost,
    fmt_time,
    fold,
    session_words,
    tool_input_text,
    total_time,
)
from agent_eval.analysis.item_images import ItemImages
from agent_eval.datamodel.records import FAILURE_STATUSES, STOPPED_STATUSES, ItemRecord
from agent_eval.datamodel.results import summarise
from agent_eval.datamodel.transcript import Transcript
from agent_eval.reading.runs import LoadedRun, RunError, config_line, load_run, run_warnings
from agent_eval.reading.transcripts import item_dir, load_transcript


# -- the table ---------------------------------------------------------------------
def _print_header(console: Console, run: LoadedRun) -> None:
    console.print(Text(config_line(run), style="bold"))
    for loud, note in run_warnings(run):
        console.print(Text(f"!! {note}" if loud else f"note: {note}", style="bold red" if loud else "yellow"))


def _tick(value: bool) -> Text:
    return Text("✓", "green") if value else Text("✗", "red")


def _items_table(run: LoadedRun, records: list[ItemRecord]) -> Table:
    """One row per item; the run's kind names the group column and may add ✓/✗ columns beside the answer's."""
    hooks = run.hooks
    table = Table(show_lines=False, header_style="bold")
    marks = ("ok", *(name for name, _ in hooks.marks))
    for name, justify in (
        ("id", "left"),
        (hooks.group_column, "left"),
        ("status", "left"),
        ("prediction", "left"),
        ("truth", "left"),
        *((m, "center") for m in marks),
        ("turns", "right"),
        ("tools", "right"),
        ("cost", "right"),
        ("time", "right"),
    ):
        table.add_column(name, justify=justify, no_wrap=name in ("id", "status", *marks), overflow="fold")
    for r in records:
        status_style = "red" if r.status in FAILURE_STATUSES else "yellow" if r.status != "ok" else ""
        ticks = [Text("?", "yellow") if r.status == "ungraded" else _tick(r.correct)]  # no verdict, not wrong
        ticks += [_tick(bool(r.metrics.get(key))) for _, key in hooks.marks]
        table.add_row(
            r.id + (f" r{r.repeat}" if r.repeat else ""),
            hooks.group_of(r),
            Text(r.status, style=status_style),
            Text(r.prediction or "—"),
            Text(r.ground_truth),
            *ticks,
            "?" if r.num_turns is None else str(r.num_turns),
            str(r.tool_calls),
            fmt_cost(r.cost_usd),
            fmt_time(r.elapsed_s),
        )
    return table


def show_items(console: Console, run: LoadedRun, wrong: bool, errors: bool, task: str | None) -> None:
    records = run.records
    if task:
        tasks = sorted({r.task for r in records})
        if task not in tasks:
            raise RunError(f"no task {task!r} in {run.root}; tasks: {', '.join(tasks)}")
        records = [r for r in records if r.task == task]
    if wrong:
        records = [r for r in records if not r.correct]
    if errors:
        records = [r for r in records if r.status in FAILURE_STATUSES + STOPPED_STATUSES]
    _print_header(console, run)
    console.print(_items_table(run, records))
    s = summarise(run.records)
    acc = f"{s['accuracy']:.1%}" if s["accuracy"] is not None else "?"
    graded = s["n"] - s.get("ungraded", 0)
    acc = run.hooks.show_totals(console, run) or f"accuracy {acc} ({s['correct']}/{graded})"
    cost = (
        f"unknown ({s['cost_unknown']} items)"
        if s["cost_usd"] is None
        else fmt_cost(s["cost_usd"]) + (f" ({s['cost_unknown']} unknown)" if s["cost_unknown"] else "")
    )
    console.print(
        f"{len(records)} shown of {s['n']} items; whole run: {acc}, "
        f"errors {s['errors']}, no answer {s['no_answer']}"
        + (f", ungraded {s['ungraded']}" if s.get("ungraded") else "")
        + f", cost {cost}, time {fmt_time(total_time(run.records))}",
        markup=False,
    )


# -- one transcript -----------------------------------------------------------------
def _image_line(images: ItemImages, path: str, received: dict | None = None) -> Text:
    line = Text(f"  image: {images.describe(path)}", style="cyan")
    if received and path in received:
        line += Text(f" · {describe_received(received[path])}", style="yellow" if received[path].reduced else "cyan")
    return line


def _print_step(
    console: Console, images: ItemImages, number: int, step, lines: int, full: bool, received: dict | None = None
) -> None:
    when = f" t={step.t:.1f}s" if step.t is not None else ""
    if step.kind == "tool_call":
        console.print(Text(f"[{number}] tool call: {step.tool}{when}", style="bold blue"))
        console.print(Text(fold(tool_input_text(step.input), lines, full)))
    elif step.kind == "tool_result":
        console.print(
            Text(
                f"[{number}] tool result{' (error)' if step.is_error else ''}{when}",
                style="bold red" if step.is_error else "bold green",
            )
        )
        if step.text:
            console.print(Text(fold(step.text, lines, full), style="dim"))
    else:
        name = "reasoning" if step.kind == "reasoning" else "assistant"
        console.print(Text(f"[{number}] {name}{when}", style="bold"))
        console.print(Text(fold(step.text, lines, full), style="italic dim" if name == "reasoning" else ""))
    for path in step.images:
        console.print(_image_line(images, path, received))


def _session_marks(transcript) -> dict[int, list[tuple[str, str]]]:
    """Where, among the steps, each session after the first began and why, and where the CLI compacted its
    context: step index -> lines to print before it."""
    marks: dict[int, list[tuple[str, str]]] = {}
    sessions = getattr(transcript, "sessions", None) or []
    for session in sessions[1:] if len(sessions) > 1 else []:
        what = "continued" if session.get("kind") == "resume" else "fresh"
        line = f"session {session.get('n')} ({what}): {session.get('reason') or ''}"
        if session.get("images"):
            line += f"; attached: {', '.join(session['images'])}"
        marks.setdefault(int(session.get("first_step") or 0), []).append((line, "rule"))
    for compaction in getattr(transcript, "compactions", None) or []:
        line = (
            f"the CLI compacted its context here ({compaction.get('trigger') or '?'}, "
            f"{compaction.get('pre_tokens') or '?'} tokens before)"
        )
        marks.setdefault(int(compaction.get("at") or 0), []).append((line, "bold yellow"))
    return marks


def show_transcript(
    console: Console,
    run: LoadedRun,
    record: ItemRecord,
    lines: int,
    full: bool,
    data: Path | None = None,
    page: int | None = None,
) -> None:
    images = ItemImages(item_dir(run, record))
    _print_header(console, run)
    console.print(
        Rule(
            Text(
                f"{record.id} · {record.task} · {record.category}"
                + (f" · repeat {record.repeat}" if record.repeat else "")
            )
        )
    )
    transcript, why = load_transcript(run, record)
    original = images.original(transcript.prompt_images if transcript else [])
    seen: list[str] = []
    if transcript is None:
        console.print(Text(why, style="yellow"))
    else:
        console.print(Text("prompt", style="bold magenta"))
        console.print(Text(fold(transcript.prompt, lines, full)))
        received = {image.path: image for image in transcript.images if image.path}
        inline = [image for image in transcript.images if image.via == "inline"]
        for index, path in enumerate(transcript.prompt_images):
            seen.append(path)
            console.print(Text(f"  attached image: {images.describe(path)}", style="cyan"))
            if index < len(inline):
                console.print(
                    Text(f"    {describe_received(inline[index])}", style="yellow" if inline[index].reduced else "cyan")
                )
            elif transcript.images or record.status == "image_dropped":
                console.print(Text("    the model received no image here", style="bold red"))
        for note in record.image_conversions:
            console.print(Text(f"  converted: {note}", style="cyan"))
        if original and original not in seen:
            console.print(Text(f"  image in the workdir: {images.describe(original)}", style="cyan"))
        marks = _session_marks(transcript)
        for number, step in enumerate(transcript.steps, start=1):
            for mark, style in marks.get(number - 1, []):
                console.print(Rule(Text(mark, style="bold magenta")) if style == "rule" else Text(mark, style=style))
            _print_step(console, images, number, step, lines, full, received)
            seen += step.images
        if transcript.error:
            console.print(Text(f"agent error: {transcript.error}", style="bold red"))
    made = images.not_shown(seen, original)
    if made:
        console.print(Text("images in the workdir not shown above:", style="bold"))
        for path in made:
            console.print(_image_line(images, path))
    if page is None:
        state = run.hooks.show_item(console, run, record, images, data)
    else:
        state = run.hooks.show_item_page(console, run, record, images, data, page)
    _print_outcome(console, run, record, transcript, state)


def _print_outcome(
    console: Console, run: LoadedRun, record: ItemRecord, transcript: Transcript | None, state=None
) -> None:
    """The grade line; `state`: what the kind's show_item returned (then the grade is the answer's, and the kind adds
    its lines)."""
    console.print(Rule("outcome"))
    if record.answer_text:
        console.print(Text("final answer text: ", style="bold") + Text(record.answer_text.strip()[-400:]))
    verdict = Text("correct ✓", "bold green") if record.correct else Text("wrong ✗", "bold red")
    if record.status == "ungraded":
        verdict = Text("no verdict", "bold yellow")  # never counted wrong
    console.print(
        Text(
            f"{'answer' if state is not None else 'grade'}: prediction {record.prediction or '—'!r} vs truth "
            f"{record.ground_truth!r} → "
        )
        + verdict
        + Text(f"  (status {record.status})")
    )
    if state is not None:
        run.hooks.show_outcome(console, record, state)
    if record.error:
        console.print(Text(f"error: {record.error}", style="red"))
    u = record.usage
    tokens = ", ".join(
        f"{k} {v}"
        for k, v in (
            ("in", u.input_tokens),
            ("cached", u.cached_input_tokens),
            ("out", u.output_tokens),
            ("reasoning", u.reasoning_tokens),
        )
        if v is not None
    )
    console.print(
        Text(
            f"turns {record.num_turns if record.num_turns is not None else '?'}, tool calls {record.tool_calls}, "
            f"tokens {tokens or '?'}, cost {fmt_cost(record.cost_usd)}, "
            f"time {fmt_agent_time(record.elapsed_s, record.provider_wait_s)}, "
            f"attempts {record.attempts}" + (f", {session_words(record)}" if session_words(record) else "")
        )
    )
    if len(record.usage_by_model) > 1:
        console.print(
            Text(
                "usage by model: "
                + "; ".join(
                    f"{model} in {u.get('input_tokens')}, out {u.get('output_tokens')}, "
                    f"cost {fmt_cost(u.get('cost_usd'))}"
                    for model, u in record.usage_by_model.items()
                ),
                style="dim",
            )
        )
    if record.gateway:
        g = record.gateway
        console.print(
            Text(
                f"at the API (the run's gateway): {g.get('model_requests', '?')} model request(s), "
                f"{g.get('images', 0)} distinct image(s) {', '.join(g.get('image_sizes') or [])}".rstrip(),
                style="dim",
            )
        )
        for note in g.get("discrepancies") or []:
            console.print(Text(f"  the CLI's report differs: {note}", style="yellow"))


def _unknown_item(run: LoadedRun, item_id: str, repeat: int) -> RunError:
    ids = sorted({r.id for r in run.records})
    close = difflib.get_close_matches(item_id, ids, n=5) or ids[:5]
    extra = f" (repeat {repeat})" if repeat else ""
    return RunError(f"no item {item_id!r}{extra} in {run.root}; e.g. {', '.join(close)} ({len(ids)} items in all)")


@click.command("show")
@click.argument("run", type=click.Path(path_type=Path))
@click.argument("item", required=False)
@click.option("--repeat", default=0, show_default=True, help="Which repeat of ITEM to show.")
@click.option("--wrong", is_flag=True, help="Table: only items graded wrong (harness errors count as wrong).")
@click.option(
    "--errors",
    is_flag=True,
    help="Table: only harness failures (timeout, agent/auth/sandbox errors, rate limits) and spend-cap stops.",
)
@click.option("--task", default=None, help="Table: only this task.")
@click.option("--full", is_flag=True, help="Transcript: do not fold long prompts, inputs and outputs.")
@click.option("--lines", default=12, show_default=True, help="Transcript: fold text longer than this many lines.")
@click.option(
    "--data",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Active observation: the dataset dir, for the target's true box (default: the run's own).",
)
@click.option(
    "--page",
    type=click.IntRange(min=1),
    default=None,
    help="ARC-AGI-3: this page of the game's timeline (50 play calls a page; default: the first and the last).",
)
def command(run, item, repeat, wrong, errors, task, full, lines, data, page):
    """Show a run's items as a table, or ITEM's transcript: prompt, steps, tool calls, images, grade."""
    console = Console(highlight=False)
    loaded = load_run(run)
    if item is None:
        show_items(console, loaded, wrong, errors, task)
        return
    record = loaded.find(item, repeat)
    if record is None:
        raise _unknown_item(loaded, item, repeat)
    show_transcript(console, loaded, record, lines, full, data, page)

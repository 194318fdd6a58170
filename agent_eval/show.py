"""`agent-eval show RUN [ITEM]`: a run's items as a table, or one item's transcript, in the terminal.

Also home of the small run-reading helpers that report and compare share (`load_run`,
`run_warnings`, `load_transcript`): one place decides what a run directory is.
"""
from __future__ import annotations

import difflib
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import click
from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from .records import FAILURE_STATUSES, ItemRecord
from .results import RunStore, summarise
from .agents.received import describe as describe_received
from .transcript import Transcript

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"}
ACTIVE = "activeobs"  # the active-observation benchmark's name and its items' task (agent_eval.activeobs.schema.TASK)


class RunError(click.ClickException):
    """A run or item that cannot be shown: one line, exit code 2."""
    exit_code = 2


@dataclass
class LoadedRun:
    root: Path
    manifest: dict | None
    records: list[ItemRecord]

    @property
    def config(self) -> dict:
        return (self.manifest or {}).get("config") or {}

    @property
    def name(self) -> str:
        return (self.manifest or {}).get("run_name") or self.root.name

    @property
    def label(self) -> str:
        """agent · model · effort · tools, or the directory name when the config is unknown."""
        c = self.config
        parts = [c.get("agent"), c.get("model"), c.get("effort"), c.get("tools") and f"tools={c['tools']}"]
        return " · ".join(str(p) for p in parts if p) or f"{self.name} (config unknown)"

    @property
    def benchmark(self) -> str:
        """activeobs or activevision: run.json says; results without one are known by their records."""
        return self.config.get("benchmark") or (ACTIVE if any(r.task == ACTIVE for r in self.records) else "activevision")

    @property
    def active(self) -> bool:
        return self.benchmark == ACTIVE

    def find(self, item_id: str, repeat: int = 0) -> ItemRecord | None:
        return next((r for r in self.records if r.id == item_id and r.repeat == repeat), None)


def load_run(path: str | Path) -> LoadedRun:
    root = Path(path)
    if not root.is_dir():
        raise RunError(f"{root}: no such run directory")
    store = RunStore(root)
    try:
        manifest = store.read_manifest()
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise RunError(f"{store.manifest_path}: unreadable run manifest ({error})") from None
    records = store.records()
    if not records:
        inner = sorted(p.name for p in root.iterdir() if p.is_dir() and RunStore(p).task_dirs())
        hint = f"; runs inside it: {', '.join(inner[:8])}" if inner else ""
        raise RunError(f"{root}: not a run directory (no <task>/items.jsonl with records){hint}")
    return LoadedRun(root, manifest, records)


def config_line(run: LoadedRun) -> str:
    if run.manifest is None:
        return f"run {run.name}: no run.json (config and hashes unknown)"
    c = run.config
    keys = ("agent", "model", "effort", "tools", "sandbox")
    # A run's config holds every key; a null effort means the CLI's own default was used.
    shown = {k: c.get(k) if c.get(k) is not None else ("default" if k == "effort" and k in c else "?") for k in keys}
    return f"run {run.name}: " + ", ".join(f"{k} {v}" for k, v in shown.items())


def run_warnings(run: LoadedRun) -> list[tuple[bool, str]]:
    """(loud, note): things a reader must not miss before trusting the numbers."""
    if run.manifest is None:
        return [(False, "no run.json: agent, model and hashes unknown (e.g. the benchmark's own no-tool evaluation)")]
    notes = []
    from .tool_use import broken_ablation_warning
    broken = broken_ablation_warning(run)
    if broken:
        notes.append((True, broken))
    if run.config.get("sandbox") == "none":
        notes.append((True, "SANDBOX NONE: the agent ran without an OS sandbox and could read files outside its workdir"))
    if run.manifest.get("scripted_model"):
        notes.append((True, "SCRIPTED MODEL: answers came from a scripted test server, not a real model"))
    if not run.manifest.get("finished_at"):
        notes.append((False, "run not finished (interrupted or still running): some items may be missing"))
    return notes


def item_dir(run: LoadedRun, record: ItemRecord) -> Path:
    if record.transcript:
        return (run.root / record.transcript).parent
    return RunStore(run.root).sandbox_dir(record.id, record.repeat)


def load_transcript(run: LoadedRun, record: ItemRecord) -> tuple[Transcript | None, str | None]:
    """The normalised transcript, or None and why not."""
    path = item_dir(run, record) / "steps.json"
    if not path.is_file():
        return None, "no transcript saved for this item"
    try:
        return Transcript.load(path), None
    except (json.JSONDecodeError, TypeError, ValueError) as error:
        return None, f"{path}: unreadable transcript ({error})"


def resolve_image(base: Path, path: str) -> Path:
    return Path(path) if Path(path).is_absolute() else base / path


class ItemImages:
    """The images of one item dir. The parsers save what the model saw as `seen/NNN.png`; matching
    pixels tells which workdir file (the original, a view in `work/views/`) each one shows."""

    def __init__(self, base: Path):
        self.base = base
        self._keys: dict[Path, str | None] = {}
        self._sizes: dict[Path, tuple[int, int] | None] = {}

    def _read(self, path: Path) -> None:
        from PIL import Image, UnidentifiedImageError
        try:
            with Image.open(path) as img:
                self._sizes[path] = img.size
                rgba = img.convert("RGBA")  # same pixels in RGB or RGBA files give the same key
                self._keys[path] = hashlib.sha1(rgba.tobytes() + repr(rgba.size).encode()).hexdigest()
        except (OSError, UnidentifiedImageError, ValueError):
            self._keys[path] = self._sizes[path] = None

    def key(self, rel: str) -> str | None:
        path = resolve_image(self.base, rel)
        if path not in self._keys:
            self._read(path)
        return self._keys[path]

    def size(self, rel: str) -> tuple[int, int] | None:
        self.key(rel)
        return self._sizes[resolve_image(self.base, rel)]

    def workdir(self) -> list[str]:
        work = self.base / "work"
        if not work.is_dir():
            return []
        return [p.relative_to(self.base).as_posix() for p in sorted(work.rglob("*"))
                if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()]

    def original(self, prompt_images: list[str]) -> str | None:
        """The item's input image: attached to the prompt (mode none) or `work/image.*`."""
        inputs = [p for p in prompt_images if resolve_image(self.base, p).is_file()]
        return (inputs or [p for p in self.workdir() if p.count("/") == 1 and p.startswith("work/image.")] or [None])[0]

    def alias(self, rel: str) -> str | None:
        """The workdir file holding the same pixels as `rel`, when `rel` is a copy (e.g. seen/001.png)."""
        if rel.startswith("work/") or self.key(rel) is None:
            return None
        return next((p for p in self.workdir() if self.key(p) == self.key(rel)), None)

    def not_shown(self, shown: list[str], original: str | None) -> list[str]:
        """Workdir images whose pixels appear nowhere in `shown` (e.g. scratch files never opened)."""
        keys = {self.key(p) for p in shown} - {None}
        return [p for p in self.workdir() if p != original and p not in shown and self.key(p) not in keys]

    def describe(self, rel: str) -> str:
        size, alias = self.size(rel), self.alias(rel)
        return (f"{rel} " + (f"({size[0]}×{size[1]} px)" if size else "(missing)")
                + (f" = {alias}" if alias else ""))


CHARS_PER_LINE = 200  # a folded block shows about `lines` screen lines, however long its lines are


def fold(text: str, lines: int, full: bool) -> str:
    parts = text.splitlines()
    budget = lines * CHARS_PER_LINE
    if full or (len(parts) <= lines and len(text) <= budget):
        return text
    head = "\n".join(parts[:lines])
    more_lines = max(len(parts) - lines, 0)
    if len(head) > budget:
        hidden = len(text) - budget
        return head[:budget] + f"\n... {hidden} more characters" + \
            (f", {more_lines} more lines" if more_lines else "") + " (--full)"
    return head + f"\n... {more_lines} more lines (--full)"


def total_time(records: list[ItemRecord]) -> float | None:
    times = [r.elapsed_s for r in records if r.elapsed_s is not None]
    return sum(times) if times else None


def fmt_cost(value: float | None) -> str:
    return "?" if value is None else f"${value:.4f}" if value < 1 else f"${value:.2f}"


def fmt_time(seconds: float | None) -> str:
    return "?" if seconds is None else f"{seconds:.0f}s" if seconds < 600 else f"{seconds / 60:.1f}m"


# -- the table ---------------------------------------------------------------------
def _print_header(console: Console, run: LoadedRun) -> None:
    console.print(Text(config_line(run), style="bold"))
    for loud, note in run_warnings(run):
        console.print(Text(f"!! {note}" if loud else f"note: {note}", style="bold red" if loud else "yellow"))


def _tick(value: bool) -> Text:
    return Text("✓", "green") if value else Text("✗", "red")


def _items_table(run: LoadedRun, records: list[ItemRecord]) -> Table:
    """One row per item; an active-observation run shows the family, and evidence and combined beside the answer."""
    table = Table(show_lines=False, header_style="bold")
    marks = ("ok", "evidence", "combined") if run.active else ("ok",)
    for name, justify in (("id", "left"), ("family" if run.active else "task", "left"), ("status", "left"),
                          ("prediction", "left"), ("truth", "left"), *((m, "center") for m in marks),
                          ("turns", "right"), ("tools", "right"), ("cost", "right"), ("time", "right")):
        table.add_column(name, justify=justify, no_wrap=name in ("id", "status", *marks), overflow="fold")
    for r in records:
        status_style = "red" if r.status in FAILURE_STATUSES else "yellow" if r.status != "ok" else ""
        ticks = [_tick(r.correct)]
        if run.active:
            ticks += [_tick(bool(r.metrics.get("evidence_correct"))), _tick(bool(r.metrics.get("combined")))]
        table.add_row(
            r.id + (f" r{r.repeat}" if r.repeat else ""), r.category if run.active else r.task,
            Text(r.status, style=status_style), Text(r.prediction or "—"), Text(r.ground_truth), *ticks,
            "?" if r.num_turns is None else str(r.num_turns), str(r.tool_calls),
            fmt_cost(r.cost_usd), fmt_time(r.elapsed_s))
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
        records = [r for r in records if r.status in FAILURE_STATUSES]
    _print_header(console, run)
    console.print(_items_table(run, records))
    s = summarise(run.records)
    acc = f"{s['accuracy']:.1%}" if s["accuracy"] is not None else "?"
    if run.active:
        from .show_activeobs import print_active_totals
        acc = print_active_totals(console, run)
    else:
        acc = f"accuracy {acc} ({s['correct']}/{s['n']})"
    cost = fmt_cost(s["cost_usd"]) + (f" ({s['cost_unknown']} unknown)" if s["cost_unknown"] else "")
    console.print(f"{len(records)} shown of {s['n']} items; whole run: {acc}, "
                  f"errors {s['errors']}, no answer {s['no_answer']}, cost {cost}, time {fmt_time(total_time(run.records))}",
                  markup=False)


# -- one transcript -----------------------------------------------------------------
def _image_line(images: ItemImages, path: str, received: dict | None = None) -> Text:
    line = Text(f"  image: {images.describe(path)}", style="cyan")
    if received and path in received:
        line += Text(f" · {describe_received(received[path])}", style="yellow" if received[path].reduced else "cyan")
    return line


def tool_input_text(data: dict | None) -> str:
    """A lone string argument (a shell command, a path) raw; short arguments on one line; else indented JSON."""
    if data and len(data) == 1 and isinstance(next(iter(data.values())), str):
        return next(iter(data.values()))
    flat = json.dumps(data, ensure_ascii=False)
    return flat if len(flat) <= 100 else json.dumps(data, indent=1, ensure_ascii=False)


def _print_step(console: Console, images: ItemImages, number: int, step, lines: int, full: bool,
                received: dict | None = None) -> None:
    when = f" t={step.t:.1f}s" if step.t is not None else ""
    if step.kind == "tool_call":
        console.print(Text(f"[{number}] tool call: {step.tool}{when}", style="bold blue"))
        console.print(Text(fold(tool_input_text(step.input), lines, full)))
    elif step.kind == "tool_result":
        console.print(Text(f"[{number}] tool result{' (error)' if step.is_error else ''}{when}",
                           style="bold red" if step.is_error else "bold green"))
        if step.text:
            console.print(Text(fold(step.text, lines, full), style="dim"))
    else:
        name = "reasoning" if step.kind == "reasoning" else "assistant"
        console.print(Text(f"[{number}] {name}{when}", style="bold"))
        console.print(Text(fold(step.text, lines, full), style="italic dim" if name == "reasoning" else ""))
    for path in step.images:
        console.print(_image_line(images, path, received))


def show_transcript(console: Console, run: LoadedRun, record: ItemRecord, lines: int, full: bool,
                    data: Path | None = None) -> None:
    images = ItemImages(item_dir(run, record))
    _print_header(console, run)
    console.print(Rule(Text(f"{record.id} · {record.task} · {record.category}" + (f" · repeat {record.repeat}" if record.repeat else ""))))
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
                console.print(Text(f"    {describe_received(inline[index])}",
                                   style="yellow" if inline[index].reduced else "cyan"))
            elif transcript.images or record.status == "image_dropped":
                console.print(Text("    the model received no image here", style="bold red"))
        for note in record.image_conversions:
            console.print(Text(f"  converted: {note}", style="cyan"))
        if original and original not in seen:
            console.print(Text(f"  image in the workdir: {images.describe(original)}", style="cyan"))
        for number, step in enumerate(transcript.steps, start=1):
            _print_step(console, images, number, step, lines, full, received)
            seen += step.images
        if transcript.error:
            console.print(Text(f"agent error: {transcript.error}", style="bold red"))
    made = images.not_shown(seen, original)
    if made:
        console.print(Text("images in the workdir not shown above:", style="bold"))
        for path in made:
            console.print(_image_line(images, path))
    evidence = None
    if run.active:
        from .show_activeobs import print_observations
        evidence = print_observations(console, run, record, images, data)
    _print_outcome(console, record, transcript, evidence)


def _print_outcome(console: Console, record: ItemRecord, transcript: Transcript | None, evidence=None) -> None:
    console.print(Rule("outcome"))
    if record.answer_text:
        console.print(Text("final answer text: ", style="bold") + Text(record.answer_text.strip()[-400:]))
    verdict = Text("correct ✓", "bold green") if record.correct else Text("wrong ✗", "bold red")
    console.print(Text(f"{'answer' if evidence else 'grade'}: prediction {record.prediction or '—'!r} vs truth "
                       f"{record.ground_truth!r} → ") + verdict + Text(f"  (status {record.status})"))
    if evidence is not None:
        from .show_activeobs import print_evidence
        print_evidence(console, record, evidence)
    if record.error:
        console.print(Text(f"error: {record.error}", style="red"))
    u = record.usage
    tokens = ", ".join(f"{k} {v}" for k, v in (("in", u.input_tokens), ("cached", u.cached_input_tokens),
                                                   ("out", u.output_tokens), ("reasoning", u.reasoning_tokens)) if v is not None)
    console.print(Text(f"turns {record.num_turns if record.num_turns is not None else '?'}, tool calls {record.tool_calls}, "
                       f"tokens {tokens or '?'}, cost {fmt_cost(record.cost_usd)}, time {fmt_time(record.elapsed_s)}, "
                       f"attempts {record.attempts}"))
    if len(record.usage_by_model) > 1:
        console.print(Text("usage by model: " + "; ".join(
            f"{model} in {u.get('input_tokens')}, out {u.get('output_tokens')}, cost {fmt_cost(u.get('cost_usd'))}"
            for model, u in record.usage_by_model.items()), style="dim"))
    if record.gateway:
        g = record.gateway
        console.print(Text(f"at the API (the run's gateway): {g.get('model_requests', '?')} model request(s), "
                           f"{g.get('images', 0)} distinct image(s) {', '.join(g.get('image_sizes') or [])}".rstrip(),
                           style="dim"))
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
@click.option("--errors", is_flag=True, help="Table: only harness failures (timeout, agent/auth/sandbox errors, rate limits).")
@click.option("--task", default=None, help="Table: only this task.")
@click.option("--full", is_flag=True, help="Transcript: do not fold long prompts, inputs and outputs.")
@click.option("--lines", default=12, show_default=True, help="Transcript: fold text longer than this many lines.")
@click.option("--data", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Active observation: the dataset dir, for the target's true box (default: the run's own).")
def command(run, item, repeat, wrong, errors, task, full, lines, data):
    """Show a run's items as a table, or ITEM's transcript: prompt, steps, tool calls, images, grade."""
    console = Console(highlight=False)
    loaded = load_run(run)
    if item is None:
        show_items(console, loaded, wrong, errors, task)
        return
    record = loaded.find(item, repeat)
    if record is None:
        raise _unknown_item(loaded, item, repeat)
    show_transcript(console, loaded, record, lines, full, data)

"""The docs say only what is true. In README.md and every docs/**/*.md: each repository path named (in prose,
inline code, code blocks or a link) exists, each link to another page (and its #anchor) resolves, each
`agent-eval <command> [<sub>]` is a real command and each `--option` on its line one that command takes,
and each `make <target>` is a target of the Makefile. When a file moves or an option is renamed, this
test names the page and line that still say the old thing."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import click
import pytest

from agent_eval.cli import main as CLI

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

# The repository's own top-level folders: a path that starts with one of them names a file of this
# checkout. (results/, data/, demo-results/ ... are the user's folders and are never checked.)
REPO_DIRS = ("agent_eval", "tests", "sweeps", "docs", "perf", "scripts", "prompts", "sandbox")

# Paths the docs name on purpose although they are not in the checkout, each with its reason.
ALLOWED_PATHS: dict[str, str] = {
    "prompts/list": "an MCP method (beside tools/list and resources/list), not the prompts/ folder",
}

REPO_PATH = re.compile(r"(?<![\w./~-])(?:%s)/[\w./<>*{}@-]*" % "|".join(REPO_DIRS))
PLACEHOLDER = re.compile(r"[<>*{}]|NNNN|\.\.\.")
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
INLINE = re.compile(r"`([^`]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.M)
# `agent-eval` as a command word (not agent-eval-image-tools, not agent-eval's, not "agent-eval:").
AGENT_EVAL = re.compile(r"(?<![\w-])agent-eval[ \t]*\n?[ \t]*(?=[\w\[.])")
MAKE = re.compile(r"(?<![\w./-])make[ \t]+([^\n]*)")
OPTION = re.compile(r"^\[*(--[a-z][a-z0-9-]*)(?:=\S*)?\]*[.,;:)]*$")
SHELL_BREAKS = {"|", "||", "&&", ";", ">", ">>", "2>&1"}


@dataclass(frozen=True)
class Problem:
    page: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.what}"


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _without_fences(text: str) -> str:
    """The page with every fenced block blanked (its newlines kept, so line numbers stay true)."""
    return FENCE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _code(text: str) -> list[tuple[int, str]]:
    """(offset, code) for every fenced block and every inline code span outside them."""
    blocks = [(m.start(1), m.group(1)) for m in FENCE.finditer(text)]
    prose = _without_fences(text)
    return blocks + [(m.start(1), m.group(1)) for m in INLINE.finditer(prose)]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for m in HEADING.finditer(_without_fences(text)):
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def path_problems(text: str, page: str, root: Path) -> list[Problem]:
    problems = []
    for m in REPO_PATH.finditer(text):
        path = m.group(0).rstrip(".,:;")
        if PLACEHOLDER.search(path) or path in ALLOWED_PATHS:
            continue
        if not (root / path).exists():
            problems.append(Problem(page, _line_of(text, m.start()), f"no such path in the repository: {path}"))
    return problems


def link_problems(text: str, page_path: Path, page: str, root: Path) -> list[Problem]:
    problems = []
    for m in LINK.finditer(_without_fences(text)):
        target = m.group(1)
        if re.match(r"^[a-z]+:", target):  # https:, mailto: ...
            continue
        file_part, _, anchor = target.partition("#")
        linked = (page_path.parent / file_part).resolve() if file_part else page_path
        line = _line_of(text, m.start())
        if not linked.exists():
            problems.append(Problem(page, line, f"link to a missing file: {target}"))
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked.read_text()):
            problems.append(Problem(page, line, f"link to a missing heading: {target}"))
        elif linked.is_relative_to(root) is False:
            problems.append(Problem(page, line, f"link outside the repository: {target}"))
    return problems


def _words(command_line: str) -> list[str]:
    command_line = command_line.split("`")[0]  # a code span inside a block's prose ends the command
    command_line = re.sub(r"(^|\s)#.*", "", command_line)  # a shell comment
    try:
        words = shlex.split(command_line)
    except ValueError:  # an unbalanced quote in an example: plain words are enough
        words = command_line.split()
    for i, word in enumerate(words):
        if word in SHELL_BREAKS:
            return words[:i]
    return words


def _option_names(command: click.Command) -> set[str]:
    names = {"--help", "-h"}
    for param in command.params:
        if isinstance(param, click.Option):
            names.update(param.opts)
            names.update(param.secondary_opts)
    return names


def command_problems(words: list[str], group: click.Group, written: str) -> list[str]:
    """What is wrong with `agent-eval WORDS...` against the click group: the command, the subcommand and
    every --option on the line."""
    ctx = click.Context(group)
    if not words or PLACEHOLDER.search(words[0]) or words[0].endswith(":"):
        return []  # a placeholder, or a message the tool prints ("agent-eval sandbox: ...")
    command = group.get_command(ctx, words[0])
    if command is None:
        return [f"`{written}`: agent-eval has no command {words[0]!r}"]
    rest = words[1:]
    path = words[0]
    while isinstance(command, click.Group) and rest and not rest[0].startswith("-"):
        sub = command.get_command(ctx, rest[0])
        if sub is None:
            return [f"`{written}`: agent-eval {path} has no command {rest[0]!r}"]
        command, path, rest = sub, f"{path} {rest[0]}", rest[1:]
    known = _option_names(command)
    problems = []
    for word in rest:
        m = OPTION.match(word)
        if m and m.group(1) not in known:
            problems.append(f"`{written}`: agent-eval {path} has no option {m.group(1)}")
    return problems


def cli_problems(text: str, page: str, group: click.Group) -> list[Problem]:
    problems = []
    top_level = set(group.list_commands(click.Context(group)))
    for offset, code in _code(text):
        code_joined = re.sub(r"\\\n", " ", code)  # a shell line continued with a backslash
        # Offsets inside the joined code are close enough for a line number: continuations only shorten it.
        for m in AGENT_EVAL.finditer(code_joined):
            line_end = code_joined.find("\n", m.end())
            command_line = code_joined[m.end() : None if line_end < 0 else line_end]
            written = "agent-eval " + command_line.strip()
            for what in command_problems(_words(command_line), group, written):
                problems.append(Problem(page, _line_of(text, offset + m.start()), what))
        # An inline span that starts with a command and names an option (`doctor --live`) is a command line too.
        first = code.split(maxsplit=1)
        if len(first) == 2 and first[0] in top_level and "--" in first[1] and "\n" not in code:
            for what in command_problems(_words(code), group, code):
                problems.append(Problem(page, _line_of(text, offset), what))
    return problems


def makefile_targets(makefile: Path) -> set[str]:
    return set(re.findall(r"^([A-Za-z][\w-]*)\s*:(?!=)", makefile.read_text(), re.M))


def make_problems(text: str, page: str, targets: set[str]) -> list[Problem]:
    problems = []
    for offset, code in _code(text):
        for m in MAKE.finditer(code):
            words = [w for w in _words(m.group(1)) if "=" not in w and not w.startswith("-")]
            if words and words[0] not in targets and not PLACEHOLDER.search(words[0]):
                line = _line_of(text, offset + m.start())
                written = "make " + m.group(1).split("`")[0].strip()
                problems.append(Problem(page, line, f"`{written}`: the Makefile has no target {words[0]!r}"))
    return problems


def page_problems(page_path: Path, text: str, root: Path = ROOT, group: click.Group = CLI) -> list[Problem]:
    page = str(page_path.relative_to(root)) if page_path.is_relative_to(root) else page_path.name
    return [
        *path_problems(text, page, root),
        *link_problems(text, page_path, page, root),
        *cli_problems(text, page, group),
        *make_problems(text, page, makefile_targets(root / "Makefile")),
    ]


@pytest.mark.parametrize("page_path", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_path_command_option_and_make_target_a_page_names_exists(page_path):
    problems = page_problems(page_path, page_path.read_text())
    assert not problems, "\n".join(map(str, problems))


def test_the_allowlist_holds_only_paths_the_docs_still_name_each_with_its_reason():
    text = "\n".join(p.read_text() for p in PAGES)
    for path, reason in ALLOWED_PATHS.items():
        assert reason.strip(), path
        assert path in text, f"{path} is allowed but no page names it any more: drop it from ALLOWED_PATHS"


# The checks themselves: each must fail on a page that says something untrue.

SNIPPET = """# A page

See `tests/e2e/test_faults_e2e.py` and tests/no_such_test.py, [the sandbox](docs/sandbox.md#what-the-agent-gets),
[gone](docs/no-such-page.md) and [no heading](docs/sandbox.md#no-such-heading).

```bash
make demo KIND=arcgames
make no-such-target MODEL=x
agent-eval show results/RUN --full
agent-eval frobnicate results/RUN
agent-eval run --agent codex --model m \\
    --no-such-option 3   # a comment --not-checked
agent-eval slurm submit --sweep sweeps/example.yaml --shards 2
agent-eval slurm nosuch results/X
```

Before a run: `doctor --live`; and `regrade --no-such-flag`; also `agent-eval sweep --plan-it`.
"""


def _snippet_problems() -> list[str]:
    return [p.what for p in page_problems(ROOT / "README.md", SNIPPET)]


def test_a_missing_path_a_missing_page_and_a_missing_heading_are_named():
    problems = _snippet_problems()
    assert "no such path in the repository: tests/no_such_test.py" in problems
    assert "link to a missing file: docs/no-such-page.md" in problems
    assert "link to a missing heading: docs/sandbox.md#no-such-heading" in problems
    assert not any("test_faults_e2e.py" in p or "what-the-agent-gets" in p for p in problems)


def test_a_missing_command_subcommand_or_option_is_named_and_real_ones_pass():
    problems = _snippet_problems()
    assert "`agent-eval frobnicate results/RUN`: agent-eval has no command 'frobnicate'" in problems
    assert any(p.endswith("agent-eval run has no option --no-such-option") for p in problems)
    assert any(p.endswith("agent-eval slurm has no command 'nosuch'") for p in problems)
    assert "`regrade --no-such-flag`: agent-eval regrade has no option --no-such-flag" in problems
    assert any(p.endswith("agent-eval sweep has no option --plan-it") for p in problems)
    for fine in ("--not-checked", "--full", "--live", "--sweep", "--shards", "--agent", "--model"):
        assert not any(p.endswith(f"has no option {fine}") for p in problems), fine
    assert len([p for p in problems if "agent-eval" in p or "has no" in p]) == 6, problems


def test_a_missing_make_target_is_named():
    problems = _snippet_problems()
    assert "`make no-such-target MODEL=x`: the Makefile has no target 'no-such-target'" in problems
    assert not any("'demo'" in p for p in problems)


def test_each_problem_names_its_line():
    problems = page_problems(ROOT / "README.md", SNIPPET)
    assert [p.line for p in problems if p.what.endswith("tests/no_such_test.py")] == [3]
    assert any(p.line == 11 and "--no-such-option" in p.what for p in problems)


def test_github_anchors():
    assert slug("6. What a tool mode costs (issue 16)") == "6-what-a-tool-mode-costs-issue-16"
    assert slug("The world model (`--world-model on`)") == "the-world-model---world-model-on"
    assert anchors("# A\n## B\n## B\n```\n# not a heading\n```\n") == {"a", "b", "b-1"}

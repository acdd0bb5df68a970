"""What the bundled engine says when the rules brain cannot help: its instruction list
and how to connect a real provider. One place, so docs/brains.md and the answer agree."""

from __future__ import annotations

INSTRUCTIONS: tuple[tuple[str, str], ...] = (
    ("rename foo to bar", "rename a symbol (identifiers only, not strings or comments)"),
    ("replace 'a' with 'b' [in foo.py]", "replace quoted text literally"),
    ("remove print calls / remove console.log", "delete print / console.log statements"),
    ("add import os [to foo.py]", "add an import after the existing ones"),
    ("add a docstring to foo", "document a function or class"),
    ("delete the function foo / remove foo", "delete a function or class"),
    ("add a parameter x[=1] to foo", "add a parameter (python, js/ts, go, rust)"),
    ("explain foo.py", "a structural summary: imports, definitions and their lines"),
    ("run the tests / run `make lint`", "run it (spark --commands ask|sandbox), say how it went"),
    ("run the tests and fix what fails", "fix names a rename left stale, run them again"),
)

PROVIDERS = (
    "For anything else, connect a real model: `--provider openai` (with OPENAI_API_KEY), "
    "`--provider cerebras` (CEREBRAS_API_KEY) or `--provider openai-compatible --base-url URL` "
    "(SPARK_API_KEY), e.g. `spark edit app.py -m \"...\" --provider openai`; "
    "see docs/providers.md."
)


def help_lines(reason: str, *, who: str = "rules brain",
               extra: tuple[tuple[str, str], ...] = ()) -> list[str]:
    """The explanation, one line per item, each ending with a newline (``extra``: a
    brain's own instructions, listed first)."""
    lines = [reason.rstrip() + "\n", "\n",
             f"The bundled engine ({who}) understands these instructions, over the "
             "files included in the request:\n"]
    known = extra + INSTRUCTIONS
    width = max(len(example) for example, _ in known)
    lines += [f"- `{example}`{' ' * (width - len(example))}  {what}\n"
              for example, what in known]
    lines += ["\n", "Name the file in the instruction (`in app.py`) when several files are "
              "included.\n", PROVIDERS + "\n"]
    return lines

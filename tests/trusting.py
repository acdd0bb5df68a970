"""Trusting a test repo's project files, as `spark trust --yes` does (tests import it as
``from trusting import trust``): a test whose project config must be honoured trusts it
after writing it. The store is the one ``env`` (else the process's environment) names, and
it must name one: a test never touches the user's state dir."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from spark_cli.session.config.trust import set_trust, trust_state


def trust(root: Path, env: Mapping[str, str] | None = None) -> None:
    """Trust the project files of the repo at ``root`` as they are now."""
    env = os.environ if env is None else env
    assert env.get("SPARK_STATE_DIR"), "a test's trust store needs SPARK_STATE_DIR"
    state = trust_state(root, env)
    assert state.status != "none", f"no project files in {root} to trust"
    set_trust(state, True, env)


def state_env(**extra: str) -> dict[str, str]:
    """The variables naming this test run's state dir (for a test's own ``env``), plus ``extra``."""
    return {"SPARK_STATE_DIR": os.environ["SPARK_STATE_DIR"], **extra}


def write_project(root: Path, text: str) -> Path:
    """Write the repo's ``.spark/config.toml`` and trust it; its path."""
    path = Path(root) / ".spark" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    trust(root)
    return path

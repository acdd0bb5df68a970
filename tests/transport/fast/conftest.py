"""The fast path's own tests: skipped under ``SPARK_PLAIN`` (the tricks they hold are off)."""

from spark_cli.transport.fast import TRICKS, on

collect_ignore_glob = [] if all(on(trick) for trick in TRICKS) else ["test_*.py"]

"""Which current lines did the user change, and does a hunk touch them?"""

from __future__ import annotations

from spark_cli.edits.locate.placement import Region, changed_regions, line_span


def test_changed_regions_in_current_coordinates() -> None:
    seen = "a\nb\nc\nd\n"
    assert changed_regions(seen, seen) == []
    assert changed_regions(seen, "a\nB\nc\nd\n") == [Region(1, 2)]
    assert changed_regions(seen, "new\na\nb\nc\nd\n") == [Region(0, 1)]
    assert changed_regions(seen, "a\nd\n") == [Region(1, 1)]  # deletion point


def test_overlaps() -> None:
    edited = Region(3, 5)
    assert edited.overlaps(4, 6) and edited.overlaps(0, 4)
    assert not edited.overlaps(0, 3) and not edited.overlaps(5, 9)
    assert edited.overlaps(3, 3) and edited.overlaps(5, 5)  # insertion at its edge
    deleted = Region(4, 4)
    assert deleted.overlaps(3, 6) and not deleted.overlaps(4, 6) and not deleted.overlaps(0, 4)


def test_describe_is_one_based() -> None:
    assert Region(11, 14).describe() == "lines 12-14"
    assert Region(0, 1).describe() == "line 1"
    assert Region(4, 4).describe() == "around line 5"


def test_line_span() -> None:
    text = "a\nbb\nccc\n"
    assert line_span(text, 0, 2) == (0, 1)
    assert line_span(text, 2, 9) == (1, 3)
    assert line_span(text, 5, 5) == (2, 2)


def test_changed_regions_cover_every_user_line() -> None:
    import random

    rng = random.Random(3)
    for _ in range(500):
        seen = [rng.choice("abcd") for _ in range(rng.randint(0, 25))]
        current = list(seen)
        for _ in range(rng.randint(1, 3)):
            spot = rng.randint(0, len(current))
            if rng.random() < 0.5 and current[spot:]:
                del current[spot]
            else:
                current.insert(spot, "X")  # a line the model never saw
        got = changed_regions("\n".join(seen), "\n".join(current))
        covered = {j for r in got for j in range(r.start, r.end)}
        assert all(j in covered for j, line in enumerate(current) if line == "X")
        # what is left outside the regions is text the model saw, in order
        rest = iter(seen)
        assert all(any(line == s for s in rest)
                   for j, line in enumerate(current) if j not in covered)

"""Ranking, value in value out: the PageRank walk and the definitions it ranks."""

from __future__ import annotations

import pytest

from spark_cli.session.context.rank import TOO_COMMON, name_weight, pagerank, rank_definitions
from spark_cli.session.context.tags import Definition, FileTags


def _defs(*names: str) -> tuple[Definition, ...]:
    return tuple(Definition(n, "function", i, f"def {n}():") for i, n in enumerate(names))


def test_pagerank_favours_the_node_everyone_points_at() -> None:
    edges = {"a": {"hub": 1.0}, "b": {"hub": 1.0}, "c": {"hub": 1.0}}
    rank = pagerank(edges, ["a", "b", "c", "hub"], {})
    assert max(rank, key=rank.__getitem__) == "hub"
    assert sum(rank.values()) == pytest.approx(1.0)
    assert rank["a"] == pytest.approx(rank["b"]) == pytest.approx(rank["c"])


def test_personalisation_pulls_rank_toward_what_the_restart_node_uses() -> None:
    edges = {"a": {"x": 1.0}, "b": {"y": 1.0}}
    nodes = ["a", "b", "x", "y"]
    toward_a = pagerank(edges, nodes, {"a": 1.0})
    toward_b = pagerank(edges, nodes, {"b": 1.0})
    assert toward_a["x"] > toward_a["y"] and toward_b["y"] > toward_b["x"]


def test_empty_graph_and_isolated_nodes() -> None:
    assert pagerank({}, [], {}) == {}
    rank = pagerank({}, ["a", "b"], {})
    assert rank == {"a": pytest.approx(0.5), "b": pytest.approx(0.5)}


@pytest.mark.parametrize(("name", "mentioned", "definers", "expected"), [
    ("total", (), 1, 1.0),
    ("total_price", (), 1, 10.0),
    ("totalPrice", (), 1, 10.0),
    ("total", ("total",), 1, 10.0),
    ("_total", (), 1, 0.1),
    ("xy", (), 1, 0.1),
    ("total", (), 3, 0.1),
])
def test_name_weight(name: str, mentioned: tuple[str, ...], definers: int,
                     expected: float) -> None:
    assert name_weight(name, mentioned, definers) == pytest.approx(expected)


def _repo() -> dict[str, FileTags]:
    return {
        "pricing.py": FileTags(_defs("apply_discount", "with_tax", "unused_helper"), {}),
        "cart.py": FileTags(_defs("cart_total"), {"apply_discount": 1, "with_tax": 2}),
        "report.py": FileTags(_defs("render"), {"cart_total": 3}),
        "cli.py": FileTags(_defs("main_entry"), {"render": 1}),
    }


def test_rank_definitions_orders_by_references_and_leaves_chat_files_out() -> None:
    ranked = rank_definitions(_repo(), chat=["report.py"])
    paths = [r.path for r in ranked]
    assert "report.py" not in paths
    names = [r.definition.name for r in ranked]
    # report.py (in the chat) uses cart_total: it ranks first; unreferenced definitions last
    assert names[0] == "cart_total"
    assert names.index("with_tax") < names.index("unused_helper")
    assert names.index("apply_discount") < names.index("main_entry")
    assert [r.score for r in ranked] == sorted((r.score for r in ranked), reverse=True)


def test_mentioned_identifier_outranks_an_equal_neighbour() -> None:
    plain = [r.definition.name for r in rank_definitions(_repo(), chat=["cart.py"])]
    assert plain.index("with_tax") < plain.index("apply_discount")  # used twice vs once
    boosted = [r.definition.name for r in rank_definitions(_repo(), chat=["cart.py"],
                                                           mentioned=["apply_discount"])]
    assert boosted.index("apply_discount") < boosted.index("with_tax")


def test_a_name_defined_everywhere_makes_no_edges() -> None:
    tags = {f"m{i}.py": FileTags(_defs("setup"), {}) for i in range(TOO_COMMON + 1)}
    tags["user.py"] = FileTags(_defs("go_now"), {"setup": 5})
    tags["only.py"] = FileTags(_defs("specific_thing"), {})
    tags["user2.py"] = FileTags((), {"specific_thing": 1})
    ranked = rank_definitions(tags)
    assert ranked[0].definition.name == "specific_thing"

from hypothesis import given
from hypothesis import strategies as st

from spark_cli.protocol.tokens import count_tokens, split_pieces


def test_pieces_of_code() -> None:
    assert split_pieces("    def foo(bar):\n") == ["    def", " foo", "(", "bar", "):", "\n"]


def test_long_words_split_into_four_character_pieces() -> None:
    assert split_pieces("abcdefghij") == ["abcd", "efgh", "ij"]
    assert count_tokens("abcdefghij") == 3


def test_empty() -> None:
    assert split_pieces("") == []
    assert count_tokens("") == 0


@given(st.text())
def test_pieces_rejoin_to_the_text(text: str) -> None:
    pieces = split_pieces(text)
    assert "".join(pieces) == text
    assert count_tokens(text) == len(pieces)
    assert all(pieces)

"""Secrets.mask: every known secret and every long secret's tail masked, longest first."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from spark_cli.protocol.secrets import MASK, NO_SECRETS, Secrets

OPENAI = "sk-test-0123456789abcdefXYZ"
OTHER = "sk-other-ABCDEFGHIJKLMNOP"


def test_every_secret_is_masked_not_only_the_first() -> None:
    text = f"keys {OPENAI} and {OTHER} refused"
    assert Secrets([OPENAI, OTHER]).mask(text) == f"keys {MASK} and {MASK} refused"


def test_a_quoted_tail_of_a_long_key_is_masked() -> None:
    assert Secrets([OPENAI]).mask("key ending in …bcdefXYZ") == f"key ending in …{MASK}"


def test_a_key_containing_another_is_masked_whole() -> None:
    inner = "abcdefgh"
    outer = f"zz-{inner}-0123456789"
    assert Secrets([inner, outer]).mask(f"[{outer}] [{inner}]") == f"[{MASK}] [{MASK}]"


def test_short_empty_and_missing_values_are_not_secrets() -> None:
    secrets = Secrets(["abc", "", None])
    assert not secrets
    assert secrets.mask("abc def") == "abc def"
    assert NO_SECRETS.mask("anything") == "anything"


def test_union_keeps_both_sets() -> None:
    both = Secrets([OPENAI]) | Secrets([OTHER])
    assert OPENAI not in both.mask(OPENAI + OTHER) and OTHER not in both.mask(OTHER)


def test_repr_never_shows_a_secret() -> None:
    assert OPENAI not in repr(Secrets([OPENAI])) and "bcdefXYZ" not in repr(Secrets([OPENAI]))


_NO_STAR = st.characters(blacklist_characters="*")  # a mask next to a "*" could rebuild one


@given(st.text(_NO_STAR, min_size=4, max_size=30), st.text(max_size=40), st.text(max_size=40))
def test_no_secret_survives_masking(secret: str, before: str, after: str) -> None:
    masked = Secrets([secret]).mask(before + secret + after)
    assert secret not in masked

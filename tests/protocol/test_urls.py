import pytest

from spark_cli.protocol.secrets import mask_url, mask_urls_in


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://u:s3cr3tpass@host:8000/v1", "http://***@host:8000/v1"),
        ("https://TOKEN123@api.example.test/v1?x=1", "https://***@api.example.test/v1?x=1"),
        ("ws://a:b@127.0.0.1:9/v1/responses", "ws://***@127.0.0.1:9/v1/responses"),
        ("http://localhost:11434/v1", "http://localhost:11434/v1"),
        ("https://api.example.test/v1/a@b", "https://api.example.test/v1/a@b"),
    ],
)
def test_userinfo_is_masked_and_nothing_else_changes(url: str, shown: str) -> None:
    assert mask_url(url) == shown


def test_a_password_inside_error_text_is_masked() -> None:
    url = "http://u:s3cr3tpass@host/v1"
    text = "cannot connect to http://u:s3cr3tpass@host/v1: refused (s3cr3tpass)"
    masked = mask_urls_in(text, url)
    assert "s3cr3tpass" not in masked and "***@host" in masked

"""Showing a URL safely: credentials in its userinfo (``http://user:pass@host``) are masked.

A base URL may carry a password or a token (``https://TOKEN@host/v1``); every
place that shows one (``spark config``, error messages) goes through
:func:`mask_url` so the secret never reaches a terminal or a log.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

MASK = "***"


def mask_url(url: str) -> str:
    """``url`` with its whole userinfo replaced by ``***`` (unchanged when it has none)."""
    if "@" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return _mask_text(url)
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, f"{MASK}@{host}", parts.path, parts.query, parts.fragment))


def mask_urls_in(text: str, url: str) -> str:
    """``text`` with the userinfo of ``url`` masked wherever it appears (error details)."""
    try:
        netloc = urlsplit(url).netloc
    except ValueError:
        return _mask_text(text)
    userinfo = netloc.rpartition("@")[0]
    if not userinfo:
        return text
    text = text.replace(userinfo + "@", MASK + "@")
    password = userinfo.partition(":")[2]
    return text.replace(password, MASK) if len(password) >= 4 else text


def _mask_text(text: str) -> str:
    """Best effort for text that does not parse: drop anything between ``//`` and ``@``."""
    head, sep, rest = text.partition("//")
    if not sep or "@" not in rest.split("/", 1)[0]:
        return text
    return head + sep + MASK + "@" + rest.split("@", 1)[1]

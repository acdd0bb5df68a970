"""Model channels behind :mod:`spark_cli.protocol.channel`, built by :func:`.factory.open_channel`.

The start-up fast path lives in :mod:`.fast` (off with ``SPARK_PLAIN``); the rest is the plain
path. Nothing here prints; keys never appear in messages, URLs are shown masked."""

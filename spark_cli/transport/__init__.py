"""Model channels behind the one interface in :mod:`spark_cli.protocol.channel`.

Build them with :func:`spark_cli.transport.factory.open_channel`:
``responses_ws`` (:mod:`.websocket`, the fast persistent channel),
``chat_sse`` (:mod:`.http_chat`) and ``responses_sse`` (:mod:`.http_responses`).
Shared parts: :mod:`.retry` (waits and retries), :mod:`.errors` (provider errors),
:mod:`.responses_fold` (Responses events), :mod:`.http_stream`, :mod:`.ws_links`,
:mod:`.idle`. Nothing here prints; keys never appear in messages or logs.
"""

"""Model channels behind the one interface in :mod:`spark_cli.protocol.channel`.

Build them with :func:`spark_cli.transport.factory.open_channel`:
``responses_ws`` (:mod:`.ws.websocket`, the fast persistent channel),
``chat_sse`` (:mod:`.sse.http_chat`) and ``responses_sse`` (:mod:`.sse.http_responses`).
Shared parts: :mod:`.bodies` (what a turn sends), :mod:`.retry` (waits and retries),
:mod:`.errors` (provider errors), :mod:`.responses_fold` (Responses events),
:mod:`.reading` (what both read loops decide), :mod:`.sse.http_stream` (the SSE channels'
base) over the client seam :mod:`.http_route` (:mod:`.httpx_client`, or the lean one),
:mod:`.ws.ws_links` (connections), :mod:`.ws_wire` (frames), :mod:`.silence` (timeouts);
the start-up fast path (off with ``SPARK_PLAIN``): :mod:`.fast`. Nothing here prints; keys
never appear in messages or logs, and URLs are shown with their credentials masked.
"""

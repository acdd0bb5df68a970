"""The interactive front end: `spark` in a repo opens this Textual app.

``app.SparkApp`` is the screen; it holds a session (``spark_cli.session.api.SessionApi``)
and an ``Interaction`` over it, and hands each concern to a small controller that owns its
state: ``commands/`` (slash commands, ``/test``, the queue, the files sent), ``prompt/``
(the input and its completion), ``deep/`` (the deep track), ``link.ProviderLink`` (the
channel), ``keeper.Keeper`` (what survives a restart). ``transcript/`` turns session
events into frames. The TUI never imports transports: the CLI (``spark_cli.cli.tui_cmd``)
wires them in.
"""

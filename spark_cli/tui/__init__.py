"""The interactive front end: `spark` in a repo opens this Textual app.

``app.SparkApp`` is the screen (the transcript, the queue, the prompt, the HUD, the keys);
it holds a session (``spark_cli.session.api.SessionApi``) and an ``Interaction`` over it,
and hands each concern to a small controller that owns its state and gets only what it
needs: ``commands.Commands`` (slash commands), ``test_command.TestRunner`` (``/test``,
``/fix``), ``deep_track.DeepController`` (the deep track), ``queue_panel.QueuePanel``,
``prompt_assist.PromptAssist`` (completion, ``@`` files), ``link.ProviderLink`` (the
channel), ``keeper.Keeper`` (what survives a restart). ``painter.Painter`` turns session
events into frames. The TUI never imports transports: the CLI
(``spark_cli.cli.tui_cmd``) wires them in.
"""

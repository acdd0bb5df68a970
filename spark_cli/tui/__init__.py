"""The interactive front end: `spark` in a repo opens this Textual app (``app.SparkApp``),
with a controller per concern (``commands/``, ``prompt/``, ``deep/``, ``link``, ``keeper``) and
``transcript/`` turning session events into frames; transports come from the CLI."""

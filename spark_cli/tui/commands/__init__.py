"""Slash commands and the controllers they drive: ``/test``, ``/call``, ``/copy``, the
files every turn sends, the queue, and the yes a command waits on."""

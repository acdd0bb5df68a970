"""The engine's Responses and Chat Completions codecs. Imports only spark_cli.protocol."""

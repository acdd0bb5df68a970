"""The engine's Responses and Chat Completions codecs: requests parsed and refused, and a
generation's events and chunks as text ready to send. Imports only spark_cli.protocol."""

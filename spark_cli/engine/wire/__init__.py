"""How a generation looks on the wire: Responses events and Chat Completions chunks, as text ready
to send. Imports only spark_cli.protocol."""

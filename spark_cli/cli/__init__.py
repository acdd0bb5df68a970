"""Typer entry points and the one place that wires concrete parts together."""

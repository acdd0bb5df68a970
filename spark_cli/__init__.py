"""spark: a terminal pair programmer for fast (1000+ tokens/s) coding models."""

__version__ = "0.1.0"

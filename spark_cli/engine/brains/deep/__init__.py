"""The ``deep`` brain (``spark-deep``): a slower, more thorough model over the rules brain's
instructions, with multi-file changes and multi-step tasks."""

"""The ``deep`` brain (``spark-deep``): multi-file, multi-step answers over the rules
brain's instructions."""

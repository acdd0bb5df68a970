"""Settings: presets, config files, flags and environment, resolved."""

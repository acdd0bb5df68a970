"""The deep track: a slow, long-horizon model working in the background on a snapshot
(UI-free API for the TUI and ``spark edit --deep``, docs/providers.md)."""

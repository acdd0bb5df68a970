"""The model's window, on the session's side (the wire's side is ``transport/window``).

- :mod:`.facts`: where the window comes from (configured, known hosted models, what the
  server states, a window learned at an overflow) and the per-server cache; a learned
  window is a hint for trimming, a stated one a limit;
- :mod:`.learning`: what an overflow answer teaches, the one resend after it (both front
  ends), and the server's own count of a request;
- :mod:`.plan`: what a request carries at each window size (small windows drop the map,
  the tool specs, the long system prompt) and the budget it is checked against.
"""

"""The model's window on the session's side: where it comes from, what an overflow teaches,
what a request carries at each size (the wire's side is ``transport/window``)."""

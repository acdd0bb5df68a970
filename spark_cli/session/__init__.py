"""One conversation: request building, turns, interrupt/redirect/queue, state."""

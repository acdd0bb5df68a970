"""What the engine is, whatever the protocol: settings, shared state, capacity, faults, and
one paced generation."""

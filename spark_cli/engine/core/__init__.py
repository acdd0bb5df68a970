"""What the engine is, whatever the protocol: settings, shared state, the wafer's capacity and
token bucket, faults, and one paced generation (brain text -> token pieces -> safe points)."""

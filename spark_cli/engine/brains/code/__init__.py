"""What the rules brain knows about code: syntax trees, signatures, and the edit text (minimal
hunks, either format) it writes."""

"""`spark bench stream`: spark's CPU on a stream against the floor."""

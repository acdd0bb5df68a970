"""`spark bench provider`: what a provider and its network give."""

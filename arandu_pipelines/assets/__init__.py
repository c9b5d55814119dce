"""assets layer."""

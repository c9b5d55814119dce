"""sensors layer."""

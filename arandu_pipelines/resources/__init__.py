"""resources layer."""

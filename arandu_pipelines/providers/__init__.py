"""LLM and embedding providers. Anything with the protocol's methods works too."""

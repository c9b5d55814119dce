"""LLM and embedding providers. Anything with the protocol's methods works too."""

from arandu_pipelines.providers.local_embeddings import LocalEmbeddings
from arandu_pipelines.providers.openai import OpenAIProvider

__all__ = ["LocalEmbeddings", "OpenAIProvider"]

"""LLM and embedding providers. Anything with the protocol's methods works too.

`AnthropicProvider` (providers/anthropic.py) needs the `anthropic` package; import it from its
module (`from arandu_pipelines.providers.anthropic import AnthropicProvider`)."""

from arandu_pipelines.providers.local_embeddings import LocalEmbeddings
from arandu_pipelines.providers.openai import OpenAIProvider

__all__ = ["LocalEmbeddings", "OpenAIProvider"]

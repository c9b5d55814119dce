"""Issue 17 item 4: one error hierarchy rooted in AranduError, the spec's names importable, the
errors that are actually raised inside it, and every public MemoryClient method says what it
raises."""

from __future__ import annotations

import asyncio
import inspect

import pytest

import arandu_pipelines
from arandu_pipelines import errors
from arandu_pipelines.client import MemoryClient

SPEC_NAMES = ["MemoryError", "ExtractionError", "ResolutionError", "ReconciliationError",
              "RetrievalError", "UpsertError"]   # spec 004, "Exceptions"


def test_every_class_in_errors_subclasses_the_base() -> None:
    classes = [v for v in vars(errors).values()
               if inspect.isclass(v) and issubclass(v, BaseException)]
    assert len(classes) >= 12
    for cls in classes:
        assert issubclass(cls, errors.AranduError), cls.__name__


@pytest.mark.parametrize("name", SPEC_NAMES + ["AranduError", "ValidationError", "ProviderError",
                                               "LLMCallError", "DatabaseError"])
def test_spec_names_import_from_the_package(name: str) -> None:
    cls = getattr(arandu_pipelines, name)
    assert cls is getattr(errors, name)
    assert issubclass(cls, arandu_pipelines.MemoryError)


def test_memory_error_is_the_base_not_the_builtin() -> None:
    assert errors.MemoryError is errors.AranduError
    import builtins

    assert errors.MemoryError is not builtins.MemoryError


def test_a_raised_provider_error_is_an_arandu_error() -> None:
    """A real failing call (nothing listens on the port), not a hand-built instance."""
    from arandu_pipelines.providers.openai import OpenAIProvider, ProviderError

    provider = OpenAIProvider(api_key="k", base_url="http://127.0.0.1:9/v1", max_retries=0,
                              timeout=2)
    with pytest.raises(errors.AranduError) as info:
        asyncio.run(provider.complete([{"role": "user", "content": "hi"}]))
    assert isinstance(info.value, ProviderError)
    assert isinstance(info.value, RuntimeError)   # unchanged for callers catching RuntimeError


def test_a_raised_llm_call_error_is_an_arandu_error() -> None:
    from arandu_pipelines.providers.json_parse import LLMCallError, complete_json

    class Broken:
        async def complete(self, *a: object, **k: object) -> object:
            raise ConnectionError("down")

    with pytest.raises(errors.AranduError) as info:
        asyncio.run(complete_json(Broken(), [{"role": "user", "content": "x"}], timeout=2))
    assert isinstance(info.value, LLMCallError) and info.value.kind == "provider"


def test_every_public_client_method_documents_what_it_raises() -> None:
    missing = [name for name, fn in vars(MemoryClient).items()
               if not name.startswith("_") and inspect.isfunction(fn)
               and "Raises:" not in (fn.__doc__ or "")]
    assert missing == []


def test_plan_validation_error_is_in_the_hierarchy():
    from arandu_pipelines.errors import AranduError, PlanValidationError
    from arandu_pipelines.read import planner_llm

    assert planner_llm.PlanValidationError is PlanValidationError
    assert issubclass(PlanValidationError, AranduError) and issubclass(PlanValidationError, ValueError)

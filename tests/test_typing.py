"""The public surface's types, as a caller's type checker sees them (mypy runs in .ci/run; these
pin the points that used to leak `Any`: the sync facade's methods and the write stages' hooks)."""

from __future__ import annotations

import dataclasses
import inspect
import typing

from arandu_pipelines import MemoryClient, SyncMemoryClient
from arandu_pipelines.read.types import RetrieveResult
from arandu_pipelines.write.extract import StageHooks


def _public_async_methods() -> list[str]:
    return [name for name, fn in inspect.getmembers(MemoryClient, inspect.iscoroutinefunction)
            if not name.startswith("_") and name != "close"]


def test_sync_client_declares_every_public_method_with_its_signature() -> None:
    """Each async method of MemoryClient is a real, typed method of SyncMemoryClient (not only
    reached through `__getattr__`, which a type checker sees as returning Any)."""
    for name in _public_async_methods():
        assert name in vars(SyncMemoryClient), f"SyncMemoryClient.{name} is not declared"
        sync, async_ = getattr(SyncMemoryClient, name), getattr(MemoryClient, name)
        assert not inspect.iscoroutinefunction(sync), name
        assert inspect.signature(sync) == inspect.signature(async_), name


def test_sync_retrieve_is_typed_retrieve_result() -> None:
    hints = typing.get_type_hints(SyncMemoryClient.retrieve)
    assert hints["return"] is RetrieveResult
    assert typing.get_type_hints(MemoryClient.retrieve)["return"] is RetrieveResult


def test_stage_hooks_fields_are_typed() -> None:
    """No hook is annotated Any: a wrong hook (e.g. a sync extractor) is a type error."""
    for f in dataclasses.fields(StageHooks):
        assert f.type not in ("Any", typing.Any), f"StageHooks.{f.name} is typed Any"

"""Alembic environment: always run against a connection handed in by `store.migrate`."""

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - the CLI path
    raise RuntimeError("run migrations through arandu_pipelines.store.migrate.upgrade()")

context.configure(connection=connection, target_metadata=None, transactional_ddl=True)
with context.begin_transaction():
    context.run_migrations()

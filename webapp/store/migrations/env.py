"""Alembic's environment: the store hands it an open connection
(``webapp.store.schema.upgrade``), already holding the lock that makes one
server at a time upgrade."""

from alembic import context

from webapp.store.tables import metadata

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters a table by copying it
)
with context.begin_transaction():
    context.run_migrations()

"""Which extraction rule made a fact: `memory_facts.rule_kind`.

The offline extractor is a table of rule kinds ("verb.move", "generic.speaker.event",
"stance.admires", "speech_act.encourages", "beliefs.general", "mirror", "llm" ...). Keeping the
kind on the row lets a maintainer score precision per kind (`bench/fact_kinds.py`) and tells a
reader where a fact came from. It is not the spec's `value_json` (the attribute's structured
value), so it gets its own column: nullable, no default, so adding it rewrites nothing and rows
written before it (or by callers that do not say) keep NULL.

Revision ID: 0012
"""

from __future__ import annotations

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE memory_facts ADD COLUMN IF NOT EXISTS rule_kind text")


def downgrade() -> None:
    op.execute("ALTER TABLE memory_facts DROP COLUMN IF EXISTS rule_kind")

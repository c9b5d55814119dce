"""Reserved for the read layer's schema additions (empty until it needs any).

Revision ID: 0002
"""

from __future__ import annotations

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass

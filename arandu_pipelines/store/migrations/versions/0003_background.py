"""Reserved for the background layer's schema additions (empty until it needs any).

Revision ID: 0003
"""

from __future__ import annotations

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass

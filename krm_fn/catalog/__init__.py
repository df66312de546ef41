"""Compact catalog -> instancetype families and preferences (owned by the catalog work, issue 5)."""

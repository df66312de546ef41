"""Kubernetes object helpers: plain dicts, field paths, API constants."""

"""Preferences: applied only where the VM left a value unset (``pkg/instancetype/preference``)."""

"""The preference validating webhook (``pkg/instancetype/preference/webhooks``): :mod:`.admitter`."""

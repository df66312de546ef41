"""Apply a preference spec to a VMI spec (``pkg/instancetype/preference/apply``): one module per field group, :mod:`.vmi` runs them in KubeVirt's order."""

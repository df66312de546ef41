"""Apply an instancetype and a preference to a VMI spec (``pkg/instancetype/apply``): one module per field group, :mod:`.vmi` runs them in KubeVirt's order."""

"""KubeVirt's storage admission rules (``pkg/storage/admitters``), one module per upstream file."""

"""kubevirt-krm: a KRM function for KubeVirt instancetypes, preferences and VirtualMachines."""

__version__ = "0.1.0"

"""KubeVirt semantics only, mirroring kubevirt/kubevirt pkg/instancetype (see docs/architecture.md)."""

"""The instancetype and preference parts of KubeVirt's VM webhooks (``pkg/instancetype/webhooks/vm``)."""

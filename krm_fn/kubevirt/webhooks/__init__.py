"""KubeVirt's admission webhooks for VMs, instancetypes and preferences."""

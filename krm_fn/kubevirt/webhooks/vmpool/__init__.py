"""The VirtualMachinePool validating webhook (``pkg/virt-api/webhooks/validating-webhook/admitters/vmpool-admitter.go``)."""

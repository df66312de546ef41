"""The VMI webhooks' rules the VM validating webhook applies to a VM's template (``validating-webhook/admitters``)."""

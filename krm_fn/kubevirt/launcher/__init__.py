"""The virt-launcher pod virt-controller renders for a VMI (``pkg/virt-controller/services``)."""

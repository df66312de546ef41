"""What starting the VMs costs (issue 37): each VM's launcher pod (:mod:`krm_fn.capacity.pods`), the sums per
namespace against its ResourceQuotas and LimitRanges (:mod:`krm_fn.capacity.namespaces`) and the report
(:mod:`krm_fn.capacity.report`) that the ``resources`` command (:mod:`krm_fn.cli.capacity`) prints."""

"""KubeVirt's instancetype webhooks (``pkg/instancetype/webhooks``): the validating webhook for instancetype
objects (:mod:`.admitter`), the VM's mutator and admitter (:mod:`.vm`), and :mod:`.admission` for a whole
instancetype or preference object as the cluster takes it (the API server's stages, then the object's webhook;
the preference objects' webhook is :mod:`krm_fn.kubevirt.preference.webhooks.admitter`).

Validators are pure functions over plain dicts answering with :class:`krm_fn.kube.status.Cause` values, never
raising on any input.
"""

"""Find the instancetype / preference a VM's matcher refers to (``pkg/instancetype/find``,
``pkg/instancetype/preference/find``): ``revisionName`` first, then a status ref whose revision belongs to
the matcher's object, then the live object by kind (items first, then the catalog).

One package serves both families: upstream's two find packages are the same code over two Go types, here the
family (:data:`krm_fn.kube.api.Family`) is a parameter, and what differs (the kinds a matcher may name, the status
ref) is a table keyed by it.

A spec is read as the target release's Go types decode it (``tag``, :func:`decoded_spec`): a field that release
does not know is not there (a v1.8 cluster drops a preference's ``preferredVideoType`` and never applies it)."""

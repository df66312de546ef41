"""``VirtualMachineRenderer`` ``mode: migrate`` (and the ``migrate: true`` step of the other modes): rewrite
every legacy instancetype-era object and reference to its v1beta1 equivalent (``docs/migrate.md``).

One module per legacy form: :mod:`.flavor` (``profiles`` flavors), :mod:`.objects` (v1alpha1/v1alpha2 and
``spec`` flavors, deprecated topology values), :mod:`.vm` (``spec.flavor``), :mod:`.revision`
(ControllerRevisions KubeVirt >= v1.7 cannot decode). :mod:`.items` walks the items.

Rules (as :class:`krm_fn.render.rendering.Rendering`): input dicts are never mutated; an unchanged item is returned as
the same object, a changed one is a new dict; names, labels and path/index annotations are kept (a rewritten
ControllerRevision gets a new name, see the docs); one ``warning`` result per rewrite, one ``error`` for what
needs a decision (that object is left unchanged); migrating migrated output changes nothing.
"""

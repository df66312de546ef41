"""``VirtualMachineRenderer``: pin VMs to ControllerRevisions (``revisions``, the default), expand them
(``expand``), only check them (``validate``), or rewrite legacy objects to v1beta1 (``migrate``, also a step
the other modes run first with ``migrate: true``; ``krm_fn.render.migrate``).

Rules (``docs/architecture.md``): never mutate an input dict; an unchanged item is returned as the same
object; a changed item is a new dict; generated ControllerRevisions come after the input items, in the
order they are first needed; a VM KubeVirt would reject stays unchanged and gets an error result, and
processing continues.

A run is three phases (:class:`krm_fn.render.rendering.Rendering`): the whole list prepared (migrate,
namespaces of cluster-scoped objects, admission of the instancetypes and preferences among the items), each
item rendered on its own (:mod:`krm_fn.render.items`), then what depends on the order (``Rendering.finish``).
The core (``krm_fn.process``) may render the items on two processes between the first and the last phase.
"""

# Nothing is imported here: ``krm_fn.render.spec`` is read by every run's config check (start-up time), and a
# package imports its __init__ first.

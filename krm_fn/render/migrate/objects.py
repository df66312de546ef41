"""Instancetype and preference objects: ``instancetype.kubevirt.io/v1alpha1|v1alpha2``, the ``spec`` form of
``flavor.kubevirt.io/v1alpha1`` flavors and preferences, and v1beta1 preferences with a deprecated
``preferredCPUTopology`` value. (The ``profiles`` form of a flavor is :mod:`krm_fn.render.migrate.flavor`.)

Names, labels, annotations (path/index) and the key order are kept; the spec changes only where
:func:`~krm_fn.render.migrate.common.legacy_spec` says.
"""

from __future__ import annotations

from krm_fn.kube.api import INSTANCETYPE_API_VERSION
from krm_fn.kube.paths import Obj
from krm_fn.render.migrate.common import (
    current_kind,
    describe,
    family_of,
    legacy_spec,
    modern_spec,
    target_kind,
    warn,
    with_type,
)
from krm_fn.results import Result


def convert_object(obj: Obj) -> tuple[Obj, list[Result]]:
    """``obj`` as v1beta1 (the same object when it already is, with nothing deprecated), and one warning per
    rewrite. Only for objects :func:`current_kind` knows, without a flavor ``profiles`` list."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    new_kind = current_kind(api_version, kind)
    family = family_of(new_kind) if new_kind else None
    if new_kind is None or family is None:
        return obj, []
    spec = obj.get("spec")
    if target_kind(api_version, kind) is None:  # already v1beta1
        new_spec, notes = modern_spec(spec, family)
        if not notes:
            return obj, []
        new = {**obj, "spec": new_spec}
        return new, [warn(new, n.message, n.field_path) for n in notes]
    new_spec, notes = legacy_spec(spec, family, str(api_version))
    new = with_type(obj, INSTANCETYPE_API_VERSION, new_kind)
    if "spec" in obj:
        new["spec"] = new_spec
    results = [warn(new, f"{describe(api_version, kind)} rewritten as {describe(INSTANCETYPE_API_VERSION, new_kind)}",
                    "apiVersion")]
    return new, results + [warn(new, n.message, n.field_path) for n in notes]

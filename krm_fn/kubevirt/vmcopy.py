"""Copies of a VM just deep enough for what expand and admission change in place; everything else is
shared with the original, which neither may change."""

from __future__ import annotations

from krm_fn.kube.paths import Obj, copy_json


def expand_copy(vm: Obj) -> Obj:
    """A copy for :func:`krm_fn.kubevirt.expand.expand`: ``spec``/``status`` shallowly, the template as
    :func:`template_copy`."""
    out = dict(vm)
    spec = vm.get("spec")
    if isinstance(spec, dict):
        out["spec"] = {**spec, "template": template_copy(spec.get("template") or {})}
    if isinstance(vm.get("status"), dict):
        out["status"] = dict(vm["status"])
    return out


def template_copy(template: object) -> Obj:
    """A copy of a VM template for expand and admission, which change (in place) only
    ``metadata.annotations``, top-level keys of ``spec``, anything under ``spec.domain`` and the
    ``containerDisk`` of volumes (pull policy)."""
    if not isinstance(template, dict):
        out: Obj = copy_json(template)
        return out
    out = dict(template)
    meta = template.get("metadata")
    if isinstance(meta, dict):
        meta = out["metadata"] = dict(meta)
        annotations = meta.get("annotations")
        if isinstance(annotations, dict):
            meta["annotations"] = dict(annotations)
    vmi = template.get("spec")
    if isinstance(vmi, dict):
        vmi = out["spec"] = dict(vmi)
        if "domain" in vmi:
            vmi["domain"] = copy_json(vmi["domain"])
        volumes = vmi.get("volumes")
        if isinstance(volumes, list):
            vmi["volumes"] = [
                {**v, "containerDisk": dict(v["containerDisk"])}
                if isinstance(v, dict) and isinstance(v.get("containerDisk"), dict) else v
                for v in volumes
            ]
    return out

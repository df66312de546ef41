"""Objects that carry a VirtualMachine instead of being one (issue 25): what KubeVirt would be asked to admit
from each, and where the answer goes.

* A ``VirtualMachinePool`` (``pool.kubevirt.io`` v1alpha1, v1beta1) creates every replica from
  ``spec.virtualMachineTemplate``: a VM named after the pool (the controller adds an index), in the pool's
  namespace, with the template's labels and annotations and a copy of its spec. That VM goes through the mode;
  expand and revisions write its spec back into the template (one pin that every replica shares: docs/revisions.md).
* A ``VirtualMachineTemplate`` (``template.kubevirt.io``, kubevirt/virt-template: ``spec.virtualMachine``,
  ``spec.parameters``) and an OpenShift ``Template`` (``template.openshift.io/v1``: the VMs among ``objects``,
  ``parameters``) are processed as ``virttemplatectl process`` / ``oc process`` would with the values given
  (the template's ``value``s, then the renderer's ``spec.templateParameters``): ``${NAME}`` replaced in strings,
  a whole ``${{NAME}}`` by the value read as JSON. The VM that results is checked; the template is written
  back unchanged in every mode. A VM that uses a parameter without a value is not checked: an ``info`` result
  names those parameters.

Results about a carried VM are moved onto the carrier: its resourceRef and file, the field path prefixed with
where the VM lies in it (``spec.virtualMachineTemplate.spec.instancetype``, ``objects[0].spec.instancetype``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final, NamedTuple

from krm_fn.index import is_vm
from krm_fn.kube.api import (
    KIND_OPENSHIFT_TEMPLATE,
    KIND_POOL,
    KIND_VM,
    KIND_VM_TEMPLATE,
    OPENSHIFT_TEMPLATE_API_VERSION,
    POOL_API_VERSIONS,
    VM_API_VERSION,
    VM_TEMPLATE_GROUP,
)
from krm_fn.kube.identity import group_of
from krm_fn.kube.paths import Obj, get2
from krm_fn.results import FileRef, ResourceRef, Result

POOL_TEMPLATE: Final = "spec.virtualMachineTemplate"
VM_TEMPLATE_VM: Final = "spec.virtualMachine"
# OpenShift's parameter references (the template library virttemplatectl shares): ${NAME} in a string, and
# ${{NAME}} (a whole string: the value as JSON, so a number stays a number)
_REFERENCE: Final = re.compile(r"\$\{\{([A-Za-z0-9_]+)\}\}|\$\{([A-Za-z0-9_]+)\}")


class Carried(NamedTuple):
    """One VM a carrier holds: ``vm`` as KubeVirt would be asked to admit it (None when parameters without a
    value, ``unset``, keep it from being built), ``path`` where it lies in the carrier, ``written``: whether the
    carrier takes the rendered VM's spec back (a pool; a template is written back unchanged)."""

    vm: Obj | None
    path: str
    unset: tuple[str, ...] = ()
    written: bool = False


def carried(item: Obj, values: Mapping[str, str]) -> list[Carried] | None:
    """The VMs ``item`` carries, or None when it is no carrier. ``values``: the renderer's template parameter
    values (``spec.templateParameters``), over each template's own."""
    kind = item.get("kind")
    api_version = item.get("apiVersion")
    if kind == KIND_POOL and api_version in POOL_API_VERSIONS:
        template = get2(item, "spec", "virtualMachineTemplate")
        return [Carried(pool_vm(item, template), POOL_TEMPLATE, written=True)] if isinstance(template, dict) else []
    if kind == KIND_VM_TEMPLATE and group_of(api_version) == VM_TEMPLATE_GROUP:
        spec = item.get("spec")
        if not isinstance(spec, dict) or not isinstance(spec.get("virtualMachine"), dict):
            return []
        params = _parameters(spec.get("parameters"), values)
        return [processed(item, spec["virtualMachine"], params, VM_TEMPLATE_VM)]
    if kind == KIND_OPENSHIFT_TEMPLATE and api_version == OPENSHIFT_TEMPLATE_API_VERSION:
        objects = item.get("objects")
        if not isinstance(objects, list):
            return []
        params = _parameters(item.get("parameters"), values)
        return [processed(item, obj, params, f"objects[{i}]") for i, obj in enumerate(objects) if is_vm(obj)]
    return None


def pool_vm(pool: Obj, template: Obj) -> Obj:
    """The VM the pool controller creates from ``template``: named after the pool, in its namespace, the
    template's labels and annotations, its spec."""
    meta: Obj = {}
    source = template.get("metadata")
    if isinstance(source, dict):
        meta.update({k: source[k] for k in ("labels", "annotations") if k in source})
    pool_meta = pool.get("metadata")
    if isinstance(pool_meta, dict):
        meta.update({k: pool_meta[k] for k in ("name", "namespace") if k in pool_meta})
    return {"apiVersion": VM_API_VERSION, "kind": KIND_VM, "metadata": meta, "spec": template.get("spec")}


def with_pool_spec(pool: Obj, spec: Any) -> Obj:
    """``pool`` with ``spec`` as its template's spec (a new dict; the input is not touched)."""
    template = pool["spec"]["virtualMachineTemplate"]
    return {**pool, "spec": {**pool["spec"], "virtualMachineTemplate": {**template, "spec": spec}}}


def _parameters(declared: Any, values: Mapping[str, str]) -> dict[str, str | None]:
    """Every declared parameter and its value (the renderer's over the template's; None: no value)."""
    out: dict[str, str | None] = {}
    for param in declared if isinstance(declared, list) else ():
        name = param.get("name") if isinstance(param, dict) else None
        if isinstance(name, str) and name:
            own = param.get("value")
            out[name] = values.get(name, own if isinstance(own, str) and own != "" else None)
    return out


def processed(template: Obj, vm: Obj, params: Mapping[str, str | None], path: str) -> Carried:
    """``vm`` with the parameters replaced, in the template's namespace unless it names its own; or the
    parameters without a value that it uses."""
    unset: set[str] = set()
    out = _substitute(vm, params, unset)
    if unset:
        return Carried(None, path, tuple(sorted(unset)))
    meta = out.get("metadata")
    namespace = get2(template, "metadata", "namespace")
    if namespace and isinstance(meta, dict) and not meta.get("namespace"):
        out["metadata"] = {**meta, "namespace": namespace}
    return Carried(out, path)


def _substitute(value: Any, params: Mapping[str, str | None], unset: set[str]) -> Any:
    """``value`` with every reference to a declared parameter replaced (an undeclared one stays as written, as
    ``oc process`` leaves it); the names of referenced parameters without a value go to ``unset``."""
    if isinstance(value, dict):
        return {k: _substitute(v, params, unset) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, params, unset) for v in value]
    if not isinstance(value, str) or "${" not in value:
        return value
    whole = _REFERENCE.fullmatch(value)
    if whole is not None and whole.group(1) in params:
        given = params[whole.group(1)]
        if given is None:
            unset.add(whole.group(1))
            return value
        try:
            return json.loads(given)
        except ValueError:
            return given

    def one(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name not in params:
            return match.group(0)
        given = params[name]
        if given is None:
            unset.add(name)
            return match.group(0)
        return given

    return _REFERENCE.sub(one, value)


def moved(result: Result, carrier: Obj, path: str) -> Result:
    """A result about a carried VM, as a result about its carrier (resourceRef, file, the path inside it)."""
    field = result.field_path
    return result._replace(resource_ref=ResourceRef.of(carrier), file=FileRef.of(carrier),
                           field_path=f"{path}.{field}" if field else path)


def unchecked(carrier: Obj, one: Carried) -> Result:
    """The ``info`` result for a VM that parameters without a value kept from being checked."""
    names = ", ".join(one.unset)
    return Result.for_object(
        f"the VirtualMachine at {one.path} was not checked: "
        f"parameter{'s' if len(one.unset) > 1 else ''} {names} {'have' if len(one.unset) > 1 else 'has'} no value "
        f"(give one in the template's parameters[].value, or in the renderer's spec.templateParameters as "
        f"NAME=value)", carrier, "info", field_path=one.path, tags=(("stage", "parameters"),))


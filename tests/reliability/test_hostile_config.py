"""Every value we read from the functionConfig and from annotations, walked with hostile values.

The config keys are enumerated from the config dataclasses (both kinds, typed and ConfigMap forms), the
annotations from the code: a new setting or a new annotation read fails this module until it is given a rule
here. Each run goes through ``krm_fn.cli.main`` in-process (stdin/stdout/stderr replaced) and must end with
exit 0 (the value is legitimately accepted: the rule says why) or exit 1 with exactly one readable stderr line
per error result; never "internal error" (exit 2), never a traceback. A few runs go through the real console
script at the end.
"""

from __future__ import annotations

import dataclasses
import gc
import io
import json
import re
import signal
import sys
import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import krm_fn
from krm_fn.cli import main as cli
from krm_fn.catalog.spec import CatalogSpec
from krm_fn.config import camel
from krm_fn.io.loader import load_documents
from krm_fn.kube import api, kpt_annotations
from krm_fn.render.spec import RendererSpec
from krm_fn.kube.api import ANN_SYNC_WAVE
from krm_fn.kubevirt.cluster import SETTING
from tests.builders import run_fn
from tests.reliability.support import assert_one_line_failure

pytestmark = pytest.mark.reliability

FN_API = "kubevirt-krm.dev/v1alpha1"
HUGE_TEXT = "9" * 100_000

# value name -> value. JSON on stdin carries all of them (NUL as \u0000; a lone surrogate as \udc80, which no
# UTF-8 input can hold: it must be refused however the reader lets it in).
HOSTILE: dict[str, Any] = {
    "list": [1],
    "nested": {"a": {"b": [[1]]}},
    "bool": True,
    "float": 1.5,
    "empty": "",
    "arabic-digit": "٣",
    "superscript-digit": "²",
    "nul": "a\x00b",
    "surrogate": "\udc80",
    "huge-text": HUGE_TEXT,
    "huge-number": 10**30,
    "negative": -5,
    "negative-text": "-5",
    "double-dash": "--1",
}
TEXT = {name for name, v in HOSTILE.items() if isinstance(v, str)}
CLEAN_TEXT = TEXT - {"nul", "surrogate"}  # what a string setting may hold at all


# --- running the CLI in-process -----------------------------------------------------------------------------
@dataclasses.dataclass
class Run:
    code: int
    stdout: bytes
    stderr: str

    @property
    def lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.strip()]

    def error_results(self) -> int:
        if not self.stdout:
            return 0
        docs = [d.value for d in load_documents(self.stdout.decode()) if d.value is not None]
        return sum(1 for r in docs[0].get("results") or [] if r.get("severity") == "error")


@pytest.fixture
def main(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Run]]:
    """``krm_fn.cli.main`` on ``stdin`` with captured output; what main() changes in the process (GC, SIGTERM
    handler) is put back."""
    for name in ("KUSTOMIZE_PLUGIN_CONFIG_STRING", "KUSTOMIZE_PLUGIN_CONFIG_ROOT", "KUBEVIRT_KRM_DEBUG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("KUBEVIRT_KRM_WORKERS", "1")
    gc_was_enabled = gc.isenabled()
    sigterm = signal.getsignal(signal.SIGTERM)

    def run(stdin: bytes, args: list[str] | None = None) -> Run:
        out, err = io.BytesIO(), io.BytesIO()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, write_through=True))
        monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace",
                                                            write_through=True))
        try:
            code = cli.main(args or [])
        except SystemExit as exc:
            code = int(exc.code or 0)
        finally:
            if gc_was_enabled:
                gc.enable()
            signal.signal(signal.SIGTERM, sigterm)
        return Run(code, out.getvalue(), err.getvalue().decode("utf-8"))

    yield run


def check(run: Run, expected: int, why: str) -> None:
    """``expected`` exit; on 1, exactly one readable line per error result (one line when nothing is written)."""
    context = f"{why}: exit {run.code}, stderr {run.stderr[:600]!r}"
    assert "internal error" not in run.stderr and "Traceback" not in run.stderr, context
    assert run.code == expected, context
    if expected == 0:
        assert run.lines == [], context
        return
    errors = run.error_results()
    assert len(run.lines) == max(errors, 1), context
    for line in run.lines:
        assert len(line) < 1000 and line.isprintable(), context


def resource_list(fn_config: Any, items: list[Any] | None = None) -> bytes:
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items or [],
          "functionConfig": fn_config}
    return json.dumps(rl).encode()  # ensure_ascii: NUL and lone surrogates as \u escapes


# --- the settings, from the dataclasses ------------------------------------------------------------------
def settings(cls: type[Any], prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    """(dotted key, type) of every leaf setting of ``cls``, as config.load_dataclass reads them."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if not f.metadata.get(SETTING, True):  # read from a KubeVirt item only, not a setting
            continue
        tp = hints[f.name]
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        inner = args[0] if typing.get_origin(tp) in (typing.Union, types.UnionType) and len(args) == 1 else tp
        if isinstance(inner, type) and dataclasses.is_dataclass(inner):
            yield from settings(inner, (*prefix, camel(f.name)))
        else:
            yield ".".join((*prefix, camel(f.name))), tp


KINDS = {"InstancetypeCatalog": CatalogSpec, "VirtualMachineRenderer": RendererSpec}
CATALOG_KEYS = {key for key, _ in settings(CatalogSpec)}
RENDERER_KEYS = {key for key, _ in settings(RendererSpec)}


def accepted(kind: str, key: str, form: str) -> tuple[set[str], str]:
    """The hostile values a setting legitimately accepts, and why. ``form``: typed or configmap (where every
    value is read from text: "" means unset, lists are comma-separated). A key without a rule fails."""
    unset = {"empty"} if form == "configmap" else set()
    renderer_catalog = kind == "VirtualMachineRenderer" and key.startswith("catalog.")
    base = key.removeprefix("catalog.") if renderer_catalog else key
    if base in ("include.series", "include.sizes", "include.preferences", "exclude.series", "exclude.sizes",
                "exclude.preferences"):
        if form == "typed":
            return set(), "a list of strings: no hostile value is a list of strings"
        if base.startswith("exclude.") or renderer_catalog:
            return CLEAN_TEXT, ("globs: any text (comma-separated); an exclude glob may match nothing, and the "
                                "renderer applies the selection only to a catalog file")
        return {"empty"}, "an include glob that matches nothing is an error (a typo would generate nothing)"
    if base == "path":
        if renderer_catalog:
            return unset | {"arabic-digit", "superscript-digit", "negative-text", "double-dash"}, (
                "a relative file name; the renderer reads the file only when a VM needs a type from it")
        return unset, "the catalog file must exist in the package"
    if base in ("builtin", "namespace", "version", "parameters", "templateParameters"):
        return unset, {"builtin": "a builtin catalog name", "namespace": "a DNS-1123 label",
                       "version": "a label value", "parameters": "name=value",
                       "templateParameters": "NAME=value (template parameters)"}[base]
    if base in ("validateOutput", "migrate", "stored", "revisions.repin", "cluster.permitBridgeInterfaceOnPodNetwork",
                "capacity.report", "capacity.completeObjects"):
        return {"bool"}, "a boolean (true is one; from a ConfigMap also the text true/false)"
    if base == "kubevirtVersion":
        return unset, "a release of the table (krm_fn.kubevirt_versions); unset means the newest"
    if base in ("scope", "mode", "revisions.scope", "cluster.architecture", "cluster.defaultNetworkInterface",
                "cluster.cpuRequest", "cluster.referencePolicy"):
        return set(), "an enum or a quantity: no hostile value is one"
    if base in ("cluster.evictionStrategy", "cluster.vmRolloutStrategy"):
        return {"empty"}, '"" is KubeVirt\'s "not configured"'
    if base in ("cluster.featureGates", "cluster.disabledFeatureGates"):
        if form == "typed":
            return set(), "a list of strings: no hostile value is a list of strings"
        return CLEAN_TEXT, "gate names: any text (comma-separated); a gate no release knows is ignored, as KubeVirt does"
    if base == "cluster.machineType":
        return {"empty"}, '"" means not configured; a machine type is ASCII letters, digits, ".", "_", "-"'
    if base == "revisions.syncWave":
        return unset | {"negative"} | ({"negative-text"} if form == "configmap" else set()), (
            "an int64 (Argo CD reads waves with strconv.Atoi): negative waves are common, ASCII digits only")
    raise KeyError(f"no rule for {kind} setting {key}: add one to accepted()")


def nested(key: str, value: Any) -> dict[str, Any]:
    out: Any = value
    for part in reversed(key.split(".")):
        out = {part: out}
    return dict(out)


def config(kind: str, key: str, value: Any, form: str) -> dict[str, Any]:
    """A config whose other settings are valid and cheap (a small slice of the classic catalog)."""
    base: dict[str, Any] = ({"builtin": "classic", "scope": "Cluster", "include": {"series": ["m"]}}
                            if kind == "InstancetypeCatalog" else {})
    if key == "path":
        del base["builtin"]
    if form == "typed":
        spec = _merge(base, nested(key, value))
        return {"apiVersion": FN_API, "kind": kind, "metadata": {"name": "hostile"}, "spec": spec}
    flat = {"builtin": "classic", "scope": "Cluster", "include.series": "m"} if base else {}
    if key == "path":
        del flat["builtin"]
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "hostile"},
            "data": {"kind": kind, **flat, key: value}}


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for k, v in b.items():
        out[k] = _merge(out[k], v) if isinstance(out.get(k), dict) and isinstance(v, dict) else v
    return out


def test_every_setting_has_a_rule_and_the_walk_sees_them_all() -> None:
    # mode..kubevirtVersion, templateParameters, stored, capacity, revisions, catalog, cluster
    assert len(CATALOG_KEYS) == 13 and len(RENDERER_KEYS) == 4 + 1 + 1 + 2 + 3 + 13 + 10
    assert {"revisions.syncWave", "catalog.path", "cluster.cpuRequest", "templateParameters"} <= RENDERER_KEYS
    for kind, cls in KINDS.items():
        for key, _ in settings(cls):
            for form in ("typed", "configmap"):
                accepted(kind, key, form)


CASES = [pytest.param(kind, key, form, name, id=f"{kind}-{form}-{key}-{name}")
         for kind, cls in KINDS.items() for key, _ in settings(cls) for form in ("typed", "configmap")
         for name in HOSTILE]


@pytest.mark.parametrize(("kind", "key", "form", "name"), CASES)
def test_hostile_setting(main: Callable[..., Run], kind: str, key: str, form: str, name: str) -> None:
    ok, why = accepted(kind, key, form)
    run = main(resource_list(config(kind, key, HOSTILE[name], form)))
    check(run, 0 if name in ok else 1, f"{kind} {form} {key}={name} ({why})")


def test_a_value_accepted_in_the_walk_is_used_as_given(main: Callable[..., Run]) -> None:
    """The walk's accepted values are real settings, not ignored ones: a negative sync wave from a ConfigMap
    (kpt fn eval -- revisions.syncWave=-5) lands on the revisions."""
    vm = {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": "vm", "namespace": "ns"},
          "spec": {"runStrategy": "Halted", "instancetype": {"name": "u1.medium"},
                   "template": {"spec": {"domain": {"devices": {}}}}}}
    run = main(resource_list(config("VirtualMachineRenderer", "revisions.syncWave", "-5", "configmap"), [vm]))
    check(run, 0, "syncWave -5")
    assert b'argocd.argoproj.io/sync-wave: "-5"' in run.stdout


ENVELOPE = {  # the functionConfig's own fields: (form, key) -> accepted values, why
    ("typed", "apiVersion"): (set(), "only kubevirt-krm.dev/v1alpha1"),
    ("typed", "kind"): (set(), "only the two kinds"),
    ("typed", "metadata"): ({"nested"}, "a mapping (what is in it is kpt's, apart from the annotations we read)"),
    ("typed", "metadata.annotations"): ({"nested"}, "a mapping: only the keys we read are ours to check"),
    ("typed", "spec"): (set(), "a mapping"),
    ("configmap", "metadata"): ({"nested"}, "a mapping"),
    ("configmap", "data"): (set(), "a mapping"),
    ("configmap", "data.kind"): ({"empty"}, '"" picks the kind from the keys, as no kind does'),
}


@pytest.mark.parametrize(("form", "key", "name"), [
    pytest.param(form, key, name, id=f"{form}-{key}-{name}") for form, key in ENVELOPE for name in HOSTILE])
def test_hostile_config_envelope(main: Callable[..., Run], form: str, key: str, name: str) -> None:
    ok, why = ENVELOPE[form, key]
    fn_config = config("VirtualMachineRenderer", "mode", "validate", form)
    parent, _, leaf = key.rpartition(".")
    target = fn_config[parent] if parent else fn_config
    if parent == "metadata" and not isinstance(target, dict):
        target = fn_config["metadata"] = {"name": "hostile"}
    target[leaf] = HOSTILE[name]
    run = main(resource_list(fn_config))
    check(run, 0 if name in ok else 1, f"{form} {key}={name} ({why})")


# --- annotations -----------------------------------------------------------------------------------------
# every annotation whose value the code reads, with where it is read; what is only written is listed apart
READ_ANNOTATIONS = {
    api.ANN_PATH: "items, functionConfig", api.ANN_LEGACY_PATH: "items, functionConfig",
    api.ANN_INDEX: "items, functionConfig", api.ANN_LEGACY_INDEX: "items, functionConfig",
    api.ANN_PACKAGE_PATH: "functionConfig", api.ANN_ID: "items (identity)", "config.k8s.io/id": "items (identity)",
    ANN_SYNC_WAVE: "ControllerRevisions (replaced)", api.ANN_ORIGIN: "items read from stdin (a file to name)",
}
WRITTEN_ONLY = {
    api.ANN_INSTANCETYPE_DESCRIPTION, api.ANN_INSTANCETYPE_DISPLAY_NAME, api.ANN_VM_OS,  # catalog output
    api.ANN_OPENSHIFT_DISPLAY_NAME, api.ANN_ICON_CLASS, api.ANN_TAGS,
}
ANNOTATION_LITERAL = re.compile(r"""\.get\(\s*["']([a-z0-9.-]+\.[a-z]+/[A-Za-z0-9._-]+)["']""")


def test_every_annotation_the_code_reads_is_walked() -> None:
    """Every ``ANN_*`` constant used in krm_fn and every annotation key read with ``.get("...")`` is walked
    below or listed as written only: a new read fails here until it has a rule."""
    constants = {name: value for name, value in vars(api).items() if name.startswith("ANN_")}
    constants["ANN_SYNC_WAVE"] = ANN_SYNC_WAVE
    used: set[str] = set()
    for source in Path(krm_fn.__file__).parent.rglob("*.py"):
        if source.name == "api.py" and source.parent.name == "kube":
            continue
        text = source.read_text()
        used |= {constants[n] for n in re.findall(r"\b(ANN_[A-Z_]+)\b", text) if n in constants}
        used |= set(ANNOTATION_LITERAL.findall(text))
    assert used - set(READ_ANNOTATIONS) - WRITTEN_ONLY == set()
    assert set(kpt_annotations.READ) <= set(READ_ANNOTATIONS)
    assert set(constants.values()) <= set(READ_ANNOTATIONS) | WRITTEN_ONLY


def annotation_accepted(key: str) -> tuple[set[str], str]:
    if key in (api.ANN_PATH, api.ANN_LEGACY_PATH):
        return CLEAN_TEXT, "a file name as kpt writes it: any string without NUL (\"\" is unset)"
    if key in (api.ANN_INDEX, api.ANN_LEGACY_INDEX):
        return {"empty", "negative", "negative-text"}, "strconv.Atoi: ASCII digits, a sign, int64 (\"\" is unset)"
    if key == api.ANN_PACKAGE_PATH:
        return {"empty"}, "a directory inside the root (or kpt's package): none of these names one"
    if key in (api.ANN_ID, "config.k8s.io/id", ANN_SYNC_WAVE, api.ANN_ORIGIN):
        return set(HOSTILE) - {"surrogate"}, "only compared (identity) or replaced: any value is fine"
    raise KeyError(key)


def annotated(key: str, value: Any, *, on_config: bool) -> bytes:
    ann = {key: value}
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "item", "annotations": ann}}
    revision = {"apiVersion": "apps/v1", "kind": "ControllerRevision",
                "metadata": {"name": "r", "namespace": "ns", "annotations": ann,
                             "labels": {"instancetype.kubevirt.io/object-kind": "VirtualMachineClusterInstancetype"}},
                "data": {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineClusterInstancetype",
                         "metadata": {"name": "x"}, "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}},
                "revision": 0}
    fn_config: dict[str, Any] = {"apiVersion": FN_API, "kind": "VirtualMachineRenderer", "metadata": {"name": "r"},
                                 "spec": {"revisions": {"syncWave": -1}}}
    if on_config:
        fn_config["metadata"]["annotations"] = ann
        return resource_list(fn_config, [])
    return resource_list(fn_config, [cm, revision])


ANNOTATION_CASES = [pytest.param(key, where, name, id=f"{key}-{where}-{name}")
                    for key, places in READ_ANNOTATIONS.items()
                    for where in (["item"] if "items" in places else []) + (["config"] if "functionConfig" in places
                                                                            else [])
                    for name in HOSTILE]


@pytest.mark.parametrize(("key", "where", "name"), ANNOTATION_CASES)
def test_hostile_annotation(main: Callable[..., Run], key: str, where: str, name: str) -> None:
    ok, why = annotation_accepted(key)
    run = main(annotated(key, HOSTILE[name], on_config=where == "config"))
    check(run, 0 if name in ok else 1, f"{key} on the {where} = {name} ({why})")


@pytest.mark.parametrize("value", ["٣", "²", "¹²", "3\n", " 3", "0x10", "1e3", str(1 << 63)])
def test_index_annotation_is_read_as_kpt_reads_it(main: Callable[..., Run], value: str) -> None:
    """kyaml parses the index with strconv.Atoi: Python's int() would take "٣" (and str.isdigit() "²")."""
    item = {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "annotations": {api.ANN_PATH: "c.yaml", api.ANN_INDEX: value}}}
    run = main(resource_list({"apiVersion": FN_API, "kind": "InstancetypeCatalog", "metadata": {"name": "x"},
                              "spec": {"builtin": "classic", "scope": "Cluster", "include": {"series": ["m"]}}},
                             [item]))
    check(run, 1, value)
    assert "internal.config.kubernetes.io/index: must be an integer index" in run.stderr


# --- the real console script -----------------------------------------------------------------------------
RL_HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"


@pytest.mark.parametrize(("stdin", "message"), [
    pytest.param(RL_HEAD + "items: []\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: x}\n"
                 "  data: {revisions.syncWave: \"--1\"}\n", "data.revisions.syncWave: must be an integer",
                 id="configmap-sync-wave"),
    pytest.param(RL_HEAD + "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n    annotations:\n"
                 "      config.kubernetes.io/path: c.yaml\n      config.kubernetes.io/index: \"٣\"\n",
                 "config.kubernetes.io/index: must be an integer index", id="index-arabic-digit"),
    pytest.param(RL_HEAD + "items: []\nfunctionConfig:\n  apiVersion: kubevirt-krm.dev/v1alpha1\n"
                 "  kind: InstancetypeCatalog\n  metadata: {name: x}\n  spec: {path: \"a\\0b\"}\n",
                 "spec.path: must not contain a NUL character", id="catalog-path-nul"),
])
def test_console_script_gives_one_line(stdin: str, message: str) -> None:
    proc = run_fn([], stdin)
    assert_one_line_failure(proc, message, stdout_empty=False)


def test_config_string_from_the_environment_must_be_utf8() -> None:
    """$KUSTOMIZE_PLUGIN_CONFIG_STRING with a byte that is not UTF-8 (Python would carry it as a lone
    surrogate into the config)."""
    import os
    import subprocess

    from tests.builders import fn_command

    env = {k: v for k, v in os.environ.items() if not k.startswith("KUSTOMIZE_PLUGIN")}
    envb = {k.encode(): v.encode() for k, v in env.items()}
    envb[b"KUSTOMIZE_PLUGIN_CONFIG_STRING"] = (b"apiVersion: kubevirt-krm.dev/v1alpha1\nkind: VirtualMachineRenderer\n"
                                               b"metadata:\n  name: \"\xff\"\n")
    proc = subprocess.run(fn_command(), input=b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
                          capture_output=True, env=envb, timeout=120)
    assert_one_line_failure(proc, "$KUSTOMIZE_PLUGIN_CONFIG_STRING is not valid UTF-8")


# --- catalog files -----------------------------------------------------------------------------------------
def _nodes(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _nodes(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _nodes(value, (*path, i))


def _replaced(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, *rest = path
    if isinstance(doc, list):
        return [_replaced(v, tuple(rest), value) if i == head else v for i, v in enumerate(doc)]
    return {k: (_replaced(v, tuple(rest), value) if k == head else v) for k, v in doc.items()}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_every_value_of_a_catalog_file(tmp_path: Path, name: str) -> None:
    """Each node of a real catalog (classic) replaced by a hostile value: the generator never raises, an
    accepted catalog generates only valid objects (validateOutput), and each problem is one readable line."""
    import yaml

    from krm_fn.process import Options, process

    catalog = yaml.safe_load((Path(krm_fn.__file__).parents[1] / "catalog" / "classic.yaml").read_text())
    fn_config = {"apiVersion": FN_API, "kind": "InstancetypeCatalog", "metadata": {"name": "c"},
                 "spec": {"path": "catalog.yaml", "validateOutput": True}}
    data = resource_list(fn_config)
    accepted_nodes = 0
    for path in _nodes(catalog):
        (tmp_path / "catalog.yaml").write_text(json.dumps(_replaced(catalog, path, HOSTILE[name])))
        out = process(data, Options(base_dir=tmp_path))
        lines = [r.summary() for r in out.results if r.severity == "error"]
        assert (out.exit_code == 0) == (lines == []), (path, lines[:3])
        for line in lines:
            assert len(line) < 1000 and line.isprintable() and "\n" not in line, (path, line[:300])
        accepted_nodes += out.exit_code == 0
    assert accepted_nodes < len(list(_nodes(catalog)))  # the walk reaches values the checker refuses


def test_workers_setting_with_a_non_ascii_digit_is_ignored() -> None:
    """``KUBEVIRT_KRM_WORKERS=²``: a digit to str.isdigit(), not to int(); the default applies."""
    rl = RL_HEAD + "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n"
    proc = run_fn([], rl, env={"KUBEVIRT_KRM_WORKERS": "²"})
    assert proc.returncode == 0 and proc.stderr == b"" and b"name: c" in proc.stdout


def test_install_plugin_into_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    assert_one_line_failure(run_fn(["install-plugin", str(tmp_path / "file")]), "cannot install the plugin in")

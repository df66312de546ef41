"""The stream modes' core (``krm_fn.process.process_stream``, ``krm_fn.stream``): what kustomize and Argo CD
users expect of ``kubevirt-krm CONFIG.yaml FILE|DIR|-...`` (docs/standalone.md).

Expected values come from a reference reader (the loader on one file alone, KRM mode on the same objects)
or from the inputs the test writes, never from the output under test.
"""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.errors import InputError
from krm_fn.io.inputs import Source
from krm_fn.io.loader import load_documents
from krm_fn.process import Options, Output, process, process_stream
from tests.builders import run_stream
from krm_fn.results import FileRef

RENDERER = ("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: VirtualMachineRenderer\nmetadata:\n  name: r\n"
            "spec:\n  mode: {mode}\n")


def cm(name: str, extra: str = "", namespace: str = "") -> str:
    ns = f"  namespace: {namespace}\n" if namespace else ""
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n{ns}{extra}data:\n  k: v\n"


def vm(name: str, instancetype: str = "u1.small") -> str:
    return (f"apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: {name}\n  namespace: apps\n"
            f"spec:\n  runStrategy: Halted\n  instancetype:\n    name: {instancetype}\n  template:\n    spec:\n      domain:\n"
            f"        devices: {{}}\n")


def run(files: dict[str, str], mode: str = "validate", config: str | None = None, directory: bool = False,
        workers: int = 1) -> Output:
    return run_stream(files, config or RENDERER.format(mode=mode), Options(workers=workers), directory)


def documents(out: Output) -> list[Any]:
    return [d.value for d in load_documents(out.data.decode()) if d.value is not None]


def error(files: dict[str, str], **kw: Any) -> str:
    with pytest.raises(InputError) as exc:
        run(files, **kw)
    return exc.value.message


# --- 1. every error names the file and a line in it -------------------------------------------------

def test_malformed_yaml_in_a_later_file_is_reported_with_that_files_own_line() -> None:
    bad = cm("d") + "  broken: [\n"
    files = {"a.yaml": cm("a") + "---\n" + cm("b"), "b.yaml": cm("c"), "c.yaml": cm("e") * 1, "d.yaml": bad}
    with pytest.raises(InputError) as alone:  # the reference: the loader on that file alone
        load_documents(bad)
    assert error(files) == f"d.yaml: {alone.value.message}"
    assert "line 8" in alone.value.message  # its own line, not one counted across the files joined


def item_errors(files: dict[str, str], **kw: Any) -> list[tuple[str, str | None]]:
    """A run with unusable items: nothing printed, exit 1, each error (message, file)."""
    out = run(files, **kw)
    assert (out.data, out.exit_code) == (b"", 1)
    return [(r.message, r.file.path if r.file else None) for r in out.results if r.severity == "error"]


def test_a_document_that_is_not_an_object_names_its_file_and_line() -> None:
    second = cm("ok") + "---\n# a comment\nkind: ConfigMap\nmetadata:\n  name: x\n"
    assert item_errors({"a.yaml": cm("a"), "b.yaml": second}) == \
        [("b.yaml line 9: ConfigMap 'x': missing or empty apiVersion", "b.yaml")]
    assert item_errors({"a.yaml": "- 1\n"}) == \
        [("a.yaml line 1 must be a mapping (a Kubernetes object), got list", "a.yaml")]
    assert item_errors({"a.yaml": cm("a") + "---\nfoo: bar\n"}) == \
        [("a.yaml line 8: missing or empty apiVersion, kind, metadata.name (or metadata.generateName)", "a.yaml")]


def test_every_unusable_item_is_one_error_and_the_rest_is_rendered() -> None:
    files = {"a.yaml": "- 1\n", "vms.yaml": vm("good") + "---\n" + vm("bad", "u1.nosuch"),
             "c.yaml": "apiVersion: v1\nkind: List\nitems:\n- {kind: Secret, metadata: {name: s}}\n"}
    errors = item_errors(files, mode="expand")
    assert errors[:2] == [("a.yaml line 1 must be a mapping (a Kubernetes object), got list", "a.yaml"),
                          ("c.yaml line 1: List.items[0]: Secret 's': missing or empty apiVersion", "c.yaml")]
    # the VMs were rendered: the bad reference among them is reported on its own VM, with its file
    assert [f for _, f in errors[2:]] == ["vms.yaml", "vms.yaml"]  # the root cause with its hint, KubeVirt's error
    assert errors[2][0].startswith('virtualmachineclusterinstancetypes.instancetype.kubevirt.io "u1.nosuch" not '
                                   'found: did you mean')
    assert errors[3][0].endswith('virtualmachineclusterinstancetypes.instancetype.kubevirt.io "u1.nosuch" not found')


def test_a_vm_with_only_generate_name_is_rendered() -> None:
    nameless = vm("x", "u1.medium").replace("  name: x\n", "  generateName: fedora-\n")
    expanded = documents(run({"a.yaml": nameless + "---\n" + nameless, "b.yaml": vm("named")}, mode="expand"))
    assert [d["metadata"].get("generateName") for d in expanded] == ["fedora-", "fedora-", None]
    assert [d["spec"]["template"]["spec"]["domain"]["memory"]["guest"] for d in expanded[:2]] == ["4Gi", "4Gi"]
    assert "instancetype" not in expanded[0]["spec"]
    out = run({"a.yaml": nameless}, mode="revisions")
    assert out.exit_code == 0 and documents(out) == [load_documents(nameless)[0].value]  # left unpinned, with a warning
    assert [(r.severity, r.file.path if r.file else None) for r in out.results] == [("warning", "a.yaml")]
    assert out.results[0].message.startswith("not pinned: this VirtualMachine has no metadata.name")
    # the line of the field the result names: metadata (the document has no metadata.name)
    assert out.results[0].summary().startswith("warning: VirtualMachine apps/fedora-* (a.yaml line 3) metadata.name: ")


def test_invalid_utf8_and_a_bad_config_name_their_file() -> None:
    with pytest.raises(InputError) as exc:
        process_stream(Source("config file cfg.yaml", RENDERER.format(mode="validate").encode()),
                       [Source("a.yaml", cm("a").encode()), Source("b.yaml", b"kind: \xff\n")])
    assert exc.value.message.startswith("b.yaml: input is not valid UTF-8")
    assert error({"a.yaml": cm("a")}, config="a: [\n").startswith("config file cfg.yaml: malformed YAML")


def test_results_about_an_object_name_its_file_as_krm_mode_does() -> None:
    files = {"a.yaml": cm("a"), "vms.yaml": vm("ok") + "---\n" + vm("bad", "no-such-type")}
    out = run(files, mode="revisions")
    errors = [r for r in out.results if r.severity == "error"]
    assert errors and out.exit_code == 1 and out.data == b""
    # the same VM in KRM mode, its file given by kpt's annotations
    entry = "- " + vm("bad", "no-such-type").replace("\n", "\n  ").rstrip(" ").replace(
        "  namespace: apps\n", "  namespace: apps\n    annotations:\n      internal.config.kubernetes.io/path: "
        "vms.yaml\n      internal.config.kubernetes.io/index: '1'\n", 1)
    krm = process(("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + entry + "functionConfig:\n"
                   + "".join(f"  {line}\n" for line in RENDERER.format(mode="revisions").splitlines())).encode())
    krm_errors = [r for r in krm.results if r.severity == "error"]
    # the document starts on line 15; spec.instancetype, the result's field, is its line 8
    assert [r.file for r in errors] == [FileRef("vms.yaml", 1, 22)] and [r.field_path for r in errors] == \
        ["spec.instancetype"]
    assert files["vms.yaml"].splitlines()[21] == "  instancetype:"
    # KRM mode has the file from kpt's annotations, not the line of the field in it
    assert [r.file for r in krm_errors] == [FileRef("vms.yaml", 1)]
    assert [r.summary() for r in errors] == [r.summary().replace("(vms.yaml)", "(vms.yaml line 22)")
                                             for r in krm_errors]


def test_results_about_stdin_name_no_file() -> None:
    out = process_stream(Source("config file cfg.yaml", RENDERER.format(mode="revisions").encode()),
                         [Source("stdin", vm("bad", "no-such-type").encode(), is_file=False)])
    assert out.exit_code == 1 and [r.file for r in out.results if r.severity == "error"] == [None]


def test_results_about_stdin_name_the_file_kustomize_annotated() -> None:
    """kustomize's legacy plugin route hands the objects over on stdin, each with its file in kustomize's path
    annotation (issue 26, point 3): the result names that file."""
    annotated = vm("bad", "no-such-type").replace(
        "  namespace: apps\n", "  namespace: apps\n  annotations:\n    config.kubernetes.io/path: vms/vms.yaml\n", 1)
    out = process_stream(Source("config file cfg.yaml", RENDERER.format(mode="revisions").encode()),
                         [Source("stdin", annotated.encode(), is_file=False)])
    assert [r.file for r in out.results if r.severity == "error"] == [FileRef("vms/vms.yaml")]
    # kubectl kustomize (v5.5) passes no path annotation to a legacy plugin: its origin annotation, when the
    # kustomization asks for it (buildMetadata: [originAnnotations])
    origin = annotated.replace("config.kubernetes.io/path: vms/vms.yaml", "config.kubernetes.io/origin: |\n"
                               "      path: vms/db.yaml\n      configuredIn: kustomization.yaml")
    out = process_stream(Source("config file cfg.yaml", RENDERER.format(mode="revisions").encode()),
                         [Source("stdin", origin.encode(), is_file=False)])
    assert [r.file for r in out.results if r.severity == "error"] == [FileRef("vms/db.yaml")]


# --- 2. what is printed is a manifest ---------------------------------------------------------------

LOCAL = "  annotations:\n    config.kubernetes.io/local-config: \"true\"\n"


def test_local_config_objects_and_function_configs_are_not_printed() -> None:
    catalog = ("apiVersion: kubevirt-krm.dev/v1alpha1\nkind: InstancetypeCatalog\nmetadata:\n  name: c\n"
               "spec:\n  builtin: common-instancetypes\n")
    files = {"a.yaml": cm("kept") + "---\n" + cm("local", LOCAL) + "---\n" + cm("not-local", LOCAL.replace(
        '"true"', '"false"')), "renderer.yaml": RENDERER.format(mode="validate"), "catalog.yaml": catalog}
    out = run(files)
    assert [d["metadata"]["name"] for d in documents(out)] == ["kept", "not-local"]


def test_the_config_object_itself_is_not_printed_when_it_is_among_the_inputs() -> None:
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fn-config\ndata:\n  mode: validate\n"
    out = run({"dir/fn.yaml": config, "dir/a.yaml": cm("a")}, config=config)
    assert [d["metadata"]["name"] for d in documents(out)] == ["a"]


@pytest.mark.parametrize("mode", ["validate", "revisions"])
def test_kpt_file_annotations_are_removed_and_everything_else_is_kept_as_written(mode: str) -> None:
    annotated = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: z  # the name\n  annotations:\n"
                 "    internal.config.kubernetes.io/path: 'x.yaml'\n    internal.config.kubernetes.io/index: '0'\n"
                 "    config.kubernetes.io/path: x.yaml\n    config.kubernetes.io/index: '0'\n"
                 "    config.k8s.io/id: '1'\n    keep: \"1\"\ndata: {k: 'v'}  # flow\n")
    only = annotated.replace('    keep: "1"\n', "").replace("name: z", "name: z2")
    plain = cm("plain") + "# a comment that stays\n"
    out = run({"a.yaml": annotated + "---\n" + only + "---\n" + plain.replace("plain", "plain2")}, mode=mode)
    text = out.data.decode()
    first, second, third = documents(out)
    want = load_documents(annotated)[0].value
    want["metadata"]["annotations"] = {"keep": "1"}
    assert first == want
    del want["metadata"]["annotations"]
    want["metadata"]["name"] = "z2"
    assert second == want
    assert "# the name" in text and "{k: 'v'}  # flow" in text  # spliced, not written afresh
    assert text.endswith(plain.replace("plain", "plain2"))  # an unchanged item: its source text, byte for byte
    assert third == load_documents(plain.replace("plain", "plain2"))[0].value


# --- duplicates ---------------------------------------------------------------------------------

def test_an_object_given_twice_is_one_error_naming_both_files() -> None:
    ((message, file),) = item_errors({"vms/a.yaml": cm("x") + "---\n" + cm("a"), "out.yaml": "# rendered\n" + cm("a")})
    assert message.startswith("out.yaml line 2: ConfigMap default/a is already in vms/a.yaml line 8: ")
    assert "\n" not in message and file == "out.yaml"


def test_no_namespace_is_the_default_namespace_and_other_groups_are_other_objects() -> None:
    assert "is already in a.yaml line 1" in item_errors({"a.yaml": cm("a"), "b.yaml": cm("a", namespace="default")})[0][0]
    other = cm("a").replace("apiVersion: v1", "apiVersion: example.com/v1")
    out = run({"a.yaml": cm("a"), "b.yaml": other, "c.yaml": cm("a", namespace="team")})
    assert len(documents(out)) == 3


def test_the_same_directory_given_twice_is_refused() -> None:
    sources = [Source("vms/a.yaml", cm("a").encode(), in_directory=True)] * 2
    out = process_stream(Source("config file cfg.yaml", RENDERER.format(mode="validate").encode()), sources)
    assert (out.data, out.exit_code, len(out.results)) == (b"", 1, 1)
    assert out.results[0].message.startswith("vms/a.yaml line 1: ConfigMap default/a is already in vms/a.yaml line 1")


# --- build files in a directory -----------------------------------------------------------------

KUSTOMIZATION = "resources:\n- a.yaml\n"
KPTFILE_OBJECT = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n"
COMPONENT = "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"


def test_kustomize_and_kpt_files_in_a_directory_are_skipped() -> None:
    files = {"app/kustomization.yaml": KUSTOMIZATION, "app/a.yaml": cm("a"), "app/pkg.yaml": KPTFILE_OBJECT,
             "app/component.yml": COMPONENT, "app/sub/kustomization.yml": "apiVersion: x\n"}
    out = run(files, directory=True)
    assert [d["metadata"]["name"] for d in documents(out)] == ["a"]


def test_given_as_files_they_are_objects_like_any_other() -> None:
    assert item_errors({"kustomization.yaml": KUSTOMIZATION}) == [(
        "kustomization.yaml line 1: missing or empty apiVersion, kind, metadata.name (or metadata.generateName)",
        "kustomization.yaml")]
    assert [d["kind"] for d in documents(run({"pkg.yaml": KPTFILE_OBJECT}))] == ["Kptfile"]


# --- two processes ------------------------------------------------------------------------------

def test_two_processes_print_what_one_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    from krm_fn import workers as split
    from tests.builders import bench_module

    monkeypatch.setattr(split, "SPLIT_MIN_BYTES", 1)
    monkeypatch.setattr(split, "SPLIT_MIN_ITEMS", 10)
    monkeypatch.setattr(split, "BLOCK", 5)
    sent: list[int] = []
    real_result = split.Child.result

    def result(self: Any) -> bytearray | None:
        data = real_result(self)
        sent.append(len(data or b""))
        return data

    monkeypatch.setattr(split.Child, "result", result)
    fleet = bench_module("synth").manifests(60)
    local = cm("local", LOCAL)
    annotated = cm("annotated", "  annotations:\n    internal.config.kubernetes.io/path: a.yaml\n")
    files = {"fleet.yaml": fleet, "more.yaml": local + "---\n" + annotated}
    one = run(files, mode="revisions", workers=1)
    two = run(files, mode="revisions", workers=2)
    assert sent and sum(sent) > 0, "the child rendered nothing"
    assert two.data == one.data and two.results == one.results and one.exit_code == 0
    names = [d["metadata"]["name"] for d in documents(one)]
    assert "local" not in names and "annotated" in names
    assert "internal.config.kubernetes.io" not in one.data.decode()


@pytest.mark.parametrize("fast", [True, False])
def test_a_results_file_index_counts_objects_not_empty_documents(fast: bool) -> None:
    text = vm("ok") + "---\n# nothing here\n---\n" + vm("bad", "no-such-type")
    out = process_stream(Source("config file cfg.yaml", RENDERER.format(mode="revisions").encode()),
                         [Source("vms.yaml", text.encode())], Options(fast_yaml=fast))
    # the second VM's document starts on line 17, its spec.instancetype (the result's field) 7 lines below
    assert [r.file for r in out.results if r.severity == "error"] == [FileRef("vms.yaml", 1, 24)]
    assert text.splitlines()[23] == "  instancetype:"


def test_items_of_a_list_name_the_lists_file_and_line() -> None:
    listed = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {}\n"
    assert item_errors({"a.yaml": cm("a"), "b.yaml": cm("b") + "---\n" + listed}) == \
        [("b.yaml line 8: List.items[0]: missing or empty metadata.name (or metadata.generateName)", "b.yaml")]
    assert item_errors({"b.yaml": "apiVersion: v1\nkind: List\nitems: 3\n", "c.yaml": cm("c")}) == \
        [("b.yaml line 1: List.items must be a list", "b.yaml")]

"""Input detection: JSON only when the whole input is JSON, YAML otherwise; one meaning per input.

Each case runs in KRM mode (``parse_resource_list``), in stream mode (``tests.io_support.parse_stream``) and through
``process()``: bytes in, bytes out. Expected values come from the libyaml loader reading the same text (JSON
is YAML too) or the same stream written without the disputed characters; never from our own output.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from krm_fn.errors import InputError
from krm_fn.io.inputs import Joined
from krm_fn.io.loader import load_documents
from krm_fn.io.resourcelist import dump_resource_list, dump_stream, parse_resource_list
from krm_fn.process import Options, process
from tests.builders import assert_clean_failure, run_fn
from tests.io_support import NAME, parse_stream
from tests.io_support import same

RL = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
RENDERER = ("{apiVersion: kubevirt-krm.dev/v1alpha1, kind: VirtualMachineRenderer, metadata: {name: r}, "
            "spec: {mode: revisions, catalog: {builtin: none}}}")
CM = "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {enabled: yes, mode: 0777, big: 0xFFFFFFFFFFFFFFFFFFFF}}"
FLOW_RL = f"{{apiVersion: config.kubernetes.io/v1, kind: ResourceList, items: [{CM}], functionConfig: {RENDERER}}}\n"


def loader_items(text: str) -> list[Any]:
    items: list[Any] = load_documents(text)[0].value["items"]
    return items


def render(data: bytes) -> list[Any]:
    """process() bytes in, bytes out: the output's items, as the loader reads the output."""
    out = process(data, Options())
    assert out.exit_code == 0, out.results
    return loader_items(out.data.decode())


# --- YAML flow mappings start with "{" too ------------------------------------------------------

def test_a_flow_mapping_resource_list_is_yaml() -> None:
    want = loader_items(FLOW_RL)
    assert want[0]["data"] == {"enabled": True, "mode": 0o777, "big": "0xFFFFFFFFFFFFFFFFFFFF"}  # YAML 1.1 meanings
    assert same(parse_resource_list(FLOW_RL).items, want)
    assert same(parse_stream(FLOW_RL).items, want)  # a ResourceList in a stream is unwrapped
    assert same(render(FLOW_RL.encode()), want)


@pytest.mark.parametrize("stream", [
    f"{CM}\n---\n" + CM.replace("name: a", "name: b") + "\n",
    f"  \n{CM}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
    f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n---\n{CM}\n",
])
def test_flow_documents_in_a_stream_are_yaml(stream: str) -> None:
    want = [d.value for d in load_documents(stream)]
    assert same(parse_stream(stream).items, want)


def test_trailing_comma_and_nan_are_not_json_but_yaml() -> None:
    for text in ['{"apiVersion": "v1", "kind": "ResourceList", "items": [],}\n',
                 '{"apiVersion": "v1", "kind": "ResourceList", "items": [], "x": NaN}\n']:
        rl = parse_resource_list(text)
        assert same(rl._read.extra, {k: v for k, v in load_documents(text)[0].value.items()
                               if k not in ("apiVersion", "kind", "items")})


def test_json_numbers_mean_what_the_same_text_means_in_yaml() -> None:
    text = ('{"apiVersion": "v1", "kind": "ResourceList", "items": [], "n": 123456789012345678901234, '
            '"u": 18446744073709551615, "i": -9223372036854775808, "f": 1.5, "e": 1E5, "z": -0, "m": -0.0}')
    want = load_documents(text)[0].value  # libyaml reads JSON as a flow mapping
    got = parse_resource_list(text)._read.extra
    assert all(same(got[k], want[k]) for k in "nuifezm")
    assert type(got["n"]) is float and type(got["u"]) is int


# --- when it is JSON, it is JSON as kubectl reads it ----------------------------------------------

def _json_rl(item: str) -> str:
    return '{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [' + item + "]}"


DUPLICATE = _json_rl('{"apiVersion": "v1", "kind": "ConfigMap",\n "metadata": {"name": "a", "name": "b"}}')
SURROGATE = _json_rl('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "x\\ud800"}}')
SURROGATE_KEY = _json_rl('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"\\udc00": "x"}}')
TOO_BIG = _json_rl('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": 1e400}}')


TRUNCATED = _json_rl('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"')


def _json_error(text: str) -> str:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return f"malformed JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
    raise AssertionError("valid JSON")


@pytest.mark.parametrize(("text", "message"), [
    (DUPLICATE, "malformed JSON: duplicate mapping key 'name' at line 2, column"),
    (SURROGATE, "malformed JSON: items[0].data.k holds a lone UTF-16 surrogate escape"),
    (SURROGATE_KEY, "malformed JSON: a key of items[0].data holds a lone UTF-16 surrogate escape"),
    (TOO_BIG, "malformed JSON: number 1e400 is beyond the range of a float64"),
    (TRUNCATED, _json_error(TRUNCATED)),  # JSON got further: JSON's own message
    ("{apiVersion: v1, kind: ResourceList, items: [}", "malformed YAML: did not find expected node content at "
                                                       "line 1, column 46"),  # YAML got further
])
def test_bad_json_is_one_clear_error_in_every_mode(text: str, message: str) -> None:
    for parse, named in ((parse_resource_list, ""), (parse_stream, f"{NAME}: ")):
        with pytest.raises(InputError) as err:
            parse(text)
        assert err.value.message.startswith(named + message), err.value.message
    with pytest.raises(InputError, match="^" + message.replace("(", r"\(").replace("[", r"\[")):
        process(text.encode(), Options())


def test_duplicate_keys_are_refused_as_in_yaml() -> None:
    yaml_text = DUPLICATE.replace('"', "")  # the same document as a YAML flow mapping
    with pytest.raises(InputError, match="duplicate mapping key 'name'"):
        load_documents(yaml_text)


def test_a_surrogate_pair_is_one_character() -> None:
    text = SURROGATE.replace("\\ud800", "\\ud83d\\ude00")
    assert parse_resource_list(text).items[0]["data"]["k"] == json.loads('"x\\ud83d\\ude00"') == "x\U0001F600"


def test_a_lone_surrogate_is_one_line_and_exit_1_from_the_command() -> None:
    proc = run_fn([], SURROGATE.encode())
    assert_clean_failure(proc, "malformed JSON: items[0].data.k holds a lone UTF-16 surrogate escape")


# --- BOMs before later documents -------------------------------------------------------------------

DOC_A = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n"
DOC_B = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  on: yes\n"
BOM = "\ufeff"


@pytest.mark.parametrize(("with_boms", "without"), [
    (f"{BOM}{DOC_A}---\n{BOM}{DOC_B}", f"{DOC_A}---\n{DOC_B}"),  # after "---" (files joined)
    (f"{DOC_A}{BOM}---\n{DOC_B}", f"{DOC_A}---\n{DOC_B}"),  # before "---" (YAML 1.2 document prefix)
    (f"{DOC_A}...\n{BOM}---\n{DOC_B}", f"{DOC_A}...\n---\n{DOC_B}"),  # after a document end marker
    (f"{DOC_A}--- # next\n{BOM}{DOC_B}", f"{DOC_A}--- # next\n{DOC_B}"),
])
def test_a_bom_before_a_later_document_is_accepted_and_not_kept(with_boms: str, without: str) -> None:
    want = [d.value for d in load_documents(without) if d.value is not None]
    rl = parse_stream(with_boms)
    assert same(rl.items, want)
    assert BOM not in dump_stream(rl, rl.items)
    joined = Joined.of([DOC_A, BOM + DOC_B])  # the standalone mode's join of two files
    rl = parse_stream(joined)
    assert same(rl.items, [d.value for d in load_documents(f"{DOC_A}---\n{DOC_B}")])
    assert BOM not in dump_stream(rl, rl.items)


def test_a_bom_after_the_marker_of_a_resource_list_is_accepted() -> None:
    text = f"---\n{BOM}{RL}items:\n- {CM}\nfunctionConfig: {RENDERER}\n"
    want = loader_items(text.replace(BOM, ""))
    assert same(parse_resource_list(text).items, want)
    out = process(text.encode(), Options())
    assert BOM.encode() not in out.data and same(loader_items(out.data.decode()), want)


def test_a_bom_inside_a_document_is_not_a_document_prefix() -> None:
    with pytest.raises(InputError, match="malformed YAML"):
        parse_stream(f"apiVersion: v1\nkind: ConfigMap\n{BOM}metadata:\n  name: a\n")


# --- several files: each one read on its own ---------------------------------------------------------

LAST_BLOCK = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  clip: |\n    x"


@pytest.mark.parametrize("ending", [LAST_BLOCK, LAST_BLOCK.replace("|", "|+"), LAST_BLOCK.replace("|", ">")])
def test_a_file_without_a_final_line_break_keeps_its_last_value(ending: str) -> None:
    want = load_documents(ending)[0].value  # the file on its own: no line break after "x"
    assert want["data"]["clip"] == "x"
    for files in ([ending], [ending, DOC_A], [DOC_A, ending, DOC_B]):
        items = parse_stream(Joined.of(files)).items
        assert same(items[files.index(ending)], want)


def test_each_file_is_json_or_yaml_by_itself() -> None:
    json_file = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"}, "data": {"n": 1e400}}'
    with pytest.raises(InputError, match="beyond the range of a float64"):
        parse_stream(Joined.of([DOC_A, json_file]))  # joined as text, it would be a YAML string "1e400"
    nested = Joined.of([Joined.of([DOC_A, DOC_B]), LAST_BLOCK])  # a directory, then a file
    assert [i["metadata"]["name"] for i in parse_stream(nested).items] == ["a", "b", "c"]
    assert parse_stream(nested).items[2]["data"]["clip"] == "x"


def test_a_value_that_needs_the_missing_line_break_is_written_fresh_not_changed() -> None:
    """Source text is copied as whole lines: where adding the line break would change the last value, the
    document (or item) is written fresh; elsewhere a file without a final line break is still copied."""
    for ending in (LAST_BLOCK, LAST_BLOCK.replace("|", ">+")):
        want = load_documents(ending)[0].value
        for files in ([ending], [ending, DOC_A]):
            rl = parse_stream(Joined.of(files))
            out = dump_stream(rl, rl.items)
            assert same([d.value for d in load_documents(out)][files.index(ending)], want)
        text = f"{RL}items:\n- " + ending.replace("\n", "\n  ")  # KRM mode: the list's last entry
        rl = parse_resource_list(text)
        assert same(loader_items(dump_resource_list(rl, rl.items, [])), [want])
    plain = DOC_A + "  note: 'quoted'  # kept"  # no final line break, nothing changes: copied
    rl = parse_stream(plain)
    assert dump_stream(rl, rl.items) == plain + "\n"

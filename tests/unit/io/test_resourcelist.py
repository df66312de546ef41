"""ResourceList/stream I/O: faithful pass-through, emitted items, bad input."""

from __future__ import annotations

import pytest
import yaml

from krm_fn.errors import InputError
from krm_fn.io.resourcelist import dump_resource_list, dump_stream, parse_resource_list, set_aside, with_set_aside
from tests.io_support import parse_stream

# What kpt sends: kyaml formatting plus user styles it keeps (quotes, flow maps, blocks, comments).
KPT_INPUT = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: cm # a comment
    labels: {app: "x", tier: 'db'}
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'cm.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'cm.yaml'
      internal.config.kubernetes.io/seqindent: 'compact'
      internal.config.kubernetes.io/annotations-migration-resource-id: '0'
      internal.config.kubernetes.io/id: '1'
      config.k8s.io/id: '1'
      kustomize.config.k8s.io/id: |
        kind: ConfigMap
        name: cm
  data:
    on: yes
    mode: 0777
    when: 2001-12-14
    quoted: "1"
    script: |
      #!/bin/sh
      echo "hi"   # not a comment
- # head comment
  apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: pkg
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: function-input
  data: {}
"""


def test_noop_round_trip_is_byte_identical() -> None:
    rl = parse_resource_list(KPT_INPUT)
    assert dump_resource_list(rl, rl.items, []) == KPT_INPUT


def test_values_mean_what_kubectl_reads() -> None:
    data = parse_resource_list(KPT_INPUT).items[0]["data"]
    # kubectl (go-yaml v2) reads the key `on` as the boolean true, i.e. JSON key "true"
    assert data == {"true": True, "mode": 0o777, "when": "2001-12-14", "quoted": "1",
                    "script": '#!/bin/sh\necho "hi"   # not a comment\n'}


def test_changed_items_are_emitted_and_others_kept() -> None:
    rl = parse_resource_list(KPT_INPUT)
    changed = dict(rl.items[0], data={"answer": "yes", "n": 1})
    out = dump_resource_list(rl, [changed, rl.items[1]], [{"message": "m", "severity": "info"}])
    assert "  data:\n    answer: \"yes\"\n    \"n\": 1\n" in out
    assert "- # head comment\n  apiVersion: kpt.dev/v1\n  kind: Kptfile\n" in out  # unchanged: as it came
    parsed = yaml.safe_load(out)
    assert parsed["items"][0]["metadata"]["annotations"] == rl.items[0]["metadata"]["annotations"]
    assert parsed["results"] == [{"message": "m", "severity": "info"}]


def test_items_indented_with_an_offset_are_shifted() -> None:
    text = KPT_INPUT.replace("items:\n", "items:\n  ", 1)
    text = "\n".join(("  " + line if line.startswith(("- ", "  ")) and i > 3 and not line.startswith("functionConfig")
                      else line) for i, line in enumerate(text.split("\n")))
    rl = parse_resource_list(text.replace("items:\n    - apiVersion", "items:\n  - apiVersion"))
    out = dump_resource_list(rl, rl.items, [])
    assert parse_resource_list(out).items == rl.items


def test_missing_items_means_empty() -> None:
    rl = parse_resource_list("apiVersion: config.kubernetes.io/v1beta1\nkind: ResourceList\n")
    assert rl.items == []
    assert dump_resource_list(rl, [], []) == "apiVersion: config.kubernetes.io/v1beta1\nkind: ResourceList\nitems: []\n"


def test_json_input_is_accepted_and_answered_in_yaml() -> None:
    rl = parse_resource_list('{"apiVersion":"v1","kind":"ResourceList","items":[{"apiVersion":"v1",'
                             '"kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"yes"}}]}')
    assert dump_resource_list(rl, rl.items, []).endswith('  data:\n    k: "yes"\n')


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty input"),
    ("a: 1\n---\nb: 2\n", "expected one ResourceList document"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "expected kind ResourceList"),
    ("kind: ResourceList\nitems: {}\n", "items must be a list"),
    ("kind: ResourceList\nfunctionConfig: 3\n", "functionConfig must be a mapping"),
    ("{", "malformed JSON"),
])
def test_bad_resource_lists(text: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        parse_resource_list(text)
    assert message in err.value.message


@pytest.mark.parametrize(("item", "message"), [
    ("1", "items[1] must be a mapping"),
    ("{kind: ConfigMap, metadata: {name: a}}", "items[1]: ConfigMap 'a': missing or empty apiVersion"),
    ("{apiVersion: v1, kind: ConfigMap}", "items[1]: missing or empty metadata.name"),
    ("{apiVersion: v1, kind: ConfigMap, metadata: {name: a, annotations: [x]}}",
     "items[1]: metadata.annotations must be a mapping"),
])
def test_an_unusable_item_is_set_aside_and_written_back_in_its_place(item: str, message: str) -> None:
    text = (f"kind: ResourceList\nitems:\n- {{apiVersion: v1, kind: ConfigMap, metadata: {{name: x}}}}\n- {item}\n"
            f"- {{apiVersion: v1, kind: Secret, metadata: {{name: s}}}}\n")
    rl = parse_resource_list(text)
    assert [i["kind"] for i in rl.items] == ["ConfigMap", "Secret"]  # the others are processed
    (aside,) = set_aside(rl)
    assert aside.position == 1 and aside.message.startswith(message)
    out = dump_resource_list(rl, with_set_aside(rl, rl.items), [])
    assert out == text.replace("kind: ResourceList", "apiVersion: config.kubernetes.io/v1\nkind: ResourceList")


def test_a_generate_name_is_a_name_enough_to_be_read() -> None:
    rl = parse_resource_list("kind: ResourceList\nitems:\n- {apiVersion: v1, kind: ConfigMap, "
                             "metadata: {generateName: x-}}\n")
    assert len(rl.items) == 1 and not set_aside(rl)


def test_stream_round_trip_and_list_unwrapping() -> None:
    text = "# c\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata: {x: 'y'}\n---\n" \
           "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Secret, metadata: {name: s}}\n"
    rl = parse_stream(text)
    assert [i["kind"] for i in rl.items] == ["ConfigMap", "Secret"]
    out = dump_stream(rl, rl.items)
    assert out.startswith("# c\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata: {x: 'y'}\n---\n")
    assert yaml.safe_load_all(out) is not None and len(list(yaml.safe_load_all(out))) == 2


HEADED = ("# the file's header\n\n# and more\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
          "---\n# b's comment\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n")


def test_the_comments_above_a_document_are_written_above_it_again() -> None:
    """Issue 38, point 4: a stream output keeps the comments at the top of a file and above each document (the
    blank line between two comment lines too), without the ``---``; written again, nothing changes."""
    rl = parse_stream(HEADED)
    out = dump_stream(rl, rl.items)
    assert out == HEADED.replace("# and more\n---\n", "# and more\n")
    again = parse_stream(out)
    assert dump_stream(again, again.items) == out


def test_a_changed_document_keeps_its_comments() -> None:
    rl = parse_stream(HEADED)
    changed = [{**item, "data": {"k": "v"}} for item in rl.items]
    out = dump_stream(rl, changed)
    assert out.startswith("# the file's header\n\n# and more\napiVersion: v1\n")
    assert "---\n# b's comment\napiVersion: v1\n" in out and out.count("data:\n  k: v\n") == 2


def test_stream_items_become_resource_list_entries() -> None:
    rl = parse_stream("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  s: |\n    x\n    y\n")
    out = dump_resource_list(rl, rl.items, [])
    assert "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  data:\n    s: |\n      x\n      y\n" in out


def test_a_head_is_the_comment_lines_after_anything_else() -> None:
    from krm_fn.io.source import head_comment

    text = "# h\n\n# more\n---\n!!map\n# after\nkind: x\n"
    assert head_comment(text, 0, text.index("kind")) == "# after\n"  # the tag's line is not a comment
    assert head_comment("---\n\nkind: x\n", 0, 5) == ""

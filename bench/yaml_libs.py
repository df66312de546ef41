#!/usr/bin/env python3
"""Benchmark YAML libraries for the kubevirt-krm ResourceList I/O layer.

Usage:
    python bench/yaml_libs.py [--vms 1000,10000] [--repeat 3] [--gc on|off|both]
                              [--only REGEX] [--rss] [--no-faith] [--no-bench]

What it does (no network, deterministic input):
  * generates a synthetic kpt ResourceList of N kubevirt.io/v1 VirtualMachines
    (~1.5 KB of YAML each: kpt annotations, instancetype/preference matchers,
    dataVolumeTemplates on odd VMs, disks/interfaces/networks, containerDisk
    and a 15-line cloud-init userData literal block, some quoted strings);
  * times load and dump for every candidate that is installed (median of
    --repeat runs, wall clock; a run slower than --slow-cutoff seconds is not
    repeated), with the cyclic GC on and/or disabled around each op, and
    prints a table plus load+dump totals with the ratio to the fastest pair;
  * optionally (--rss) measures peak RSS of load+dump in a fresh subprocess;
  * checks faithfulness on a corpus of tricky scalars: the Python value each
    parser returns for a plain scalar, versus what kubectl reads (go-yaml v2
    rules, re-implemented here in `resolve_plain_v2`), and whether each emitter
    writes strings so that YAML 1.1 / go-yaml v2 / YAML 1.2 readers all read
    them back as the same strings, with block style only.

Candidates are skipped with a note when their package is missing:
  PyYAML (+libyaml), yaml-rs, pyyaml-rs, rapidyaml (ryml), ruamel.yaml
  (+ruamel.yaml.clib), orjson.  The own pieces live in this file: loaders on
  PyYAML's libyaml parser (node graph with a constant resolver + own
  constructor; event stream + own builder, optionally keeping scalar styles as
  str subclasses) and a pure-Python block emitter.
"""
from __future__ import annotations

import argparse
import gc
import io
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

# --------------------------------------------------------------------------
# optional imports
# --------------------------------------------------------------------------
NOTES: list[str] = []

try:
    import yaml
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode

    HAVE_PYYAML = True
    HAVE_LIBYAML = bool(getattr(yaml, "__with_libyaml__", False))
    if not HAVE_LIBYAML:
        NOTES.append("PyYAML has no libyaml C extension: C loader/dumper rows skipped")
except ImportError:  # pragma: no cover
    HAVE_PYYAML = HAVE_LIBYAML = False
    NOTES.append("PyYAML not installed: PyYAML rows and the node-level loader skipped")


def _opt_import(name: str, pip_name: str) -> Any:
    try:
        return __import__(name, fromlist=["_"])
    except ImportError:
        NOTES.append(f"{pip_name} not installed: skipped")
        return None


yaml_rs = _opt_import("yaml_rs", "yaml-rs")
pyyaml_rs = _opt_import("pyyaml_rs", "pyyaml-rs")
ryml = _opt_import("ryml", "rapidyaml")
orjson = _opt_import("orjson", "orjson")
ruamel_yaml = _opt_import("ruamel.yaml", "ruamel.yaml")
HAVE_RUAMEL_C = False
if ruamel_yaml is not None:
    import importlib.util

    HAVE_RUAMEL_C = importlib.util.find_spec("_ruamel_yaml") is not None  # ruamel.yaml.clib
    if not HAVE_RUAMEL_C:
        NOTES.append("ruamel.yaml.clib not installed: ruamel safe/C rows skipped")


def versions() -> dict[str, str]:
    from importlib import metadata

    out = {"python": sys.version.split()[0]}
    for dist in ("PyYAML", "yaml-rs", "pyyaml-rs", "rapidyaml", "ruamel.yaml",
                 "ruamel.yaml.clib", "orjson"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    if HAVE_PYYAML:
        out["libyaml"] = _libyaml_version() if HAVE_LIBYAML else "no"
    return out


def _libyaml_version() -> str:
    try:
        from yaml import _yaml

        return str(_yaml.get_version_string())
    except Exception:  # pragma: no cover
        return "?"


# --------------------------------------------------------------------------
# synthetic ResourceList
# --------------------------------------------------------------------------
_STRATEGIES = ("Always", "Halted", "RerunOnFailure", "Manual")
_SIZES = ("u1.small", "u1.medium", "u1.large", "cx1.xlarge")
_PREFS = ("fedora", "rhel.9", "ubuntu", "centos.stream9")
_TIERS = ("web", "db", "cache", "batch")


def make_vm_yaml(i: int) -> str:
    """One VirtualMachine as a '- ' item of ResourceList.items (kyaml style:
    sequences not indented under their key, kpt annotations single-quoted).
    Odd VMs boot a dataVolumeTemplates disk, even ones a containerDisk."""
    name = f"vm-{i:05d}"
    ns = f"team-{i % 7}"
    extra_label = '\n      backup: "yes"' if i % 3 == 0 else ""
    multus = multus_net = ""
    if i % 10 == 0:
        multus = "\n            - name: data\n              bridge: {}"
        multus_net = f"\n        - name: data\n          multus:\n            networkName: {ns}/data"
    if i % 2:
        dvt = f"""
    dataVolumeTemplates:
    - metadata:
        name: {name}
      spec:
        sourceRef:
          kind: DataSource
          name: {_PREFS[i % 4]}
        storage:
          resources:
            requests:
              storage: {20 + i % 4 * 10}Gi"""
        root = f"dataVolume:\n            name: {name}"
    else:
        dvt = ""
        root = "containerDisk:\n            image: quay.io/containerdisks/fedora:40"
    return f"""\
- apiVersion: kubevirt.io/v1
  kind: VirtualMachine
  metadata:
    name: {name}
    namespace: {ns}
    labels:
      app: {_TIERS[i % 4]}
      cost-center: '0777'{extra_label}
    annotations:
      internal.config.kubernetes.io/path: 'vms/{name}.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/id: '{i + 1}'
  spec:
    runStrategy: {_STRATEGIES[i % 4]}
    instancetype:
      name: {_SIZES[i % 4]}
    preference:
      name: {_PREFS[i % 4]}{dvt}
    template:
      spec:
        domain:
          devices:
            disks:
            - name: root
              disk:
                bus: virtio
            interfaces:
            - name: default
              masquerade: {{}}{multus}
        networks:
        - name: default
          pod: {{}}{multus_net}
        volumes:
        - name: root
          {root}
        - name: ci
          cloudInitNoCloud:
            userData: |-
              #cloud-config
              hostname: {name}
              user: fedora
              password: "pw{i % 100}"
              chpasswd:
                expire: false
              ssh_authorized_keys:
                - ssh-ed25519 AAAA{i:06d}
              packages:
                - qemu-guest-agent

              runcmd:
                - [systemctl, start, qemu-guest-agent]
              bootcmd:
                - echo ok
"""


def make_resource_list_yaml(n: int) -> str:
    head = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
    tail = ("functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n"
            "    name: kubevirt-krm-config\n  data:\n    renderDefaults: \"true\"\n"
            "    catalog: builtin\n")
    return head + "".join(make_vm_yaml(i) for i in range(n)) + tail


# --------------------------------------------------------------------------
# go-yaml v2 (kubectl) plain-scalar resolution, re-implemented
# --------------------------------------------------------------------------
# gopkg.in/yaml.v2@v2.4.0 resolve.go: a map of words, then for a first char in
# +-0..9: strip '_', strconv.ParseInt(s, 0, 64) (0x / 0o / 0b / leading-0 octal),
# ParseUint, then yamlStyleFloat + ParseFloat, then '0b'.  Timestamps are
# recognised but decoded into interface{} as the original *string*
# (decode.go "for backward compatibility"), so they need no handling here.
_MISS = object()
_V2_WORDS: dict[str, Any] = {}
for _w in ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"):
    _V2_WORDS[_w] = True
for _w in ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"):
    _V2_WORDS[_w] = False
for _w in ("", "~", "null", "Null", "NULL"):
    _V2_WORDS[_w] = None
for _w in (".nan", ".NaN", ".NAN"):
    _V2_WORDS[_w] = math.nan
for _w in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"):
    _V2_WORDS[_w] = math.inf
for _w in ("-.inf", "-.Inf", "-.INF"):
    _V2_WORDS[_w] = -math.inf

_V2_NUMERIC_START = frozenset("+-0123456789.")
_V2_INT = re.compile(
    r"[-+]?(?:0[xX](?P<hex>[0-9a-fA-F]+)|0[oO](?P<oct>[0-7]+)|0[bB](?P<bin>[01]+)"
    r"|0(?P<oct0>[0-7]+)|(?P<dec>0|[1-9][0-9]*))"
)
_V2_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_I64_MIN, _U64_MAX = -(2**63), 2**64 - 1


def resolve_plain_v2(s: str) -> Any:
    """Value of an untagged *plain* scalar as go-yaml v2 / kubectl reads it."""
    r = _V2_WORDS.get(s, _MISS)
    if r is not _MISS:
        return r
    c = s[0]
    if c not in _V2_NUMERIC_START:
        return s
    if c == ".":
        return float(s) if _V2_FLOAT.fullmatch(s) else s
    p = s.replace("_", "") if "_" in s else s
    m = _V2_INT.fullmatch(p)
    if m is not None:
        g = m.lastgroup
        digits = m.group(g)  # type: ignore[arg-type]
        v = int(digits, {"hex": 16, "oct": 8, "oct0": 8, "bin": 2, "dec": 10}[g])  # type: ignore[index]
        if p[0] == "-":
            v = -v
        if _I64_MIN <= v <= _U64_MAX:
            return v
    if _V2_FLOAT.fullmatch(p):
        return float(p)
    return s


# Scalar style carried on the value: empty str subclasses (no per-object cost)
class SQ(str):
    """single-quoted in the input"""


class DQ(str):
    """double-quoted in the input"""


class LIT(str):
    """|literal block in the input"""


class FOLD(str):
    """>folded block in the input"""


STYLE_CLS: dict[str, type] = {"'": SQ, '"': DQ, "|": LIT, ">": FOLD, "": str}


# --------------------------------------------------------------------------
# own loader: PyYAML's C parser at node level + own constructor
# --------------------------------------------------------------------------
T_PLAIN = "?plain"  # returned by our resolver for untagged plain scalars
T_STR = "tag:yaml.org,2002:str"
T_MAP = "tag:yaml.org,2002:map"
T_SEQ = "tag:yaml.org,2002:seq"

if HAVE_LIBYAML:

    from yaml.cyaml import CParser  # type: ignore[attr-defined]

    class TrivialResolverCParser(CParser):
        """libyaml parser+composer; implicit resolution replaced by a constant
        tag so that plain scalars can be resolved later (go-yaml v2 rules)."""

        def descend_resolver(self, parent: Any, index: Any) -> None:
            pass

        def ascend_resolver(self) -> None:
            pass

        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            if kind is ScalarNode:
                return T_PLAIN if implicit[0] else T_STR
            return T_MAP if kind is MappingNode else T_SEQ

    _EXPLICIT: dict[str, Callable[[str], Any]] = {
        "tag:yaml.org,2002:str": str,
        "tag:yaml.org,2002:int": lambda v: resolve_plain_v2(v),
        "tag:yaml.org,2002:float": lambda v: float(resolve_plain_v2(v)),
        "tag:yaml.org,2002:bool": lambda v: resolve_plain_v2(v),
        "tag:yaml.org,2002:null": lambda v: None,
    }

    def compose_trivial(text: str) -> Any:
        p = TrivialResolverCParser(text)
        try:
            return p.get_single_node()
        finally:
            p.dispose()

    def _construct(node: Any) -> Any:
        """Node graph -> plain dict/list/str/int/float/bool/None.  Recursive;
        scalars are handled inline in the container loops (no call per scalar)."""
        cls = node.__class__
        if cls is MappingNode:
            d: dict[Any, Any] = {}
            for kn, vn in node.value:
                if kn.__class__ is ScalarNode:
                    k = kn.value
                    if kn.tag is T_PLAIN:
                        k = resolve_plain_v2(k)
                else:
                    k = _construct(kn)
                    if isinstance(k, (dict, list)):
                        k = repr(k)
                if vn.__class__ is ScalarNode:
                    tag = vn.tag
                    if tag is T_PLAIN:
                        v = vn.value
                        r = _V2_WORDS.get(v, _MISS)
                        if r is not _MISS:
                            v = r
                        elif v[0] in _V2_NUMERIC_START:
                            v = resolve_plain_v2(v)
                        d[k] = v
                    elif tag is T_STR:
                        d[k] = vn.value
                    else:
                        d[k] = _EXPLICIT.get(tag, str)(vn.value)
                else:
                    d[k] = _construct(vn)
            return d
        if cls is SequenceNode:
            out: list[Any] = []
            ap = out.append
            for vn in node.value:
                if vn.__class__ is ScalarNode:
                    tag = vn.tag
                    if tag is T_PLAIN:
                        ap(resolve_plain_v2(vn.value))
                    elif tag is T_STR:
                        ap(vn.value)
                    else:
                        ap(_EXPLICIT.get(tag, str)(vn.value))
                else:
                    ap(_construct(vn))
            return out
        if node.tag is T_PLAIN:
            return resolve_plain_v2(node.value)
        if node.tag is T_STR:
            return node.value
        return _EXPLICIT.get(node.tag, str)(node.value)

    def own_load(text: str) -> Any:
        """compose (trivial resolver) + own constructor."""
        return _construct(compose_trivial(text))

    def own_load_events(text: str, styled: bool = False) -> Any:
        """libyaml event stream (yaml.parse) + own stack-based builder.
        styled=True: non-plain scalar values become SQ/DQ/LIT/FOLD (empty str
        subclasses), so the emitter can re-emit them as written."""
        from yaml.events import (AliasEvent, MappingEndEvent, MappingStartEvent,
                                 ScalarEvent, SequenceEndEvent, SequenceStartEvent)

        stack: list[Any] = []
        keys: list[Any] = []
        anchors: dict[str, Any] = {}
        root: Any = None
        _NOKEY = _MISS
        key: Any = _NOKEY
        words, numstart, res, sty = _V2_WORDS, _V2_NUMERIC_START, resolve_plain_v2, STYLE_CLS
        ev: Any
        for ev in yaml.parse(text, Loader=yaml.CSafeLoader):
            cls = ev.__class__
            if cls is ScalarEvent:
                v: Any = ev.value
                if ev.tag is None:
                    if ev.implicit[0]:
                        r = words.get(v, _MISS)
                        if r is not _MISS:
                            v = r
                        elif v[0] in numstart:
                            v = res(v)
                    elif styled and key is not _NOKEY:
                        v = sty[ev.style](v)
                else:
                    v = _EXPLICIT.get(ev.tag, str)(v)
                if ev.anchor is not None:
                    anchors[ev.anchor] = v
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                v = {} if cls is MappingStartEvent else []
                if ev.anchor is not None:
                    anchors[ev.anchor] = v
                if stack:
                    top = stack[-1]
                    if top.__class__ is dict:
                        top[key] = v
                        key = _NOKEY
                    else:
                        top.append(v)
                else:
                    root = v
                stack.append(v)
                keys.append(key)
                continue
            elif cls is MappingEndEvent or cls is SequenceEndEvent:
                stack.pop()
                key = keys.pop()
                continue
            elif cls is AliasEvent:
                v = anchors[ev.anchor]
            else:
                continue
            if not stack:
                root = v
                continue
            top = stack[-1]
            if top.__class__ is dict:
                if key is _NOKEY:
                    key = v
                else:
                    top[key] = v
                    key = _NOKEY
            else:
                top.append(v)
        return root

    def own_load_events_styled(text: str) -> Any:
        return own_load_events(text, styled=True)


# --------------------------------------------------------------------------
# own emitter: block YAML, literal blocks, YAML 1.1 + 1.2 + go-yaml quoting
# --------------------------------------------------------------------------
# A string is written plain only if no YAML 1.1 (PyYAML), YAML 1.2 core or
# go-yaml v2/v3 reader would resolve it to a non-string, and it is
# syntactically safe as a plain scalar in block context.
_RESOLVES = re.compile(
    r"""(?:
      ~|null|Null|NULL|[yYnN]|yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE
     |on|On|ON|off|Off|OFF
     |[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)
     |[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)(?:[eE][-+]?[0-9]+)?
     |[-+]?0[xX][0-9a-fA-F_]+|[-+]?0[oO][0-7_]+|[-+]?0[bB][01_]+
     |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?
     |[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}
        (?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?
           (?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::?[0-9]{2})?))?)?
     |<<|=
    )""",
    re.X,
)
_UNSAFE_PLAIN = re.compile(
    r"""^[\s?:,\[\]{}#&*!|>'"%@`]|^-(?:\s|$)|^(?:---|\.\.\.)|[\s:]$|:\s|\s\#"""
    r"""|[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff]"""
)
_NONPRINT = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff]")
_LIT_BAD = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff]| \n| $")
_ESC = re.compile(r"[\x7f-\x9f\u2028\u2029\ufeff]")


def _dq(s: str) -> str:
    q = json.dumps(s, ensure_ascii=False)  # valid YAML double-quoted scalar
    if _ESC.search(q):
        q = _ESC.sub(lambda m: f"\\u{ord(m.group()):04x}", q)
    return q


def scalar_str(s: str, ind: str) -> str:
    """YAML text of string value s (after 'key: ' or '- '), block scalar
    content indented by ind + 2 spaces."""
    if "\n" in s:
        if len(s) > 1 and not _LIT_BAD.search(s) and s.lstrip("\n")[:1] not in (" ", ""):
            if s[-1] == "\n":
                head, body = ("|+" if s.endswith("\n\n") else "|"), s[:-1]
            else:
                head, body = "|-", s
            ind2 = ind + "  "
            return head + "\n" + "\n".join([ind2 + ln if ln else "" for ln in body.split("\n")])
        return _dq(s)
    if not s or _RESOLVES.fullmatch(s) or _UNSAFE_PLAIN.search(s):
        return _dq(s)
    return s


def _emit_sq(s: str, ind: str) -> str:
    if "\n" in s or _NONPRINT.search(s):
        return scalar_str(s, ind)
    return "'" + s.replace("'", "''") + "'"


def _emit_lit(s: str, ind: str) -> str:
    r = scalar_str(s, ind)  # literal when possible (folded is re-emitted as literal)
    return r if "\n" in s else scalar_str(str(s), ind)


STYLED_EMIT: dict[type, Callable[[str, str], str]] = {
    SQ: _emit_sq, DQ: lambda s, ind: _dq(s), LIT: _emit_lit, FOLD: _emit_lit,
}


def scalar_other(v: Any) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    t = type(v)
    if t is int or isinstance(v, int):
        return str(int(v))
    if t is float or isinstance(v, float):
        if v != v:
            return ".nan"
        if v in (math.inf, -math.inf):
            return ".inf" if v > 0 else "-.inf"
        r = repr(float(v))
        if "." not in r and "e" in r:  # 1e+16 is a string for YAML 1.1 readers
            m, e = r.split("e")
            r = f"{m}.0e{e}"
        return r
    return _dq(str(v))


def make_emitter(cache: bool = True) -> Callable[[Any], str]:
    """Recursive emitter writing into a list of strings, joined once.
    With cache=True a dict memoises the YAML text of single-line strings and
    keys (bounded to strings < 64 chars)."""
    scache: dict[str, str] = {}

    def fmt(v: Any, ind: str) -> str:
        t = type(v)
        if t is str:
            if cache:
                r = scache.get(v)
                if r is not None:
                    return r
                r = scalar_str(v, ind)
                if len(v) < 64 and "\n" not in v:
                    scache[v] = r
                return r
            return scalar_str(v, ind)
        if t in STYLED_EMIT:
            return STYLED_EMIT[t](v, ind)
        return scalar_other(v)

    def fmt_key(k: Any) -> str:
        if type(k) is str:
            if cache:
                r = scache.get(k)
                if r is not None:
                    return r
            return _dq(k) if "\n" in k else fmt(k, "")
        return scalar_other(k)

    def emit(doc: Any) -> str:
        out: list[str] = []
        ap = out.append

        def emit_map(d: dict[Any, Any], ind: str) -> None:
            for k, v in d.items():
                ks = fmt_key(k)
                t = type(v)
                if t is dict:
                    if v:
                        ap(f"{ind}{ks}:\n")
                        emit_map(v, ind + "  ")
                    else:
                        ap(f"{ind}{ks}: {{}}\n")
                elif t is list:
                    if v:
                        ap(f"{ind}{ks}:\n")
                        emit_seq(v, ind)
                    else:
                        ap(f"{ind}{ks}: []\n")
                else:
                    ap(f"{ind}{ks}: {fmt(v, ind)}\n")

        def emit_seq(seq: list[Any], ind: str) -> None:
            ind2 = ind + "  "
            cut = len(ind2)
            dash = ind + "- "
            for v in seq:
                t = type(v)
                if t is dict:
                    if v:
                        pos = len(out)
                        emit_map(v, ind2)
                        out[pos] = dash + out[pos][cut:]
                    else:
                        ap(f"{dash}{{}}\n")
                elif t is list:
                    if v:
                        pos = len(out)
                        emit_seq(v, ind2)
                        out[pos] = dash + out[pos][cut:]
                    else:
                        ap(f"{dash}[]\n")
                else:
                    ap(f"{dash}{fmt(v, ind)}\n")

        if type(doc) is dict:
            emit_map(doc, "") if doc else ap("{}\n")
        elif type(doc) is list:
            emit_seq(doc, "") if doc else ap("[]\n")
        else:
            ap(fmt(doc, "") + "\n")
        return "".join(out)

    return emit


def make_emitter_iterative() -> Callable[[Any], str]:
    """Same output, explicit stack of iterators instead of recursion."""
    scache: dict[str, str] = {}

    def fmt(v: Any, ind: str) -> str:
        if type(v) is str:
            r = scache.get(v)
            if r is None:
                r = scalar_str(v, ind)
                if len(v) < 64 and "\n" not in v:
                    scache[v] = r
            return r
        return scalar_other(v)

    def emit(doc: Any) -> str:
        out: list[str] = []
        ap = out.append
        # frame: (iterator, is_map, ind, patch) ; patch = (dash, cut) for first line
        stack: list[tuple[Iterator[Any], bool, str]] = []
        if type(doc) is dict:
            stack.append((iter(doc.items()), True, ""))
        else:
            stack.append((iter(doc), False, ""))
        pending: list[tuple[int, str, int]] = []
        while stack:
            it, is_map, ind = stack[-1]
            for item in it:
                if is_map:
                    k, v = item
                    ks = fmt(k, "") if type(k) is str and "\n" not in k else (
                        _dq(k) if type(k) is str else scalar_other(k))
                    t = type(v)
                    if t is dict and v:
                        ap(f"{ind}{ks}:\n")
                        stack.append((iter(v.items()), True, ind + "  "))
                        break
                    if t is list and v:
                        ap(f"{ind}{ks}:\n")
                        stack.append((iter(v), False, ind))
                        break
                    if t is dict:
                        ap(f"{ind}{ks}: {{}}\n")
                    elif t is list:
                        ap(f"{ind}{ks}: []\n")
                    else:
                        ap(f"{ind}{ks}: {fmt(v, ind)}\n")
                else:
                    v = item
                    t = type(v)
                    if (t is dict or t is list) and v:
                        ind2 = ind + "  "
                        pending.append((len(out), ind + "- ", len(ind2)))
                        stack.append((iter(v.items()) if t is dict else iter(v), t is dict, ind2))
                        break
                    if t is dict:
                        ap(f"{ind}- {{}}\n")
                    elif t is list:
                        ap(f"{ind}- []\n")
                    else:
                        ap(f"{ind}- {fmt(v, ind)}\n")
            else:
                stack.pop()
        for pos, dash, cut in pending:
            out[pos] = dash + out[pos][cut:]
        return "".join(out)

    return emit


own_emit = make_emitter(cache=True)
own_emit_nocache = make_emitter(cache=False)
own_emit_iter = make_emitter_iterative()


# --------------------------------------------------------------------------
# rapidyaml tree -> Python
# --------------------------------------------------------------------------
def ryml_to_py(tree: Any) -> Any:
    """Walk a ryml tree into dicts/lists; plain scalars resolved with go-yaml
    v2 rules, quoted/literal/folded ones kept as str (style from the
    VALQUO / KEYQUO flag bits of tree.type(node))."""
    NONE = ryml.NONE
    MAP, SEQ, VALQUO, KEYQUO, VALTAG = ryml.MAP, ryml.SEQ, ryml.VALQUO, ryml.KEYQUO, ryml.VALTAG
    ttype, first, nxt, key, val = tree.type, tree.first_child, tree.next_sibling, tree.key, tree.val
    res = resolve_plain_v2

    def node(n: int, ty: int) -> Any:
        if ty & MAP:
            d: dict[Any, Any] = {}
            ch = first(n)
            while ch != NONE:
                cty = ttype(ch)
                kb = key(ch)
                k = str(kb, "utf8") if kb is not None else ""
                if not cty & KEYQUO:
                    k = res(k)
                d[k] = node(ch, cty)
                ch = nxt(ch)
            return d
        if ty & SEQ:
            out: list[Any] = []
            ch = first(n)
            while ch != NONE:
                out.append(node(ch, ttype(ch)))
                ch = nxt(ch)
            return out
        vb = val(n)
        s = str(vb, "utf8") if vb is not None else ""
        if ty & VALTAG:
            tag = str(tree.val_tag(n), "utf8")
            if tag in ("!!str", "!", "tag:yaml.org,2002:str") or not tag.startswith("!!"):
                return s
            return float(res(s)) if tag == "!!float" else res(s)
        return s if ty & VALQUO else res(s)

    root = tree.root_id()
    return node(root, ttype(root))


# --------------------------------------------------------------------------
# candidate registry
# --------------------------------------------------------------------------
class Op:
    def __init__(self, lib: str, op: str, fn: Callable[[Any], Any], inp: str,
                 note: str = "") -> None:
        self.lib, self.op, self.fn, self.inp, self.note = lib, op, fn, inp, note


def build_ops() -> list[Op]:
    """inp names what the op consumes: text | bytes | data | json_text | ryml_tree
    | ruamel_rt_data | nodes."""
    ops: list[Op] = []
    if HAVE_LIBYAML:
        C = yaml.CSafeLoader
        ops += [
            Op("pyyaml-C", "load", lambda t: yaml.load(t, Loader=C), "text"),
            Op("pyyaml-C", "dump", lambda d: yaml.dump(
                d, Dumper=yaml.CSafeDumper, sort_keys=False, default_flow_style=False,
                allow_unicode=True, width=1 << 30), "data"),
        ]

        class LiteralDumper(yaml.CSafeDumper):
            def ignore_aliases(self, data: Any) -> bool:
                return True

        def _repr_str(dumper: Any, s: str) -> Any:
            if "\n" in s:
                return dumper.represent_scalar(T_STR, s, style="|")
            return dumper.represent_scalar(T_STR, s)

        LiteralDumper.add_representer(str, _repr_str)
        ops.append(Op("pyyaml-C+lit", "dump", lambda d: yaml.dump(
            d, Dumper=LiteralDumper, sort_keys=False, default_flow_style=False,
            allow_unicode=True, width=1 << 30), "data",
            "str representer -> '|' for multi-line; ignore_aliases"))
        ops += [
            Op("pyyaml-C compose", "compose", lambda t: yaml.compose(t, Loader=C), "text",
               "node graph only, default resolver"),
            Op("pyyaml-C compose/triv", "compose", compose_trivial, "text",
               "node graph only, resolver -> constant"),
            Op("own: compose/triv+ctor", "load", own_load, "text",
               "node graph + own v2 constructor"),
            Op("own: C events+builder", "load", own_load_events, "text",
               "yaml.parse events + own builder"),
            Op("own: C events+builder styled", "load", own_load_events_styled, "text",
               "quoted/block values as SQ/DQ/LIT/FOLD str subclasses"),
        ]
    if yaml_rs is not None:
        ops += [Op("yaml-rs", "load", lambda t: yaml_rs.loads(t, parse_datetime=False), "text",
                   "parse_datetime=False"),
                Op("yaml-rs", "dump", lambda d: yaml_rs.dumps(d), "data")]
    if pyyaml_rs is not None:
        ops += [Op("pyyaml-rs", "load", lambda t: pyyaml_rs.safe_load(t), "text"),
                Op("pyyaml-rs", "dump", lambda d: pyyaml_rs.safe_dump(d), "data")]
    if ryml is not None:
        ops += [
            Op("ryml", "parse", lambda b: ryml.parse_in_arena(b), "bytes",
               "parse_in_arena -> C++ tree"),
            Op("ryml", "parse_in_place", lambda b: ryml.parse_in_place(bytearray(b)), "bytes"),
            Op("ryml", "emit", lambda tr: ryml.emit_yaml(tr), "ryml_tree",
               "emit_yaml of the parsed tree"),
            Op("ryml tree->dict", "walk", ryml_to_py, "ryml_tree",
               "pure-Python walk + v2 resolve"),
            Op("ryml+walk", "load", lambda b: ryml_to_py(ryml.parse_in_arena(b)), "bytes"),
        ]
    if ruamel_yaml is not None:
        from ruamel.yaml import YAML

        if HAVE_RUAMEL_C:
            def _rs_load(t: str) -> Any:
                return YAML(typ="safe", pure=False).load(t)

            def _rs_dump(d: Any) -> str:
                y = YAML(typ="safe", pure=False)
                y.default_flow_style = False
                y.width = 1 << 30
                buf = io.StringIO()
                y.dump(d, buf)
                return buf.getvalue()

            ops += [Op("ruamel safe/C", "load", _rs_load, "text"),
                    Op("ruamel safe/C", "dump", _rs_dump, "data")]

        def _rt_load(t: str) -> Any:
            return YAML(typ="rt").load(t)

        def _rt_dump(d: Any) -> str:
            y = YAML(typ="rt")
            y.width = 1 << 30
            buf = io.StringIO()
            y.dump(d, buf)
            return buf.getvalue()

        ops += [Op("ruamel rt", "load", _rt_load, "text"),
                Op("ruamel rt", "dump", _rt_dump, "ruamel_rt_data")]
    ops += [Op("json", "load", json.loads, "json_text"),
            Op("json", "dump", json.dumps, "data")]
    if orjson is not None:
        ops += [Op("orjson", "load", orjson.loads, "json_text"),
                Op("orjson", "dump", orjson.dumps, "data")]
    if HAVE_LIBYAML:
        ops.append(Op("own emitter rec+cache", "dump (styled data)", own_emit, "styled_data",
                      "input from the styled loader: re-emits quotes/literals as written"))
    ops += [
        Op("own emitter rec+cache", "dump", own_emit, "data"),
        Op("own emitter rec nocache", "dump", own_emit_nocache, "data"),
        Op("own emitter iterative", "dump", own_emit_iter, "data"),
    ]
    return ops


# load+dump pairs summarised at the end: (label, [(lib, op), ...])
PAIRS: list[tuple[str, list[tuple[str, str]]]] = [
    ("pyyaml-C load + dump", [("pyyaml-C", "load"), ("pyyaml-C", "dump")]),
    ("pyyaml-C load + dump(lit)", [("pyyaml-C", "load"), ("pyyaml-C+lit", "dump")]),
    ("pyyaml-C load + own emit", [("pyyaml-C", "load"), ("own emitter rec+cache", "dump")]),
    ("own node-loader + own emit", [("own: compose/triv+ctor", "load"),
                                    ("own emitter rec+cache", "dump")]),
    ("own events-loader + own emit", [("own: C events+builder", "load"),
                                      ("own emitter rec+cache", "dump")]),
    ("own styled events-loader + own emit", [("own: C events+builder styled", "load"),
                                             ("own emitter rec+cache", "dump (styled data)")]),
    ("ryml parse+walk + own emit", [("ryml+walk", "load"), ("own emitter rec+cache", "dump")]),
    ("ryml parse + emit (tree only)", [("ryml", "parse"), ("ryml", "emit")]),
    ("yaml-rs load + dump", [("yaml-rs", "load"), ("yaml-rs", "dump")]),
    ("pyyaml-rs load + dump", [("pyyaml-rs", "load"), ("pyyaml-rs", "dump")]),
    ("ruamel safe/C load + dump", [("ruamel safe/C", "load"), ("ruamel safe/C", "dump")]),
    ("ruamel rt load + dump", [("ruamel rt", "load"), ("ruamel rt", "dump")]),
    ("json load + dump", [("json", "load"), ("json", "dump")]),
    ("orjson load + dump", [("orjson", "load"), ("orjson", "dump")]),
]


# --------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------
def time_op(fn: Callable[[Any], Any], arg: Any, repeat: int, cutoff: float,
            gc_off: bool) -> tuple[float, int]:
    times: list[float] = []
    for _ in range(repeat):
        gc.collect()
        if gc_off:
            gc.disable()
        t0 = time.perf_counter()
        try:
            r = fn(arg)
            times.append(time.perf_counter() - t0)
        finally:
            gc.enable()
        del r
        if times[-1] > cutoff:
            break
    return statistics.median(times), len(times)


def prepare_inputs(n: int, need: set[str]) -> dict[str, Any]:
    """Build the inputs the selected ops consume (see Op.inp)."""
    text = make_resource_list_yaml(n)
    inputs: dict[str, Any] = {"text": text, "bytes": text.encode()}
    if need & {"data", "json_text", "styled_data"}:
        if HAVE_LIBYAML:
            data = yaml.load(text, Loader=yaml.CSafeLoader)
            if n <= 2000:
                assert own_load(text) == data, "own loader disagrees with PyYAML on bench data"
        elif ruamel_yaml is not None:
            from ruamel.yaml import YAML

            data = YAML(typ="safe", pure=True).load(text)
        else:
            raise SystemExit("need PyYAML or ruamel.yaml to build the reference data")
        inputs["data"] = data
        inputs["json_text"] = json.dumps(data)
    if "styled_data" in need:
        inputs["styled_data"] = own_load_events_styled(text)
    if "ryml_tree" in need:
        inputs["ryml_tree"] = ryml.parse_in_arena(inputs["bytes"])
    if "ruamel_rt_data" in need:
        from ruamel.yaml import YAML

        inputs["ruamel_rt_data"] = YAML(typ="rt").load(text)
    return inputs


def fmt_s(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x * 1000:.0f} ms" if x < 1 else f"{x:.2f} s"


def run_bench(sizes: list[int], repeat: int, cutoff: float, only: str | None,
              gc_modes: list[str]) -> None:
    ops = [o for o in build_ops() if not only or re.search(only, o.lib)]
    res: dict[tuple[str, str, int, str], tuple[float, int]] = {}
    for n in sizes:
        inputs = prepare_inputs(n, {o.inp for o in ops})
        # keep the prepared inputs out of the cyclic GC's way, so that every op
        # sees GC costs as in a fresh process holding only its own input
        gc.collect()
        gc.freeze()
        print(f"# n={n}: {len(inputs['text']) / 1e6:.2f} MB YAML, "
              f"{len(inputs['text']) / n:.0f} B/VM", file=sys.stderr, flush=True)
        for mode in gc_modes:
            for o in ops:
                t, k = time_op(o.fn, inputs[o.inp], repeat, cutoff, mode == "off")
                res[(o.lib, o.op, n, mode)] = (t, k)
                print(f"#   gc {mode:3s} {o.lib:30s} {o.op:18s} {fmt_s(t):>9s} "
                      f"({k} run{'s' * (k > 1)})", file=sys.stderr, flush=True)
        gc.unfreeze()
        del inputs
        gc.collect()

    cols = [(n, m) for m in gc_modes for n in sizes]
    head = [(f"{n // 1000}k" if n % 1000 == 0 else str(n)) + ("" if m == "on" else " nogc")
            for n, m in cols]
    last = cols[-1]
    totals: dict[str, list[float | None]] = {}
    for label, parts in PAIRS:
        row: list[float | None] = []
        for n, m in cols:
            ts = [res.get((lib, op, n, m)) for lib, op in parts]
            row.append(sum(t[0] for t in ts if t is not None) if all(ts) else None)
        if any(v is not None for v in row):
            totals[label] = row
    tot_last = [v[-1] for v in totals.values() if v[-1] is not None]
    best = min(tot_last) if tot_last else None
    best_label = next((k for k, v in totals.items() if v[-1] == best), "?")

    def ratio(x: float | None) -> str:
        return "-" if (x is None or not best) else f"{x / best:.2f}x"

    print(f"\n## per operation: median of up to {repeat} runs, wall clock; 'nogc' = "
          f"gc.disable() around the op. ratio = [{head[-1]}] / fastest load+dump pair "
          f"[{head[-1]}] ({best_label})")
    print("| library | op | " + " | ".join(head) + " | ratio | note |")
    print("|" + "---|" * (len(head) + 4))
    for o in ops:
        cells = []
        for n, m in cols:
            r = res.get((o.lib, o.op, n, m))
            cells.append("-" if r is None else fmt_s(r[0]) + ("*" if r[1] < repeat else ""))
        tl = res.get((o.lib, o.op) + last)
        print(f"| {o.lib} | {o.op} | " + " | ".join(cells)
              + f" | {ratio(tl[0] if tl else None)} | {o.note} |")
    print(f"\n## load + dump pairs (ratio = [{head[-1]}] / fastest pair)")
    print("| pair | " + " | ".join(head) + " | ratio |")
    print("|" + "---|" * (len(head) + 2))
    for label, row in sorted(totals.items(), key=lambda kv: kv[1][-1] or 1e9):
        print(f"| {label} | " + " | ".join(fmt_s(v) for v in row) + f" | {ratio(row[-1])} |")
    print("\n(* = a single run: it exceeded --slow-cutoff)")


# --------------------------------------------------------------------------
# peak RSS (one fresh subprocess per pair)
# --------------------------------------------------------------------------
RSS_PAIRS = {
    "baseline (text only)": ("", ""),
    "pyyaml-C": ("pyyaml-C/load", "pyyaml-C/dump"),
    "own node-loader + own emit": ("own: compose/triv+ctor/load", "own emitter rec+cache/dump"),
    "own events-loader + own emit": ("own: C events+builder/load", "own emitter rec+cache/dump"),
    "ryml parse+walk + own emit": ("ryml+walk/load", "own emitter rec+cache/dump"),
    "ryml parse + emit": ("ryml/parse", "ryml/emit"),
    "yaml-rs": ("yaml-rs/load", "yaml-rs/dump"),
    "pyyaml-rs": ("pyyaml-rs/load", "pyyaml-rs/dump"),
    "ruamel safe/C": ("ruamel safe/C/load", "ruamel safe/C/dump"),
    "ruamel rt": ("ruamel rt/load", "ruamel rt/dump"),
    "orjson": ("orjson/load", "orjson/dump"),
}


def rss_child(n: int, load_key: str, dump_key: str) -> None:
    import resource

    ops = {f"{o.lib}/{o.op}": o for o in build_ops()}
    text = make_resource_list_yaml(n)
    if load_key:
        lo = ops[load_key]
        arg: Any = {"text": text, "bytes": text.encode() if lo.inp == "bytes" else None,
                    "json_text": None}[lo.inp]
        if lo.inp == "json_text":
            arg = json.dumps(yaml.load(text, Loader=yaml.CSafeLoader))
        del text
        data = lo.fn(arg)
        del arg
        ops[dump_key].fn(data)
    # VmHWM of this process image (ru_maxrss would include the parent's RSS
    # inherited across fork on Linux)
    try:
        with open("/proc/self/status") as f:
            hwm = next(int(ln.split()[1]) for ln in f if ln.startswith("VmHWM:"))
    except (OSError, StopIteration):
        hwm = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(hwm)


def run_rss(n: int) -> None:
    avail = {f"{o.lib}/{o.op}" for o in build_ops()}
    print(f"\n## peak RSS, load + dump of {n} VMs in a fresh process")
    print("| pair | peak RSS |\n|---|---|")
    for label, (lk, dk) in RSS_PAIRS.items():
        if lk and (lk not in avail or dk not in avail):
            continue
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--_rss-child",
                            str(n), lk, dk], capture_output=True, text=True)
        if p.returncode != 0:
            print(f"| {label} | failed: {p.stderr.strip().splitlines()[-1:]} |")
            continue
        print(f"| {label} | {int(p.stdout.split()[-1]) / 1024:.0f} MB |")


# --------------------------------------------------------------------------
# faithfulness
# --------------------------------------------------------------------------
TRICKY_PLAIN = [
    "yes", "Yes", "YES", "no", "on", "off", "y", "Y", "n", "N", "true", "False",
    "~", "null", "Null", "", "0777", "0o17", "0x1F", "0b101", "1_000", "1e3", "1.5e3",
    "1E3", ".5", "+12", "-0", "012345", "09", "1:20", ".inf", "-.Inf", ".nan", "NaN", "inf",
    "2001-12-14", "2001-12-14T21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5",
    "<<", "=", "123456789012345678901234567890",
]
TRICKY_QUOTED: dict[str, Any] = {'"123"': "123", "'1'": "1", '"yes"': "yes", "'~'": "~",
                                 '"2001-12-14"': "2001-12-14", "!!str 0777": "0777",
                                 "!!int '17'": 17}
TRICKY_STRINGS = [s for s in TRICKY_PLAIN] + [
    "-", "- x", "-x", "?", ":x", "a: b", "a #b", "#c", "trailing ", " leading", "x:",
    "@at", "`tick", "%pct", "'sq'", '"dq"', "[a]", "{a}", "*ref", "&anc", "!tag",
    "---", "...", "tab\there", "ctl\x07bell", "del\x7f", "nel\x85", "ls\u2028sep", "é ü 中",
    "multi\nline\n", "multi\nline", "two\n\ntrailing\n\n", "sp \ntrailing", " lead\nx",
    "\nlead-nl", "x\r\ny",
]


def _short(v: Any) -> str:
    if isinstance(v, str):
        return repr(v) if len(v) < 14 else repr(v[:11]) + "…"
    if isinstance(v, float):
        return repr(v)
    if v is None or isinstance(v, (bool, int)):
        return repr(v)
    return type(v).__name__


def parsers() -> list[tuple[str, Callable[[str], Any]]]:
    out: list[tuple[str, Callable[[str], Any]]] = []
    if HAVE_LIBYAML:
        out.append(("PyYAML C", lambda t: yaml.load(t, Loader=yaml.CSafeLoader)))
        out.append(("own v2", own_load))
    if yaml_rs is not None:
        out.append(("yaml-rs", lambda t: yaml_rs.loads(t)))
        out.append(("yaml-rs nodt", lambda t: yaml_rs.loads(t, parse_datetime=False)))
    if pyyaml_rs is not None:
        out.append(("pyyaml-rs", lambda t: pyyaml_rs.safe_load(t)))
    if ryml is not None:
        out.append(("ryml+walk", lambda t: ryml_to_py(ryml.parse_in_arena(t.encode()))))
    if ruamel_yaml is not None:
        from ruamel.yaml import YAML

        if HAVE_RUAMEL_C:
            out.append(("ruamel safe/C", lambda t: YAML(typ="safe", pure=False).load(t)))
        out.append(("ruamel rt", lambda t: YAML(typ="rt").load(t)))
    return out


def emitters() -> list[tuple[str, Callable[[Any], str]]]:
    out: list[tuple[str, Callable[[Any], str]]] = []
    for o in build_ops():
        if o.op == "dump" and o.inp in ("data", "ruamel_rt_data") and o.lib not in (
                "json", "orjson", "own emitter rec nocache", "own emitter iterative"):
            out.append((o.lib, o.fn))
    return out


def run_faith() -> None:
    ps = parsers()
    print("\n## parse: value of `v: <scalar>` (target = go-yaml v2.4 as kubectl reads it)")
    print("| scalar | kubectl(v2) | " + " | ".join(n for n, _ in ps) + " |")
    print("|" + "---|" * (len(ps) + 2))
    for s in TRICKY_PLAIN + list(TRICKY_QUOTED):
        quoted = s in TRICKY_QUOTED
        want: Any = TRICKY_QUOTED[s] if quoted else resolve_plain_v2(s)
        cells = []
        for _, p in ps:
            try:
                v = p(f"v: {s}\n")
                v = v["v"] if isinstance(v, dict) else v
                c = _short(v)
                if not _same(v, want):
                    c = f"**{c}**"
                cells.append(c)
            except Exception as e:  # noqa: BLE001
                cells.append(f"ERR {type(e).__name__}")
        print(f"| `{s}` | {_short(want)} | " + " | ".join(cells) + " |")

    # style exposure
    print("\n## scalar style exposure")
    src = "a: plain\nb: 'single'\nc: \"double\"\nd: |-\n  lit\ne: >-\n  fold\n"
    if HAVE_LIBYAML:
        node: Any = yaml.compose(src, Loader=yaml.CSafeLoader)
        print("PyYAML compose ScalarNode.style:",
              {k.value: v.style for k, v in node.value})
    if ryml is not None:
        t = ryml.parse_in_arena(src.encode())
        sty = {}
        for ch in ryml.children(t):
            ty = t.type(ch)
            sty[str(t.key(ch), "utf8")] = ("plain" if ty & ryml.VAL_PLAIN else "squo" if ty & ryml.VAL_SQUO
                                           else "dquo" if ty & ryml.VAL_DQUO else "literal"
                                           if ty & ryml.VAL_LITERAL else "folded" if ty & ryml.VAL_FOLDED
                                           else "?")
        print("ryml tree.type(node) & VAL_PLAIN/VAL_SQUO/VAL_DQUO/VAL_LITERAL/VAL_FOLDED:", sty)

    # emitters
    print("\n## emit: strings that do NOT read back as the same str "
          "(readers: PyYAML 1.1 / own go-yaml-v2 / ruamel 1.2)")
    readers: list[tuple[str, Callable[[str], Any]]] = []
    if HAVE_LIBYAML:
        readers.append(("1.1", lambda t: yaml.load(t, Loader=yaml.CSafeLoader)))
        readers.append(("v2", own_load))
    if ruamel_yaml is not None:
        from ruamel.yaml import YAML

        readers.append(("1.2", lambda t: YAML(typ="safe", pure=True).load(t)))
    shared = {"k": "v"}
    probe = {"m": {"a": "x\ny\n", "b": [1, {"c": "d"}]}, "s1": shared, "s2": shared,
             "e": {}, "l": []}
    print("| emitter | strings not read back as the same str: (reader:value) "
          "| literal `|` for multi-line | flow/anchors/--- in nested output |")
    print("|---|---|---|---|")
    for name, em in emitters():
        fails: list[str] = []
        for s in TRICKY_STRINGS:
            try:
                txt = em({"v": s})
                if isinstance(txt, bytes):
                    txt = txt.decode()
            except Exception as e:  # noqa: BLE001
                fails.append(f"{s!r}(emit {type(e).__name__})")
                continue
            bad: list[str] = []
            for rn, rd in readers:
                try:
                    got = rd(txt)["v"]
                except Exception as e:  # noqa: BLE001
                    got = f"ERR {type(e).__name__}"
                if got != s or type(got) is not str:
                    bad.append(f"{rn}:{_short(got)}")
            if bad:
                fails.append(f"{s!r}({', '.join(bad)})")
        try:
            ptxt = em(probe)
            if isinstance(ptxt, bytes):
                ptxt = ptxt.decode()
            lit = "a: |" in ptxt
            flow = sorted({m for m in re.findall(r"\[[^\]]|\{[^}]|&id|\*id|^---", ptxt, re.M)})
        except Exception as e:  # noqa: BLE001
            lit, flow = False, [f"ERR {type(e).__name__}"]
        print(f"| {name} | {len(fails)}/{len(TRICKY_STRINGS)}: {'; '.join(fails) or '-'} "
              f"| {'yes' if lit else 'no'} | {', '.join(repr(f) for f in flow) or 'no'} |")


def _kind(v: Any) -> str:
    for t in (bool, int, float, str):
        if isinstance(v, t):
            return t.__name__
    return "None" if v is None else type(v).__name__


def _same(a: Any, b: Any) -> bool:
    """Equal value of the same kind (subclasses such as ruamel's ScalarInt count)."""
    if _kind(a) != _kind(b):
        return False
    if isinstance(a, float) and a != a:
        return bool(b != b)
    return bool(a == b)


def run_roundtrip(n: int) -> None:
    """Does each emitter's output of the bench data read back equal (PyYAML C)?"""
    if not HAVE_LIBYAML:
        return
    text = make_resource_list_yaml(n)
    data = yaml.load(text, Loader=yaml.CSafeLoader)
    print(f"\n## round trip of the {n}-VM bench data: emitter output re-read == data")
    for name, em in emitters():
        ok: bool | str
        try:
            ok = yaml.load(em(data), Loader=yaml.CSafeLoader) == data
        except Exception as e:  # noqa: BLE001
            ok = f"ERR {type(e).__name__}"
        print(f"- {name}: {ok}")
    if ryml is not None:
        t = ryml.parse_in_arena(text.encode())
        print(f"- ryml parse+emit (tree): {yaml.load(str(ryml.emit_yaml(t)), Loader=yaml.CSafeLoader) == data}")


# --------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vms", default="1000,10000", help="comma-separated VM counts")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--slow-cutoff", type=float, default=30.0,
                    help="do not repeat an op whose first run took longer (s)")
    ap.add_argument("--only", default=None, help="regex on library names")
    ap.add_argument("--gc", choices=("on", "off", "both"), default="both",
                    help="time ops with the cyclic GC on, off (gc.disable()), or both")
    ap.add_argument("--rss", action="store_true", help="also measure peak RSS at the largest size")
    ap.add_argument("--no-bench", action="store_true")
    ap.add_argument("--no-faith", action="store_true")
    ap.add_argument("--_rss-child", nargs=3, metavar=("N", "LOAD", "DUMP"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a._rss_child:
        rss_child(int(a._rss_child[0]), a._rss_child[1], a._rss_child[2])
        return 0
    print("## versions\n" + ", ".join(f"{k} {v}" for k, v in versions().items()))
    for note in NOTES:
        print(f"note: {note}")
    sizes = [int(x) for x in a.vms.split(",") if x]
    if not a.no_faith:
        run_faith()
        run_roundtrip(min(sizes))
    if not a.no_bench:
        run_bench(sizes, a.repeat, a.slow_cutoff, a.only,
                  ["on", "off"] if a.gc == "both" else [a.gc])
    if a.rss:
        run_rss(max(sizes))
    return 0


if __name__ == "__main__":
    sys.exit(main())

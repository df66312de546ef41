"""The YAML we read as text: the one place that says what a text shortcut may assume.

Three readers look at YAML without a parser, and each trusts only a subset of YAML.
The line scan (:mod:`krm_fn.io.linescan`) reads structure from indentation, for lines that :data:`LINE` matches.
The yaml-rs lane (:mod:`krm_fn.io.fastload`) leaves a chunk to the loader where a :data:`TOKENS` class could start a node.
A copied source span (:mod:`krm_fn.io.source`) is trusted unless :func:`hazard` finds an alias or another line break.
All three are built from the same character classes below, and the emitter's plain scalars use them too.
``tests/unit/io/test_subset.py`` checks the classes against libyaml and the subsets against each other.
"""

from __future__ import annotations

import re

# YAML's indicator characters: a plain scalar the shortcuts read never starts with one.
INDICATORS = "-?:,[]{}#&*!|>'\"%@`"
# The characters libyaml reads as a line break besides LF.
OTHER_BREAKS = "\r\x85\u2028\u2029"
# The byte-order mark: libyaml drops it at a stream's start; inside a text the readers differ on it.
BOM = "\ufeff"
# The characters libyaml refuses in a stream, as the body of a regex class (surrogates included).
NON_PRINTABLE = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff"
# The characters an alias can follow: whitespace, a flow indicator, or the ":" after a JSON-like key.
ALIAS_BEFORE = frozenset(" \t\n[{,:")

# --- the line scan's lines --------------------------------------------------------------------------

_PLAIN = rf"""[^{re.escape(INDICATORS)}\s][^\n#:]*(?<! )"""
_SCALAR = rf"""{_PLAIN}|"[^"\\\n]*"|'[^'\n]*'"""
# a flow mapping on one line of plain keys and plain (no space, no indicator) or double-quoted values
_FLOW_VALUE = r'[\w./][\w./+=~-]*|"(?:[^"\\\n]|\\[\\"/bfnrt]|\\u[0-9a-fA-F]{4})*"'
KEY = r"[A-Za-z][\w./-]*"  # a plain key the line scan reads
_FLOW_PAIR = rf"""{KEY}: (?:{_FLOW_VALUE})"""
_FLOW = rf"""\{{(?:{_FLOW_PAIR}(?:, {_FLOW_PAIR})*)?\}}|\[\]"""
# One line of the line scan's subset (its groups are what the scan reads).
LINE = re.compile(
    rf"""(?P<ind> *)(?P<dash>- )?(?:(?P<key>{KEY}):(?: (?:(?P<val>{_SCALAR})|(?P<flow>{_FLOW})"""
    rf"""|(?P<blk>[|>][-+]?)))?|(?P<sval>{_SCALAR}))\n""")
# The keys YAML 1.1 resolves to a boolean or null: the loader would not read them as strings.
NOT_STR_KEYS = frozenset("y yes n no true false on off null".split())

# --- where yaml-rs and the loader part ways ---------------------------------------------------------

# The classes of node text yaml-rs reads otherwise than the loader: (the characters a token starts with,
# the pattern). Each class is a superset: it also matches inside quoted and block scalars.
# tests/unit/io/test_fastload.py proves each one is needed.
TOKENS: dict[str, tuple[str, str]] = {
    # YAML 1.1 booleans (kubectl) that are strings in YAML 1.2 (yaml-rs)
    "bool": ("yYnNoO", r"(?:[yYnN]|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF)(?=[ \t]*(?:$|[#,\]}]|:(?:[ \t]|$)))"),
    # "_" in a number: kubectl drops it (and Go's ParseFloat takes it between digits), yaml-rs does not
    "underscore": ("_-+.0123456789", r"_|[-+.0-9][-+._0-9a-zA-Z:]*_"),
    # a leading zero (octal for kubectl, decimal for yaml-rs) or any base prefix: kubectl reads a prefixed
    # integer beyond 64 bits (0xFFFFFFFFFFFFFFFFFFFF) as a string, yaml-rs as an int of any size
    "radix": ("-+0", r"[-+]?0[0-9xXoObB]"),
    # 19 digits or more: beyond int64/uint64 kubectl reads a float, yaml-rs an int of any size
    "long digits": ("-+0123456789", r"[-+]?[0-9]{19}"),
    # an exponent of 3 digits or more: beyond float64 (1e400) kubectl keeps the string, yaml-rs reads inf
    "big exponent": ("-+.0123456789", r"[-+.0-9][-+.0-9]*[eE][-+]?[0-9]{3}"),
    # .inf/.nan in any case: kubectl knows three spellings of each, yaml-rs reads ".iNf" as inf too
    "inf nan": ("-+.", r"[-+]?\.[iInN][nNaA][fFnN]"),
    # a block scalar with no content line before the end of the chunk (only blank or comment lines):
    # libyaml reads "", yaml-rs "\n". A lookahead: what follows the header stays visible to the other scans.
    "empty block": ("|>", r"[|>][-+0-9]*(?=[ \t]*(?:#[^\n]*)?\n(?:[ \t]*(?:#[^\n]*)?\n)*(?:- |\Z))"),
    # nodes the loader must build: anchors, aliases, tags, directives, merge keys, explicit keys, markers
    "node": ("&*!%<?-.", r"[&*!%]|<<|\?(?:[ \t]|$)|---|\.\.\."),
}

# --- a copied span ----------------------------------------------------------------------------------

_OTHER_BREAK = re.compile(f"[{OTHER_BREAKS}]")


def hazard(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` may mean something else on its own: an alias, or a line break that is not LF."""
    star = text.find("*", start, end)
    while star >= 0:
        if star == start or text[star - 1] in ALIAS_BEFORE:
            return True
        star = text.find("*", star + 1, end)
    return not (text.isascii() or text[start:end].isascii()) and _OTHER_BREAK.search(text, start, end) is not None

"""The fast lane for the common input: a ResourceList as kpt and kustomize write it.

:mod:`krm_fn.io.loader` builds values in Python from libyaml's events, about 1 µs per event: 1.5 s for a
10k-VM list. yaml-rs (a Rust YAML 1.2 parser) builds the same dicts natively in about a quarter of that, but
it reads YAML 1.2, knows nothing about source positions, and a deep enough block nesting overflows its stack.
This lane uses it only where it provably gives the loader's answer, and hands everything else to the loader:

* **Layout.** Only ``items:`` at column 0 followed by ``- key: ...`` entries at column 0 (kyaml's layout).
  Each entry is a separate text chunk, so its source span is known without positions from the parser; the
  rest of the document (header, ``functionConfig``, ``results``) goes through the loader with ``items: []``.
* **Meaning.** A scalar yaml-rs reads differently from kubectl (YAML 1.1 via go-yaml v2) is one of:
  ``yes/no/on/off/y/n`` (any case form), a number with ``_``, a number with a leading zero or a base prefix
  (``0x``/``0o``/``0b``: beyond 64 bits kubectl keeps the string), 19 digits or more (beyond 64 bits), an
  exponent of 3 digits or more (beyond float64 kubectl keeps the string), ``.inf``/``.nan`` in other cases
  than kubectl's three spellings, a block scalar with no content
  line at the end of its entry (yaml-rs reads ``"\n"``, libyaml ``""``) or on the input's last line without
  a line break. Anchors, aliases, tags, merge keys, explicit keys, directives and document markers are left
  to the loader too. A chunk where any of these *could* start a node (:data:`~krm_fn.io.subset.TOKENS`, each a superset of its
  class: it also matches inside quoted and block scalars) is parsed by the loader instead. Non-string mapping
  keys (yaml-rs keeps ``1:`` an int) send the chunk to the loader as well.
* **Text.** Characters YAML 1.1 and 1.2 treat differently (NEL, LS/PS, CR) or that libyaml rejects, and
  indentation deep enough to threaten yaml-rs's stack, send the whole list to the loader.

``tests/unit/io/test_fastload.py`` checks the lane against the loader on every example, the conformance
inputs, the tricky-scalar corpus and generated tokens, values and spans alike.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Iterator
from typing import Any

from krm_fn.errors import InputError
from krm_fn.io.document import Document
from krm_fn.io.subset import BOM, NON_PRINTABLE, OTHER_BREAKS, TOKENS

# Where a node can start: after ": ", "- ", at a line's first non-blank, after a JSON-like key, in flow after
# "[", "{", ",". One pattern per place: a literal first character keeps each scan at C speed (one pattern
# with all of them is ten times slower). Tabs are handled by sending their entries to the loader.
_PLACES = (": ", "- ", "\n", '":', "':", "\\[", "\\{", ",")


def risk_patterns(tokens: dict[str, tuple[str, str]]) -> tuple[re.Pattern[str], ...]:
    """The scans for ``tokens`` at every place a node can start. A lookahead for the tokens' first
    characters comes first: most nodes start with a letter, and one class test is cheaper than trying
    every alternative (it halves the scan)."""
    token = _token_pattern(tokens)
    return tuple(re.compile(prefix + r"[ \t]*+" + token, re.MULTILINE) for prefix in _PLACES)


def risk_pattern(tokens: dict[str, tuple[str, str]]) -> re.Pattern[str]:
    """The same scans as one pattern, for whether a short text has any risk (:func:`load_plain`): ten times
    slower a character than :func:`risk_patterns`, but compiled in a tenth of the time (~0.5 ms, where a
    start-up pays for the compiling)."""
    return re.compile("(?:" + "|".join(_PLACES) + r")[ \t]*+" + _token_pattern(tokens), re.MULTILINE)


def _token_pattern(tokens: dict[str, tuple[str, str]]) -> str:
    first = "".join(sorted({c for chars, _ in tokens.values() for c in chars}))
    return f"(?=[{re.escape(first)}])(?:" + "|".join(pattern for _, pattern in tokens.values()) + ")"


# compiled on first use (start-up time: a run that reads no list needs neither)
_RISK: tuple[re.Pattern[str], ...] = ()  # risk_patterns(TOKENS)
_RISK_ANY: re.Pattern[str] | None = None  # risk_pattern(TOKENS)
_LONG = 1 << 16  # characters from which load_plain scans with _RISK


def _risk_scans() -> tuple[re.Pattern[str], ...]:
    global _RISK
    if not _RISK:
        _RISK = risk_patterns(TOKENS)
    return _RISK


def _risk_any() -> re.Pattern[str]:
    global _RISK_ANY
    if _RISK_ANY is None:
        _RISK_ANY = risk_pattern(TOKENS)
    return _RISK_ANY


# characters read differently by YAML 1.1 and 1.2 (line breaks), or rejected by libyaml
_BAD_TEXT = re.compile(f"[{OTHER_BREAKS}{BOM}{NON_PRINTABLE}]")
_DEEP = (" " * 256, "- " * 64)  # nesting deep enough to matter for yaml-rs's stack (it is 1000 for the loader)
_PRINTABLE_ASCII = bytes(range(0x20, 0x7F)) + b"\n\t"
# what may come before "items:" (kpt and kustomize write apiVersion and kind): no construct that spans lines
_HEAD = re.compile(r"(?:[A-Za-z]+: [A-Za-z0-9./-]+[ \t]*\n|#[^\n]*\n|---\n)*")
_SECTION_END = re.compile(r"\n[^-#\s]")
_ENTRY_START = frozenset(" \t#{[\"'|>-")


def load_resource_list(text: str) -> Document | None:
    """``text`` as the loader would read it (``track="items"``), or None when the lane does not apply."""
    items_at = 0 if text.startswith("items:\n- ") else text.find("\nitems:\n- ") + 1
    if items_at == 0 and not text.startswith("items:\n- ") or not _HEAD.fullmatch(text, 0, items_at):
        return None
    start = items_at + len("items:\n")
    end_match = _SECTION_END.search(text, start - 1)
    end = end_match.start() + 1 if end_match else len(text)
    region = text[start:end]
    if bad_text(region):
        return None
    offsets = _entry_offsets(region, start)
    if offsets is None:
        return None
    try:  # imported here: a short list (start-up time) never needs it
        from yaml_rs import loads
    except ImportError:  # pragma: no cover - yaml-rs is a dependency; without it every list takes the loader
        return None
    from krm_fn.io.loader import load_documents

    try:
        skeleton = load_documents(text[:items_at] + "items: []\n" + text[end:])
    except InputError:
        return None  # the loader on the whole text reports it with the right line numbers
    if len(skeleton) != 1 or not isinstance(skeleton[0].value, dict) or skeleton[0].value.get("items") != []:
        return None
    risky = _risky_entries(region, start, offsets)
    if not region.endswith("\n"):  # the input's last line has no line break: yaml-rs adds one to a block scalar
        risky.add(len(offsets) - 1)
    items: list[Any] = []
    spans: dict[int, tuple[int, int, int]] = {}
    bounds = offsets + [end]
    for i in range(len(offsets)):
        a, b = bounds[i], bounds[i + 1]
        chunk = text[a:b]
        item = None if i in risky else _fast_item(loads, chunk)
        if item is None:
            exact = _exact_item(chunk)
            if exact is None:
                return None
            item, (s, e, col) = exact
            spans[id(item)] = (a + s, a + e, col)
        else:
            spans[id(item)] = (a + 2, b, 2)
        items.append(item)
    root = skeleton[0].value
    root["items"] = items
    return Document(root, skeleton[0].start, len(text), 0, spans)


_SEPARATOR = "\n---\n"
_LEADING_COMMENTS = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\n)*")


def load_stream(text: str) -> list[Document] | None:
    """The documents of a YAML stream (one file) as the loader would read them (``load_documents(text)``),
    or None when the lane does not apply. The same rules as for a ResourceList's entries: each document
    between ``---`` lines is a chunk, read by yaml-rs unless a :data:`~krm_fn.io.subset.TOKENS` class could start a node in it
    (or it starts with something other than a key), else by the loader on its own."""
    if bad_text(text) or not _plain_separators(text):
        return None
    starts = [0] if not text.startswith("---\n") else [4]
    ends: list[int] = []
    i = text.find(_SEPARATOR)
    while i >= 0:
        ends.append(i + 1)
        starts.append(i + len(_SEPARATOR))
        i = text.find(_SEPARATOR, i + 1)
    ends.append(len(text) - 3 if text.endswith("\n---") else len(text))
    try:  # imported here: a short stream (start-up time) never needs it
        from yaml_rs import loads
    except ImportError:  # pragma: no cover - yaml-rs is a dependency; without it every stream takes the loader
        return None
    # separators seen by the scans as "- " lines: nothing starts a node there, and an empty block scalar right
    # before one is found as it is before the next entry of a ResourceList
    # (and a line break before the first: a line's first key is a place a node starts)
    scan = "\n" + text.replace(_SEPARATOR, "\n-  \n")
    if scan.startswith("\n---\n"):
        scan = "\n-  \n" + scan[5:]
    risky = _risky_entries(scan, -1, starts)
    if not text.endswith("\n"):
        risky.add(len(starts) - 1)
    docs: list[Document] = []
    for n, (a, b) in enumerate(zip(starts, ends)):
        head = _LEADING_COMMENTS.match(text, a, b)
        first = head.end() if head is not None else a
        if first >= b:  # only blank and comment lines: no document
            continue
        value = None if n in risky or text[first] in _ENTRY_START else _fast_document(loads, text[first:b])
        if value is None:
            try:
                exact = _exact_documents(text[a:b])
            except InputError:
                return None  # the loader on the whole text words it, with the file's line numbers
            docs += [Document(d.value, d.start + a, d.end + a, d.column, d.spans) for d in exact]
        else:
            docs.append(Document(value, first, b, 0))
    return docs


def _exact_documents(chunk: str) -> list[Document]:
    """A document the lane hands over, read by the loader (PyYAML: imported only when needed)."""
    from krm_fn.io.loader import load_documents

    return load_documents(chunk)


def _plain_separators(text: str) -> bool:
    """Whether every line starting with a document marker or a directive is exactly ``---`` (anything else on
    a marker line, ``...``, ``%``: the loader's)."""
    if text.startswith(("...", "%")) or "\n..." in text or "\n%" in text:
        return False
    if text.startswith("---") and not text.startswith("---\n"):
        return False
    return text.count("\n---") == text.count(_SEPARATOR) + text.endswith("\n---")


def _fast_document(loads: Callable[..., Any], chunk: str) -> Any:
    """One document through yaml-rs; None unless it is a mapping with string keys."""
    try:
        value = loads(chunk, parse_datetime=False)
    except Exception:  # noqa: BLE001 - any refusal: the loader decides (and words the error)
        return None
    return value if type(value) is dict and keys_are_strings(value) else None


def load_plain(text: str, scan: str | None = None) -> Any:
    """The value of ``text``, one block mapping or sequence at column 0 (a config file, the emitter's read-back
    batch), when yaml-rs provably reads it as the loader does; None when the lane does not apply (the loader
    reads it then, and words any error). The conditions are the ones an entry of :func:`load_resource_list`
    meets: the text ends with a line break, holds no character, nesting or :data:`~krm_fn.io.subset.TOKENS` risk that sends an
    entry to the loader (``---``, ``...`` and ``%`` among them: one document), and only string keys.
    ``scan``: the text the flow and risk scans read instead of ``text`` (``verify.check_emitted``: the same lines,
    the content of the block scalars it wrote blanked)."""
    if not text.endswith("\n") or text[:1] in _ENTRY_START - {"-"} or bad_text(text) or "\t" in text:
        return None
    scanned = text if scan is None else scan  # a block scalar's content holds no flow collection nor token
    flow = scanned.replace("[]", "").replace("{}", "")  # empty ones (kpt's "items: []") read alike
    if "[" in flow or "{" in flow:
        return None  # flow collections: yaml-rs takes YAML 1.2's implicit pairs ("[a: b]"), libyaml refuses some
    # the first line starts after a break too; a long text (an expanded fleet's read-back batch) pays for
    # compiling the per-place scans, ten times faster a character than the one pattern
    risks = _risk_scans() if len(scanned) > _LONG else (_risk_any(),)
    if any(risk.search("\n" + scanned) for risk in risks):
        return None
    try:
        from yaml_rs import loads
    except ImportError:  # pragma: no cover - yaml-rs is a dependency
        return None
    try:
        value = loads(text, parse_datetime=False)
    except Exception:  # noqa: BLE001 - any refusal (duplicate keys among them): the loader decides
        return None
    if type(value) is dict:
        return value if keys_are_strings(value) else None
    if type(value) is list:
        return value if keys_are_strings({"": value}) else None
    return None


def load_values(text: str) -> list[Any]:
    """The values of ``text``'s documents, as the loader reads them: one yaml-rs read where :func:`load_plain`
    applies (a config file, without importing PyYAML), else the loader."""
    value = load_plain(text)
    if value is not None:
        return [value]
    from krm_fn.io.loader import load_documents

    return [d.value for d in load_documents(text)]


def bad_text(region: str) -> bool:
    """Whether ``region`` holds a character YAML 1.1 and 1.2 read differently or libyaml rejects, or nesting
    deep enough to matter for yaml-rs's stack: the lane leaves such a text to the loader."""
    if any(deep in region for deep in _DEEP):
        return True
    if region.isascii():  # the common case: bytes.translate is ten times faster than the regex
        return bool(region.encode("ascii").translate(None, _PRINTABLE_ASCII))
    return _BAD_TEXT.search(region) is not None


def _entry_offsets(region: str, base: int) -> list[int] | None:
    """Where each ``- `` entry starts (absolute offsets); None if the region is not entries at column 0."""
    if not region.startswith("- "):
        return None
    offsets = [base]
    i = region.find("\n-", 0)
    while i >= 0:
        if region[i + 2:i + 3] != " ":
            return None  # "-x", "---", "-" alone: not kyaml's layout
        offsets.append(base + i + 1)
        i = region.find("\n-", i + 2)
    return offsets


def _risky_entries(region: str, base: int, offsets: list[int]) -> set[int]:
    """Indexes of the entries (or documents) with a tab or a :data:`_RISK` match. A match is counted where its
    token is (its last character): one found from the line break that ends a document's ``---`` line is the
    next document's first key."""
    hits = [m.end() - 1 for pattern in _risk_scans() for m in pattern.finditer(region)]
    tab = region.find("\t")
    while tab >= 0:
        hits.append(tab)
        tab = region.find("\t", tab + 1)
    return {bisect.bisect_right(offsets, base + pos) - 1 for pos in hits}


def load_entries(entries: list[str], keys: bool = True) -> Iterator[Any] | None:
    """What each ``- `` entry reads as, as the loader reads it (``verify``'s read-back batch: the entries are texts
    of their own, no ResourceList around them): the value, or None for an entry the lane hands over (the loader
    reads it then); None for the whole batch where the lane does not apply. The conditions are those of
    :func:`load_resource_list` on ``items:`` followed by the entries joined (each starts with ``- `` and ends with a
    line break, no other line at column 0 starts an entry or a key), minus what that list needs besides its
    items: no skeleton to read, no spans. Without ``keys`` an entry yaml-rs reads is not checked for keys that are
    not strings (the loader reads those otherwise): for a caller that proves them (``verify.ReadBacks``).
    The entries are read one at a time as the caller takes them: it can be done with each value before the next
    is made (a read-back batch is a whole item per entry)."""
    region = "".join(entries)
    if not all(entry.startswith("- ") and entry.endswith("\n") for entry in entries) \
            or region.count("\n-") != len(entries) - 1 or _SECTION_END.search(region) is not None:
        return None  # not one entry per text at column 0 (a line there that is no entry ends the items)
    if bad_text(region):
        return None
    try:
        from yaml_rs import loads
    except ImportError:  # pragma: no cover - yaml-rs is a dependency
        return None
    offsets = list(itertools.accumulate((len(entry) for entry in entries[:-1]), initial=0))
    risky = _risky_entries(region, 0, offsets)
    return (None if i in risky else _fast_item(loads, entry, keys) for i, entry in enumerate(entries))


def _fast_item(loads: Callable[..., Any], chunk: str, keys: bool = True) -> Any:
    """One ``- key: ...`` entry through yaml-rs; None unless it is one mapping (with ``keys``: with string keys)
    and its first key starts the entry (anything else, a flow or quoted key, a comment: the loader's)."""
    if chunk[2] in _ENTRY_START:
        return None
    try:
        value = loads(chunk, parse_datetime=False)
    except Exception:  # noqa: BLE001 - any refusal: the loader decides (and words the error)
        return None
    if type(value) is not list or len(value) != 1 or type(value[0]) is not dict:
        return None
    item = value[0]
    return item if not keys or keys_are_strings(item) else None


def keys_are_strings(value: dict[str, Any]) -> bool:
    """Every mapping key in ``value`` is a string (what yaml-rs reads then is what the loader reads)."""
    stack: list[Any] = [value]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if type(node) is dict:
            for k in node:
                if type(k) is not str:
                    return False
            children = node.values()
        else:
            children = node
        for child in children:
            if type(child) is dict or type(child) is list:
                push(child)
    return True


def _exact_item(chunk: str) -> tuple[Any, tuple[int, int, int]] | None:
    """One entry through the loader, with its span relative to ``chunk``; None if it is not one entry."""
    from krm_fn.io.loader import load_documents

    prefix = "items:\n"
    try:
        docs = load_documents(prefix + chunk, track="items")
    except InputError:
        return None
    if len(docs) != 1 or not isinstance(docs[0].value, dict) or len(docs[0].value.get("items") or []) != 1:
        return None
    item = docs[0].value["items"][0]
    span = docs[0].spans.get(id(item))
    if span is None:
        return None
    s, e, col = span
    return item, (s - len(prefix), e - len(prefix), col)

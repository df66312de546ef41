"""Never write what was not read back: the checks behind every item text we write.

What an item's text must mean is the object the engine decided. Three kinds of text reach the output, and
each is proven to mean that object before it is written (:mod:`krm_fn.io.write` decides which applies):

* **Source text copied as it came** (an unchanged item) is trusted only where the copy is provably the same
  text in the same context: a ``- `` entry of kpt's layout (or a document at column 0), ending with its own
  line break, with no alias (``*x`` could name an anchor outside the span), no ``%`` directive in the input
  (``%TAG`` handles are document state) and no line break other than LF. Anything else — shifted,
  re-indented, a line break appended — is read back (:class:`ReadBacks`).
* **Spliced text** (a changed item keeping its user's text, :mod:`krm_fn.io.splice`) carries its proof
  (:mod:`krm_fn.io.proof`), and :meth:`ReadBacks.owe` reads back what the proof names. On a trusted source each
  edited mapping is read back on its own, from its first key to its end plus the blank lines after it, with the
  line after that proven to close it; the rest of the item is the trusted source text. A pair we wrote is read
  there as ``null`` (its form is read back with the emitter's), so the same mapping text in the same place — a
  matcher pinned on ten thousand VMs — is read once per batch. A flow map rewritten as a block pair is read back
  as that pair alone, up to the next key. The splice is read back whole when the item's own mapping is edited,
  when its source is not trusted, or when a rewritten flow pair cannot be read alone.
* **Freshly emitted text** (:class:`krm_fn.io.emitter.Emitter`): its block structure is fixed by construction
  (a key at the mapping's column, nested values two columns deeper, compact ``- `` entries); what the emitter
  chooses per value — the form of each scalar, key and block scalar (in each place it is written) — is read
  back once per distinct value and run (:func:`check_emitted`). Reading every emitted item whole would cost more than the rest of a 10k-VM
  render (``bench/verify_cost.py`` measures both).

Reading back uses the reference loader (:mod:`krm_fn.io.loader`), or for batches of ``- `` entries and of
emitted forms the yaml-rs lane (:mod:`krm_fn.io.fastload`, which reads what the loader reads or hands the
text over). For a batch of entries the lane's key check (a key yaml-rs reads as other than a string is one the
loader reads otherwise) is made only on a value not identical to the object expected, whose keys are strings:
an identical value has only string keys, so the check could not change what it is compared as.
Values are compared strictly: types too (``True``, ``1`` and ``1.0`` differ) and key order where the text
keeps it (:func:`same`; :func:`identical` first, a C-speed test that says only "the same"). A copied or spliced text that fails is replaced by a fresh emit; a fresh emit that fails is a
:class:`WriteError` (one line, exit 2: an internal error): nothing unverified is written.
"""

from __future__ import annotations

import itertools
import marshal
import math
from collections.abc import Iterator
from typing import Any

from krm_fn.errors import InputError
from krm_fn.io.fastload import keys_are_strings, load_entries, load_plain
from krm_fn.io.proof import Proof, Sites


class WriteError(Exception):
    """A text we were about to write does not read back as what we decided: a bug of ours, never written.

    It is not an :class:`~krm_fn.errors.InputError`: the command reports it as an internal error (exit 2)."""


def has_directives(text: str) -> bool:
    """Whether the input holds a ``%`` directive (``%TAG`` handles change what a copied tag means)."""
    return text.startswith("%") or "\n%" in text


# --- comparison ----------------------------------------------------------------------------------

_FAILED: Any = object()


def same(a: Any, b: Any, ordered: bool = True) -> bool:
    """``a`` and ``b`` are the same JSON-like value: same types (``True``, ``1``, ``1.0`` differ), same
    strings, NaN equal to NaN; with ``ordered`` also the same key order. Iterative: any nesting depth."""
    stack = [(a, b)]
    pop, push = stack.pop, stack.append
    while stack:
        x, y = pop()
        tx = type(x)
        if tx is not type(y) and _kind(x) is not _kind(y):
            return False
        if tx is dict:
            if len(x) != len(y):
                return False
            if ordered and list(x) != list(y):
                return False
            for k, v in x.items():
                w = y.get(k, _FAILED)
                if type(v) is str:  # most leaves: no stack round trip
                    if type(w) is not str or v != w:
                        return False
                elif w is _FAILED:
                    return False
                else:
                    push((v, w))
        elif tx is list:
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif tx is float:
            if x != y and not (math.isnan(x) and math.isnan(y)):
                return False
        elif x != y:
            return False
    return True


def identical(a: Any, b: Any) -> bool:
    """True only when ``a`` and ``b`` are the same in :func:`same`'s sense, key order included (False: unknown, ask
    :func:`same`). At C speed: marshal's format 2 (no back-references, so no dependence on which objects are
    shared) writes the exact type of every value (``True``, ``1`` and ``1.0`` apart; a subclass is refused) and
    every pair in order, and reading those bytes back rebuilds the value: equal bytes, equal values."""
    try:
        return marshal.dumps(a, 2) == marshal.dumps(b, 2)
    except ValueError:  # a type marshal does not write, or too deep
        return False


def _kind(v: Any) -> type:
    """The JSON type of ``v`` (a ``str`` subclass is a string, ``bool`` is not an ``int``)."""
    for t in (bool, str, int, float, dict, list):
        if isinstance(v, t):
            return t
    return type(v)


# --- read-backs ----------------------------------------------------------------------------------


class ReadBacks:
    """Texts owed a read-back, each a ``- `` entry holding one mapping, read together (one batch per block of
    items) and compared with the mapping it must mean. ``owner`` says which item a failure falls back on."""

    __slots__ = ("entries", "expected", "ordered", "owners", "_keyed")

    def __init__(self) -> None:
        self.entries: list[str] = []
        self.expected: list[Any] = []
        self.ordered: list[bool] = []
        self.owners: list[list[int]] = []
        self._keyed: dict[Any, int] = {}  # a site's key -> the index of its entry

    def add(self, entry: str, expected: Any, owner: int, ordered: bool = True) -> None:
        """Owe a read-back of ``entry`` as ``expected``."""
        self.entries.append(entry)
        self.expected.append(expected)
        self.ordered.append(ordered)
        self.owners.append([owner])

    def owe(self, entry: str, item: Any, proof: Proof, owner: int) -> None:
        """Owe what ``proof`` says must be read back of a splice whose text is ``entry`` (as a ``- `` entry).

        A site whose key was seen in this batch shares that read-back: the same key is the same text meaning the
        same value."""
        if not isinstance(proof, Sites):
            self.add(entry, item, owner, ordered=False)
            return
        for site in proof.reads:
            key = site.key
            at = self._keyed.get(key) if key is not None else None
            if at is not None:
                self.owners[at].append(owner)
                continue
            if key is not None:
                self._keyed[key] = len(self.entries)
            text, expected = site.entry()
            self.add(text, expected, owner, ordered=False)

    def failures(self) -> set[int]:
        """The owners of every text that does not read back as its mapping."""
        failed: set[int] = set()
        for i, value in enumerate(_each_entry(self.entries, keys=False)):
            if self._fails(i, value):
                failed.update(self.owners[i])
        return failed

    def _fails(self, i: int, value: Any) -> bool:
        """Whether entry ``i``, read as ``value``, does not mean its mapping."""
        expected = self.expected[i]
        # the lane's key check is made only where the value read is not identical to the one expected (whose
        # keys are strings: identical() compares exact types, so such a value's keys are strings too)
        if value is not _FAILED and identical(value, expected):
            return False
        if type(value) is dict and not keys_are_strings(value):
            value = read_entries([self.entries[i]])[0]  # as the lane with its key check reads it (the loader)
        return value is _FAILED or not same(value, expected, self.ordered[i])


def read_entries(entries: list[str], keys: bool = True) -> list[Any]:
    """What each ``- `` entry reads as (``_FAILED`` where it is not exactly one entry). One pass of the yaml-rs
    lane over all of them (each entry is read on its own there, ``fastload.load_entries``); the loader for an entry
    the lane hands over, or for all of them where it does not apply. Without ``keys``, a mapping yaml-rs reads may
    hold a key that is not a string, where the loader reads another value."""
    return list(_each_entry(entries, keys))


def _each_entry(entries: list[str], keys: bool) -> Iterator[Any]:
    """:func:`read_entries`, one entry at a time."""
    values = load_entries(entries, keys) or itertools.repeat(None, len(entries))
    return (_read_entry(entry) if value is None else value for entry, value in zip(entries, values, strict=True))


def _read_entry(entry: str) -> Any:
    from krm_fn.io.loader import load_documents  # PyYAML (start-up time)

    try:
        docs = load_documents(entry)
    except InputError:
        return _FAILED
    if len(docs) != 1 or type(docs[0].value) is not list or len(docs[0].value) != 1:
        return _FAILED
    return docs[0].value[0]


# --- emitted forms -------------------------------------------------------------------------------

def check_emitted(owed: list[tuple[str, Any, Any]]) -> None:
    """Read back every ``(position, text, value)`` an emitter owes (see ``Emitter.take_owed``): ``"v"`` a one-line
    scalar, ``"k"`` a mapping key, ``"be"`` / ``"bm"`` a block scalar as a sequence entry / as a mapping value (the
    two places we write one, each read where it was written). One sequence document for all; on a failure each
    is read alone to name it (WriteError).

    A one-line scalar is read as a sequence entry (``- x``): in block context libyaml scans a plain or quoted
    scalar alike after ``- `` and after ``key: `` (only flow context and indentation change the scan)."""
    if not owed:
        return
    forms = [text for position, text, _ in owed if position == "v"]
    wanted = [value for position, _, value in owed if position == "v"]
    others: list[tuple[str, Any, tuple[str, Any, Any]]] = []
    masked: list[str] = []  # the probes with the content lines of their block scalars blanked, for the lane's scan
    for record in owed:
        position, text, value = record
        if position == "k":
            others.append((f"- {text}: 0\n", {value: 0}, record))
            masked.append(others[-1][0])
        elif position in ("be", "bm"):
            probe, scan = block_probe(position, text)
            others.append((probe, value if position == "be" else {"v": value}, record))
            masked.append(scan)
    wanted += [want for _, want, _ in others]
    head = "- " + "\n- ".join(forms) + "\n" if forms else ""
    batch = head + "".join(probe for probe, _, _ in others)
    # the yaml-rs lane where it provably reads what the loader reads (start-up time: no PyYAML), else the loader
    if _read_back(load_plain(batch, scan=head + "".join(masked)), wanted):
        return
    from krm_fn.io.loader import load_documents

    try:
        docs = load_documents(batch)
        values = docs[0].value if len(docs) == 1 else None
    except InputError:
        values = None
    if _read_back(values, wanted):
        return
    probes = [(f"- {text}\n", value, record) for record in owed if record[0] == "v"
              for _, text, value in (record,)] + others
    for probe, want, (position, text, value) in probes:
        got = _read_entry(probe)
        if got is _FAILED or not same(got, want):
            what = "key" if position == "k" else "value"
            raise WriteError(f"internal error: the {what} {_short(value)} would be written as {_short(text)}, "
                             "which does not read back the same; nothing was written")
    raise WriteError("internal error: emitted scalars do not read back together; nothing was written")


def _read_back(values: Any, wanted: list[Any]) -> bool:
    """``values`` (what the batch read as) are ``wanted``, types included."""
    if type(values) is not list or len(values) != len(wanted):
        return False
    # equal, and of the same types (== alone takes True for 1 and 1.0); the nested values are {str: 0} and
    # {"v": str}, where == decides
    if values == wanted and list(map(type, values)) == list(map(type, wanted)):
        return True
    return all(same(got, want) for got, want in zip(values, wanted, strict=True))


def block_probe(place: str, text: str) -> tuple[str, str]:
    """The ``- `` entry that reads back a block scalar's text owed at ``place`` (``"be"``: as the entry itself,
    ``"bm"``: as the value of ``v``), and the lane's scan of it (:func:`blanked`)."""
    if place == "be":
        return f"- {text}", f"- {blanked(text, '  ')}"
    return f"- v: {text}", f"- v: {blanked(text, '    ')}"


def blanked(block: str, content_indent: str) -> str:
    """A block scalar's text (header line, then content lines) with each content line's text replaced by ``x``:
    what the lane's risk scan sees of it. Inside a block scalar's content nothing is a YAML token (an ``*``
    names no alias there), so the scan's superset matches on it are not risks; a line that is not indented as
    content (which would end the scalar) is kept as it is and scanned."""
    header, _, body = block.partition("\n")
    lines = [content_indent + "x" if line.startswith(content_indent) else line for line in body.split("\n")]
    return header + "\n" + "\n".join(lines)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."

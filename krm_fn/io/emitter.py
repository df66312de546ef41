"""Plain data -> block-style YAML text, in the layout kpt/kyaml writes.

Block style only (``{}``/``[]`` only for empty collections), compact sequences (``- `` at the parent key's
indentation), key order kept, literal blocks for multi-line strings, double quotes for any string a YAML
reader could read as something else (see :mod:`krm_fn.io.scalars`). No anchors or aliases: a value shared
twice is simply written twice.

Every form the emitter chooses for a value (a scalar, a key, a block scalar) is recorded once per emitter and
value, and read back before the text is written (:meth:`Emitter.take_owed`, ``krm_fn.io.verify.check_emitted``);
the rest of the text is block structure, fixed by construction.
"""

from __future__ import annotations

from typing import Any

from krm_fn.io.scalars import double_quoted, format_float, literal_ok, plain_ok


class Emitter:
    """Writes values into a list of string chunks. One instance per output (its cache is per run)."""

    __slots__ = ("out", "_scalars", "shared", "_shared_text", "_keys", "_numbers", "_blocks", "_owed")

    def __init__(self) -> None:
        self.out: list[str] = []
        self._scalars: dict[str, str] = {}
        self._keys: dict[str, str] = {}
        self._numbers: dict[Any, str] = {}  # int -> form, repr(float) -> form
        self._blocks: set[tuple[str, str]] = set()  # (text, place) owed
        # forms chosen and not yet read back: (position, text, value), see take_owed
        self._owed: list[tuple[str, Any, Any]] = [("v", "null", None), ("v", "true", True), ("v", "false", False)]
        # ids of values that several items hold (the data of ControllerRevisions pinned to one object);
        # their text is written once per indentation and reused. The caller keeps those values alive.
        self.shared: frozenset[int] = frozenset()
        self._shared_text: dict[tuple[int, str], str] = {}

    def text(self) -> str:
        return "".join(self.out)

    def take_owed(self) -> list[tuple[str, Any, Any]]:
        """The forms chosen since the last call, each once, to be read back (``krm_fn.io.verify.check_emitted``):
        ``("v", text, value)`` a scalar after ``key: `` or ``- ``, ``("k", text, key)`` a mapping key,
        ``("be", text, value)`` a block scalar as a sequence entry, ``("bm", text, value)`` one as a mapping value
        (each place it was written in: a top-level document's is read in both)."""
        owed, self._owed = self._owed, []
        return owed

    # -- scalars --------------------------------------------------------------------------------
    def scalar(self, value: Any) -> str:
        """The inline form of a non-multi-line scalar (strings without newlines)."""
        if type(value) is str:
            cached = self._scalars.get(value)
            if cached is None:
                cached = value if plain_ok(value) else double_quoted(value)
                self._owed.append(("v", cached, value))
                if len(self._scalars) < 100_000:
                    self._scalars[value] = cached
            return cached
        if value is None:
            return "null"
        if value is True:
            return "true"
        if value is False:
            return "false"
        if isinstance(value, (int, float)):
            number = int(value) if isinstance(value, int) else float(value)
            memo = number if type(number) is int else repr(number)  # 1 and 1.0 (0.0 and -0.0) apart
            form = self._numbers.get(memo)
            if form is None:
                form = str(number) if type(number) is int else format_float(number)
                self._owed.append(("v", form, number))
                if len(self._numbers) < 100_000:
                    self._numbers[memo] = form
            return form
        if isinstance(value, str):  # str subclass
            return self.scalar(str(value))
        raise TypeError(f"cannot write a {type(value).__name__} as YAML")

    def key(self, key: Any) -> str:
        """The form of a mapping key (keys are strings: JSON object keys)."""
        form = self._keys.get(key) if type(key) is str else None
        if form is None:
            text = key if type(key) is str else str(key)
            form = self.scalar(text)
            self._owed.append(("k", form, text))
            if len(self._keys) < 100_000:
                self._keys[text] = form
        return form

    def _quoted(self, s: str) -> str:
        """A multi-line string that cannot be a block scalar, double-quoted."""
        form = double_quoted(s)
        self._owed.append(("v", form, s))
        return form

    def _block(self, s: str, indent: str, places: tuple[str, ...]) -> str:
        """`` |-`` header + indented lines for a multi-line string (caller checked literal_ok), written in
        ``places`` (``"be"`` after ``- ``, ``"bm"`` after ``key:``): each text is read back once per place."""
        for place in places:
            if (s, place) not in self._blocks:
                self._blocks.add((s, place))
                self._owed.append((place, _block_text(s, "" if place == "be" else "  "), s))
        return _block_text(s, indent)

    def _value_after_key(self, value: Any, indent: str, places: tuple[str, ...] = ("bm",)) -> None:
        """Write what follows ``key:`` (the key is already written); ``places``: where a block scalar here is
        read back (see :meth:`_block`)."""
        out = self.out
        t = type(value)
        if t is dict:
            if value:
                out.append("\n")
                self.mapping(value, indent + "  ")
            else:
                out.append(" {}\n")
        elif t is list:
            if value:
                out.append("\n")
                self.sequence(value, indent)
            else:
                out.append(" []\n")
        elif t is str and "\n" in value:
            if literal_ok(value):
                out.append(" " + self._block(value, indent, places))
            else:
                out.append(f" {self._quoted(value)}\n")
        else:
            out.append(f" {self.scalar(value)}\n")

    # -- collections ----------------------------------------------------------------------------
    def mapping(self, m: dict[str, Any], indent: str, first_prefix: str | None = None) -> None:
        """Write ``m`` at ``indent``; ``first_prefix`` replaces the indent of the first key (``- ``)."""
        append = self.out.append
        cache = self._scalars
        keys = self._keys
        prefix = indent if first_prefix is None else first_prefix
        child = indent + "  "
        for key, value in m.items():
            k = keys.get(key)
            if k is None:
                k = self.key(key)
            t = type(value)
            # the common leaves inline (this loop writes most of every output)
            if t is str and "\n" not in value:
                v = cache.get(value)
                if v is None:
                    v = self.scalar(value)
                append(f"{prefix}{k}: {v}\n")
            elif t is dict and value:
                append(f"{prefix}{k}:\n")
                self.mapping(value, child)
            elif t is list and value:
                append(f"{prefix}{k}:\n")
                self.sequence(value, indent)
            else:
                append(f"{prefix}{k}:")
                self._value_after_key(value, indent)
            prefix = indent

    def item(self, m: dict[str, Any], indent: str, first_prefix: str | None = None) -> None:
        """Like :meth:`mapping` for a whole item, reusing the text of its top-level values in ``shared``."""
        if not self.shared:
            self.mapping(m, indent, first_prefix)
            return
        prefix = indent if first_prefix is None else first_prefix
        for key, value in m.items():
            if type(value) is dict and value and id(value) in self.shared:
                self.out.append(f"{prefix}{self.key(key)}:\n")
                text = self._shared_text.get((id(value), indent))
                if text is None:
                    start = len(self.out)
                    self.mapping(value, indent + "  ")
                    text = self._shared_text[(id(value), indent)] = "".join(self.out[start:])
                    del self.out[start:]
                self.out.append(text)
            else:
                self.mapping({key: value}, indent, first_prefix=prefix)
            prefix = indent

    def sequence(self, seq: list[Any], indent: str) -> None:
        out = self.out
        for item in seq:
            t = type(item)
            if t is dict and item:
                self.mapping(item, indent + "  ", first_prefix=indent + "- ")
            elif t is list and item:
                out.append(f"{indent}-\n")
                self.sequence(item, indent + "  ")
            elif t is dict:
                out.append(f"{indent}- {{}}\n")
            elif t is list:
                out.append(f"{indent}- []\n")
            elif t is str and "\n" in item:
                if literal_ok(item):
                    out.append(f"{indent}- " + self._block(item, indent, ("be",)))
                else:
                    out.append(f"{indent}- {self._quoted(item)}\n")
            else:
                out.append(f"{indent}- {self.scalar(item)}\n")

    def document(self, value: Any) -> None:
        """A whole document's content (no ``---``)."""
        if type(value) is dict and value:
            self.mapping(value, "")
        elif type(value) is list and value:
            self.sequence(value, "")
        else:
            self._value_after_key(value, "", ("be", "bm"))  # a document's block scalar: no read of its own
            self.out[-1] = self.out[-1][1:]  # drop the space that follows a key


def _block_text(s: str, indent: str) -> str:
    """`` |-`` header + lines indented under ``indent`` for a multi-line string (caller checked literal_ok)."""
    if s.endswith("\n"):
        body = s[:-1]
        chomp = "+" if body.endswith("\n") or body == "" else ""
    else:
        body = s
        chomp = "-"
    lines = body.split("\n")
    indicator = "2" if lines[0][:1] in (" ", "\t") or (lines[0] == "" and len(lines) > 1) else ""
    if chomp == "+":
        lines = s.split("\n")[:-1]
    sub = indent + "  "
    parts = [f"|{indicator}{chomp}\n"]
    for line in lines:
        parts.append(f"{sub}{line}\n" if line else "\n")
    return "".join(parts)

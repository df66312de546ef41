"""The same YAML objects written in many layouts (the differential layout fuzzer, ``test_layouts.py``).

Objects are node trees: :class:`Map` (string keys), :class:`Seq`, :class:`Str` (a string, written in any
style that spells exactly it) and :class:`Plain` (a plain scalar written exactly as given in every layout,
whatever a reader makes of it: ``0x1F``, ``yes``, ``2001-12-14``, a 20-digit hex number). A :class:`Layout`
says how to write them; :func:`write_documents` turns a tree into text. Only transformations that keep the
YAML 1.1 meaning (go-yaml v2 / libyaml, what kubectl reads) are used: indentation widths, compact or indented
sequences, flow or block collections, every scalar style with its chomping and indentation indicators,
explicit keys, comments, anchors and aliases, line endings, BOMs, document markers and directives, folded
continuation lines, a block scalar ending the input without a final newline, key order.

The writer is proven, not trusted: the fuzzer reads every layout with PyYAML's libyaml-based SafeLoader and
requires the objects of the canonical layout (:data:`CANONICAL`, kpt's own layout).
"""

from __future__ import annotations

import dataclasses
import functools
import random
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Union

from krm_fn.io.emitter import Emitter


# --- nodes -----------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Str:
    """A string: any style that spells ``value`` (plain only where no reader retypes it)."""

    value: str


@dataclass(frozen=True, slots=True)
class Plain:
    """A plain scalar written as ``text`` in every layout (its meaning is the reader's business)."""

    text: str


@dataclass(frozen=True, slots=True)
class Map:
    pairs: tuple[tuple[str, Node], ...]


@dataclass(frozen=True, slots=True)
class Seq:
    items: tuple[Node, ...]


Node = Union[Str, Plain, Map, Seq]
_SCALARS = Emitter()


def node(value: Any) -> Node:
    """Plain Python data (dicts with string keys, lists, scalars; nodes pass through) as a node tree.
    Non-strings become plain scalars spelled as our emitter spells them."""
    if isinstance(value, (Str, Plain, Map, Seq)):
        return value
    if isinstance(value, dict):
        return Map(tuple((str(k), node(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return Seq(tuple(node(v) for v in value))
    if isinstance(value, str):
        return Str(value)
    return Plain(_SCALARS.scalar(value))


# --- layouts ---------------------------------------------------------------------------------------------
#: every dimension and the Layout fields it draws (the rest keep their canonical value)
DIMENSIONS: dict[str, tuple[str, ...]] = {
    "indent": ("indent",),
    "sequences": ("seq_indent_p", "dash_gap", "dash_break_p"),
    "flow": ("flow_p", "flow_break_p"),
    "flow-document": ("flow_document",),
    "scalars": ("styles",),
    "block-indicators": ("indicator_p",),
    "explicit-keys": ("explicit_key_p",),
    "comments": ("comment_p",),
    "anchors": ("alias_p", "stray_anchor_p"),
    "line-endings": ("eol",),
    "bom": ("bom",),
    "markers": ("doc_start", "doc_end", "directive", "empty_docs"),
    "folding": ("fold_p",),
    "eof": ("eof",),
    "frame": ("frame",),
    "key-order": ("shuffle_p",),
}


@dataclass(frozen=True, slots=True)
class Layout:
    """How to write a tree. The defaults are kpt's layout (kyaml): 2 spaces, compact sequences, block style,
    plain scalars where safe else double-quoted, literal blocks for multi-line strings, LF."""

    seed: int = 0
    indent: int = 2
    seq_indent_p: float = 0.0     # chance a block sequence is indented under its key
    dash_gap: int = 0             # up to this many extra spaces after "-"
    dash_break_p: float = 0.0     # chance an entry's collection starts on the line after "-"
    flow_p: float = 0.0           # chance a collection is written in flow style
    flow_break_p: float = 0.0     # chance of a line break after a flow entry
    flow_document: bool = False   # the whole document as one flow mapping
    styles: bool = False          # any scalar style that spells the string (else the canonical one)
    indicator_p: float = 0.0      # explicit indentation indicators, keep for clip, indicator order
    explicit_key_p: float = 0.0   # "? key" / ": value"
    comment_p: float = 0.0        # comments everywhere a comment may go
    alias_p: float = 0.0          # repeated subtrees written as an anchor and aliases
    stray_anchor_p: float = 0.0   # anchors nobody refers to
    eol: str = "\n"               # "\n", "\r\n", "\r" or "mixed" (LF and CRLF)
    bom: str = ""                 # "", "start", "later" (after a later "---")
    doc_start: bool = False       # "---" before every document
    doc_end: bool = False         # "..." after every document
    directive: bool = False       # "%YAML 1.1"
    empty_docs: bool = False      # empty / comment-only documents between documents (streams)
    fold_p: float = 0.0           # multi-line plain / quoted scalars (folded continuation lines)
    eof: bool = False             # no final line break (a block scalar may end the input)
    frame: str = "kpt"            # ResourceList: "kpt" (items at column 0, kpt's frame) or "free"
    shuffle_p: float = 0.0        # chance a mapping's keys are reordered
    dims: tuple[str, ...] = ()    # the dimensions drawn (for reports)

    def without(self, dim: str) -> Layout:
        """This layout with one dimension back to canonical."""
        base = Layout()
        changes: dict[str, Any] = {f: getattr(base, f) for f in DIMENSIONS[dim]}
        return dataclasses.replace(self, dims=tuple(d for d in self.dims if d != dim), **changes)


CANONICAL = Layout()


def draw_layout(seed: int, only: tuple[str, ...] = (), stream: bool = False) -> Layout:
    """The layout of ``seed``: each dimension drawn with some chance (all of ``only`` when given, none
    other). The writer's own choices come from the same seed, so ``seed`` and ``only`` reproduce the text."""
    rnd = random.Random(seed)
    names = [d for d in DIMENSIONS if (d in only if only else rnd.random() < 0.35)]
    if not names:
        names = [rnd.choice(list(DIMENSIONS))]
    p = rnd.choice
    values: dict[str, Any] = {}
    for dim in names:
        if dim == "indent":
            values["indent"] = p((3, 4, 8, 2, 3, 4))
        elif dim == "sequences":
            values.update(seq_indent_p=p((1.0, 0.5)), dash_gap=p((0, 1, 3)), dash_break_p=p((0.0, 0.3)))
        elif dim == "flow":
            values.update(flow_p=p((0.2, 0.5, 1.0)), flow_break_p=p((0.0, 0.3, 1.0)))
        elif dim == "flow-document":
            values.update(flow_document=True, flow_break_p=p((0.0, 0.3)))
        elif dim == "scalars":
            values["styles"] = True
        elif dim == "block-indicators":
            values["indicator_p"] = p((0.5, 1.0))
        elif dim == "explicit-keys":
            values["explicit_key_p"] = p((0.2, 0.6))
        elif dim == "comments":
            values["comment_p"] = p((0.15, 0.4))
        elif dim == "anchors":
            values.update(alias_p=p((0.5, 1.0)), stray_anchor_p=p((0.0, 0.1)))
        elif dim == "line-endings":
            values["eol"] = p(("\r\n", "\r", "mixed"))
        elif dim == "bom":
            values["bom"] = p(("start", "later")) if stream else "start"
        elif dim == "markers":
            values.update(doc_start=p((True, False)), doc_end=p((True, False)), directive=p((True, False)),
                          empty_docs=stream and p((True, False)))
            if not any(values[k] for k in ("doc_start", "doc_end", "directive", "empty_docs")):
                values["doc_start"] = True
        elif dim == "folding":
            values["fold_p"] = p((0.3, 1.0))
        elif dim == "eof":
            values["eof"] = True
        elif dim == "frame":
            values["frame"] = "free"
        elif dim == "key-order":
            values["shuffle_p"] = p((0.3, 1.0))
    return Layout(seed=seed, dims=tuple(names), **values)


# --- scalar styles -----------------------------------------------------------------------------------------
# libyaml's printable set minus the line breaks YAML 1.1 knows besides LF (CR, NEL, LS, PS) and the BOM
_BLOCK_BAD = re.compile(r"[^\t\n\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\u2028\u2029\ufeff]")
# YAML 1.1 words some reader retypes (booleans, null) in any case form
_WORDS = frozenset("y n yes no on off true false null".split())
_PLAIN_ASCII = re.compile(r"[A-Za-z][A-Za-z0-9_./@()-]*")


def _plain_char(ch: str) -> bool:
    if ch.isascii():
        return bool(_PLAIN_ASCII.fullmatch("a" + ch))
    return ch.isprintable() and not ch.isspace() and not _BLOCK_BAD.match(ch) and unicodedata.category(ch)[0] in "LNS"


@functools.lru_cache(maxsize=65536)
def plain_safe(s: str) -> bool:
    """``s`` reads back as the same string from a plain scalar in block and flow context, for every reader.

    Deliberately narrower than the product's rule (``krm_fn.io.scalars.plain_ok``) and independent of it:
    words that start with a letter, single spaces between them, no ``:`` and no ``#``."""
    if not s or s.lower() in _WORDS or not (s[0].isalpha() and _plain_char(s[0])):
        return False
    return all(_plain_char(w[i]) for w in s.split(" ") if w for i in range(len(w))) and "  " not in s \
        and not s.endswith(" ")


@functools.lru_cache(maxsize=65536)
def _block_safe(s: str) -> bool:
    """A literal block can hold ``s``: printable text, no line of only blanks, no CR / NEL / LS / PS / BOM."""
    if _BLOCK_BAD.search(s):
        return False
    return all(line.strip(" \t") or not line for line in s.split("\n"))


@functools.lru_cache(maxsize=65536)
def _folded_safe(s: str) -> bool:
    """A folded block can hold ``s``: block-safe, no tab, no line starting or ending with a space."""
    return _block_safe(s) and "\t" not in s and all(line == line.strip(" ") for line in s.split("\n"))


@functools.lru_cache(maxsize=65536)
def _single_safe(s: str) -> bool:
    """A single-quoted scalar can hold ``s``: printable; line breaks only between non-blank characters."""
    if _BLOCK_BAD.search(s) or "\t" in s:
        return False
    if "\n" not in s:
        return True
    core = s.strip("\n")
    return core == s and all(line == line.strip(" ") and line for line in re.split(r"\n+", core))


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\x00": "\\0", "\x07": "\\a",
            "\x08": "\\b", "\x0b": "\\v", "\x0c": "\\f", "\x1b": "\\e", "\x85": "\\N", "\xa0": "\\_",
            "\u2028": "\\L", "\u2029": "\\P"}


def _double_units(s: str, rnd: random.Random | None) -> list[str]:
    """``s`` as double-quoted units, one per character (``rnd``: vary escapes of printable characters)."""
    units = []
    for ch in s:
        esc = _ESCAPES.get(ch)
        if esc is not None and (ch not in "\xa0" or rnd is None or rnd.random() < 0.5):
            units.append(esc)
        elif _BLOCK_BAD.match(ch) or ch == "\xa0":
            units.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}" if ord(ch) < 0x10000
                         else f"\\U{ord(ch):08x}")
        elif rnd is not None and not ch.isascii() and rnd.random() < 0.3:
            units.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
        else:
            units.append(ch)
    return units


def _first_line(s: str) -> str:
    return next((line for line in s.split("\n") if line), "")


# --- the writer --------------------------------------------------------------------------------------------
_COMMENTS = ("", " c", " a: b", " - x", "#", " ---", ' "q', " |", " ☃ ünï", " &x *y", " {[", "- not a key")
_BLANK = frozenset((" ", "\t"))


class _Writer:
    """Writes one stream into chunks. Line breaks are LF while writing, converted by :meth:`finish`."""

    def __init__(self, lay: Layout) -> None:
        self.lay = lay
        self.rnd = random.Random(lay.seed)
        self.out: list[str] = []
        self.aliased: set[Node] = set()      # repeated subtrees of this document to alias (anchor first)
        self.anchors: dict[Node, str] = {}   # written with an anchor: its name
        self.counter = 0
        # what the text ends with: "strip" (a block scalar "|-" whose header is out[strip_at]), "block"
        # (another block scalar: its last line break is part of its value), or None
        self.tail: str | None = None
        self.strip_at = 0

    def emit(self, *chunks: str) -> None:
        self.out.extend(chunks)
        self.tail = None

    def chance(self, p: float) -> bool:
        return p > 0 and self.rnd.random() < p

    # -- comments and anchors
    def line_comment(self) -> str:
        return " #" + self.rnd.choice(_COMMENTS) if self.chance(self.lay.comment_p) else ""

    def own_line_comments(self, col: int) -> None:
        """Comment lines (before an entry, between entries, after the last one): any column up to ``col``
        (never deeper, so never inside the block scalar that may precede them)."""
        while self.chance(self.lay.comment_p):
            self.emit(" " * self.rnd.randint(0, max(col, 0)), "#", self.rnd.choice(_COMMENTS), "\n")

    def plan_aliases(self, root: Node) -> None:
        """Pick repeated subtrees of one document (anchors do not cross documents)."""
        self.aliased = set()
        self.anchors = {}
        if self.lay.alias_p <= 0:
            return
        seen: Counter[Node] = Counter(walk(root))
        self.aliased = {n for n, c in seen.items() if c > 1 and self.chance(self.lay.alias_p)}

    def alias(self, n: Node) -> str | None:
        name = self.anchors.get(n)
        return None if name is None else "*" + name

    def anchor(self, n: Node) -> str:
        """``&name`` when ``n`` is to be aliased later (or a stray anchor), else ``""``."""
        if n in self.aliased or self.chance(self.lay.stray_anchor_p):
            self.counter += 1
            name = self.rnd.choice(("a", "id-", "x_", "N")) + str(self.counter)
            if n in self.aliased:
                self.anchors[n] = name
            return "&" + name
        return ""

    def order(self, m: Map) -> tuple[tuple[str, Node], ...]:
        if len(m.pairs) > 1 and self.chance(self.lay.shuffle_p):
            pairs = list(m.pairs)
            self.rnd.shuffle(pairs)
            return tuple(pairs)
        return m.pairs

    # -- scalars
    def key_text(self, k: str) -> str:
        """A mapping key on one line: plain where safe, else double-quoted (any one-line style with
        ``styles``)."""
        if not self.lay.styles:
            return k if plain_safe(k) else '"' + "".join(_double_units(k, None)) + '"'
        choices = ['"' + "".join(_double_units(k, self.rnd)) + '"']
        if plain_safe(k):
            choices.append(k)
        if _single_safe(k) and "\n" not in k:
            choices.append("'" + k.replace("'", "''") + "'")
        return self.rnd.choice(choices)

    def scalar_style(self, s: str, flow: bool) -> str:
        if not self.lay.styles:
            if plain_safe(s):
                return "plain"
            if "\n" in s and not flow and _block_safe(s) and _first_line(s)[:1] not in _BLANK:
                return "literal"
            return "double"
        styles = ["double"]
        if plain_safe(s):
            styles.append("plain")
        if _single_safe(s):
            styles.append("single")
        if not flow and _block_safe(s):
            styles.append("literal")
            if _folded_safe(s):
                styles.append("folded")
        return self.rnd.choice(styles)

    def scalar(self, n: Str | Plain, parent: int, cont: int, flow: bool) -> bool:
        """The scalar where the cursor is (after ``: ``, ``- ``, a flow indicator). ``parent``: the enclosing
        block indentation; ``cont``: the column of continuation lines. True when it ended the line itself
        (a block scalar)."""
        if isinstance(n, Plain):
            self.emit(n.text)
            return False
        style = self.scalar_style(n.value, flow)
        if style == "plain":
            fold = not flow and self.chance(self.lay.fold_p)
            self.emit(self.folded_words(n.value, cont) if fold else n.value)
        elif style == "single":
            self.emit(self.quoted(["''" if c == "'" else c for c in n.value], "'", cont))
        elif style == "double":
            self.emit(self.quoted(_double_units(n.value, self.rnd if self.lay.styles else None), '"', cont))
        else:
            self.block(n.value, style, parent)
            return True
        return False

    def folded_words(self, s: str, cont: int) -> str:
        """A plain scalar over several lines (each line break folds into the space it replaces)."""
        words = s.split(" ")
        out = [words[0]]
        for w in words[1:]:
            brk = w[:1].isalnum() and self.rnd.random() < 0.5
            out.append(("\n" + " " * cont if brk else " ") + w)
        return "".join(out)

    def quoted(self, units: list[str], quote: str, cont: int) -> str:
        """A quoted scalar, over several lines with ``fold_p``: a space between non-blank characters may
        become a line break (it folds back into a space), escaped ``\\n`` runs between non-blank characters
        real line breaks with as many empty lines, anywhere else an escaped line break (double quotes).
        Line breaks in single-quoted strings can only be written the second way (``_single_safe``)."""
        fold = self.chance(self.lay.fold_p)
        newline = "\n" if quote == "'" else "\\n"
        if not fold and newline not in units:
            return quote + "".join(units) + quote
        def pad(nxt: str) -> str:
            """A line break and a continuation line's indentation: any column (libyaml does not check it in
            quoted scalars), mostly ``cont``; never column 0 before what could read as a document marker."""
            col = cont if self.rnd.random() < 0.6 else self.rnd.randint(0 if nxt[:1] not in "-." else 1, cont)
            return "\n" + " " * col

        out = [quote]
        i, n = 0, len(units)
        broke = True  # at the start of a line: no escaped break here
        while i < n:
            u = units[i]
            prev = units[i - 1] if i else None
            if u == newline:
                j = i
                while j < n and units[j] == newline:
                    j += 1
                nxt = units[j] if j < n else None
                between = prev is not None and prev not in _BLANK and nxt is not None and nxt not in _BLANK
                if between and (quote == "'" or (fold and self.rnd.random() < 0.5)):
                    out.append("\n" * (j - i) + pad(nxt or ""))  # k line breaks: a break and k empty lines
                    i, broke = j, True
                    continue
                assert quote == '"', "single-quoted line break not between non-blank characters"
            nxt = units[i + 1] if i + 1 < n else None
            if fold and u == " " and prev not in (None, newline, *_BLANK) and nxt not in (None, newline, *_BLANK) \
                    and self.rnd.random() < 0.3:
                out.append(pad(nxt or ""))  # folds into one space
                broke = True
            elif fold and quote == '"' and not broke and u not in _BLANK and self.rnd.random() < 0.15:
                out.append("\\" + pad(u) + u)  # an escaped line break: nothing
                broke = False
            else:
                out.append(u)
                broke = False
            i += 1
        out.append(quote)
        return "".join(out)

    def block(self, s: str, style: str, parent: int) -> None:
        """A literal or folded block scalar after the cursor: header, then lines at ``parent`` plus the
        indentation (an explicit indentation indicator when the first line starts with a blank)."""
        core = s.rstrip("\n")
        trailing = len(s) - len(core)
        explicit = _first_line(core)[:1] in _BLANK or self.chance(self.lay.indicator_p)
        step = self.rnd.randint(1, 9) if explicit and self.lay.styles else self.lay.indent
        if not core:  # "" or only line breaks: keep them as empty lines ("|" alone is "")
            chomp = "+" if trailing else (self.rnd.choice(("", "-", "+")) if self.lay.styles else "-")
        elif trailing == 0:
            chomp = "-"
        elif trailing == 1:
            chomp = "+" if self.chance(self.lay.indicator_p / 2) else ""
        else:
            chomp = "+"
        indicator = str(step) if explicit else ""
        swap = bool(indicator) and self.chance(self.lay.indicator_p / 2)
        header = (">" if style == "folded" else "|") + (chomp + indicator if swap else indicator + chomp)
        lines = core.split("\n") if core else []
        if style == "folded":
            lines = self.folded_lines(lines)
        col = parent + step
        body = "".join(" " * col + line + "\n" if line else "\n" for line in lines)
        extra = "\n" * (trailing - 1 if core else trailing) if chomp == "+" else ""
        comment = self.line_comment()
        self.emit(header, comment, "\n", body, extra)
        if core and trailing == 0 and not comment:
            self.tail, self.strip_at = "strip", len(self.out) - 5
        elif core or trailing:
            self.tail = "block"

    def folded_lines(self, lines: list[str]) -> list[str]:
        """The lines of a folded block that fold back into ``lines`` joined by line breaks: one more empty
        line between content lines; with ``fold_p``, long lines split at single spaces."""
        out: list[str] = []
        seen_content = False
        for i, line in enumerate(lines):
            if line and seen_content:
                out.append("")
            if line and " " in line and self.chance(self.lay.fold_p):
                words = line.split(" ")
                cur = words[0]
                for w in words[1:]:
                    if cur and w and not cur.endswith(" ") and self.rnd.random() < 0.5:
                        out.append(cur)
                        cur = w
                    else:
                        cur += " " + w
                out.append(cur)
            else:
                out.append(line)
            seen_content = seen_content or bool(line)
        return out

    # -- collections
    def flow_ok(self, n: Node) -> bool:
        """Every plain scalar inside ``n`` means in flow context what it means in block context (go-yaml v2
        is older than libyaml's flow-context ``:`` handling: no ``:`` at all)."""
        return all(not re.search(r"[:,\[\]{}#]", x.text) for x in walk(n) if isinstance(x, Plain))

    def flow(self, n: Node, parent: int, cont: int) -> None:
        """``n`` in flow style where the cursor is; line breaks continue at column ``cont``."""
        alias = self.alias(n)
        if alias is not None:
            self.emit(alias)
            return
        anchor = self.anchor(n)
        if anchor:
            self.emit(anchor, " ")
        if isinstance(n, (Str, Plain)):
            self.scalar(n, parent, cont, flow=True)
        else:
            self.flow_collection(n, parent, cont)

    def flow_collection(self, n: Map | Seq, parent: int, cont: int) -> None:
        entries: list[tuple[str | None, Node]] = (
            list(self.order(n)) if isinstance(n, Map) else [(None, v) for v in n.items])
        self.emit("{" if isinstance(n, Map) else "[")
        for i, (k, v) in enumerate(entries):
            if i:
                self.emit(",")
                if self.chance(self.lay.flow_break_p):
                    self.emit(self.line_comment(), "\n", " " * cont)
                else:
                    self.emit(" ")
            if k is not None:
                key = self.key_text(k)
                json_like = key[0] in "'\"" and self.lay.styles and self.rnd.random() < 0.5
                self.emit(key, ":" if json_like else ": ")
            self.flow(v, parent, cont + self.lay.indent if isinstance(v, (Map, Seq)) else cont)
        if entries and self.lay.styles and self.rnd.random() < 0.1:
            self.emit(",")  # a trailing comma
        self.emit("}" if isinstance(n, Map) else "]")

    def value(self, n: Node, parent: int, in_seq: bool) -> None:
        """The node after ``key:`` / an explicit key's ``:`` (``in_seq`` False) or after ``-`` (True), the
        cursor right after the indicator; writes up to and including the line break. ``parent``: the
        column of the key or dash."""
        alias = self.alias(n)
        if alias is not None:
            self.emit(" ", alias, self.line_comment(), "\n")
            return
        anchor = self.anchor(n)
        lead = " " + anchor if anchor else ""
        cont = parent + self.lay.indent
        empty = isinstance(n, Map) and not n.pairs or isinstance(n, Seq) and not n.items
        if isinstance(n, (Str, Plain)):
            self.emit(lead, " ")
            if not self.scalar(n, parent, cont, flow=False):
                self.emit(self.line_comment(), "\n")
            return
        assert isinstance(n, (Map, Seq))
        if empty or (self.chance(self.lay.flow_p) and self.flow_ok(n)):
            self.emit(lead, " ")
            self.flow_collection(n, parent, cont)
            self.emit(self.line_comment(), "\n")
            return
        if in_seq and not anchor and not self.chance(self.lay.dash_break_p):
            gap = 1 + self.rnd.randint(0, self.lay.dash_gap)  # "- key: v" / "- - x" on the dash's line
            self.emit(" " * gap)
            if isinstance(n, Map):
                self.mapping(n, parent + 1 + gap, inline=True)
            else:
                self.sequence(n, parent + 1 + gap, inline=True)
            return
        self.emit(lead, self.line_comment(), "\n")
        if isinstance(n, Map):
            self.mapping(n, parent + self.lay.indent, inline=False)
        else:
            indented = in_seq or self.chance(self.lay.seq_indent_p)
            self.sequence(n, parent + self.lay.indent if indented else parent, inline=False)

    def mapping(self, m: Map, col: int, inline: bool) -> None:
        """A block mapping with its keys at ``col`` (``inline``: the first key where the cursor is)."""
        for i, (k, v) in enumerate(self.order(m)):
            if i or not inline:
                self.own_line_comments(col)
                self.emit(" " * col)
            key = self.key_text(k)
            if self.chance(self.lay.explicit_key_p):
                self.emit("? ", key, self.line_comment(), "\n", " " * col, ":")
            else:
                self.emit(key, ":")
            self.value(v, col, in_seq=False)
        self.own_line_comments(col)

    def sequence(self, s: Seq, col: int, inline: bool) -> None:
        """A block sequence with its dashes at ``col``."""
        for i, item in enumerate(s.items):
            if i or not inline:
                self.own_line_comments(col)
                self.emit(" " * col)
            self.emit("-")
            self.value(item, col, in_seq=True)
        self.own_line_comments(col)

    # -- documents
    def document(self, root: Node, resource_list: bool) -> None:
        """One document's content (no markers), ending with a line break."""
        if not isinstance(root, Map):
            raise TypeError(f"a document root must be a mapping, got {type(root).__name__}")
        self.plan_aliases(root)
        kpt_frame = resource_list and self.lay.frame == "kpt" and not self.lay.flow_document
        if resource_list and self.lay.frame == "free" and self.rnd.random() < 0.5:
            # items last: the last item's last string may end the input
            root = Map(tuple(p for p in root.pairs if p[0] != "items") + tuple(p for p in root.pairs
                                                                                if p[0] == "items"))
        if kpt_frame:
            self.kpt_frame(root)
        elif self.lay.flow_document and self.flow_ok(root):
            self.flow(root, -1, self.lay.indent)
            self.emit(self.line_comment(), "\n")
        else:
            self.mapping(root, 0, inline=False)

    def kpt_frame(self, root: Map) -> None:
        """A ResourceList as kpt writes it: ``apiVersion``/``kind`` lines, ``items:`` and its ``- `` entries
        at column 0 with the item content at column 2, then ``functionConfig``; inside, the layout."""
        for k, v in root.pairs:
            if k in ("apiVersion", "kind") and isinstance(v, Str) and plain_safe(v.value):
                self.emit(f"{k}: {v.value}\n")
            elif k == "items" and isinstance(v, Seq) and v.items:
                self.emit("items:\n")
                for item in v.items:
                    self.own_line_comments(0)
                    self.emit("- ")
                    assert isinstance(item, Map)
                    self.mapping(item, 2, inline=True)
            else:
                self.mapping(Map(((k, v),)), 0, inline=False)

    def finish(self) -> str:
        """The text in the layout's line endings; with ``eof``, without the final line break (a strip-chomped
        block scalar ending the input becomes clip or keep: the same value there; any other block scalar
        keeps the break, part of its value)."""
        if self.lay.eof and self.tail == "strip":
            self.out[self.strip_at] = self.out[self.strip_at].replace("-", self.rnd.choice(("", "+")))
        text = "".join(self.out)
        if self.lay.eof and text.endswith("\n") and self.tail != "block":
            text = text[:-1]
        eol = self.lay.eol
        if eol == "mixed":
            parts = text.split("\n")
            return "".join(p + self.rnd.choice(("\n", "\r\n")) for p in parts[:-1]) + parts[-1]
        return text if eol == "\n" else text.replace("\n", eol)


def write_documents(roots: list[Node], lay: Layout, resource_list: bool = False) -> str:
    """``roots`` as a YAML stream in layout ``lay`` (``resource_list``: one ResourceList; ``lay.frame``)."""
    w = _Writer(lay)
    if lay.bom == "start":
        w.emit("\ufeff")
    for i, root in enumerate(roots):
        w.own_line_comments(0)
        if lay.directive and (i == 0 or lay.doc_end):  # a later directive needs the "..." before it
            w.emit("%YAML 1.1\n")
        if lay.doc_start or lay.directive or i > 0:
            w.emit("---", w.line_comment(), "\n")
            if lay.bom == "later" and i > 0:
                # libyaml counts a BOM as a column: only on a line of its own or before a comment
                w.emit("\ufeff", w.rnd.choice(("\n", "# after a BOM\n")))
        w.document(root, resource_list)
        if lay.doc_end:
            w.emit("...\n")
        if lay.empty_docs and i < len(roots) - 1 and w.rnd.random() < 0.5:
            w.emit("---\n")  # an empty document (or only comments)
            w.own_line_comments(0)
            if lay.doc_end:
                w.emit("...\n")
    if not lay.doc_end:
        w.own_line_comments(0)
    return w.finish()


def walk(n: Node) -> Iterator[Node]:
    """``n`` and every node below it (depth first, in order)."""
    stack = [n]
    while stack:
        x = stack.pop()
        yield x
        if isinstance(x, Map):
            stack.extend(v for _k, v in reversed(x.pairs))
        elif isinstance(x, Seq):
            stack.extend(reversed(x.items))

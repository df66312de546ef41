"""``fastload.load_plain`` on the emitter's read-back batch when block scalars hold flow-like text: cloud-init's
``runcmd: [systemctl, enable, ...]`` or a JSON document in a literal block is content, not a flow collection, so
the batch stays on the yaml-rs lane (issue 22 point 7: an expanded fleet's batch went to the loader whole), and
what the lane reads must still be what the loader reads."""

from __future__ import annotations

from typing import Any

import pytest

from krm_fn.io import fastload, verify
from krm_fn.io.emitter import Emitter

CLOUD_INIT = "#cloud-config\nhostname: vm-1\nruncmd:\n  - [systemctl, enable, --now, qemu-guest-agent]\n"


def test_flow_like_block_content_reads_back_without_the_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    e = Emitter()
    e.mapping({"userData": CLOUD_INIT, "json": '{"a": [1, 2]}\n', "name": "vm-1"}, "")
    owed = e.take_owed()
    assert any(position == "bm" and "[" in text for position, text, _ in owed)

    def refuse(text: str, **_: Any) -> Any:
        raise AssertionError("the loader was asked")

    monkeypatch.setattr("krm_fn.io.loader.load_documents", refuse)
    verify.check_emitted(owed)


@pytest.mark.parametrize("text", ["- [a, b]\n", "- {a: b}\n", "- k: [a: b]\n", "- |-\n  x\n- [a]\n"])
def test_flow_outside_block_content_still_steps_aside(text: str) -> None:
    assert fastload.load_plain(text, scan=text) is None  # no block content to blank: the scan is the text


def test_a_line_that_ends_the_block_is_scanned() -> None:
    """A line not indented as content ends the block scalar: it is kept in the scan, so its flow is seen."""
    text = "- |-\n  a\n- [b: c]\n"
    assert fastload.load_plain(text, scan="- " + verify.blanked(text[2:], "  ")) is None


@pytest.mark.parametrize("token", ["yes", "&a", "0x1", "1_0", ".NaN", "!t"])
def test_a_long_text_is_scanned_as_a_short_one(token: str) -> None:
    """Past fastload._LONG characters load_plain scans with the per-place patterns: the same risks step aside."""
    filler = "- abc\n" * (fastload._LONG // 6 + 1)
    assert fastload.load_plain(filler) is not None
    assert fastload.load_plain(filler + f"- {token}\n") is None
    assert fastload.load_plain(f"- {token}\n") is None

"""The audit's shortcuts give what the long way gives: the scripts of an ASCII token without the
script regex, and encodes_to_itself with the base ids asked once a table, not once a token."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bpe_tui.core.analysis import audit as au
from bpe_tui.core.tables.table import MergeTable

ASCII = [chr(i) for i in range(128)]


def scripts_the_long_way(text: str) -> list[str]:
    """The script regex over every character, as scripts_of runs it on other text."""
    seen: list[str] = []
    for m in au._SCRIPT_RE.finditer(text):
        if m.lastgroup not in seen:
            seen.append(m.lastgroup)
    return seen if seen or au._LETTER.search(text) is not None else []


def test_ascii_scripts_every_character_and_pair():
    for text in ASCII + [a + b for a in ASCII for b in ASCII]:
        assert au.scripts_of(text) == scripts_the_long_way(text), repr(text)


@given(st.text(alphabet=st.sampled_from(ASCII)) | st.text())
def test_scripts_of_any_text(text):
    assert au.scripts_of(text) == scripts_the_long_way(text)


def test_base_symbols_encode_to_themselves_and_others_are_checked():
    """a and b are base symbols; ab is made by a merge; ba is a token no merge makes."""
    table = MergeTable("chars", {0: "a", 1: "b", 2: "ab", 3: "ba"}, [(0, 1, 2)], pretokenizer="whitespace")
    assert table.base_ids() == {0, 1}
    assert [table.encodes_to_itself(i) for i in range(4)] == [True, True, True, False]

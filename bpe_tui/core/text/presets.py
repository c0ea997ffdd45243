"""The pre-tokenizer regexes bpe-tui knows, by their text.

A regex is *known* when it is one of these texts exactly, however it reached the table: by
name (``gpt2``, ``gpt4``, ``o200k``), from a rank file bpe-tui recognises (Llama 3's, Qwen's),
from a tokenizer.json or a transformers folder that spells it (Qwen2's), or as the rule a
sentencepiece model or a table without a pre-tokenizer stands for. Known regexes are linear
(no catastrophic backtracking: each was read for it, and the tests run them on adversarial
text), so they run without the time limit an unknown regex gets, and each has a form for
Python's own ``re`` that gives the same pieces faster (see :mod:`~bpe_tui.core.text.splitting`).
"""

from __future__ import annotations

#: GPT-2's pre-tokenizer (2019), as used by GPT-2, RoBERTa, CS336 and Hugging Face's ByteLevel.
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

#: GPT-4's cl100k_base pre-tokenizer: case-insensitive contractions, digits in runs of 1-3.
GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*"""
    r"""|\s*[\r\n]|\s+(?!\S)|\s+"""
)

#: GPT-4o's o200k_base pre-tokenizer: splits CamelCase, keeps contractions on the word.
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

#: How many characters after a pre-token a known regex reads before that pre-token is settled,
#: where that is more than one (the next piece's first): o200k's words take a contraction after
#: them ('s ... 'll, up to three characters), so a stream's "A'" may yet become "A'S". A stream's
#: pre-tokens wait until this much text follows them (core/tables/streaming.py).
LOOKS_PAST = {O200K_PATTERN: 3}

#: Whitespace splitting (Python's ``str.split()``): words without their spaces.
WHITESPACE_PATTERN = r"""\S+"""

#: OpenAI CLIP's regex (``simple_tokenizer.py``, and transformers' CLIPTokenizer): its two
#: special tokens, contractions, runs of letters, single digits, runs of anything else but
#: whitespace; whitespace is dropped. It runs on lowercased text. CLIP's own code compiles it
#: case-insensitively, transformers' does not; after lowercasing they differ only where a
#: lowercase letter folds to another (``'ſ`` is a contraction to CLIP): this is transformers'.
#: The pre-tokenizer is ``CLIP_PRETOKENIZER`` (pretokenize.py), named ``clip``.
CLIP_PATTERN = r"""<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+"""

#: Llama 3's pre-tokenizer: cl100k's, without its possessive quantifiers and ``\s++$``.
LLAMA3_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

#: Qwen (the tiktoken-based first generation, and Qwen2's tokenizer): like Llama 3's, but
#: digits one at a time.
QWEN_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

#: No pre-tokenization: the whole text (between special tokens) is one word.
WHOLE_TEXT = r"(?s).+"

#: Sentencepiece's splits of text by spaces, as its model's trainer settings choose them:
#: one pre-token per run of text without spaces, each with the space before it (Metaspace);
#: with the space after it (``treat_whitespace_as_suffix``); a run of spaces kept with the word
#: after it (``allow_whitespace_only_pieces``).
METASPACE_PATTERN = r" ?[^ ]+| "
SPACE_SUFFIX_PATTERN = r"[^ ]+ ?| "
SPACE_RUNS_PATTERN = r"[^ ]+| +[^ ]*"

#: Every known regex's text.
#: Digit runs cut in threes from the right (``1234567``: ``1 234 567``), once a ``Digits`` step
#: has made each run a piece: the empty matches where a multiple of three digits ends the run.
#: Run as a regex it is quadratic in a run's length (each position looks to the run's end):
#: :mod:`~bpe_tui.core.text.pipeline` cuts a long run first (see DIGIT_GROUP_SPLITS).
DIGIT_GROUPS = r"(?=(\d{3})+(?!\d))"
#: The SuperBPE authors' stage-1 split (their OLMo2 tokenizers): digit runs in threes, then
#: GPT-2's regex without its contractions (see SUPERBPE_STAGE1_PRETOKENIZER in pretokenize.py).
SUPERBPE_STAGE1_SPLIT = DIGIT_GROUPS + r"""| ?\p{L}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
#: Split patterns that touch a decimal digit only through DIGIT_GROUPS's empty matches: none
#: of their other alternatives matches a digit, so a run of digits may be cut wherever a
#: multiple of three digits follows to its end, and each part split alone, with the same pieces.
DIGIT_GROUP_SPLITS = frozenset({DIGIT_GROUPS, SUPERBPE_STAGE1_SPLIT})

KNOWN_PATTERNS = frozenset(
    {
        GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN, WHITESPACE_PATTERN, CLIP_PATTERN, LLAMA3_PATTERN, QWEN_PATTERN,
        WHOLE_TEXT, METASPACE_PATTERN, SPACE_SUFFIX_PATTERN, SPACE_RUNS_PATTERN,
    }
)

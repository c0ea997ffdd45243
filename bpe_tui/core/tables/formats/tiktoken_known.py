"""The tiktoken rank files people use, and what their files do not say.

A ``.tiktoken`` file holds only ``base64(token) rank`` lines. The pre-tokenizer regex and the
special tokens that go with it live in code: OpenAI's in tiktoken's registry
(``tiktoken_ext/openai_public.py``, which also records each file's sha256), Meta's in Llama 3's
``tokenizer.py``, Qwen's in its ``tokenization_qwen.py``, OpenAI Whisper's in its
``tokenizer.py``. This module is that knowledge, in one place: :func:`identify` recognises a
file by its sha256 (or, for the few files whose hash is not recorded, by its number of ranks
and a look at its content) and returns a :class:`KnownEncoding`; the reader applies it and
says in the table's notes how the file was recognised.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...text.presets import LLAMA3_PATTERN, QWEN_PATTERN  # noqa: F401  (re-exported)

ENDOFTEXT = "<|endoftext|>"


def _numbered(names: list[str], first_id: int) -> dict[str, int]:
    return {name: first_id + i for i, name in enumerate(names)}


def _llama3_specials() -> dict[str, int]:
    """Llama 3.1's 256 special tokens, ids 128000-128255 (meta-llama's tokenizer.py)."""
    named = [
        "<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
        "<|finetune_right_pad_id|>", "<|reserved_special_token_2|>", "<|start_header_id|>", "<|end_header_id|>",
        "<|eom_id|>", "<|eot_id|>", "<|python_tag|>",
    ]
    reserved = [f"<|reserved_special_token_{i}|>" for i in range(3, 256 - len(named) + 3)]
    return _numbered(named + reserved, 128000)


#: Whisper's language codes in its own order (whisper/tokenizer.py LANGUAGES); the
#: multilingual models use the first 99 (large-v3 adds "yue" as the 100th).
WHISPER_LANGUAGES = (
    "en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la mi ml "
    "cy sk te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be tg sd gu am "
    "yi lo uz fo ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su yue"
).split()


def _whisper_specials(first_id: int, languages: int = 99) -> dict[str, int]:
    names = [ENDOFTEXT, "<|startoftranscript|>"]
    names += [f"<|{code}|>" for code in WHISPER_LANGUAGES[:languages]]
    names += ["<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", "<|nospeech|>", "<|notimestamps|>"]
    names += [f"<|{i * 0.02:.2f}|>" for i in range(1501)]
    return _numbered(names, first_id)


def _qwen_specials() -> dict[str, int]:
    return _numbered([ENDOFTEXT, "<|im_start|>", "<|im_end|>"] + [f"<|extra_{i}|>" for i in range(205)], 151643)


@dataclass(frozen=True)
class KnownEncoding:
    """A published rank file: its name, how to recognise it, and what its file leaves out."""

    name: str
    pretokenizer: str  # one of our names ("gpt2", "gpt4", "o200k") or "regex:PATTERN"
    special_tokens: dict[str, int] = field(default_factory=dict)
    sha256: tuple[str, ...] = ()
    ranks: int | None = None  # the number of ranks, for files recognised by size
    notes: tuple[str, ...] = ()  # what the user should know about the guess


KNOWN: list[KnownEncoding] = [
    KnownEncoding(
        "r50k_base (GPT-2, GPT-3)", "gpt2", {ENDOFTEXT: 50256},
        sha256=("306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",), ranks=50256,
    ),
    KnownEncoding(
        "p50k_base (Codex)", "gpt2", {ENDOFTEXT: 50256},
        sha256=("94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",), ranks=50280,
        notes=("p50k_edit uses the same file with <|fim_prefix|>=50281, <|fim_middle|>=50282, <|fim_suffix|>=50283: pass them with --special",),
    ),
    KnownEncoding(
        "cl100k_base (GPT-4, GPT-3.5)", "gpt4",
        {ENDOFTEXT: 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276},
        sha256=("223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",), ranks=100256,
    ),
    KnownEncoding(
        "o200k_base (GPT-4o)", "o200k", {ENDOFTEXT: 199999, "<|endofprompt|>": 200018},
        sha256=("446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",), ranks=199998,
    ),
    KnownEncoding(
        "Llama 3 (Meta)", "regex:" + LLAMA3_PATTERN, _llama3_specials(),
        sha256=("82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55",), ranks=128000,
        notes=("special tokens as Llama 3.1 names them (Llama 3.0 names some reserved ids differently)",),
    ),
    KnownEncoding(
        "Whisper multilingual (OpenAI)", "gpt2", _whisper_specials(50257),
        sha256=("b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126",),
        notes=("special tokens for 99 languages, as the multilingual models before large-v3 use",),
    ),
    KnownEncoding("Qwen (tiktoken-based, first generation)", "regex:" + QWEN_PATTERN, _qwen_specials(), ranks=151643),
]

#: What a file nobody recognises gets (the reader's note says so, in one line).
DEFAULT = KnownEncoding("unknown", "gpt2", {})


def identify(sha256: str, n_ranks: int) -> tuple[KnownEncoding, str]:
    """The known encoding a rank file is, and how it was recognised (for the notes).

    The sha256 decides where it is recorded; otherwise the number of ranks does, for the
    encodings whose size is theirs alone (a file of another size is :data:`DEFAULT`).
    """
    for known in KNOWN:
        if sha256 in known.sha256:
            return known, f"recognised by its sha256 as {known.name}"
    for known in KNOWN:
        if known.ranks is not None and known.ranks == n_ranks:
            return known, f"recognised by its size ({n_ranks:,} ranks) as {known.name}; its sha256 is not the published one"
    return DEFAULT, "not a rank file bpe-tui knows"

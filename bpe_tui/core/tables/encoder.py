"""The encoding path of a merge table: text in, token ids out.

How encoding works: cut special tokens out, pre-tokenize the rest, and for each pre-token
start from its base symbols (bytes or characters) and repeatedly merge the adjacent pair with
the *lowest rank* (the earliest learned merge), leftmost first on ties, until no adjacent pair
is in the table. That gives the same result as replaying the merge list in order, but only
looks at pairs that are actually present (this is what tiktoken does). The loop itself is
:func:`~bpe_tui.core.engine.merging.merge`; what a rank is comes in two rules (by merge list, by
token rank: see there).

In bytes mode surfaces are ``bytes`` and every string can be encoded; in chars mode they are
``str`` and a character the table has never seen encodes as :data:`UNK_ID` (shown as
unknown, never a crash), unless the table spells it in byte tokens (``byte_fallback``) or
has an unknown token of its own.

:class:`Encoder` is a table's encoder: its indices (surface -> id, the base symbols), its
pre-tokenizer, its pieces cache, and every way in (a text, a stream of text, with dropout, as
pieces with surfaces). A :class:`~bpe_tui.core.tables.table.MergeTable` holds one and hands
its encoding calls to it, the way Hugging Face's tokenizers keeps ``model.rs`` (the tokenizer)
apart from ``word.rs`` (what happens inside a word). :class:`EncodeOptions` is what the table's
``config`` says about encoding, read once, typed.

Speed. ``encode`` is the path above, taken at speed, with the same ids (the tests hold the two
to each other on random Unicode text, and to the tables' own libraries); each trick is told
where it lives:

* the split: :meth:`Encoder.words`, Python's ``re`` on the known regexes
  (:mod:`~bpe_tui.core.text.splitting`), with ASCII classes on an ASCII text for GPT-2's;
* the pieces cache, and a pre-token not seen before: :mod:`~bpe_tui.core.tables.new_pieces`,
  on the compiled merge core where it is built (the same ids), else in Python with the fast forms
  of the merge loop (:func:`~bpe_tui.core.engine.merging.merge_bytes`,
  :func:`~bpe_tui.core.engine.merging.merge_pairs`);
* a stream of text, a chunk at a time: :mod:`~bpe_tui.core.tables.streaming`.

What stays on the educational path: dropout, traces and offsets (the plain loop with its log:
:meth:`Encoder.merged`), and the special-token and normalizer rules.

Why this module is long: EncodeOptions names, field by field, every key of a table's config
that changes encoding (a reader writes them, this reads them once), and the Encoder is every
way into one path (a text, a stream, pieces, views with fewer special tokens); splitting them
would put the config's meaning and its one reader in two places.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine.merging import NEW_ID_BITS, PieceCache, merge
from ..errors import BPEError
from ..text.normalize import SentencePieceNormalizer, from_spec
from ..text.pretokenize import PreTokenizer, ascii_findall, valid_text
from ..types import UNK_ID, PrefixScheme, Surface
from . import offsets, special_policy, streaming
from .boundless import BoundlessEvents, Joiner
from .new_pieces import NewPieces
from .removals import Removals
from .special_policy import Allowed, Disallowed

#: ``config["merge_by"]`` for tables that encode by *token rank* (tiktoken's rule: a pair
#: merges when its concatenation is a token, lowest rank first; see merging.py), not by their
#: merge list. Token ids are the ranks.
BY_TOKEN_RANK = "token rank"

#: ``(pair_ranks, pair_made)`` of a table's merge list: ``(left_id, right_id) -> rank`` and
#: ``-> the id it makes``, built when first asked (a rank file's merges are built late).
MergeIndex = Callable[[], "tuple[Mapping[tuple[int, int], int], Mapping[tuple[int, int], int]]"]


def check_dropout(p) -> float:
    """A dropout probability: a number in [0, 1] (BPEError otherwise)."""
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise BPEError(f"dropout must be a probability between 0 and 1, not {p!r}")
    return float(p)


#: The largest id an ordinary (not special) token may have: the merge loop's index packs an id
#: into NEW_ID_BITS bits, on both paths (see merging.pair_merges and _merge_core.c).
MAX_ID = (1 << NEW_ID_BITS) - 1


def check_ids(vocab: Mapping[int, Surface], special_ids: set[int], where: str) -> None:
    """Refuse a table whose ordinary tokens' ids do not fit the merge loop (one line)."""
    if vocab and 0 <= min(vocab) and max(vocab) <= MAX_ID:
        return
    for i in vocab:
        if i not in special_ids and not (isinstance(i, int) and 0 <= i <= MAX_ID):
            raise BPEError(f"{where}: token id {i!r} ({vocab[i]!r}) does not fit: ordinary tokens' ids run from 0 to {MAX_ID:,}")


def _int(value: object) -> int | None:
    """An int from a config value (not a bool, which Python counts as one), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class EncodeOptions:
    """What a table's ``config`` says about encoding, read once (:meth:`from_config`): each
    field names the config key it comes from. Readers of the file formats write the keys;
    every one is optional, and its absence means the plain BPE of the field's default."""

    #: ``continuing_subword_prefix``: Hugging Face's (e.g. ``##``), chars tables only: every
    #: symbol of a word but its first starts as the prefixed character (see merged_surface).
    continuing_prefix: str | None = None
    #: ``prepend_scheme`` (one of PREFIX_SCHEMES): where a space goes in front of the text;
    #: tables from before the scheme was kept say ``prepend_space`` (then "always").
    prefix_scheme: PrefixScheme | None = None
    #: ``normalizer``: what the table's library does to the text first (a spec of normalize.py).
    normalizer: dict[str, Any] | None = None
    #: ``special_flags``: Hugging Face's added-token flags (lstrip, rstrip, single_word, normalized).
    special_flags: dict[str, Any] | None = None
    #: ``added_not_special``: Hugging Face's added tokens marked ``"special": false``, matched
    #: whole in any text whatever the special-token policy (see special_policy).
    always_recognised: frozenset[str] = frozenset()
    #: ``byte_fallback``: a character the table lacks is spelled in ``<0xNN>`` byte tokens.
    byte_fallback: bool = False
    #: ``fuse_unk``: a run of unknown characters is one unknown symbol.
    fuse_unk: bool = False
    #: ``unk_surface``: how the table's own unknown token decodes (sentencepiece's `` ⁇ ``).
    unk_surface: str | None = None
    #: ``unk_id``: the id the table's format gives unknown characters (sentencepiece's <unk>).
    unk_id: int | None = None
    #: ``outside_vocab_from``: ids from here on are helper symbols a reader added (CLIP's lone
    #: ``</w>``): left unmerged, they encode as unknown, as in the table's own library.
    outside_vocab_from: int | None = None
    #: ``merge_by`` is :data:`BY_TOKEN_RANK`: tiktoken's rule, for a bytes table without a marker.
    by_token_rank: bool = False
    #: ``ignore_merges``: a pre-token that is itself a token is emitted whole (tiktoken always,
    #: Hugging Face's ``ignore_merges``).
    ignore_merges: bool = False
    #: ``word_start``: text put in front of every pre-token before encoding (PickyBPE's ``▁``);
    #: decoding reads it as a space.
    word_start: str | None = None
    #: ``unk_token``: the special token that stands for unknown characters, where ``unk_id``
    #: does not say (a PickyBPE table's ``<UNK>``).
    unk_token: str | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any], units: str, end_of_word: str | None) -> "EncodeOptions":
        continuing = config.get("continuing_subword_prefix")
        flags = config.get("special_flags")
        normalizer = config.get("normalizer")
        unk_surface = config.get("unk_surface")
        return cls(
            continuing_prefix=continuing if isinstance(continuing, str) and continuing and units == "chars" else None,
            prefix_scheme=config.get("prepend_scheme") or ("always" if config.get("prepend_space") else None),
            normalizer=normalizer if isinstance(normalizer, dict) else None,
            special_flags=flags if isinstance(flags, dict) else None,
            always_recognised=frozenset(config.get("added_not_special") or ()),
            byte_fallback=bool(config.get("byte_fallback")),
            fuse_unk=bool(config.get("fuse_unk")),
            unk_surface=unk_surface if isinstance(unk_surface, str) else None,
            unk_id=_int(config.get("unk_id")),
            outside_vocab_from=_int(config.get("outside_vocab_from")),
            by_token_rank=config.get("merge_by") == BY_TOKEN_RANK and units == "bytes" and end_of_word is None,
            ignore_merges=bool(config.get("ignore_merges")),
            word_start=start if isinstance(start := config.get("word_start"), str) and start else None,
            unk_token=unk if isinstance(unk := config.get("unk_token"), str) and unk else None,
        )


def surfaces_to_ids(vocab: dict[int, Surface], special_ids: set[int]) -> dict:
    """surface -> id of every token that is not special (the last id where two share one).

    In C where the surfaces are all different (every real table): one ``dict(zip(...))``."""
    found = dict(zip(vocab.values(), vocab.keys()))
    if len(found) == len(vocab):
        for i in special_ids:
            found.pop(vocab[i], None)
        return found
    return {s: i for i, s in vocab.items() if i not in special_ids}


class Encoder:
    """A table's encoder (see the module docstring). Built by the table; read by
    :mod:`~bpe_tui.core.tables.offsets` too. ``made_by_merge``: the ids some merge makes (a
    chars table's base symbols are the one-character tokens no merge makes); ``merge_index``
    gives the merge list's indices when a table that encodes by merge list first needs them."""

    def __init__(
        self,
        units: str,
        vocab: dict[int, Surface],
        special_tokens: dict[str, int],
        pretokenizer: str,
        end_of_word: str | None,
        lowercase: bool,
        options: EncodeOptions,
        made_by_merge: Mapping[int, int],
        merge_index: MergeIndex,
        removals: Removals | None = None,
        where: str = "table",
    ):
        self.units = units
        self.vocab = vocab
        self.special_tokens = special_tokens
        self.pretokenizer = pretokenizer
        self.end_of_word = end_of_word
        self.lowercase = lowercase
        self.options = options
        self.continuing_prefix = options.continuing_prefix
        self._merge_index = merge_index
        #: PickyBPE's removals, replayed in order with the merges (None: plain BPE).
        self.removals = removals
        #: Text put in front of every pre-token (see EncodeOptions.word_start).
        self.word_start = options.word_start
        special_ids = set(special_tokens.values())
        check_ids(vocab, special_ids, where)
        bytes_mode = units == "bytes"
        absent = removals.absent if removals is not None else frozenset()
        self.surface_to_id = surfaces_to_ids({i: s for i, s in vocab.items() if i not in absent} if absent else vocab, special_ids)
        self.base: dict = {}  # byte value (int) or character (str) -> id
        if bytes_mode:  # the 256 single bytes (a merge never makes one)
            for b in range(256):
                found = self.surface_to_id.get(bytes([b]))
                if found is not None:
                    self.base[b] = found
        else:
            for token_id, surface in vocab.items():
                # (a merge makes two symbols or more: only a multi-character end-of-word
                # marker could be both a base symbol and a merge's result)
                if token_id in special_ids or token_id in made_by_merge:
                    continue
                if len(surface) == 1 or surface == end_of_word:
                    self.base[surface] = token_id
        # With a continuing prefix: a character after a word's first -> the id of prefix + it.
        self.continuing_base: dict[str, int] = {}
        if self.continuing_prefix is not None:
            cut = len(self.continuing_prefix)
            for token_id, surface in vocab.items():
                if isinstance(surface, str) and len(surface) == cut + 1 and surface.startswith(self.continuing_prefix) and token_id not in special_ids:
                    self.continuing_base[surface[cut:]] = token_id
        self.eow_id = None
        if end_of_word is not None:
            key = end_of_word.encode("utf-8") if bytes_mode else end_of_word
            self.eow_id = next((i for i, s in vocab.items() if s == key and i not in special_ids), None)
        # What the table's library does to the text first (see normalize.py): sentencepiece's
        # normalizer takes the whole text, others each segment.
        normalizer = from_spec(options.normalizer, "config.normalizer") if options.normalizer is not None else None
        whole = normalizer if isinstance(normalizer, SentencePieceNormalizer) else None
        self._pre_rules = (options.prefix_scheme, None if whole else normalizer, whole, options.special_flags)
        self.pre = self.pretokenizer_for(list(special_tokens))
        #: The same encoder recognising fewer special tokens, by the set it recognises (see
        #: recognising): made when an encode call first asks, kept for the next.
        self._views: dict[frozenset[str], Encoder] = {}
        #: Decoding takes off the space encoding put in front of the text.
        self.strips_prefix = (options.prefix_scheme is not None and units == "chars") or self.word_start is not None or (
            whole is not None and whole.add_dummy_prefix and not whole.treat_whitespace_as_suffix
        )
        # Characters a chars-mode table does not know: spelled as <0xNN> byte tokens
        # (byte_fallback), else the unknown token, runs of them fused into one (fuse_unk).
        self.byte_tokens: dict[int, int] = {}
        if units == "chars" and options.byte_fallback:
            for token_id, surface in vocab.items():
                if isinstance(surface, str) and len(surface) == 6 and surface.startswith("<0x") and surface.endswith(">"):
                    try:
                        self.byte_tokens[int(surface[3:5], 16)] = token_id
                    except ValueError:
                        pass
        self.byte_token_values = {i: b for b, i in self.byte_tokens.items()}
        self.fuse_unk = options.fuse_unk
        #: How a pre-token the cache does not hold becomes ids (compiled or Python: new_pieces.py).
        self._pieces = NewPieces(self)
        #: Pre-token -> its ids; a pre-token not held yet is worked out by NewPieces.work_out.
        self.cache = PieceCache(compute=self._pieces.work_out)
        #: Encode by token rank (tiktoken's rule), not by merge list: see BY_TOKEN_RANK.
        self.by_token_rank = options.by_token_rank
        self._single_bytes = [bytes([b]) for b in range(256)]
        #: Emit a pre-token that is itself a token whole, merges or not (see EncodeOptions).
        self.ignore_merges = options.ignore_merges
        # Encoding fast paths, same results: bytes -> base ids in one bytes.translate when
        # every byte has a base id below 256; Python's re with ASCII classes on ASCII text.
        self._byte_ids: bytes | None = None
        if bytes_mode and all(0 <= self.base.get(b, -1) < 256 for b in range(256)):
            self._byte_ids = bytes(self.base[b] for b in range(256))
        self._ascii_findall = ascii_findall(self.pre.name)
        # The id a table's own format gives unknown characters (sentencepiece's <unk>), if any.
        unk = options.unk_id if options.unk_id is not None else special_tokens.get(options.unk_token or "")
        self.unk_id: int = unk if unk is not None and unk in vocab else UNK_ID
        # Ids from here on are helper symbols the reader added (a bare character or ``c</w>``
        # an attached-marker vocabulary lacks): left unmerged, they are unknown, as in the
        # table's own library, which has no id for them.
        self.outside_from = options.outside_vocab_from
        #: BoundlessBPE's pass: supermerges join pre-tokens after the cache's ids (boundless.py;
        #: made last, as its compiled word merges read the options above).
        self.boundless = (
            Joiner(removals, self.cache, self.base_ids, self._pieces.word_merger(removals.word_index))
            if isinstance(removals, BoundlessEvents) else None
        )

    # ------------------------------------------------------------------ special tokens in text

    def pretokenizer_for(self, specials: list[str]) -> PreTokenizer:
        """The table's pre-tokenizer, recognising ``specials`` in text."""
        prefix, normalizer, whole, flags = self._pre_rules
        return PreTokenizer(
            self.pretokenizer, specials, self.lowercase, prefix_space=prefix,
            normalizer=normalizer, text_normalizer=whole,
            special_flags=flags,
            normalized_tokens=[t for t, f in (flags or {}).items() if isinstance(f, dict) and f.get("normalized")],
        )

    def recognising(self, specials: frozenset[str]) -> "Encoder":
        """This encoder with only ``specials`` recognised in text: the other special tokens'
        texts are ordinary text. Ids, vocabulary and the pieces cache are shared (a piece's
        ids do not depend on the specials)."""
        if len(specials) == len(self.special_tokens):
            return self
        view = self._views.get(specials)
        if view is None:
            view = copy.copy(self)
            view.special_tokens = {s: i for s, i in self.special_tokens.items() if s in specials}
            view.pre = self.pretokenizer_for(list(view.special_tokens))
            view._ascii_findall = ascii_findall(view.pre.name)
            view._views = {}
            self._views[specials] = view
        return view

    def policy(self, allowed_special: Allowed, disallowed_special: Disallowed) -> tuple[frozenset[str], frozenset[str]]:
        """``(recognised, disallowed)`` under tiktoken's two arguments, the added tokens that
        are no special tokens always recognised (:func:`special_policy.resolve`)."""
        return special_policy.resolve(self.special_tokens, allowed_special, disallowed_special, self.options.always_recognised)

    def for_text(self, text: str, allowed_special: Allowed, disallowed_special: Disallowed) -> "Encoder":
        """The encoder (or view) that encodes ``text`` under tiktoken's two arguments, after
        refusing a text that holds a disallowed special token."""
        if allowed_special == "all" and disallowed_special == "all":
            return self  # the default: every special token recognised, nothing refused
        recognised, disallowed = self.policy(allowed_special, disallowed_special)
        special_policy.check(text, disallowed)
        return self.recognising(recognised)

    def for_stream(self, chunks: Iterable[str], allowed_special: Allowed, disallowed_special: Disallowed) -> "tuple[Encoder, Iterable[str]]":
        """:meth:`for_text` for a stream: the encoder, and the chunks checked as they come."""
        if allowed_special == "all" and disallowed_special == "all":
            return self, chunks
        recognised, disallowed = self.policy(allowed_special, disallowed_special)
        return self.recognising(recognised), special_policy.checked_stream(chunks, disallowed)

    # ------------------------------------------------------------------ one pre-token

    def base_ids(self, word: str) -> list[int]:
        """A pre-token's base ids (bytes or characters, unknown ones as UNK_ID or spelled in
        byte tokens), with the end-of-word marker (and the word-start text in front)."""
        if self.word_start is not None:
            word = self.word_start + word
        if self._byte_ids is not None and self.eow_id is None:
            return list(word.encode("utf-8").translate(self._byte_ids))
        if self.units == "bytes":
            base = self.base
            ids = [base.get(b, UNK_ID) for b in word.encode("utf-8")]
        else:
            base = self.base
            ids = [base.get(c, UNK_ID) for c in word]
            if self.continuing_prefix is not None and len(word) > 1:
                after = self.continuing_base
                ids[1:] = [after.get(c, UNK_ID) for c in word[1:]]
            if UNK_ID in ids and (self.byte_tokens or self.fuse_unk):
                ids = self._unknown_chars(word, ids)
        if self.eow_id is not None and not (self.outside_from is not None and ids and ids[-1] == UNK_ID):
            # (a file that attaches the marker has one unknown symbol for "á</w>", not two)
            ids.append(self.eow_id)
        return ids

    def _unknown_chars(self, word: str, ids: list[int]) -> list[int]:
        """Base ids with unknown characters spelled as byte tokens (when every byte of the
        character has one), else left unknown, a run of unknowns fused into one if asked."""
        out: list[int] = []
        byte_tokens = self.byte_tokens
        prefix = self.continuing_prefix
        for k, (ch, i) in enumerate(zip(word, ids)):
            if i == UNK_ID:
                if prefix is not None and k > 0:
                    ch = prefix + ch  # tokenizers spells the prefixed symbol's bytes
                spelled = [t for b in ch.encode("utf-8") if (t := byte_tokens.get(b)) is not None]
                if byte_tokens and len(spelled) == len(ch.encode("utf-8")):
                    out += spelled
                    continue
                if self.fuse_unk and out and out[-1] == UNK_ID:
                    continue
            out.append(i)
        return out

    def whole_token(self, word: str) -> int | None:
        """The id of a pre-token emitted whole, without merging: with ``ignore_merges``, a
        pre-token that is itself a (non-special) token; else None."""
        if not self.ignore_merges or self.eow_id is not None:
            return None
        if self.word_start is not None:
            word = self.word_start + word
        return self.surface_to_id.get(word.encode("utf-8") if self.units == "bytes" else word)

    def symbols(self, word: str) -> list:
        """A pre-token's symbols before any merge: base ids, or, by token rank, its bytes
        one by one (as byte strings: the rule joins them)."""
        if self.by_token_rank:
            return list(map(self._single_bytes.__getitem__, word.encode("utf-8")))
        return self.base_ids(word)

    def merged(self, symbols: list, dropout: float = 0.0, rng: random.Random | None = None, log: list | None = None) -> list[int]:
        """The ids ``symbols`` merge into, by the table's rule: the one merge loop of
        :mod:`~bpe_tui.core.engine.merging`, with its dropout and its log (for traces)."""
        if self.by_token_rank:
            ranks = self.surface_to_id
            return [ranks[s] for s in merge(symbols, ranks, dropout=dropout, rng=rng, log=log)]
        if self.removals is not None:  # PickyBPE: merges and removals replayed in order
            if dropout:
                raise BPEError("BPE-dropout is not defined for a table with removals (PickyBPE, BoundlessBPE): its events are replayed in order")
            if log is not None:
                raise BPEError("character offsets are not worked out for a table with removals (PickyBPE)")
            return self.removals.replay(symbols)
        pair_ranks, pair_made = self._merge_index()
        return merge(symbols, pair_ranks, pair_made, dropout=dropout, rng=rng, log=log)

    def merge_index(self) -> tuple[Mapping[tuple[int, int], int], Mapping[tuple[int, int], int]]:
        """``(pair_ranks, pair_made)`` of the merge list (built first if need be)."""
        return self._merge_index()

    def encode_word(self, word: str) -> tuple[int, ...]:
        """The ids of one pre-token (remembered in the pieces cache)."""
        return self.cache[word]

    def encode_word_dropout(self, word: str, p: float, rng: random.Random) -> list[int]:
        """BPE-dropout (Provilkov et al. 2020): each candidate merge is skipped with probability p.

        A pre-token emitted whole (see :meth:`whole_token`) stays whole, as in Hugging Face."""
        whole = self.whole_token(word)
        if whole is not None:
            return [whole]
        return self.merged(self.symbols(word), p, rng)

    # ------------------------------------------------------------------ a text

    def encode(self, text: str, dropout: float = 0.0, seed: int | None = None) -> list[int]:
        """Token ids of ``text`` (the special tokens this encoder recognises to their ids)."""
        return self.finish(self.encode_raw(text, dropout, seed))

    def finish(self, ids: list[int]) -> list[int]:
        """Ids as encode gives them: helper symbols outside the file's vocabulary unknown, and
        the unknown id the table's own (sentencepiece's <unk>) where it has one."""
        if self.outside_from is not None:
            ids = self.inside(ids)
        if self.unk_id != UNK_ID:
            return [self.unk_id if i == UNK_ID else i for i in ids]
        return ids

    def inside(self, ids: Sequence[int]) -> list[int]:
        """``ids`` with helper symbols outside the file's vocabulary (see
        ``EncodeOptions.outside_vocab_from``) made unknown."""
        limit = self.outside_from
        return [UNK_ID if i >= limit else i for i in ids] if limit is not None else list(ids)

    def encode_raw(self, text: str, dropout: float, seed: int | None) -> list[int]:
        """The ids of ``text`` before :meth:`finish`."""
        text = valid_text(text)
        if self.pre.text_normalizer is not None:
            text = self.pre.text_normalizer(text)
        if dropout:
            return self._encode_dropout(text, check_dropout(dropout), seed)
        out: list[int] = []
        pre = self.pre
        if pre.matches_normalized_tokens and pre.prefix_space is not None:  # (see _encode_segment)
            specials = self.special_tokens
            for is_special, piece in pre.split(text, text_normalized=True):
                out += (specials[piece],) if is_special else self.encode_word(piece)
            return out
        # The same pieces as self.pre.split(text), without a tuple per piece.
        matcher = pre.special_matcher
        if matcher is None:
            self._encode_segment(pre.prefixed(text, True), out)
            return out
        pos = 0
        for m in matcher.finditer(text):
            if m.start() > pos:
                self._encode_segment(pre.prefixed(text[pos : m.start()], pos == 0), out)
            out.append(self.special_tokens[m.group()])
            pos = m.end()
        if pos < len(text):
            self._encode_segment(pre.prefixed(text[pos:], pos == 0), out)
        return out

    def _encode_segment(self, segment: str, out: list[int]) -> None:
        """Append the ids of a text without special tokens (the hot path of encode)."""
        segment = self.pre.normalize(segment)
        if self.pre.matches_normalized_tokens:
            # Special tokens looked for in normalized text (HF's normalized=true added tokens):
            # cut out here (a table with a prefix space takes the general path in encode_raw).
            parts = self.pre.normalized_specials(segment)
            for k, part in enumerate(parts):
                if k % 2:
                    out.append(self.special_tokens[part])
                elif part:
                    self._encode_words(part, out)
            return
        self._encode_words(segment, out)

    def words(self, segment: str) -> list[str]:
        """The pre-tokens of normalized text without special tokens: the split, on its fastest
        path (Python's re with ASCII classes for an ASCII text, where the pre-tokenizer has
        such a form; see splitting.py for the others)."""
        fast = self._ascii_findall
        return fast(segment) if fast is not None and segment.isascii() else self.pre.pattern.findall(segment)

    def _encode_words(self, segment: str, out: list[int]) -> None:
        """Append the ids of normalized text without special tokens: each pre-token's ids
        from the cache, a miss worked out (new_pieces.py); BoundlessBPE's supermerges after."""
        if self.boundless is not None:
            out += self.boundless.joined(self.words(segment))
        else:
            self._pieces.extend(self.words(segment), out)

    def _encode_dropout(self, text: str, dropout: float, seed: int | None) -> list[int]:
        out: list[int] = []
        specials = self.special_tokens
        rng = random.Random(seed)
        for is_special, piece in self.pre.split(text, text_normalized=True):
            out.extend([specials[piece]] if is_special else self.encode_word_dropout(piece, dropout, rng))
        return out

    def encode_with_offsets(self, text: str, dropout: float = 0.0, seed: int | None = None) -> tuple[list[int], list[tuple[int, int]]]:
        """``(ids, offsets)`` (see MergeTable.encode_with_offsets)."""
        ids, spans = offsets.encode_with_offsets(self, text, dropout, seed)
        return self.finish(ids), spans

    def pieces(self, text: str, dropout: float = 0.0, seed: int | None = None) -> list[tuple[int, bytes | str]]:
        """``(id, surface)`` per token; an unknown character is ``(UNK_ID, the character)``."""
        if self.boundless is not None:  # (a byte-level table: every token has its surface)
            return [(i, self.vocab[i]) for i in self.encode(text, dropout, seed)]
        out = []
        specials = self.special_tokens
        rng = random.Random(seed)
        dropout = check_dropout(dropout)
        for is_special, piece in self.pre.split(valid_text(text)):
            if is_special:
                out.append((specials[piece], self.vocab[specials[piece]]))
            else:
                ids = self.encode_word_dropout(piece, dropout, rng) if dropout > 0 else list(self.encode_word(piece))
                out.extend(self.pieces_of_ids(piece, ids))
        return out

    def pieces_of_ids(self, word: str, ids: list[int]):
        """``(id, surface)`` of a pre-token's ids, an unknown one with the unit it stands for."""
        if self.word_start is not None:
            word = self.word_start + word
        units = list(word.encode("utf-8")) if self.units == "bytes" else list(word)
        known = [self.base] + [self.continuing_base if self.continuing_prefix is not None else self.base] * (len(units) - 1)
        unknown = iter(u for u, base in zip(units, known) if u not in base)
        for i in ids:
            if type(i) is not int:  # True is 1 to Python, not to a reader of token ids
                raise BPEError(f"token id {i!r} is not an integer")
            if i == UNK_ID:
                u = next(unknown)
                yield i, bytes([u]) if isinstance(u, int) else u
            elif self.outside_from is not None and i >= self.outside_from:
                yield UNK_ID, self.vocab[i]
            else:
                yield i, self.vocab[i]

    # ------------------------------------------------------------------ a stream of text

    def encode_iterable(self, chunks: Iterable[str]) -> Iterator[int]:
        """The ids of a stream of text, lazily (see MergeTable.encode_iterable)."""
        for ids in self.encode_blocks(chunks):
            yield from ids

    def encode_blocks(self, chunks: Iterable[str]) -> Iterator[list[int]]:
        """The ids of a stream of text, a list at a time: as :meth:`encode_iterable`, the ids
        decided by each chunk at once (what ``bpe-tui encode --ids`` writes as it reads)."""
        if self.pre.matches_normalized_tokens:
            yield self.encode("".join(chunks))
            return
        if self.boundless is not None:  # (its pre-tokenizer takes text as it is)
            yield from self.boundless.blocks(streaming.stream_parts(self, chunks), self.special_tokens)
            return
        specials = self.special_tokens
        if not streaming.streams_as_is(self):
            for is_special, piece in streaming.prefix_pieces(self, streaming.stream_pieces(self, chunks)):
                yield [specials[piece]] if is_special else self.finish(list(self.encode_word(piece)))
            return
        extend = self._pieces.extend
        # finished as encode does: helper symbols unknown, an unknown character as the table's own id (<UNK>)
        finishing = self.outside_from is not None or self.unk_id != UNK_ID
        for parts in streaming.stream_parts(self, chunks):
            ids: list[int] = []
            for special, words in parts:
                if special is None:
                    extend(words, ids)
                else:
                    ids.append(specials[special])
            yield self.finish(ids) if finishing else ids

    def pieces_iterable(self, chunks: Iterable[str]) -> Iterator[tuple[int, bytes | str]]:
        """``(id, surface)`` per token of a stream of text, lazily."""
        if self.pre.matches_normalized_tokens:  # see encode_iterable
            yield from self.pieces("".join(chunks))
            return
        specials = self.special_tokens
        vocab = self.vocab
        if self.boundless is not None:
            yield from ((i, vocab[i]) for ids in self.encode_blocks(chunks) for i in ids)
            return
        if streaming.streams_as_is(self):
            for parts in streaming.stream_parts(self, chunks):
                for special, words in parts:
                    if special is not None:
                        yield specials[special], vocab[specials[special]]
                        continue
                    for word in words:
                        yield from self.pieces_of_ids(word, list(self.encode_word(word)))
            return
        for is_special, piece in streaming.prefix_pieces(self, streaming.stream_pieces(self, chunks)):
            if is_special:
                yield specials[piece], vocab[specials[piece]]
            else:
                yield from self.pieces_of_ids(piece, list(self.encode_word(piece)))

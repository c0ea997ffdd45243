"""SuperBPE's stage-2 rules: how the corpus is cut into chunks after the transition.

Liu et al., "SuperBPE: Space Travel for Language Models" (COLM 2025). Everything between
a rule's cuts, spaces included, is one *chunk*, so merges inside a chunk may span spaces
(``·by·the·way``). The authors have trained with two rules, each a pipeline of split steps
(see :class:`~bpe_tui.core.text.pretokenize.SplitPipeline`), spelled exactly as the
tokenizer.json reader spells them, so a SuperBPE tokenizer.json read back compares equal.
How the trainer uses them is :mod:`bpe_tui.core.engine.superwords`.
"""

from __future__ import annotations

import json

from .pretokenize import DIGIT_GROUPS, DIGIT_RUNS_STEP, PIPELINE

#: The authors' current rule (their scripts since November 2025, and the default): numbers of
#: 1-3 digits, runs of two or more marks (with the line breaks or slash after them) and spaces
#: that end a run of text are isolated; everything between them is a chunk.
SUPERWORD_SPLIT = r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*| +(?!\S)"

#: That rule as a pre-tokenizer: a pipeline of one Split, "isolated" (matches and the gaps
#: between them are the pieces).
SUPERWORD_PRETOKENIZER = PIPELINE + json.dumps(
    [{"pattern": SUPERWORD_SPLIT, "behavior": "Isolated", "invert": False}], ensure_ascii=False
)

#: The stage-2 rule of the authors' published OLMo2 SuperBPE tokenizers (their code until
#: November 2025): only digit runs are cut, each isolated and then cut in threes from the
#: right; everything else, punctuation, spaces and line breaks included, is one chunk.
#: ``Digits`` + ``Split`` steps, as their tokenizer.json has them.
SUPERWORD_DIGITS_PRETOKENIZER = PIPELINE + json.dumps(
    [DIGIT_RUNS_STEP, {"pattern": DIGIT_GROUPS, "behavior": "Isolated", "invert": False}], ensure_ascii=False
)

#: SuperBPE's stage-2 rules by name: ``regex`` (the authors' current one, the default) and
#: ``digits`` (the one their OLMo2 tokenizers were trained with).
SUPERWORD_RULES = {"regex": SUPERWORD_PRETOKENIZER, "digits": SUPERWORD_DIGITS_PRETOKENIZER}

__all__ = ["SUPERWORD_DIGITS_PRETOKENIZER", "SUPERWORD_PRETOKENIZER", "SUPERWORD_RULES", "SUPERWORD_SPLIT"]

"""How the golden files of this folder were made: the BoundlessBPE authors' code, run by hand.

This script is ours; it imports the authors' package from a checkout of their repository
(github kensho-technologies/boundlessbpe, Apache-2.0) that lives outside this repository, and
writes what their code did. It is a recipe, not a test: the tests read the files it wrote.

    python recipe.py events --ref /work/refs/boundlessbpe --corpus ../shared/corpora/taylorswift.txt \\
        --bytes 0 --pattern gpt4o --tau 0.9 --blowup 1 --vocab 1200 --recalc 1 --out taylorswift-gpt4o-t0.9-b1-v1200.events
    python recipe.py ids --ref /work/refs/boundlessbpe --texts heldout.json --out models.ids MODEL.model ...
    python recipe.py model-ids --ref /work/refs/boundlessbpe --texts heldout.json --out FILE MODEL.model

``events`` trains once, in this process (the authors' event counter is a class attribute:
one training per process), on documents made from a corpus by :func:`documents`, and writes
one line per event in event order. ``ids`` encodes each held-out text with each model by the
authors' inference and writes a digest of the ids per text and model; ``model-ids`` writes
the ids themselves (for the one small model kept under tests/data).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

PATTERN_NAMES = {"gpt4o": "GPT4O_SPLIT_PATTERN", "ultimate2": "ULTIMATE_PATTERN", "gpt2": "GPT2_SPLIT_PATTERN", "gpt4": "GPT4_SPLIT_PATTERN"}


def corpus_slice(path: str, size: int) -> str:
    """The first ``size`` bytes of a UTF-8 corpus, cut back to the end of a line (0: all of it)."""
    data = open(path, "rb").read()
    if size and size < len(data):
        data = data[: data.rindex(b"\n", 0, size) + 1]
    return data.decode("utf-8")


def documents(text: str) -> list[str]:
    """The documents a corpus slice is trained as: the text cut after every blank line (each
    ``\\n\\n`` ends a document; joined, the documents give the text back), empty ones left out."""
    pieces = text.split("\n\n")
    docs = [p + "\n\n" for p in pieces[:-1]] + [pieces[-1]]
    return [d for d in docs if d]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def commit_of(ref: str) -> str:
    return subprocess.run(["git", "-C", ref, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()


def environment() -> str:
    import regex

    return f"Python {platform.python_version()}, regex {regex.__version__}, {platform.system()} {platform.machine()}"


def reference(ref: str):
    """The authors' package, imported from the checkout at ``ref``."""
    sys.path.insert(0, os.path.abspath(ref))
    import boundlessbpe  # noqa: F401
    from boundlessbpe import regexconstants, util

    return boundlessbpe, regexconstants, util


def parse_log(log: str) -> tuple[dict[int, tuple[int, int, int]], int]:
    """The counts the trainer printed per merge: step (1-based) -> (c_ab, c_a, c_b), and how
    many steps it printed. Its verbose lines start with ``*`` and are tab-separated."""
    counts: dict[int, tuple[int, int, int]] = {}
    steps = 0
    for line in log.splitlines():
        fields = line.split("\t")
        if fields[0] != "*" or len(fields) < 9 or fields[1] == "i":
            continue
        step, kind = int(fields[1]), fields[3]
        if kind in ("w", "s"):
            counts[step] = (int(fields[6]), int(fields[7]), int(fields[8]))
            steps = max(steps, step)
    return counts, steps


def cmd_events(args: argparse.Namespace) -> None:
    package, constants, util = reference(args.ref)
    text = corpus_slice(args.corpus, args.bytes)
    docs = documents(text)
    pattern = getattr(constants, PATTERN_NAMES[args.pattern])
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "docs.jsonl")
        with open(data, "w", encoding="utf-8") as f:
            for d in docs:
                f.write(json.dumps({"text": d}) + "\n")
        jsonl_sha = sha256(open(data, "rb").read())
        tokenizer = package.FasterHalfDirectRegexTokenizer(args.tau, pattern)
        log = io.StringIO()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        with contextlib.redirect_stdout(log):
            tokenizer.train(data, os.path.join(tmp, "model"), len(docs), args.vocab, args.recalc, bool(args.blowup), 10**15, True)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        if args.model:
            with contextlib.redirect_stdout(io.StringIO()):
                tokenizer.save(os.path.join(tmp, "model"))
            os.replace(os.path.join(tmp, "model.model"), args.model)
    counts, _ = parse_log(log.getvalue())
    spell = util.frombytes
    events: dict[int, str] = {}
    for idx, (a, b) in tokenizer.words_state.merges.items():
        events[idx] = f"W\t{spell(a)}\t{spell(b)}"
    for idx, (a, b) in tokenizer.superwords_state.merges.items():
        events[idx] = f"S\t{spell(a)}\t{spell(b)}"
    for idx, t in tokenizer.words_state.deletions.items():
        events[idx] = f"D\t{spell(t)}"
    assert not tokenizer.superwords_state.deletions, "the reference made superword deletions"
    assert sorted(events) == list(range(len(events))), "event indices are not one sequence"
    lines, step = [], 0
    for idx in range(len(events)):
        line = events[idx]
        if line[0] in "WS":
            step += 1
            line += "\t" + "\t".join(map(str, counts[step]))
        lines.append(line)
    stopped = "vocabulary size reached" if len(tokenizer.vocab) >= args.vocab else "nothing left to merge"
    header = [
        "BoundlessBPE's events, made by the authors' FasterHalfDirectRegexTokenizer (boundlessbpe/boundlessbpetrain.py,",
        f"github kensho-technologies/boundlessbpe, commit {commit_of(args.ref)}), run by hand with tests/core/golden/boundless/recipe.py:",
        f"  python recipe.py events --ref CHECKOUT --corpus {args.corpus} --bytes {args.bytes} --pattern {args.pattern} --tau {args.tau} "
        f"--blowup {args.blowup} --vocab {args.vocab} --recalc {args.recalc} --out {os.path.basename(args.out)}",
        f"corpus: {os.path.basename(args.corpus)} (sha256 {sha256(open(args.corpus, 'rb').read())}), "
        + (f"its first {len(text.encode('utf-8')):,} bytes (the first {args.bytes:,} cut back to a line end)" if args.bytes else "all of it"),
        f"documents: the slice cut after every blank line (recipe.documents): {len(docs):,} JSON lines records {{\"text\": ...}} (sha256 {jsonl_sha})",
        f"train(filepath, outprefix, num_lines={len(docs)}, vocab_size={args.vocab}, recalc={args.recalc}, blowup={bool(args.blowup)}, max_bytes=10**15)",
        f"pattern: regexconstants.{PATTERN_NAMES[args.pattern]}; tau {args.tau}; merge pattern: regexconstants.IMPROVED_MERGE_PATTERN (hard-coded there)",
        f"recalc={args.recalc}: the trainer checked its running counts against a recount from scratch every {args.recalc} step(s) (asserts)",
        f"{environment()}; {cpu:.1f} s CPU, {wall:.1f} s wall; stopped: {stopped}, {len(tokenizer.vocab):,} tokens (deleted ones included)",
        "One line per event, in event order (the event index is the line's place among them, from 0), tab-separated,",
        "tokens in GPT-2's byte-to-character spelling (as the .model files write them):",
        "  W <left> <right> <c_ab> <c_a> <c_b>   a word merge (counts as the trainer printed them, before the merge)",
        "  S <left> <right> <c_ab> <c_a> <c_b>   a supermerge of two whole pre-tokens",
        "  D <token>                             a deletion (a word token, after the merge before it)",
    ]
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("".join(f"# {h}\n" for h in header))
        f.write("".join(line + "\n" for line in lines))
    print(f"wrote {args.out}: {len(lines)} events, {cpu:.1f} s CPU, {wall:.1f} s wall")


def load_texts(path: str) -> list[str]:
    texts = json.load(open(path, encoding="utf-8"))
    assert isinstance(texts, list) and all(isinstance(t, str) for t in texts)
    return texts


def blowup_of(model: str) -> bool:
    """Deletions into bytes (True) or into the pair (False), as the model's name says by the
    authors' naming (``..._<pattern>_<blowup>[_<size>].model``); bytes where it does not."""
    parts = os.path.basename(model)[: -len(".model")].split("_")
    for i, p in enumerate(parts):
        if p in PATTERN_NAMES and i + 1 < len(parts) and parts[i + 1] in ("0", "1"):
            return parts[i + 1] == "1"
    return True


def encode_all(package, model: str, texts: list[str]) -> tuple[list[list[int]], bool]:
    inference = package.FasterRegexInference()
    with contextlib.redirect_stdout(io.StringIO()):
        inference.load(model)
    blowup = blowup_of(model)
    out = []
    for text in texts:
        ids = inference.encode_ordinary(text, blowup)
        assert inference.decode(ids) == text
        out.append(ids)
    return out, blowup


def digest(ids: list[int]) -> str:
    return sha256(" ".join(map(str, ids)).encode())[:16]


def ids_header(args: argparse.Namespace, what: str) -> list[str]:
    return [
        f"{what}, by the authors' FasterRegexInference.encode_ordinary(text, blowup) (boundlessbpe/boundlessbpeinference.py,",
        f"github kensho-technologies/boundlessbpe, commit {commit_of(args.ref)}), run by hand with tests/core/golden/boundless/recipe.py:",
        f"  python recipe.py {args.command} --ref CHECKOUT --texts {os.path.basename(args.texts)} --out {os.path.basename(args.out)} MODEL ...",
        f"texts: {os.path.basename(args.texts)} (sha256 {sha256(open(args.texts, 'rb').read())}), a JSON list of strings, each encoded on its own",
        "blowup: True (deletions into bytes) unless the model's name ends in _<pattern>_0[_<size>] (trained with deletions into the pair)",
        f"{environment()}; each id list decodes back to its text",
    ]


def cmd_ids(args: argparse.Namespace) -> None:
    package, _, _ = reference(args.ref)
    texts = load_texts(args.texts)
    header = ids_header(args, "Digests of token ids")
    header += [
        "One line per model: its file name, its sha256, blowup (1 or 0), then per text <number of ids>:<the first 16 hex digits",
        "of the sha256 of the ids written in decimal, space-separated>, tab-separated.",
    ]
    lines = []
    for model in args.models:
        start = time.perf_counter()
        all_ids, blowup = encode_all(package, model, texts)
        fields = [os.path.basename(model), sha256(open(model, "rb").read()), str(int(blowup))]
        fields += [f"{len(ids)}:{digest(ids)}" for ids in all_ids]
        lines.append("\t".join(fields))
        print(f"{os.path.basename(model)}: {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
        with open(args.out, "w", encoding="utf-8") as f:  # (rewritten after each model: a long run can be read as it goes)
            f.write("".join(f"# {h}\n" for h in header))
            f.write("".join(line + "\n" for line in lines))


def cmd_model_ids(args: argparse.Namespace) -> None:
    package, _, _ = reference(args.ref)
    texts = load_texts(args.texts)
    (model,) = args.models
    all_ids, blowup = encode_all(package, model, texts)
    header = ids_header(args, "Token ids")
    header += [
        f"model: {os.path.basename(model)} (sha256 {sha256(open(model, 'rb').read())}), blowup {blowup}",
        "One line per text: its ids, space-separated.",
    ]
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("".join(f"# {h}\n" for h in header))
        f.write("".join(" ".join(map(str, ids)) + "\n" for ids in all_ids))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ev = sub.add_parser("events")
    ev.add_argument("--ref", required=True)
    ev.add_argument("--corpus", required=True)
    ev.add_argument("--bytes", type=int, default=0)
    ev.add_argument("--pattern", choices=sorted(PATTERN_NAMES), default="gpt4o")
    ev.add_argument("--tau", type=float, required=True)
    ev.add_argument("--blowup", type=int, choices=(0, 1), default=1)
    ev.add_argument("--vocab", type=int, required=True)
    ev.add_argument("--recalc", type=int, default=1)
    ev.add_argument("--model", help="also save the trained model here (their save)")
    ev.add_argument("--out", required=True)
    for name in ("ids", "model-ids"):
        p = sub.add_parser(name)
        p.add_argument("--ref", required=True)
        p.add_argument("--texts", required=True)
        p.add_argument("--out", required=True)
        p.add_argument("models", nargs="+")
    args = parser.parse_args()
    {"events": cmd_events, "ids": cmd_ids, "model-ids": cmd_model_ids}[args.command](args)


if __name__ == "__main__":
    main()

"""The status line: what is loaded, which rules, where training stands."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from .render import fmt_int
from .session import Session, Snapshot


class StatusLine(Static):
    """One or two lines of facts; rebuilt from each snapshot."""

    def __init__(self, **kwargs) -> None:
        super().__init__("loading…", markup=False, **kwargs)
        self.text = ""

    def show(self, session: Session | None, snap: Snapshot | None, play_rate: float | None = None, note: str = "") -> None:
        parts: list[tuple[str, str]] = []
        if session is None or snap is None:
            parts.append((note or "no corpus loaded — press o to open a corpus or a table", "bold"))
        elif snap.mode == "explore":
            cfg = session.trainer.config
            parts.append((session.name, "bold #8ec5ff"))
            parts.append((cfg.describe(), ""))
            target = f"/{fmt_int(snap.target)}" if snap.target is not None else ""
            parts.append((f"step {fmt_int(snap.step)}{target}", "bold"))
            parts.append((f"vocab {fmt_int(snap.vocab_size)}", ""))
            parts.append((f"tokens {fmt_int(snap.total_tokens)} (step 0: {fmt_int(snap.initial_tokens)})", ""))
            cpt = snap.corpus_chars / snap.total_tokens if snap.total_tokens else 0.0
            parts.append((f"{cpt:.2f} chars/token", ""))
            if snap.finished:
                parts.append(("done: " + (snap.stop_reason or "target reached"), "#ffd75f"))
            if play_rate:
                parts.append((f"▶ playing {play_rate:g}/s", "bold #a8e6a3"))
        else:
            table = session.full_table
            d = table.describe()
            parts.append((session.name, "bold #8ec5ff"))
            parts.append((f"format {d['format']}", ""))
            parts.append((f"{fmt_int(d['vocab_size'])} tokens", ""))
            parts.append((f"{fmt_int(d['merges'])} merges", ""))
            rules = [d["units"], d["pretokenizer"] if len(d["pretokenizer"]) < 24 else "custom regex"]
            if d.get("tie_break"):
                rules.append(d["tie_break"])
            if d.get("end_of_word"):
                rules.append(f"eow {d['end_of_word']}")
            if d.get("lowercase"):
                rules.append("lowercase")
            if d.get("prefix_space"):
                rules.append(f"prefix space ({d['prefix_space']})")
            if d.get("special_tokens"):
                rules.append(f"{len(d['special_tokens'])} special")
            parts.append((" · ".join(rules), ""))
            if session.cut is not None:
                parts.append((f"encoding with the first {fmt_int(session.cut)} merges", "bold #ffd75f"))
        if note and session is not None:
            parts.append((note, "italic"))
        text = Text(end="")
        for i, (value, style) in enumerate(parts):
            if i:
                text.append(" │ ", "dim")
            text.append(value, style)
        self.text = text.plain
        self.update(text)

"""A varied text set for parity checks against the reference libraries.

Prose in many scripts, code, whitespace runs, numbers, contractions, emoji and URLs, written
for this project; :func:`texts` adds lines of tinyshakespeare when ../shared is there, and
the table's own special tokens placed inside text.
"""

from __future__ import annotations

from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared"

PROSE = [
    "The quick brown fox jumps over the lazy dog.",
    "I'm sure they'll say it's fine, but we've DONE it before and THEY'LL know.",
    "Le cœur a ses raisons que la raison ne connaît point; élève, garçon, façade.",
    "Die Straße ist naß, und Äpfel, Öl und Übermut sind überall.",
    "¿Dónde está la biblioteca? ¡Mañana será otro día, señor Núñez!",
    "Москва — столица России; съешь же ещё этих мягких французских булок.",
    "Η γλώσσα μου έδωσαν ελληνική· τὸ σπίτι φτωχικό στις αμμουδιές του Ομήρου.",
    "مرحبا بالعالم، هذه جملة عربية للاختبار مع أرقام ١٢٣٤.",
    "שלום עולם, זהו משפט בעברית עם ניקוד: בְּרֵאשִׁית.",
    "नमस्ते दुनिया, यह हिंदी का एक वाक्य है।",
    "আমি বাংলায় গান গাই, তুমি শুনবে কি?",
    "ภาษาไทยไม่มีการเว้นวรรคระหว่างคำ เช่นนี้",
    "我们在学习分词器如何把句子切成词元。北京欢迎你！",
    "日本語の文章では、ひらがなとカタカナと漢字が混ざります。トークナイザー！",
    "한국어 문장은 띄어쓰기를 합니다. 안녕하세요, 세계!",
    "Tiếng Việt có rất nhiều dấu: Việt Nam, người, được, những.",
    "İstanbul'da ılık bir ığdır; şehir, çiçek, öğrenci, ağaç.",
    "ქართული ენა უნიკალური დამწერლობით იწერება.",
    "Հայերենն ունի իր սեփական այբուբենը։",
    "தமிழ் ஒரு பழமையான மொழி ஆகும்.",
    "ሰላም ለዓለም፣ ይህ የአማርኛ ዓረፍተ ነገር ነው።",
    "Ǆemo ǅemo ǆemo — ﬁne ﬂour, ｆｕｌｌ ｗｉｄｔｈ, ①②③, ½ ℃ ™.",
]

CODE = [
    "def encode(self, text: str) -> list[int]:\n    return [self.vocab[t] for t in text.split()]\n",
    '{"name": "bpe-tui", "version": [0, 1, 0], "ok": true, "ratio": 3.14159}',
    "for (int i = 0; i < n; ++i) { sum += a[i] * b[i]; }  // dot product",
    "$ ls -la /usr/local/bin | grep -E '^-rwx' && echo \"done\" >> log.txt 2>&1",
    "SELECT id, COUNT(*) FROM tokens WHERE rank < 50000 GROUP BY id;",
    "<div class=\"chip\">&nbsp;token&amp;id</div>",
]

WHITESPACE = [
    "two  spaces,   three,    four     five",
    "\ttab\t\tdouble tab\n\nblank line above\r\nCRLF line\r\n",
    "trailing spaces   \n   leading spaces",
    "   ",
    "\n",
    "a\u00a0nbsp\u3000ideographic\u2009thin space",
    "line one\nline two\n\n\n\nmany newlines",
]

NUMBERS_AND_MISC = [
    "1234567890 12 345 6789 3.14 2,718 1e-9 0xFF 2026-11-22 12:59:00",
    "https://example.org/path?query=value&x=1#fragment user@example.com",
    "emoji 👍 👍🏽 👨‍👩‍👧‍👦 🇫🇷🇯🇵 ❤️ 🙂🙃 ✨",
    "MixedCASE camelCase snake_case kebab-case SCREAMING_CASE",
    "'s 't 're 've 'm 'll 'd 'S 'T 'RE don't WON'T y'all",
    "a" * 300,
    "ab" * 150 + " " + "🙂" * 40,
]

BASE = PROSE + CODE + WHITESPACE + NUMBERS_AND_MISC


def shakespeare_lines(n: int = 300) -> list[str]:
    """Every 100th line of tinyshakespeare (the first ``n``), if ../shared is there."""
    path = SHARED / "corpora" / "tinyshakespeare.txt"
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    return [line for line in lines[::100] if line.strip()][:n]


def texts(specials: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The whole set: BASE, the same texts joined in paragraphs, special tokens inside text,
    and tinyshakespeare lines when available."""
    out = list(BASE)
    out.append("\n".join(PROSE))
    out.append(" ".join(CODE))
    for special in list(specials)[:6]:
        out.append(f"{special}Hello{special} world {special}\n{special}")
        out.append(f"before {special} after")
    out.extend(shakespeare_lines())
    return out

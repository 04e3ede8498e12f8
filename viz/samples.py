"""Sample texts to tokenize and sample corpora to train on.

The texts are short and chosen to show where tokenizers differ: prose, code, numbers,
a non-Latin script, emoji sequences and whitespace. The corpora are a small
public-domain Shakespeare slice shipped in samples/, Python's own standard library read
from this machine, and the shared corpora folder beside the checkout when it is there;
nothing is downloaded.
"""
import os
import sysconfig
from pathlib import Path

SAMPLES = {
    "English prose": (
        "Byte pair encoding starts from single bytes and, one merge at a time, glues "
        "together the pair that occurs most often. After a few thousand merges, common "
        "words like \"the\" or \" tokenizer\" become single tokens, while rare names such "
        "as Zyzzogeton still break into pieces. That's why counting tokens isn't the same "
        "as counting words!"
    ),
    "Python code": (
        "def merge(ids, pair, idx):\n"
        "    \"\"\"Replace every occurrence of pair in ids by idx.\"\"\"\n"
        "    out, i = [], 0\n"
        "    while i < len(ids):\n"
        "        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:\n"
        "            out.append(idx)\n"
        "            i += 2\n"
        "        else:\n"
        "            out.append(ids[i])\n"
        "            i += 1\n"
        "    return out\n"
    ),
    "Numbers and dates": (
        "Invoice 2026-11-23 #004217: 3 items at $1,299.99 each = $3,899.97 (VAT 19%: "
        "$740.99).\nPhone +49 30 1234567, due 31/12/2026 at 23:59:59 UTC.\n"
        "pi ≈ 3.14159265358979, e ≈ 2.718281828, 2**64 = 18446744073709551616."
    ),
    "Korean": (
        "안녕하세요! 토큰화는 텍스트를 작은 조각으로 나누는 과정입니다. "
        "영어에 비해 한국어는 같은 문장에 더 많은 토큰이 필요한 경우가 많습니다."
    ),
    "Emoji": (
        "Good job 👍 👍🏻 👍🏽 👍🏿! Family: 👨‍👩‍👧‍👦, coder: 👩🏽‍💻, flags: 🇩🇪 🇯🇵 🇺🇳 🏳️‍🌈, "
        "hearts ❤️ 🧡 💛, and a face 🫠."
    ),
    "Whitespace": (
        "col1\tcol2\t\tcol3\n"
        "    indented by four\n"
        "\tindented by a tab\n\n\n"
        "trailing spaces   \n"
        "   \n"
        "windows line\r\nend"
    ),
}
DEFAULT_SAMPLE = "English prose"

SHIPPED_SHAKESPEARE = Path(__file__).resolve().parent.parent / "samples" / "shakespeare_100k.txt"
CORPUS_LIMIT = 2_000_000  # characters read from the standard library sample


def shared_corpora_dir():
    """The folder of shared corpora beside the checkout ($BPE_CORPORA overrides), or None."""
    path = Path(os.environ.get("BPE_CORPORA",
                               Path(__file__).resolve().parent.parent.parent / "shared" / "corpora"))
    return path if path.is_dir() else None


def python_stdlib_text(limit=CORPUS_LIMIT):
    """Source code of Python's standard library on this machine, up to limit characters,
    in a fixed order so the same machine always gives the same corpus."""
    root = Path(sysconfig.get_paths()["stdlib"])
    parts, size = [], 0
    for path in sorted(root.glob("*.py")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        parts.append(text)
        size += len(text)
        if size >= limit:
            break
    return "".join(parts)[:limit]


def sample_corpora():
    """name -> a function returning the corpus text; only corpora present here."""
    corpora = {
        "Shakespeare (100 KB, shipped)": lambda: SHIPPED_SHAKESPEARE.read_text(encoding="utf-8"),
        "Python standard library (code, 2 MB)": python_stdlib_text,
    }
    folder = shared_corpora_dir()
    if folder:
        for path in sorted(folder.glob("*.txt")):
            size_kb = path.stat().st_size // 1024
            corpora[f"{path.name} ({size_kb:,} KB)"] = \
                lambda path=path: path.read_text(encoding="utf-8")
    return corpora

"""Sample texts to tokenize: short, and chosen to show where tokenizers differ: prose,
code, numbers, a non-Latin script, emoji sequences and whitespace.

Pure constants. The corpora to train on are read from disk by lab/train/corpora.py.
"""

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

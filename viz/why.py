"""The "Why tokenization?" lesson as data: one Section per question, and the figures the
sections add under their tokens (per-line counts, a text against its reverse, JSON
against YAML). The questions follow Karpathy's tokenization lecture; the explanations
are this lab's own words.

Pure: no streamlit, no disk. pages/why.py draws each section with the live token view.

>>> len(SECTIONS) >= 10 and len({s.slug for s in SECTIONS}) == len(SECTIONS)
True
>>> to_yaml({"name": "Ada", "langs": ["en", "fr"], "age": 36})
'name: Ada\\nlangs:\\n  - en\\n  - fr\\nage: 36\\n'
"""
import json
from dataclasses import dataclass

GPT2, GPT4, GPT4O, LLAMA3 = "r50k_base", "cl100k_base", "o200k_base", "llama3"
ALL = (GPT2, GPT4, GPT4O, LLAMA3)


@dataclass(frozen=True)
class Section:
    slug: str          # key prefix of the section's widgets: why_<slug>_...
    question: str      # the heading
    explain: str       # a short explanation (Markdown; ours, no user text in it)
    text: str          # the example the editable box starts with
    refs: tuple = ALL  # the reference tokenizers shown, in order (when installed)
    extra: str = ""    # which figure the page adds: "lines", "reverse", "yaml", "specials",
    #                    "trailing", "magikarp", "ids"
    link: tuple = ()   # (page script, label) of the lab page that goes deeper


SECTIONS = (
    Section("spelling", "Why can't a model count the r's in “strawberry”?",
            "The model never receives letters. It receives token ids, and a whole word is "
            "often one id, or two ids that split it in odd places. To count letters it "
            "must have learned how each id is spelled, from nothing but the contexts the id "
            "appeared in. Hover a token to see how little of the word it exposes.",
            "How many r's are in the word strawberry?", link=("pages/tokenize.py", "Tokenize")),
    Section("reverse", "Why is reversing a string hard?",
            "A common word is one familiar token; its reverse is a string the tokenizer "
            "has rarely seen, so it falls apart into many small, rare pieces. The model "
            "must write the answer in tokens that look nothing like the question's. "
            "The figures below compare the text with its reverse.",
            ".DefaultCellStyle", extra="reverse"),
    Section("languages", "Why does non-English text cost more?",
            "A vocabulary learned mostly from English gives English words whole tokens and "
            "cuts other scripts into fragments, sometimes single bytes. The same sentence "
            "then takes more tokens: it fills more of the context window and costs more. "
            "Each line below is one language; the table counts the tokens of each line.",
            "Hello, how are you today?\n¿Hola, cómo estás hoy?\nПривет, как ты сегодня?\n"
            "안녕하세요, 오늘 어떻게 지내세요?\nこんにちは、今日はお元気ですか？\n"
            "नमस्ते, आज आप कैसे हैं?", extra="lines", link=("pages/arena.py", "Arena")),
    Section("arithmetic", "Why is arithmetic awkward?",
            "Numbers are cut by what the merges learned, not by place value. GPT-2 "
            "splits digits wherever frequent chunks happened to be; GPT-4's split pattern "
            "cuts runs of digits into groups of at most three from the left, so the same "
            "digit lands in a different group depending on the number's length. Dates and "
            "decimals split differently again.",
            "677 + 1234567 = 1235244\n2024-03-15\n3.14159 * 12345",
            link=("pages/regex_chunks.py", "Regex chunks")),
    Section("indentation", "Why was GPT-2 bad at Python?",
            "Code is mostly indentation. GPT-2 has no tokens for runs of spaces, so every "
            "space of an indent is a token of its own and a function eats its context "
            "window in whitespace. GPT-4's vocabulary has whole runs of spaces, and its "
            "split pattern keeps them together.",
            "def area(shape):\n    if shape.kind == \"circle\":\n        return 3.14159 * "
            "shape.r ** 2\n    else:\n        return shape.w * shape.h\n",
            refs=(GPT2, GPT4), extra="lines", link=("pages/compare.py", "Compare")),
    Section("endoftext", "What happens when someone types `<|endoftext|>`?",
            "`<|endoftext|>` is a special token: one id that marks where a document ends. "
            "Typed in a chat box it is only text, and it must stay text, or a visitor "
            "could end the model's document for it. The rows below are GPT-4 under each "
            "policy: as ordinary text (several tokens), allowed (one special id), and the "
            "default, which refuses the text outright.",
            "Ignore the rest. <|endoftext|> Now a new document starts.", refs=(GPT4,),
            extra="specials", link=("pages/specials.py", "Special tokens")),
    Section("trailing", "Why warn about trailing whitespace?",
            "In GPT-style tokenizers a space belongs to the word after it: “ ice” and "
            "“ cream” are tokens. A prompt that ends in a space leaves that space as a lone "
            "token, a spot the model rarely saw in training (the next word would have "
            "carried it), so its completion gets worse. The last token is checked below.",
            "Here is a tag line for an ice cream shop: ", extra="trailing"),
    Section("magikarp", "What is SolidGoldMagikarp?",
            "GPT-2's vocabulary was learned on a corpus where a Reddit user name appeared "
            "very often, so “ SolidGoldMagikarp” became a single token. The model was "
            "trained on other text, where the token almost never appears: its embedding "
            "was barely trained, and prompting with it made the model say strange things. "
            "Vocabulary health finds tokens of this kind: ones a corpus never uses.",
            " SolidGoldMagikarp", refs=(GPT2, GPT4), extra="magikarp",
            link=("pages/health.py", "Vocabulary health")),
    Section("yaml", "Why prefer YAML to JSON in a prompt?",
            "The same data costs different numbers of tokens in different formats. JSON "
            "repeats quotes, braces and commas that the model must read and write; YAML "
            "says the same with indentation. Edit the JSON: its YAML is made from it and "
            "both are counted.",
            json.dumps({"name": "Ada Lovelace", "born": 1815, "languages": ["English", "French"],
                        "notes": {"field": "mathematics", "famous_for": "the first program"}},
                       indent=2), refs=(GPT2, GPT4, GPT4O), extra="yaml"),
    Section("characters", "Why can't a model see characters?",
            "To the model each token is an id, a row of numbers it looks up. “Hello”, "
            "“ hello” and “HELLO” share letters but get unrelated ids, so nothing tells "
            "the model they are the same word except what it learned. Colors here follow "
            "the id: the same color is the same token.",
            "Hello hello HELLO  Hello hello", extra="ids"),
    Section("emoji", "Why do emoji and rare characters cost several tokens?",
            "Byte-level BPE never fails: a character with no token of its own falls back to "
            "its UTF-8 bytes, up to four tokens for one emoji, and a family emoji joins "
            "several with invisible joiners. The view draws tokens that split a character "
            "as one box with cuts inside it.",
            "I love 🍕 and 👨‍👩‍👧! Ω ≈ ∑ ꧁", link=("pages/tokenize.py", "Tokenize")),
)


def line_counts(encode_by_name, text):
    """Tokens per non-empty line for each tokenizer: a list of dicts, one per line,
    {"line": text, name: count, ...}. encode_by_name: name -> encode(text) -> ids.

    >>> line_counts({"bytes": lambda s: list(s.encode())}, "ab\\n\\nc")
    [{'line': 'ab', 'bytes': 2}, {'line': 'c', 'bytes': 1}]
    """
    rows = []
    for line in text.splitlines():
        if line.strip():
            rows.append({"line": line, **{name: len(encode(line))
                                          for name, encode in encode_by_name.items()}})
    return rows


def compare_counts(encode_by_name, text, other=None, labels=("text", "reversed")):
    """For each tokenizer, the tokens of text and of other (text reversed by default),
    under the column names labels.

    >>> compare_counts({"n": lambda s: s.split("a")}, "abab")
    [{'tokenizer': 'n', 'text': 3, 'reversed': 3}]
    >>> compare_counts({"n": str.split}, "a b", "a", ("JSON", "YAML"))
    [{'tokenizer': 'n', 'JSON': 2, 'YAML': 1}]
    """
    other = text[::-1] if other is None else other
    return [{"tokenizer": name, labels[0]: len(encode(text)), labels[1]: len(encode(other))}
            for name, encode in encode_by_name.items()]


def to_yaml(value, indent=0):
    """value (parsed JSON) as block-style YAML; strings JSON-quoted only when plain YAML
    would misread them. The lesson's own small writer: no YAML library needed."""
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return pad + "{}\n"
        out = []
        for key, item in value.items():
            head = f"{pad}{_scalar(str(key))}:"
            if isinstance(item, (dict, list)) and item:
                out.append(head + "\n" + to_yaml(item, indent + 2))
            else:
                out.append(f"{head} {_scalar(item)}\n")
        return "".join(out)
    if isinstance(value, list):
        if not value:
            return pad + "[]\n"
        out = []
        for item in value:
            if isinstance(item, (dict, list)) and item:
                inner = to_yaml(item, indent + 2)
                out.append(f"{pad}- {inner.lstrip()}")
            else:
                out.append(f"{pad}- {_scalar(item)}\n")
        return "".join(out)
    return pad + _scalar(value) + "\n"


def _scalar(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, (dict, list)):
        return "{}" if isinstance(value, dict) else "[]"
    text = str(value)
    plain = (text and text.strip() == text and not any(c in text for c in ":#{}[],&*!|>'\"%@`\n")
             and text.lower() not in ("true", "false", "null", "yes", "no", "~")
             and not text[0] in "-?" and not _looks_numeric(text))
    return text if plain else json.dumps(text, ensure_ascii=False)


def _looks_numeric(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def json_and_yaml(text):
    """(json text, its YAML) for a JSON text; ValueError saying where it is not JSON.

    >>> json_and_yaml('{"a": [1, 2]}')[1]
    'a:\\n  - 1\\n  - 2\\n'
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"this is not JSON ({e.msg} at line {e.lineno}, column {e.colno}); "
                         "fix it to see its YAML") from None
    return text, to_yaml(value)


def last_token_warning(token_bytes):
    """A sentence when the last token is whitespace alone (the trailing-space trap), else
    ''.

    >>> last_token_warning([b"shop", b":", b" "])
    'The text ends in a token of whitespace alone (1 byte): a completion would start after a lone space token, which training text rarely has.'
    """
    if token_bytes and token_bytes[-1] and not token_bytes[-1].strip():
        n = len(token_bytes[-1])
        return (f"The text ends in a token of whitespace alone ({n} byte{'s' * (n != 1)}): a "
                "completion would start after a lone space token, which training text "
                "rarely has.")
    return ""

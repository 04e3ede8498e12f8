"""minbpe's `.model` and `.vocab` files: the one home of that format.

A .model file is, line by line: "minbpe v1", the split pattern ("" for none), the number
of special tokens, one "<special> <id>" line each, then one "<id> <id>" merge per line,
the merge on line k making id 256 + k. The .vocab file is for people only and is never
read back. This module writes and parses the text; Tokenizer.save/load and bpe.load call
it. It imports nothing else from bpe but bpe.budgets (whose budgets bound ids, tokens and
the whole vocabulary, so a chained file is refused before it is built), so the Tokenizer
base can use it.

Special tokens must hold no whitespace: minbpe's reader splits each special-token line
on whitespace (so " <|pad|>" or "a b" could not be read back by minbpe), and a line
break would end the line. `check_model_specials` refuses them before a file is written,
so what is saved always loads back exactly, in minbpe and here.

>>> text = model_text("", {"<|x|>": 300}, {(97, 98): 256})
>>> text
'minbpe v1\\n\\n1\\n<|x|> 300\\n97 98\\n'
>>> parse_model(text)
('', {'<|x|>': 300}, {(97, 98): 256})
"""
import unicodedata

from .. import budgets

MODEL_VERSION = "minbpe v1"  # the first line of a .model file, as minbpe writes it


def render_token(token: bytes) -> str:
    """Bytes as readable text: invalid UTF-8 replaced, control characters escaped.

    >>> render_token(b"hi\\n\\xff")
    'hi\\\\u000a\\ufffd'
    """
    text = token.decode("utf-8", errors="replace")
    return "".join(ch if unicodedata.category(ch)[0] != "C" else f"\\u{ord(ch):04x}"
                   for ch in text)


def check_model_specials(special_tokens):
    """ValueError unless every special token can be written to a .model file and read back
    exactly (by minbpe too): no whitespace in it.

    >>> check_model_specials({" <|pad|>": 300})
    Traceback (most recent call last):
    ValueError: special token ' <|pad|>' contains whitespace, which the .model format cannot hold (minbpe's reader splits each special-token line on whitespace); rename it, or save as tokenizer.json or tiktoken ranks instead
    """
    for special in special_tokens:
        if any(ch.isspace() for ch in special):
            raise ValueError(f"special token {special!r} contains whitespace, which the .model "
                             "format cannot hold (minbpe's reader splits each special-token "
                             "line on whitespace); rename it, or save as tokenizer.json or "
                             "tiktoken ranks instead")


def model_text(pattern, special_tokens, merges):
    """The contents of a .model file: version, pattern, special tokens, merges (in id order)."""
    if "\n" in pattern or "\r" in pattern:
        raise ValueError("the split pattern contains a line break, which the .model "
                         "format cannot hold; write it as \\n or \\r inside the regex")
    check_model_specials(special_tokens)
    lines = [MODEL_VERSION, pattern, str(len(special_tokens))]
    lines += [f"{special} {idx}" for special, idx in special_tokens.items()]
    lines += [f"{p0} {p1}" for (p0, p1), _ in sorted(merges.items(), key=lambda item: item[1])]
    return "\n".join(lines) + "\n"


def vocab_text(vocab, merges):
    """The contents of the .vocab file: every token, how it was made, for people.

    >>> print(vocab_text({97: b"a", 98: b"b", 256: b"ab"}, {(97, 98): 256}), end="")
    [a] 97
    [b] 98
    [a][b] -> [ab] 256
    """
    parents = {idx: pair for pair, idx in merges.items()}
    lines = []
    for idx, token in vocab.items():
        s = render_token(token)
        if idx in parents:
            p0, p1 = parents[idx]
            lines.append(f"[{render_token(vocab[p0])}][{render_token(vocab[p1])}]"
                         f" -> [{s}] {idx}")
        else:
            lines.append(f"[{s}] {idx}")
    return "\n".join(lines) + "\n"


def parse_model(text, source="model"):
    """The contents of a .model file -> (pattern, special_tokens, merges).
    ValueError naming the line if malformed. The pattern is not compiled here.

    >>> parse_model("minbpe v1\\n\\n0\\n97 300\\n", source="m.model")
    Traceback (most recent call last):
    ValueError: m.model line 4: merge (97, 300) uses id 300, which is not defined before id 256
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0].strip() != MODEL_VERSION:
        found = lines[0][:40] if lines else "an empty file"
        raise ValueError(f"{source} line 1: expected {MODEL_VERSION!r}, found {found!r}; "
                         "is this a .model file written by save() or minbpe?")
    if len(lines) < 3:
        raise ValueError(f"{source} line {len(lines) + 1}: the file ends before the "
                         "pattern and special-token count")
    pattern = lines[1].rstrip("\r")
    count = lines[2].strip()
    if not count.isascii() or not count.isdigit():
        raise ValueError(f"{source} line 3: expected the number of special tokens, "
                         f"found {lines[2][:40]!r}")
    num_special = budgets.parse_id(count, f"{source} line 3 (the number of special tokens)",
                                  limit=budgets.MAX_SPECIAL_TOKENS)
    special_tokens = {}
    for lineno in range(4, 4 + num_special):
        if lineno > len(lines):
            raise ValueError(f"{source} line {lineno}: the file ends inside the "
                             f"{num_special} special tokens it announces")
        # subtle: split as minbpe does (on whitespace), so a file reads the same in both
        parts = lines[lineno - 1].split()
        # subtle: str.isdigit() takes other scripts' digits too; parse_id says ASCII only
        if len(parts) != 2 or not parts[1].isdigit():
            raise ValueError(f"{source} line {lineno}: expected '<special text> <id>' (the "
                             f"special text without spaces), found {lines[lineno - 1][:40]!r}")
        if parts[0] in special_tokens:
            raise ValueError(f"{source} line {lineno}: special token {parts[0]!r} appears twice")
        special_tokens[parts[0]] = budgets.parse_id(parts[1], f"{source} line {lineno}")
    table = budgets.MergeTable()  # ids defined before use, pairs once, lengths as they chain
    idx = 256
    for lineno in range(4 + num_special, len(lines) + 1):
        parts = lines[lineno - 1].split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise ValueError(f"{source} line {lineno}: expected a merge '<id> <id>', "
                             f"found {lines[lineno - 1][:40]!r}")
        where = f"{source} line {lineno}"
        # the common case a plain int() (a hot loop); parse_id says why anything else fails
        pair = tuple(int(p) if p.isascii() and len(p) <= 7 else budgets.parse_id(p, where)
                     for p in parts)
        table.add(pair, idx, where)
        idx += 1
    budgets.check_special_ids(special_tokens, range(idx), f"{source} special tokens")
    return pattern, special_tokens, table.merges

"""Chat cost: a conversation rendered in each model's chat format, token by token.

A conversation is a list of messages {"role": "system" | "user" | "assistant",
"content": str}. Each format builds ids the way its owner's code does, never by parsing
a rendered string, so a message's content is always ordinary text (special-token text
in it stays text):

- "chatml" (GPT-4, GPT-4o), as tiktokenizer renders it: <|im_start|>role<|im_sep|>
  content<|im_end|> per message, then <|im_start|>assistant<|im_sep|>; the three
  specials are 100264-100266 on cl100k_base and 200264-200266 on o200k_base.
- "llama3" / "llama4", as llama_models' chat_format.py encode_dialog_prompt:
  <|begin_of_text|>, then per message <|start_header_id|>role<|end_header_id|>"\\n\\n"
  content <|eot_id|> (Llama 4: <|header_start|>, <|header_end|>, <|eot|>), then an
  assistant header.
- "mistral_v1" / "mistral_v3", as mistral_common's InstructTokenizerV1 / V3: <s>, a user
  message as "[INST] content [/INST]" text (v1) or [INST] content [/INST] control tokens
  (v3), an assistant message as its content then </s>. Mistral has no system turn: the
  system text goes in front of the first (v1) or last (v3) user message, "\\n\\n" between.

`chat_parts` returns the pieces (ids, text, which message, overhead or content);
`chat_cost` sums them per message. Pure data; no streamlit.
"""
from dataclasses import dataclass
from typing import Optional

from viz.rows import view_row

ROLES = ("system", "user", "assistant")
CHATML_IDS = {"cl100k_base": 100264, "o200k_base": 200264}  # <|im_start|>; +1 end, +2 sep
FORMAT_OF = {"cl100k_base": "chatml", "o200k_base": "chatml", "llama3": "llama3",
             "llama4": "llama4", "mistral_v1": "mistral_v1", "mistral_v3": "mistral_v3",
             "tekken": "mistral_v3"}
FORMAT_LABELS = {"chatml": "ChatML (tiktokenizer's rendering)", "llama3": "Llama 3 headers",
                 "llama4": "Llama 4 headers", "mistral_v1": "Mistral [INST] text (v1)",
                 "mistral_v3": "Mistral [INST] control tokens (v3)"}
LLAMA_MARKS = {"llama3": ("<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"),
               "llama4": ("<|header_start|>", "<|header_end|>", "<|eot|>")}


@dataclass(frozen=True)
class Part:
    """A run of tokens in the rendered conversation."""
    ids: tuple
    text: str                # what the ids stand for (a special token's name for specials)
    message: Optional[int]   # index of the message it belongs to; None: the format's own
    overhead: bool           # True: added by the format; False: the message's content
    special: bool = False    # one special token, text its name


def chat_format(name):
    """The chat format of reference name, or None (GPT-2 and tokenizers of one's own)."""
    return FORMAT_OF.get(name)


def check_messages(messages):
    """ValueError unless messages is a list of {"role": one of ROLES, "content": str}."""
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ROLES or not isinstance(message.get("content"), str):
            raise ValueError(f"message {i + 1} must have a role ({', '.join(ROLES)}) and "
                             f"text content, not {message!r}")


def chat_parts(name, tok, messages):
    """The conversation as reference name's chat format renders it with tok, the
    reference's tokenizer (see the module docstring): a list of Parts whose ids, joined,
    are the ids the model would see.

    >>> from bpe.reference import load_reference
    >>> parts = chat_parts("llama3", load_reference("llama3"), [{"role": "user", "content": "hi"}])
    >>> [p.text for p in parts][:4]
    ['<|begin_of_text|>', '<|start_header_id|>', 'user', '<|end_header_id|>']
    """
    check_messages(messages)
    fmt = chat_format(name)
    if fmt is None:
        raise ValueError(f"{name!r} has no chat format; choose one of {sorted(FORMAT_OF)}")
    if fmt == "chatml":
        return _chatml(CHATML_IDS[name], tok, messages)
    return (_llama if fmt.startswith("llama") else _mistral)(fmt, tok, messages)


def _text(tok, text, message, overhead):
    return Part(tuple(tok.encode_ordinary(text)), text, message, overhead)


def _special(tok, token, message=None, idx=None):
    idx = tok.special_tokens[token] if idx is None else idx
    return Part((idx,), token, message, True, special=True)


def _chatml(start, tok, messages):
    marks = {"<|im_start|>": start, "<|im_end|>": start + 1, "<|im_sep|>": start + 2}

    def turn(role, i):
        return [_special(tok, "<|im_start|>", i, marks["<|im_start|>"]),
                _text(tok, role, i, True), _special(tok, "<|im_sep|>", i, marks["<|im_sep|>"])]
    parts = []
    for i, message in enumerate(messages):
        parts += [*turn(message["role"], i), _text(tok, message["content"], i, False),
                  _special(tok, "<|im_end|>", i, marks["<|im_end|>"])]
    return parts + turn("assistant", None)


def _llama(fmt, tok, messages):
    open_, close, end = LLAMA_MARKS[fmt]

    def header(role, i):
        return [_special(tok, open_, i), _text(tok, role, i, True), _special(tok, close, i),
                _text(tok, "\n\n", i, True)]
    parts = [_special(tok, "<|begin_of_text|>")]
    for i, message in enumerate(messages):
        parts += [*header(message["role"], i), _text(tok, message["content"], i, False),
                  _special(tok, end, i)]
    return parts + header("assistant", None)


def _mistral(fmt, tok, messages):
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    gets_system = (users[0] if fmt == "mistral_v1" else users[-1]) if users and system else None
    parts = [_special(tok, "<s>")]
    for i, message in enumerate(messages):
        content = message["content"]
        if message["role"] == "user":
            if i == gets_system:
                content = system + "\n\n" + content
            if fmt == "mistral_v1":  # [INST] is plain text in v1's vocabulary
                text = f"[INST] {content} [/INST]"
                parts.append(Part(tuple(tok.encode_ordinary(text)), text, i, False))
            else:
                parts += [_special(tok, "[INST]", i), _text(tok, content, i, False),
                          _special(tok, "[/INST]", i)]
        elif message["role"] == "assistant":
            content = content if fmt == "mistral_v1" else content.rstrip(" ")
            parts += [_text(tok, content, i, False), _special(tok, "</s>", i)]
    return parts


def chat_ids(parts):
    """All ids of a rendered conversation, in order."""
    return [idx for part in parts for idx in part.ids]


def chat_cost(tok, parts, messages):
    """One row per message: its content's tokens alone, the tokens it takes in the
    format, and the format's overhead on it; then a row for the format's own tokens.

    The overhead is everything beyond the bare contents' tokens: role markers, headers,
    separators, and any re-tokenization at the joins."""
    rows = []
    for i, message in enumerate(messages):
        alone = len(tok.encode_ordinary(message["content"]))
        taken = sum(len(p.ids) for p in parts if p.message == i)
        rows.append({"message": str(i + 1), "role": message["role"], "content tokens": alone,
                     "tokens in format": taken, "overhead": taken - alone})
    own = sum(len(p.ids) for p in parts if p.message is None)
    rows.append({"message": "", "role": "(format)", "content tokens": 0,
                 "tokens in format": own, "overhead": own})
    return rows


class PartsVocab:
    """decode_tokens_bytes over a rendered conversation, for viz.tokens.token_spans: the
    tokenizer's bytes for ordinary ids, the name for the format's specials (ChatML's
    <|im_start|> is not in cl100k_base's own special tokens)."""

    def __init__(self, tok, parts):
        self.tok = tok
        self.names = {part.ids[0]: part.text for part in parts if part.special}

    def decode_tokens_bytes(self, ids):
        names, decode = self.names, self.tok.decode_single_token_bytes
        return [names[i].encode() if i in names else decode(i) for i in ids]


OVERHEAD_COLOR = 11  # the palette's grey: the format's tokens; each message its own color


def chat_row(tok, parts):
    """The token view's row (lab/token_view/__init__.py) for a rendered conversation: the format's
    tokens grey and dimmed, special tokens framed, each message's content in its color."""
    ids = chat_ids(parts)
    owner = [part for part in parts for _ in part.ids]  # the part of each token
    row = view_row(PartsVocab(tok, parts).decode_tokens_bytes(ids), ids)
    colors, dim, special, at = [], [], [], 0
    for span, n in enumerate(row["n"]):
        part = owner[at]
        at += n
        colors.append(OVERHEAD_COLOR if part.overhead else part.message % OVERHEAD_COLOR)
        if part.special:
            special.append(span)
        elif part.overhead:
            dim.append(span)
    row["colors"], row["marks"] = colors, {"dim": dim, "special": special}
    return row


def chat_summary(tok, parts, messages):
    """Totals for one tokenizer: tokens in the format, the contents' own, the overhead."""
    rows = chat_cost(tok, parts, messages)
    content = sum(row["content tokens"] for row in rows)
    total = sum(row["tokens in format"] for row in rows)
    return {"tokens": total, "content tokens": content, "overhead": total - content}

"""encode_iterable: the ids of a text given as an iterable of str (a file's lines, pieces
of a stream), yielded as they become final, in memory bounded by the longest chunk and
the longest special token, not by the text (CS336's `Tokenizer.encode_iterable`).

The ids are exactly `tok.encode("".join(pieces), ...)`'s. Text is held back only while
what follows could still change it:
- the last CARRY chunks of the text seen so far (a run of letters or spaces may go on;
  for the preset patterns a chunk before those is final, as bpe.counting.chunks argues
  and tests check), and
- the last len(longest special token) - 1 characters, which may begin a special token
  whose end has not arrived (a special match is final once every special could fit).
Text is split only once BASE_CHARS characters (or twice what was held) have come, so
feeding one character at a time costs no more than feeding lines.

A disallowed special token raises ValueError when it is reached, after the ids before it
have been yielded (a stream cannot look ahead as tiktoken's encode does). Custom split
patterns are not proven safe to cut this way, so their text is held until it ends.
This file does not encode chunks (the tokenizer does) nor read files.
"""
from .counting.chunks import CARRY
from .specials import SpecialFinders, raise_disallowed, special_policy
from .text import clean_text

BASE_CHARS = 1 << 16  # characters gathered before the text is split
# the streams' own finders (bounded as every SpecialFinders is): a stream reads only the
# tokenizer's public special_tokens, never its private caches
FINDERS = SpecialFinders()


def encode_iterable(tok, iterable, allowed_special, disallowed_special):
    """Yield the ids of "".join(iterable) (see the module docstring).

    >>> from bpe import RegexTokenizer
    >>> list(encode_iterable(RegexTokenizer(), ["hel", "lo wor", "ld"], "all", "all"))
    [104, 101, 108, 108, 111, 32, 119, 111, 114, 108, 100]
    """
    if isinstance(iterable, (str, bytes)):
        raise TypeError("encode_iterable takes an iterable of str (a file's lines, a list "
                        "of pieces); for one str, use encode(text)")
    allowed, disallowed = special_policy(tok.special_tokens, allowed_special, disallowed_special)
    watched = allowed | disallowed
    finder = FINDERS.find(watched) if watched else None
    longest = max(map(len, watched), default=1)
    # a tokenizer that cuts text its own way before splitting (Llama's) is held whole too
    streamable = tok.is_preset and \
        type(tok).encode_ordinary.__qualname__ == "Tokenizer.encode_ordinary"
    held, size, threshold = [], 0, BASE_CHARS
    for piece in iterable:
        if not isinstance(piece, str):
            raise TypeError(f"encode_iterable takes str pieces, not {type(piece).__name__}")
        held.append(piece)
        size += len(piece)
        if size < threshold or not streamable:
            continue
        text = clean_text("".join(held))
        ids, rest = _final_ids(tok, text, finder, allowed, longest)
        held, size = ([rest] if rest else []), len(rest)
        # nothing final (one long chunk): split again only once the text has doubled
        threshold = BASE_CHARS if ids or len(rest) < BASE_CHARS else 2 * len(rest)
        yield from ids
    text = clean_text("".join(held))
    del held
    yield from _final_ids(tok, text, finder, allowed, longest, end=True)[0]


def _final_ids(tok, text, finder, allowed, longest, end=False):
    """(ids of what is final in text, the rest): text begins at a chunk boundary; at the
    end of the stream everything is final."""
    ids, pos = [], 0
    if finder is not None:
        for match in finder.finditer(text):
            if not end and match.start() + longest > len(text):
                break  # a longer special token may still begin here
            ids += _ordinary(tok, text[pos:match.start()])
            special = match.group()
            if special not in allowed:
                raise_disallowed(special)
            ids.append(tok.special_tokens[special])
            pos = match.end()
    if end:
        return ids + _ordinary(tok, text[pos:]), ""
    # a special token may start at any of the last longest - 1 characters
    safe = max(pos, len(text) - longest + 1)
    chunks = tok.split(text[pos:safe])
    final = chunks[:len(chunks) - CARRY] if len(chunks) > CARRY else []
    ids += _encode_chunks(tok, final)
    return ids, text[pos + sum(map(len, final)):]


def _ordinary(tok, text):
    """The ids of text that ends where an ordinary stretch ends (a special, or the end)."""
    return tok.encode_ordinary(text) if text else []


def _encode_chunks(tok, chunks):
    """The ids of final chunks, through the tokenizer's chunk cache."""
    return tok.encode_chunks(chunks)

"""A tokenizer.json's bytes parsed, its Unigram vocab read a slice at a time (issue 32).

json.loads of a Unigram file builds a list, a str and a float per piece, all alive before
the model is built from them: for 100,000 HTML-shaped pieces, 17.9 MB of objects beside a
3.6 MB file, which set the app's peak when a visitor opened one. parse_document gives the
dict json.loads gives, except that the model's "vocab" list is a VocabText: the file's bytes
of that list, cut every SLICE_BYTES, which json reads one slice at a time whenever it is
iterated. The kept text and the model each read it once; neither holds every entry at once.

The slices are found by a regex over the bytes that matches entries of the usual shape,
["piece", number], each but the last followed by its comma (a UTF-8 sequence never holds
'"', '\\\\', '[', ']' or ','). Each slice is still read by json, so whatever json refuses is
refused, at its own line. A vocab of any other shape, a "model" or "vocab" key written
twice or with an escape (json keeps the last), and every other file are parsed whole, with
budgets' messages: the same dict either way, only the memory differs.
"""
import json
import re
from array import array
from functools import lru_cache
from itertools import accumulate

from ... import budgets

# bytes of the file per slice: ~1.2 MB of objects at a time for 36-byte pieces, at most ~2
# MB for the shortest entries (["a",0], 8 bytes for a list, a str and an int)
SLICE_BYTES = 1 << 16
# entries per regex match: sre keeps ~1.4 KB per repetition until a match ends (a run of
# 10,000 entries cost 14 MB, more than the json it spared)
RUN_ENTRIES = 64

_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_TOKENS = re.compile(_STRING + rb'|[\[\]{}]')
_WS = rb'[ \t\r\n]*'
_COLON = re.compile(_WS + rb':')
_NUMBER = rb'-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?'
_ENTRY = rb'\[' + _WS + _STRING + _WS + rb',' + _WS + _NUMBER + _WS + rb'\]'
_LAST = re.compile(_WS + _ENTRY + _WS + rb'\]')  # the last entry and the list's "]"
_EMPTY = re.compile(_WS + rb'\]')
_OPEN, _QUOTE = b"[{", ord('"')


@lru_cache(maxsize=4)
def _run(entries):
    """1 to entries entries, each followed by its comma."""
    return re.compile(rb'(?:%s%s%s,){1,%d}' % (_WS, _ENTRY, _WS, entries))


class VocabText:
    """A Unigram model's "vocab" list as its file's bytes: iterating yields its entries
    ([piece, score] lists, as json gives them) in order, read a slice at a time; slices()
    yields each slice's list. Not a list: a caller that changes a document reads it whole
    (HFTokenizer.document)."""

    __slots__ = ("data", "spans", "source", "errors")

    def __init__(self, data, spans, source, errors):
        self.data, self.spans, self.source, self.errors = data, spans, source, errors

    def slices(self):
        for a, b in self.spans:
            try:
                text = self.data[a:b].decode("utf-8", self.errors)
            except UnicodeDecodeError:
                raise not_utf8(self.source) from None
            try:
                yield json.loads("[" + text.rstrip(" \t\r\n,") + "]")
            except json.JSONDecodeError as e:  # an escape or a character json refuses
                line = self.data.count(b"\n", 0, a) + e.lineno
                raise budgets.not_json(self.source, e.msg, line) from None

    def __iter__(self):
        for entries in self.slices():
            yield from entries


def read_unigram_vocab(vocab):
    """A Unigram "vocab" (a VocabText, or a list of [piece, score]) as (its pieces in one
    str, their offsets in it: an array("I") from 0, their scores: an array("d")), packed a
    slice at a time, so a VocabText's entries are never all alive; ValueError naming the
    first entry that is not [piece, score]."""
    where = 'the Unigram model\'s "vocab"'
    slices = vocab.slices() if isinstance(vocab, VocabText) else \
        (budgets.expect(vocab, list, where),)
    texts, lengths, scores, idx = [], array("I"), array("d"), 0
    for entries in slices:
        pieces = []
        for entry in entries:
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                    and isinstance(entry[1], (int, float)) and not isinstance(entry[1], bool)):
                raise ValueError(f"Unigram vocab entry {idx} is {str(entry)[:40]}; expected "
                                 "[piece, score]")
            budgets.check_id(idx, f"Unigram vocab entry {idx}")
            pieces.append(entry[0])
            scores.append(float(entry[1]))
            idx += 1
        texts.append("".join(pieces))
        lengths.extend(map(len, pieces))
    return "".join(texts), array("I", accumulate(lengths, initial=0)), scores


def not_utf8(source):
    return ValueError(f"{source} is not UTF-8 text, so not a tokenizer.json file")


def parse_document(data, source="tokenizer.json", errors="strict"):
    """A tokenizer.json's bytes as json.loads' dict, its model's "vocab" list a VocabText
    when it has the usual shape; ValueError (budgets' sentences) when the bytes are not
    UTF-8 (errors: how to decode; "surrogatepass" reads document_bytes' text back), not
    JSON, or nested deeper than budgets.MAX_JSON_DEPTH."""
    data = bytes(data)
    deepest, found = _scan(data)
    if deepest > budgets.MAX_JSON_DEPTH:
        raise budgets.too_deep(source)
    if found is not None:
        start, end, spans = found
        # the vocab's lines are kept as newlines, so json's line numbers stay the file's
        rest = data[:start] + b"[" + b"\n" * data.count(b"\n", start, end) + b"]" + data[end:]
        document = _loads(rest, source, errors)
        model = document.get("model") if isinstance(document, dict) else None
        if isinstance(model, dict) and model.get("vocab") == []:
            model["vocab"] = VocabText(data, spans, source, errors)
            return document
        # unreachable while _scan's checks hold; the whole parse is still the same dict
    return _loads(data, source, errors)


def _loads(data, source, errors):
    try:
        text = data.decode("utf-8", errors)
    except UnicodeDecodeError:
        raise not_utf8(source) from None
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"{source}: nests too deeply; is it a tokenizer.json?") from None
    except json.JSONDecodeError as e:
        raise budgets.not_json(source, e.msg, e.lineno) from None


def _scan(data):
    """(the deepest nesting of [ and { outside strings, (start, end, spans) of the model's
    "vocab" list when it has the usual shape and nothing could make json read another,
    else None). spans: (a, b) byte ranges of whole entries, SLICE_BYTES or a little more
    each."""
    depth = deepest = models = vocabs = 0
    keys = [None, None, None]  # the last key read in the object at depth 1 and 2
    in_model = escaped = False
    found, pos = None, 0
    while pos is not None:
        tokens, pos = _TOKENS.finditer(data, pos), None
        for m in tokens:
            c = data[m.start()]
            if c == _QUOTE:
                if 0 < depth < 3 and _COLON.match(data, m.end()):  # a key
                    keys[depth] = key = m.group()
                    escaped |= b"\\" in key
                    models += depth == 1 and key == b'"model"'
                    vocabs += depth == 2 and in_model and key == b'"vocab"'
            elif c in _OPEN:
                depth += 1
                if depth > deepest:
                    deepest = depth
                    if deepest > budgets.MAX_JSON_DEPTH:
                        return deepest, None
                if depth == 2:
                    in_model = c == _OPEN[1] and keys[1] == b'"model"'
                elif depth == 3 and c == _OPEN[0] and in_model and keys[2] == b'"vocab"' \
                        and found is None:
                    entries = _entries(data, m.end())
                    if entries is not None:
                        spans, end = entries
                        found, pos, depth = (m.start(), end, spans), end, 2
                        deepest = max(deepest, 4 if spans else 3)
                        break
                if depth < 3:
                    keys[depth] = None
            else:
                depth -= 1
    if models != 1 or vocabs != 1 or escaped:
        found = None
    return deepest, found


def _entries(data, pos):
    """(spans, the end of the list) of the entries from pos (just after a list's "["), or
    None when they are not all ["piece", number]."""
    empty = _EMPTY.match(data, pos)
    if empty:
        return [], empty.end()
    spans, run, start, slice_bytes = [], _run(RUN_ENTRIES), pos, SLICE_BYTES
    while m := run.match(data, pos):
        pos = m.end()
        if pos - start >= slice_bytes:
            spans.append((start, pos))
            start = pos
    last = _LAST.match(data, pos)
    if last is None:
        return None
    spans.append((start, last.end() - 1))  # - 1: the list's own "]" is not an entry's
    return spans, last.end()

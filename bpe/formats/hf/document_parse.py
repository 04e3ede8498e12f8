"""A tokenizer.json's bytes parsed, its model's vocab and merges read a slice at a time
(issue 32).

json.loads of a Unigram file builds a list, a str and a float per piece, all alive before
the model is built from them: for 100,000 HTML-shaped pieces, 17.9 MB of objects beside a
3.6 MB file, which set the app's peak when a visitor opened one (a WordPiece, WordLevel or
BPE file's {piece: id} object, a str, an int and a dict slot per piece, likewise; a BPE
file's "merges", a str or a list of two per merge: ~4 MB of strings for a 0.86 MB byte-level
file of 28k pieces and 28k merges).
parse_document gives the dict json.loads gives, except that such a model's "vocab" is a
VocabText, and a BPE model's "merges" a MergesText: the file's bytes of it, cut every
SLICE_BYTES, which json reads one slice at a time whenever it is iterated. The kept text and
the model each read it once (bpe.formats.hf.vocabs packs it as it comes); neither holds
every entry at once.

MergesText is a VocabText (is_list True, iterating yields json's entries: "left right"
strings or ["left", "right"] lists) that a model tells from a Unigram vocab by its class
(isinstance(x, MergesText)) or its kind ("merges"; a VocabText's is "vocab").

The slices are found by a regex over the bytes that matches entries of the usual shape,
["piece", number] or "piece": number in a vocab, "left right" or ["left", "right"] in
merges (all of one of the two), each but the last followed by its comma (a UTF-8 sequence
never holds '"', '\\\\', '[', ']', '{', '}', ':' or ','). Each slice is still read by json, so
whatever json refuses is refused, at its own line. A vocab or merges of any other shape, a
"model", "vocab" or "merges" key written twice or with an escape (json keeps the last), and
every other file are parsed whole, with budgets' messages: the same dict either way, only
the memory differs.
"""
import json
import re
from functools import lru_cache

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
_MEMBER = _STRING + _WS + rb':' + _WS + _NUMBER
_PAIR = rb'\[' + _WS + _STRING + _WS + rb',' + _WS + _STRING + _WS + rb'\]'
# per shape of a model's list or object: an entry, and the closing bracket. "scores":
# Unigram's [piece, score] list; "ids": a {piece: id} object; "strings": merges written
# "left right" (tokenizers < 0.20 writes these); "pairs": merges ["left", "right"] (newer)
_SHAPES = {"scores": (_ENTRY, rb'\]'), "ids": (_MEMBER, rb'\}'),
           "strings": (_STRING, rb'\]'), "pairs": (_PAIR, rb'\]')}
# per model key and opening bracket: its name in the parse, and the shapes its value is
# tried as (merges: strings first; a mix of strings and lists is read whole, as json reads it)
_TRIED = {(b'"vocab"', ord("[")): ("vocab", ("scores",)),
          (b'"vocab"', ord("{")): ("vocab", ("ids",)),
          (b'"merges"', ord("[")): ("merges", ("strings", "pairs"))}
_OPEN, _QUOTE = b"[{", ord('"')
# the model types that read each shape as text; any other gets the list or dict json gives
# (a model with no "type" too, but for Unigram's list: tokenizers guesses Unigram from it)
STREAMED = {"scores": {None, "Unigram"}, "ids": {"WordPiece", "WordLevel", "BPE"},
            "strings": {"BPE"}, "pairs": {"BPE"}}


@lru_cache(maxsize=8)
def _patterns(shape, entries):
    """(1 to entries entries each followed by its comma, the last entry and the closing
    bracket, no entry and the closing bracket) of a list or object of shape."""
    entry, close = _SHAPES[shape]
    return (re.compile(rb'(?:%s%s%s,){1,%d}' % (_WS, entry, _WS, entries)),
            re.compile(_WS + entry + _WS + close), re.compile(_WS + close))


class VocabText:
    """A model's "vocab" as its file's bytes, read a slice at a time: Unigram's list
    (is_list; iterating yields its [piece, score] lists) or a {piece: id} object (iterating
    yields its (piece, id) pairs in the file's order, a repeated piece as often as the file
    gives it: dict() of them is json's dict). slices() yields each slice's list of them. Not
    a list or dict: a caller that changes a document reads it whole (HFTokenizer.document)."""

    __slots__ = ("data", "errors", "is_list", "source", "spans")
    kind = "vocab"

    def __init__(self, data, spans, source, errors, is_list=True):
        self.data, self.spans, self.source, self.errors = data, spans, source, errors
        self.is_list = is_list

    def slices(self):
        brackets, hook = ("[]", None) if self.is_list else ("{}", list)
        for a, b in self.spans:
            try:
                text = self.data[a:b].decode("utf-8", self.errors)
            except UnicodeDecodeError:
                raise not_utf8(self.source) from None
            try:
                yield json.loads(brackets[0] + text.rstrip(" \t\r\n,") + brackets[1],
                                 object_pairs_hook=hook)
            except json.JSONDecodeError as e:  # an escape or a character json refuses
                line = self.data.count(b"\n", 0, a) + e.lineno
                raise budgets.not_json(self.source, e.msg, line) from None

    def __iter__(self):
        for entries in self.slices():
            yield from entries

    def packed_unigram(self):
        """(pieces in one str, their offsets, their scores: an array of floats) when this is a
        Unigram vocab held packed already (a GGUF file's), so a model can share the text
        rather than pack it again; None for a file's text (read it a slice at a time)."""
        return None


class MergesText(VocabText):
    """A BPE model's "merges" list as its file's bytes, read a slice at a time: is_list,
    iterating yields json's entries in order ("left right" strings, or ["left", "right"]
    lists, as the file writes them), slices() each slice's list of them, list() json's list.
    A VocabText, so whatever writes or reads one a slice at a time (document_text) takes it;
    a model tells it from a Unigram vocab by its class or its kind."""

    __slots__ = ()
    kind = "merges"


def not_utf8(source):
    return ValueError(f"{source} is not UTF-8 text, so not a tokenizer.json file")


def parse_document(data, source="tokenizer.json", errors="strict"):
    """A tokenizer.json's bytes as json.loads' dict, its model's "vocab" a VocabText and a
    BPE model's "merges" a MergesText when they have the usual shape; ValueError (budgets'
    sentences) when the bytes are not UTF-8 (errors: how to decode; "surrogatepass" reads
    document_bytes' text back), not JSON, or nested deeper than budgets.MAX_JSON_DEPTH."""
    data = bytes(data)
    deepest, found = _scan(data)
    if deepest > budgets.MAX_JSON_DEPTH:
        raise budgets.too_deep(source)
    if found:
        # each list's or object's lines are kept as newlines, so json's line numbers stay
        # the file's (memoryview: the text between is not copied once more before the join)
        view, parts, pos = memoryview(data), [], 0
        for start, end, _, _ in sorted(found.values()):
            pair = b"[]" if data[start] == _OPEN[0] else b"{}"
            parts += [view[pos:start], pair[:1], b"\n" * data.count(b"\n", start, end),
                      pair[1:]]
            pos = end
        rest = b"".join(parts + [view[pos:]])
        del parts, view
        document = _loads(rest, source, errors)
        del rest
        model = document.get("model") if isinstance(document, dict) else None
        if isinstance(model, dict) and all(model.get(key) in ([], {}) for key in found):
            kind = model.get("type")
            for key, (start, _, spans, shape) in found.items():
                cls = MergesText if key == "merges" else VocabText
                text = cls(data, spans, source, errors, is_list=data[start] == _OPEN[0])
                if (kind is None or isinstance(kind, str)) and kind in STREAMED[shape]:
                    model[key] = text
                else:  # what json gives: a model that reads no text gets json's list or dict
                    model[key] = list(text) if text.is_list else dict(text)
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
    """(the deepest nesting of [ and { outside strings, {"vocab" or "merges": (start, end,
    spans, shape)} for each of the model's "vocab" and "merges" that has a usual shape
    (_TRIED) when nothing could make json read another, else {}). spans: (a, b) byte ranges
    of whole entries, SLICE_BYTES or a little more each."""
    depth = deepest = models = 0
    counts = {b'"vocab"': 0, b'"merges"': 0}  # each key's count in the model's object
    keys = [None, None, None]  # the last key read in the object at depth 1 and 2
    in_model = escaped = False
    found, pos = {}, 0
    while pos is not None:
        tokens, pos = _TOKENS.finditer(data, pos), None
        for m in tokens:
            c = data[m.start()]
            if c == _QUOTE:
                if 0 < depth < 3 and _COLON.match(data, m.end()):  # a key
                    keys[depth] = key = m.group()
                    escaped |= b"\\" in key
                    models += depth == 1 and key == b'"model"'
                    if depth == 2 and in_model and key in counts:
                        counts[key] += 1
            elif c in _OPEN:
                depth += 1
                if depth > deepest:
                    deepest = depth
                    if deepest > budgets.MAX_JSON_DEPTH:
                        return deepest, {}
                if depth == 2:
                    in_model = c == _OPEN[1] and keys[1] == b'"model"'
                elif depth == 3 and in_model and (keys[2], c) in _TRIED \
                        and (name := _TRIED[keys[2], c][0]) not in found:
                    for shape in _TRIED[keys[2], c][1]:
                        if (entries := entry_spans(data, m.end(), shape)) is not None:
                            break
                    if entries is not None:
                        spans, end = entries
                        found[name] = m.start(), end, spans, shape
                        pos, depth = end, 2
                        # a list of lists nests one deeper than its object
                        deepest = max(deepest, 4 if spans and shape in ("scores", "pairs")
                                      else 3)
                        break
                if depth < 3:
                    keys[depth] = None
            else:
                depth -= 1
    if models != 1 or max(counts.values()) > 1 or escaped:
        found = {}
    return deepest, found


def entry_spans(data, pos, shape):
    """(spans, the end of the list or object) of the entries from pos (just after its
    opening bracket), or None when they are not all of shape (_SHAPES)."""
    run, last, empty = _patterns(shape, RUN_ENTRIES)
    if m := empty.match(data, pos):
        return [], m.end()
    spans, start, slice_bytes = [], pos, SLICE_BYTES
    while m := run.match(data, pos):
        pos = m.end()
        if pos - start >= slice_bytes:
            spans.append((start, pos))
            start = pos
    m = last.match(data, pos)
    if m is None:
        return None
    spans.append((start, m.end() - 1))  # - 1: the closing bracket is not an entry's
    return spans, m.end()

"""A tokenizer.json's text as an HFTokenizer keeps it (for export, pickle and a look at the
file's parts): json.dumps' text of the parsed dict, UTF-8 with lone surrogates kept,
zlib-compressed and written a slice at a time so the whole text never sits beside the parse
(issue 32); or made again when read, from data the tokenizer keeps anyway (KeptDocument). It
reads no tokenizer and builds none (bpe.hf_tokenizer does)."""
import json
import zlib
from itertools import islice

from .document_parse import VocabText


def document_bytes(document):
    """A tokenizer.json dict as the UTF-8 bytes of json.dumps(document, ensure_ascii=False)
    (what a download of it writes). subtle: a JSON file may hold a lone surrogate
    ("\\ud800"), which strict UTF-8 refuses: surrogatepass keeps it, and
    document_from_bytes reads it back."""
    return json.dumps(document, ensure_ascii=False).encode("utf-8", "surrogatepass")


def compress_document(document, slice_items=10_000):
    """document_bytes(document), zlib-compressed at the fastest level, written a slice at a
    time (json_chunks): no str or bytes of the whole text is made (issue 32: a 100,000-piece
    file's text, UCS-2 once it holds a "▁", was 7 MB beside its parse at the load's peak)."""
    packer, out = zlib.compressobj(1), []
    for chunk in json_chunks(document, slice_items):
        out.append(packer.compress(chunk.encode("utf-8", "surrogatepass")))
    out.append(packer.flush())
    return b"".join(out)


def json_chunks(value, slice_items=10_000):
    """json.dumps(value, ensure_ascii=False) in pieces whose concatenation is exactly it:
    a list or dict of more than slice_items (>= 1) items is written slice_items at a time, a
    smaller dict (str keys, as a parse gives) item by item, anything else whole.

    >>> "".join(json_chunks({"a": [1, 2.5, "▁x"], "b": None}, slice_items=1))
    '{"a": [1, 2.5, "▁x"], "b": null}'
    """
    if isinstance(value, VocabText):  # read from its file a slice at a time
        yield "[" if value.is_list else "{"
        for i, entries in enumerate(value.slices()):
            # subtle: a piece an object repeats in two slices is written twice, as the file
            # has it; json reads the text back to the same dict
            text = json.dumps(entries if value.is_list else dict(entries), ensure_ascii=False)
            yield text[1:-1] if i == 0 else ", " + text[1:-1]
        yield "]" if value.is_list else "}"
    elif isinstance(value, (dict, list)) and len(value) > slice_items:
        is_dict = isinstance(value, dict)
        items = iter(value.items() if is_dict else value)
        yield "{" if is_dict else "["
        first = True
        while part := list(islice(items, slice_items)):
            text = json.dumps(dict(part) if is_dict else part, ensure_ascii=False)
            yield text[1:-1] if first else ", " + text[1:-1]
            first = False
        yield "}" if is_dict else "]"
    elif isinstance(value, dict) and value and all(type(key) is str for key in value):
        yield "{"
        for i, (key, item) in enumerate(value.items()):
            yield (", " if i else "") + json.dumps(key, ensure_ascii=False) + ": "
            yield from json_chunks(item, slice_items)
        yield "}"
    else:
        yield json.dumps(value, ensure_ascii=False)


def document_from_bytes(data):
    """document_bytes' dict again (equal to the one it was given)."""
    return json.loads(data.decode("utf-8", "surrogatepass"))


class KeptDocument:
    """The tokenizer.json a tokenizer came from, for export, pickle and a look at the file's
    parts, as its class (bpe.hf_tokenizer.HFTokenizer) keeps it: keep_document in __init__,
    then document_zlib, document_json and document when read."""

    def keep_document(self, document, document_zlib=None, make_document=None):
        """Keep document as its JSON text, not the parsed dict (issue 32: 3.6 MB of file
        parsed to 18 MB of objects), zlib'd at the fastest level: it is read only to export,
        pickle or look at the file's parts; 3.6 MB keep as 0.8 MB for 31 ms of CPU once.
        document_zlib given: made already, when document no longer holds all of it.
        make_document given: () -> the document again, from data the tokenizer keeps anyway
        (a GGUF llama or t5 file's arrays: bpe.gguf_tokenizer), so no text is kept and
        document_zlib is made when read."""
        self.make_document = make_document
        self._document_zlib = document_zlib if document_zlib is not None or make_document \
            else compress_document(document or {})

    @property
    def document_zlib(self):
        """The tokenizer.json as compress_document's text: kept, or made from make_document
        on every read (Llama 2's GGUF: 0.4 s of CPU)."""
        if self.make_document is None:
            return self._document_zlib
        return compress_document(self.make_document())

    @property
    def document_json(self):
        """The tokenizer.json as its JSON text (document_bytes' form: what a download
        writes), made again from the compressed text on every read."""
        return zlib.decompress(self.document_zlib)

    @property
    def document(self):
        """The tokenizer.json as a dict: parsed again on every read (no cache, so nothing
        stays alive), for the few callers that need the file's parts; a fresh dict each
        time, so a caller may change it."""
        return document_from_bytes(self.document_json)

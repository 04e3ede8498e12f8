"""Small tokenizer.json documents written out by hand (dicts, no `tokenizers` needed), for
tests that need a file's exact parts: its pieces, ids and special tokens."""


def metaspace_unigram(pieces, specials=()):
    """A Unigram file over pieces (id = position, scores -1, -2, ...) with Metaspace
    splitting and decoding ("always" prepends "▁") and unk_id 0; specials: the (id, content)
    of its special added tokens."""
    return {"version": "1.0", "added_tokens": [
        {"id": idx, "content": content, "special": True, "single_word": False,
         "lstrip": False, "rstrip": False, "normalized": False} for idx, content in specials],
        "normalizer": None, "post_processor": None,
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581",
                          "prepend_scheme": "always", "split": True},
        "decoder": {"type": "Metaspace", "replacement": "\u2581",
                    "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": 0,
                  "vocab": [[p, -1.0 - i] for i, p in enumerate(pieces)]}}

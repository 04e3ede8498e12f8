"""The bytes of text a tokenizer.json's piece stands for (what the views show, and
`Tokenizer.vocab` holds): WordPiece "##ing" -> b"ing", Metaspace "▁the" -> b" the", a
byte-fallback "<0xE2>" -> b"\\xe2", a BPE end-of-word suffix dropped. Reads a model's
fields and the file's space characters; encodes nothing (bpe.hf_tokenizer does).
"""
from .decoders import byte_of
from .parts import flatten


def space_chars(document):
    """The characters this file writes for a space (Metaspace's "▁", or a Replace of " ")."""
    out = set()
    for key, sub in (("pre_tokenizer", "pretokenizers"), ("decoder", "decoders"),
                     ("normalizer", "normalizers")):
        for spec in flatten(document.get(key), sub):
            if spec.get("type") == "Metaspace":
                out.add(spec.get("replacement", "\u2581"))
            elif spec.get("type") == "Replace":
                pattern = spec.get("pattern") or {}
                content = spec.get("content")
                if key == "normalizer" and pattern.get("String") == " " and content:
                    out.add(content)
                elif key == "decoder" and content == " " and isinstance(pattern.get("String"), str):
                    out.add(pattern["String"])
    return [ch for ch in out if ch and ch != " "]


def piece_bytes(model, spaces, source):
    """piece string -> the bytes of text it stands for, for model's pieces (spaces:
    space_chars of its file); ValueError naming source for a piece UTF-8 cannot encode."""
    prefix = getattr(model, "prefix", "")
    suffix = getattr(model, "suffix", "")
    fallback = getattr(model, "byte_fallback", False)

    def honest(token):
        if fallback:
            byte = byte_of(token)
            if byte is not None:
                return bytes([byte])
        if prefix and token.startswith(prefix) and token != prefix:
            token = token[len(prefix):]
        if suffix and token.endswith(suffix) and token != suffix:
            token = token[:-len(suffix)]
        for ch in spaces:
            token = token.replace(ch, " ")
        try:
            return token.encode("utf-8")
        except UnicodeEncodeError:  # JSON can write one ("\ud800"); UTF-8 cannot
            raise ValueError(f"{source}: the piece {token!r:.40} holds a lone surrogate, "
                             "half of a character's UTF-16 pair, which is no text "
                             "(tokenizers refuses the file too); write the character "
                             "whole or remove the piece") from None
    return honest

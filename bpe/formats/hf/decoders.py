"""Hugging Face decoders and post-processors, as `tokenizers` runs them.

Decoders turn the token strings of some ids back into text (`decode_tokens`: exactly
tokenizers' `decode(ids, skip_special_tokens=...)` once the ids are token strings;
without a decoder the strings are joined by spaces, as there). Implemented: ByteLevel,
Metaspace, WordPiece, ByteFallback, Fuse, Strip, Replace, BPEDecoder, CTC, Sequence.
Post-processors give the ids a single text is wrapped in (`PostProcessor.wrap`):
TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel (which adds none), and
Sequence. Anything else is refused by name. Nothing here encodes.
Bounds (bpe.budgets): a decode's output is counted against the growth budget of its input
while Replace builds it, and all its regex matches share one time budget; a template's
ids are checked ids, at most MAX_TEMPLATE_IDS of them.
"""
import itertools

from ... import budgets
from .parts import flatten, pattern_of
from ...patterns import safety

DECODERS = ("ByteLevel", "Metaspace", "WordPiece", "ByteFallback", "Fuse", "Strip",
            "Replace", "BPEDecoder", "CTC", "Sequence")


def decoder_from_json(component, byte_decoder):
    """A tokenizer.json "decoder" -> tokens (list of str) -> str. byte_decoder: GPT-2's
    byte-level alphabet, char -> byte."""
    steps = [_decoder(spec, byte_decoder) for spec in flatten(component, "decoders")]
    if component is None:
        return lambda tokens: " ".join(tokens)

    def decode(tokens):
        n_in = sum(map(len, tokens))
        growth = budgets.Growth(n_in, "the decoder")
        growth.add(n_in)
        with safety.action(safety.steps_seconds(n_in)):  # every Replace regex, together
            for step in steps:
                tokens = step(tokens, growth) if getattr(step, "grows", False) else step(tokens)
        budgets.check_growth(n_in, sum(map(len, tokens)), "the decoder")
        return "".join(tokens)
    return decode


def _decoder(spec, byte_decoder):
    kind = spec.get("type")
    if kind == "ByteLevel":
        def byte_level(tokens):
            data = bytearray()
            for token in tokens:
                if all(ch in byte_decoder for ch in token):
                    data += bytes(byte_decoder[ch] for ch in token)
                else:
                    data += token.encode("utf-8")
            return [data.decode("utf-8", errors="replace")]
        return byte_level
    if kind == "Metaspace":
        rep = spec.get("replacement", "\u2581")
        scheme = spec.get("prepend_scheme")
        if scheme is None:
            scheme = "always" if spec.get("add_prefix_space", True) else "never"
        return lambda tokens: [token.replace(rep, "" if i == 0 and scheme != "never" else " ")
                               for i, token in enumerate(tokens)]
    if kind == "WordPiece":
        prefix, clean = spec.get("prefix", "##"), spec.get("cleanup", True)

        def wordpiece(tokens):
            out = []
            for i, token in enumerate(tokens):
                if i:
                    token = token[len(prefix):] if token.startswith(prefix) else " " + token
                out.append(cleanup(token) if clean else token)
            return out
        return wordpiece
    if kind == "ByteFallback":
        return byte_fallback
    if kind == "Fuse":
        return lambda tokens: ["".join(tokens)]
    if kind == "Strip":
        content, start, stop = spec.get("content", " "), spec.get("start", 0), spec.get("stop", 0)
        return lambda tokens: [_strip(token, content, start, stop) for token in tokens]
    if kind == "Replace":
        compiled, content = pattern_of(spec, "Replace"), spec.get("content", "")

        def replace(tokens, growth):
            def repl(m):  # counted before it is built: an empty pattern matches everywhere
                growth.add(len(content) - (m.end() - m.start()))
                return content
            # a file's regex may backtrack catastrophically: stopped in time
            return [safety.sub_within(compiled, repl, token, what="Replace decoder regex")
                    for token in tokens]
        replace.grows = True
        return replace
    if kind == "BPEDecoder":
        suffix = spec.get("suffix", "</w>")
        return lambda tokens: [token.replace(suffix, "" if i == len(tokens) - 1 else " ")
                               for i, token in enumerate(tokens)]
    if kind == "CTC":
        pad, delimiter = spec.get("pad_token", "<pad>"), spec.get("word_delimiter_token", "|")
        clean = spec.get("cleanup", True)

        def ctc(tokens):
            out = []
            for token, _ in itertools.groupby(tokens):
                token = token.replace(pad, "")
                if clean:
                    token = cleanup(token).replace(delimiter, " ")
                if token:
                    out.append(token)
            return out
        return ctc
    raise ValueError(f"the decoder {kind!r} is not implemented here (only "
                     f"{', '.join(DECODERS)} are)")


def cleanup(text):
    """WordPiece's cleanup: the spaces English puts before punctuation and clitics go."""
    for dirty, clean in ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"),
                         (" n't", "n't"), (" 'm", "'m"), (" do not", " don't"), (" 's", "'s"),
                         (" 've", "'ve"), (" 're", "'re")):
        text = text.replace(dirty, clean)
    return text


def byte_fallback(tokens):
    """<0xXX> tokens back to bytes: each run as UTF-8, or one U+FFFD per byte if invalid."""
    out, run = [], bytearray()

    def flush():
        if run:
            try:
                out.append(run.decode("utf-8"))
            except UnicodeDecodeError:
                out.extend("\ufffd" * len(run))
            run.clear()
    for token in tokens:
        byte = byte_of(token)
        if byte is None:
            flush()
            out.append(token)
        else:
            run.append(byte)
    flush()
    return out


def byte_of(token):
    """The byte a SentencePiece byte token "<0xXX>" stands for, else None."""
    if len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
        try:
            return int(token[3:5], 16)
        except ValueError:
            return None
    return None


def _strip(token, content, start, stop):
    chars = list(token)
    start_cut = 0
    for i, ch in enumerate(chars[:start]):
        if ch != content:
            break
        start_cut = i + 1
    stop_cut = len(chars)
    for i in range(stop):
        index = len(chars) - i - 1
        if index < 0 or chars[index] != content:
            break
        stop_cut = index
    return "".join(chars[start_cut:stop_cut])


class PostProcessor:
    """The ids tokenizers puts around one text's ids when add_special_tokens=True."""

    def __init__(self, before=(), after=()):
        self.before, self.after = list(before), list(after)

    @classmethod
    def from_json(cls, component):
        before, after = [], []
        for spec in flatten(component, "processors"):
            kind = spec.get("type")
            if kind == "ByteLevel":
                continue  # it mends offsets only
            if kind in ("BertProcessing", "RobertaProcessing"):
                cls_, sep = spec.get("cls"), spec.get("sep")
                before, after = [_pair_id(cls_, kind, "cls")], [_pair_id(sep, kind, "sep")]
            elif kind == "TemplateProcessing":
                before, after = _template(spec)
            else:
                raise ValueError(f"the post-processor {kind!r} is not implemented here (only "
                                 "TemplateProcessing, BertProcessing, RobertaProcessing, "
                                 "ByteLevel and Sequence are)")
        return cls(before, after)

    def wrap(self, ids):
        return self.before + ids + self.after if self.before or self.after else ids


def _pair_id(pair, kind, name):
    if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[1], int)):
        raise ValueError(f"the {kind} post-processor's {name!r} should be [token, id]")
    return budgets.check_id(pair[1], f"the {kind} post-processor's {name!r}")


def _template(spec):
    """TemplateProcessing's "single" template -> (ids before the text, ids after)."""
    specials = spec.get("special_tokens") or {}
    before, after, seen = [], [], False
    for piece in spec.get("single") or []:
        if not isinstance(piece, dict) or len(piece) != 1:
            raise ValueError(f"TemplateProcessing piece {str(piece)[:40]} is not "
                             "{'Sequence': ...} or {'SpecialToken': ...}")
        (kind, body), = piece.items()
        if kind == "Sequence":
            if seen:
                raise ValueError("TemplateProcessing's single template names the text twice; "
                                 "not supported")
            seen = True
        elif kind == "SpecialToken":
            name = body.get("id") if isinstance(body, dict) else None
            entry = specials.get(name) if isinstance(specials, dict) and isinstance(
                name, str) else None
            ids = entry.get("ids") if isinstance(entry, dict) else None
            if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
                raise ValueError(f"TemplateProcessing uses the special token {name!r:.40}, "
                                 "which its special_tokens do not give ids for")
            (after if seen else before).extend(
                budgets.check_id(i, f"TemplateProcessing's special token {name!r:.40}")
                for i in ids)
            if len(before) + len(after) > budgets.MAX_TEMPLATE_IDS:
                raise ValueError(f"TemplateProcessing puts more than {budgets.MAX_TEMPLATE_IDS} "
                                 "ids around each text; this lab allows at most "
                                 f"{budgets.MAX_TEMPLATE_IDS} (real templates use 1 to 3)")
        else:
            raise ValueError(f"TemplateProcessing piece {kind!r:.40} is unknown")
    return before, after

"""Hugging Face added tokens, cut out of text exactly as `tokenizers` cuts them.

tokenizers (src/tokenizer/added_vocabulary.rs) takes its added tokens out of the text
before the normalizer and pre-tokenizer run, in two passes:
1. tokens with normalized=false are found in the raw text;
2. each piece left over is normalized, and tokens with normalized=true are found in it,
   each by its own normalized form (the normalizer run on its content).
A pass finds its tokens leftmost-longest without overlaps, then judges each find in turn:
- single_word: dropped if a word character (Unicode `\\w`) touches it on either side; its
  text stays ordinary, and no shorter token is looked for inside it;
- lstrip: the token also takes the whitespace before it, back to the previous token;
- rstrip: it takes the whitespace after it, even whitespace that the next find then
  takes again (tokenizers does that too: "<mask>\\n" with a "\\n" token gives both);
and a piece left empty (a token that lstrip squeezed to nothing) gives no id.
This file knows nothing of ids, merges or files: bpe.formats.hf.tokenizer_json reads the flags and encodes.
"""
from typing import NamedTuple

import regex

from .parts import WHITE_SPACE

WORD = regex.compile(r"[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]")  # Rust's \w
SPACES = regex.compile(f"[{regex.escape(WHITE_SPACE)}]*")  # Rust's \s*: White_Space
FLAGS = ("single_word", "lstrip", "rstrip", "normalized")


class AddedToken(NamedTuple):
    """How tokenizers matches one added token (tokenizer.json's flags for it)."""
    single_word: bool = False
    lstrip: bool = False
    rstrip: bool = False
    normalized: bool = False


PLAIN = AddedToken()  # our own special tokens: matched in the raw text, as they are


class AddedTokens:
    """The flags of a file's added tokens, and the normalized forms of those matched after
    normalization. Tokens it does not know (specials registered later) are PLAIN."""

    def __init__(self, flags, normalize):
        self.flags = flags  # content -> AddedToken
        self.forms = {}     # content -> its normalized form, for normalized=true tokens
        owners = {}
        for content, token in flags.items():
            if token.normalized:
                form = normalize(content)
                if form in owners:
                    raise ValueError(
                        f"added tokens {owners[form]!r} and {content!r} both read {form!r} "
                        "after normalization, and tokenizers then picks either at random; "
                        "set normalized=false on one of them or remove one")
                owners[form] = content
                self.forms[content] = form

    def is_plain(self):
        """Matching is a plain search for the contents in the raw text (as our own
        tokenizers do): no flags, and all in one pass."""
        return not any(token.single_word or token.lstrip or token.rstrip
                       for token in self.flags.values()) \
            and len({token.normalized for token in self.flags.values()}) <= 1

    def cut(self, text, specials, normalize, finder, specials_only=False):
        """[(special, piece)]: text cut as tokenizers cuts it, for the added tokens named
        in specials (a set of contents). special is the content a piece stands for, or
        None for ordinary text, which comes back normalized (ready to pre-tokenize).
        normalize: the file's normalizer (str -> str); finder: a set of strings -> a
        compiled regex finding any of them, longest first (leftmost-longest).
        specials_only: the caller reads only the specials (a policy check), so leftovers
        are normalized only if a normalized=true token is to be looked for in them.

        >>> added = AddedTokens({"<mask>": AddedToken(lstrip=True)}, str)
        >>> added.cut("a <mask>b", {"<mask>"}, str, lambda s: regex.compile("|".join(s)))
        [(None, 'a'), ('<mask>', ' <mask>'), (None, 'b')]
        """
        raw, forms = self._targets(specials)
        if specials_only and not forms:
            return [(special, piece) for special, piece in self._find(text, raw, finder)
                    if special is not None and piece]
        out = []
        for special, piece in self._find(text, raw, finder):
            if special is None:
                out += self._find(normalize(piece), forms, finder)
            else:
                out.append((special, piece))
        return [(special, piece) for special, piece in out if piece]

    def _targets(self, specials):
        """({string: content} found in the raw text, {form: content} after normalizing)."""
        raw, forms = {}, {}
        for special in specials:
            form = self.forms.get(special)
            if form is None:
                raw[special] = special
            elif form:  # an empty form matches nothing in tokenizers
                forms[form] = special
        return raw, forms

    def cut_aligned(self, text, specials, normalize_aligned, finder):
        """As cut, each piece with the (start, end) of text each of its characters came
        from: [(special, piece, spans)]. normalize_aligned: (str, spans) -> (str, spans)."""
        raw, forms = self._targets(specials)
        out, pos = [], 0
        for special, piece in self._find(text, raw, finder):
            spans = [(i, i + 1) for i in range(pos, pos + len(piece))]
            pos += len(piece)
            if special is not None:
                out.append((special, piece, spans))
                continue
            normalized, nspans = normalize_aligned(piece, spans)
            npos = 0
            for special2, piece2 in self._find(normalized, forms, finder):
                out.append((special2, piece2, nspans[npos:npos + len(piece2)]))
                npos += len(piece2)
        return [(special, piece, spans) for special, piece, spans in out if piece]

    def _find(self, sentence, contents, finder):
        """One pass (tokenizers' find_matches): pieces covering sentence."""
        if not contents or not sentence:
            return [(None, sentence)]
        out, start_offset = [], 0  # start_offset: where the last token taken ends
        run = (0, 0)  # the last whitespace run rstrip measured, so a run is read once
        flags = self.flags
        for m in finder(frozenset(contents)).finditer(sentence):
            start, stop = m.span()
            special = contents[m.group()]
            token = flags.get(special, PLAIN)
            if token.single_word and ((start and WORD.match(sentence, start - 1))
                                      or WORD.match(sentence, stop)):
                continue
            if token.lstrip:  # the whitespace before it, but none the last token took
                if start > start_offset:
                    before = sentence[start_offset:start]
                    start -= len(before) - len(before.rstrip(WHITE_SPACE))
                start = max(start, start_offset)
            if token.rstrip:
                if not run[0] <= stop <= run[1]:
                    run = (stop, SPACES.match(sentence, stop).end())
                stop = run[1]
            if start > stop:
                raise ValueError(
                    f"added token {special!r} (lstrip) stands inside whitespace that the "
                    "token before it took (rstrip); tokenizers itself fails on such text "
                    "('AddedVocabulary bad split'), so it has no ids to match")
            if start_offset < start:
                out.append((None, sentence[start_offset:start]))
            out.append((special, sentence[start:stop]))
            start_offset = stop
        if start_offset != len(sentence):
            out.append((None, sentence[start_offset:]))
        return out

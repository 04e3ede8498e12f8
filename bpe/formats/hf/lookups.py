"""How much work a substring lookup may do in the models that look up substrings of a
piece (WordPiece's longest match, the Unigram lattices of bpe.formats.hf.models and
bpe.sentencepiece_unigram): the budget, the lengths worth looking up at a position, and
the sentence when a file's tokens make a piece cost more. Nothing here encodes.
"""


# WordPiece's longest match and Unigram's lattice look up substrings of a piece: the work is
# the characters looked up, which a file of long tokens (and max_input_chars_per_word huge)
# makes cubic in a word's length (issue 32: a few KB took 30-40 s). Real vocabularies look
# up a few hundred characters per character of text (BERT's ~20 lengths, T5's pieces of
# <= 16); a piece may cost WORK_PER_CHAR times its length, so any text stays within a few
# seconds, and past that the file is named as the cause.
WORK_PER_CHAR = 1 << 16
WORK_FLOOR = 1 << 22


def lengths_by_first(tokens, skip=0):
    """first character -> the lengths of the tokens starting with it (after skip characters),
    longest first: the only substring lengths worth looking up at a position."""
    out = {}
    for token in tokens:
        if len(token) > skip:
            out.setdefault(token[skip], set()).add(len(token) - skip)
    return {ch: sorted(lengths, reverse=True) for ch, lengths in out.items()}


def over_budget(kind, piece, longest):
    return ValueError(f"this {kind} file's tokens are up to {longest:,} characters long, so "
                      f"encoding a piece of {len(piece):,} characters would look up more than "
                      f"{WORK_PER_CHAR:,} characters per character of text (real vocabularies "
                      "look up a few hundred; tokenizers is slower still on it): shorten the "
                      "text's words or use a file without such long tokens")

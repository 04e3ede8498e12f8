"""The text every tokenizer sees: a str in which every character can be UTF-8 encoded.

It knows nothing of tokens; encoding, training and streamed counting all start here.
"""


def clean_text(text):
    """Check text is a str and replace lone surrogates (invalid in UTF-8) by U+FFFD,
    as tiktoken does, so every str can be encoded.

    >>> clean_text("a\\ud800b")
    'a\\ufffdb'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}; "
                        "decode bytes first, e.g. data.decode('utf-8')")
    if text.isascii():
        return text  # O(1): CPython flags ASCII strings, and they hold no surrogates
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


PIECE_CHARS = 1 << 20  # characters of a text split at a time (counting, documents)

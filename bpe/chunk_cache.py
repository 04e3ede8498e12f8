"""The chunk cache every tokenizer's encode reads through: chunk str -> its ids.

Most text repeats a few thousand chunks, so encode looks each up once. The cache is
bounded (encode starts it over past CACHE_LIMIT entries) and skips long chunks. It does
not split text or know about special tokens (bpe/base.py does).
"""
CACHE_LIMIT = 200_000        # chunks remembered by encode before the cache starts over
CACHE_CHUNK_CHARS = 256      # longer chunks are rare; caching them would only cost memory


class ChunkCache(dict):
    """chunk str -> list of ids; a missing chunk is encoded on lookup, and kept
    unless it is long (long chunks are rare, and keeping them would only cost memory)."""

    __slots__ = ("encode_chunk",)

    def __init__(self, encode_chunk):
        super().__init__()
        self.encode_chunk = encode_chunk  # text_bytes -> list of ids

    def bounded(self):
        """This cache, emptied first if it holds more than CACHE_LIMIT chunks (encode calls
        it once per text, so the cache never grows without bound)."""
        if len(self) > CACHE_LIMIT:
            self.clear()
        return self

    def __missing__(self, chunk):
        chunk_ids = self.encode_chunk(chunk.encode("utf-8"))
        if len(chunk) <= CACHE_CHUNK_CHARS:
            self[chunk] = chunk_ids
        return chunk_ids

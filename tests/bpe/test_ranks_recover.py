"""Merge recovery from ranks (issue 24): the heap path for long tokens gives the textbook
rescan's merges, and a ranks file whose tokens double in length recovers at once."""
import pytest

from bpe import BasicTokenizer
from bpe.formats.ranks import mergeable_ranks
from bpe.formats.ranks_merges import recover_merges


def textbook_recover(ranks):
    """minbpe's recover_merges, as written in its exercise: rescan every step."""
    merges = {}
    for token, rank in ranks.items():
        if len(token) <= 1:
            continue
        parts = [token[i:i + 1] for i in range(len(token))]
        while len(parts) > 2:
            found = [(ranks[parts[i] + parts[i + 1]], i) for i in range(len(parts) - 1)
                     if ranks.get(parts[i] + parts[i + 1], rank) < rank]
            if not found:
                break
            _, i = min(found)
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
        merges[(ranks[parts[0]], ranks[parts[1]])] = rank
    return merges


@pytest.mark.slow  # the textbook loop on long tokens: ~10-20 s
def test_long_tokens_recover_as_the_textbook_does():
    """Basic training on a repetitive text makes tokens of hundreds of bytes, past the
    short-token rescan, so the heap path decides them."""
    text = ("the cat sat on the mat; " * 40 + "abracadabra " * 30 + "0123456789" * 50) * 3
    tok = BasicTokenizer().train(text, 256 + 400)
    ranks = mergeable_ranks(tok)
    assert max(map(len, ranks)) > 100
    assert recover_merges(ranks) == textbook_recover(ranks) == tok.merges


def test_tokens_that_double_to_64_kib_recover_at_once():
    ranks = {bytes([b]): b for b in range(256)}
    for k in range(1, 17):
        ranks[b"a" * 2 ** k] = 255 + k
    merges = recover_merges(ranks)
    assert merges[(ord("a"), ord("a"))] == 256
    assert all(merges[(255 + k, 255 + k)] == 256 + k for k in range(1, 16))

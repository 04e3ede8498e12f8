"""The textbook BPE loop, written plainly: the standard the fast trainer must equal."""
import regex


def get_stats(ids, counts):
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1


def merge(ids, pair, idx):
    out = []
    i = 0
    while i < len(ids):
        if i < len(ids) - 1 and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(idx)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def textbook_train(text, vocab_size, pattern=None, min_frequency=1):
    """-> (merges, merge_counts) exactly as minbpe's loop makes them."""
    chunks = regex.findall(pattern, text) if pattern else [text]
    ids = [list(chunk.encode("utf-8")) for chunk in chunks]
    merges, counts = {}, {}
    for i in range(vocab_size - 256):
        stats = {}
        for chunk_ids in ids:
            get_stats(chunk_ids, stats)
        if not stats:
            break
        pair = max(stats, key=stats.get)
        if stats[pair] < min_frequency:
            break
        idx = 256 + i
        ids = [merge(chunk_ids, pair, idx) for chunk_ids in ids]
        merges[pair] = idx
        counts[idx] = stats[pair]
    return merges, counts

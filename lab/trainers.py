"""The trainings that run in a worker process: one module-level function per kind.

lab/jobs.py imports these in the worker and calls `function(progress, **args)`; what
they return is pickled back to the server. They never import streamlit (the worker
must start fast) and read nothing from the session: every input is an argument.
lab/training.py names them in its KINDS table; another kind is one more function like
these, anywhere in bpe/, lab/ or viz/, registered with lab.training.register_kind.
"""
from dataclasses import dataclass


@dataclass
class Trained:
    """A trained tokenizer, and the token count on the held-out text after every merge
    (bpe.replay.token_counts_by_merge) when there was held-out text."""
    tok: object
    held_out_counts: list = None


def train_bpe(progress, *, kind, pattern, text, vocab_size, min_frequency=1,
              special_tokens=(), held_out=None, tie_break="first", record_ties=False):
    """Train a Basic ("basic") or Regex ("regex", split by pattern) tokenizer; special
    tokens get the ids right after the trained vocabulary. tie_break and record_ties
    as in tok.train (record_ties fills tok.merge_ties, about 2x slower)."""
    from bpe import BasicTokenizer, RegexTokenizer
    from bpe.budgets import MAX_VOCAB_BYTES
    tok = BasicTokenizer() if kind == "basic" else RegexTokenizer(pattern)
    # stop where bpe.load would refuse the file: past every pair occurring once, Basic's
    # tokens only grow (GBs by 54k merges of 1.1 MB), and the worker's memory cap would
    # end the training with nothing to show
    tok.train(text, vocab_size, min_frequency=min_frequency, progress=progress,
              tie_break=tie_break, record_ties=record_ties,
              max_vocab_bytes=MAX_VOCAB_BYTES)
    _add_specials(tok, special_tokens)
    counts = None
    if held_out:
        progress.phase("measuring")
        from bpe.replay import token_counts_by_merge
        counts = token_counts_by_merge(tok, held_out)
    return Trained(tok, counts)


def train_counts(progress, *, data, file_name, vocab_size, min_frequency=1,
                 special_tokens=(), tie_break="first", record_ties=False):
    """Train a Regex tokenizer on the bytes of a counts file (python -m bpe count): its
    chunk counts, split by the pattern the file was counted with. The same merges (and
    merge_ties) as training on the text it counts with the same tie_break and
    record_ties; no held-out text, so no compression curve."""
    import os
    import tempfile
    from bpe import RegexTokenizer
    from bpe.counting.counts_file import read_counts
    from bpe.counting.stream import train_from_part
    progress.phase("counting")
    with tempfile.TemporaryDirectory() as folder:  # bpe.counting.counts_file reads a path
        path = os.path.join(folder, "upload.counts")
        with open(path, "wb") as f:
            f.write(data)
        try:
            pattern, part = read_counts(path)
        except ValueError as e:  # damaged, another version, not a counts file at all
            raise ValueError(str(e).replace(path, file_name)) from None
    tok = train_from_part(RegexTokenizer(pattern), part, vocab_size,
                          min_frequency=min_frequency, progress=progress,
                          tie_break=tie_break, record_ties=record_ties)
    _add_specials(tok, special_tokens)
    return Trained(tok)


def _add_specials(tok, special_tokens):
    if special_tokens:
        first = tok.n_vocab
        tok.register_special_tokens({s: first + i for i, s in enumerate(special_tokens)})


def train_sentencepiece(progress, *, text, vocab_size):
    """A Llama-style SentencePiece BPE with vocab_size pieces (at least 260). It reports
    no progress while it trains: sentencepiece says nothing until it is done."""
    from bpe.sentencepiece_bpe import SentencePieceBPE
    progress.phase("training")
    return Trained(SentencePieceBPE().train(text, max(int(vocab_size), 260)))


def train_pair(progress, *, text, vocab_size, pattern="gpt4"):
    """A Regex and a Basic tokenizer trained on the same text: [regex_tok, basic_tok].
    Progress counts the merges of both, one after the other, so the bar fills once."""
    from bpe import BasicTokenizer, RegexTokenizer
    total, last = 2 * (vocab_size - 256), []

    def first(p):
        last[:] = [p]
        progress(p._replace(total=total))
    regex_tok = RegexTokenizer(pattern).train(text, vocab_size, progress=first)
    done, elapsed = (last[0].done, last[0].elapsed) if last else (0, 0.0)
    basic_tok = BasicTokenizer().train(
        text, vocab_size, progress=lambda p: progress(
            p._replace(done=done + p.done, total=total, elapsed=elapsed + p.elapsed)))
    return [regex_tok, basic_tok]

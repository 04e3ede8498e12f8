"""Every function that runs in a training's worker process: one per kind of training.

lab.train.training.KINDS maps each request type (lab/jobs/requests.py) to one of these;
lab/jobs/__init__.py runs it in the worker as `function(progress, request=..., **data)`
and pickles back what it returns, which becomes the training's `outcome.value`. They never
import streamlit (the worker must start fast) and read nothing from the session: the
request and the text are their only inputs. The request was checked when it was made; what only the
training finds out (a pattern that skips text, a corpus too small to hold text out) is
a ValueError here, which the job shows as its error.

They measure as they train (bytes per token on held-out text, tokens per vocab size);
shaping those numbers into tables and charts is viz's (viz/sweep.py, viz/ties.py,
viz/train_result.py). progress takes bpe's MergeProgress, or a lab.jobs.Step, and has
progress.phase("measuring") to say what the worker does now.
"""
import json
import os
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from itertools import accumulate

from bpe import BasicTokenizer, RegexTokenizer, budgets, methods
from bpe.counting.counts_file import read_counts
from bpe.counting.stream import train_from_part
from bpe.extend import extend_vocabulary
from bpe.formats.hf.tokenizer_json import hf_json
from bpe.formats.ranks import tiktoken_text
from bpe.reference import load_reference
from bpe.replay import token_counts_by_merge
from bpe.sentencepiece_bpe import SentencePieceBPE
from bpe.tie_break import TIE_BREAKS
from bpe.train import train_merges
from lab.jobs.corpus_text import split_held_out
from lab.jobs.rebuild import recover_job
from lab.jobs.requests import method_texts
from lab.jobs.runner import Step
from viz.methods import report_card

FRACTIONS = (0.01, 0.05, 0.25, 1.0)  # the shares of a corpus data_sufficiency trains on
CURVE_POINTS = 200  # points per extension curve at most


@dataclass
class Trained:
    """A trained tokenizer, and the token count on the held-out text after every merge
    (bpe.replay.token_counts_by_merge) when there was held-out text."""
    tok: object
    held_out_counts: list = None
    held_out_bytes_per_token: float = None  # a method's, measured once at the end


def _tokenizer(pattern):
    """A Regex tokenizer split by pattern, or a Basic one for no pattern ("" or None)."""
    return RegexTokenizer(pattern) if pattern else BasicTokenizer()


def _phase(progress, name):
    """Tell a lab.jobs progress reporter what the work does now (others have no phase)."""
    if progress is not None and hasattr(progress, "phase"):
        progress.phase(name)


def _held_out(text):
    train, held = split_held_out(text)
    if not held:
        raise ValueError("this corpus is too small to hold text out; pick a bigger one")
    return train, held


def bytes_per_token(n_bytes, n_tokens):
    return n_bytes / n_tokens if n_tokens else 0.0


# ------------------------------------------------------------ the Train page's
def train_bpe(progress, *, request, text, held_out=None):
    """Train request (a BpeRequest) on text: a Basic or a Regex tokenizer; its special
    tokens get the ids right after the trained vocabulary. held_out: text also encoded
    after training, to count its tokens after every merge (the compression curve)."""
    tok = _tokenizer(request.pattern if request.kind == "regex" else None)
    # stop where bpe.load would refuse the file: past every pair occurring once, Basic's
    # tokens only grow (GBs by 54k merges of 1.1 MB), and the worker's memory cap would
    # end the training with nothing to show
    tok.train(text, request.vocab_size, min_frequency=request.min_frequency,
              progress=progress, tie_break=request.tie_break,
              record_ties=request.record_ties, max_vocab_bytes=budgets.MAX_VOCAB_BYTES)
    _add_specials(tok, request.special_tokens)
    counts = None
    if held_out:
        progress.phase("measuring")
        counts = token_counts_by_merge(tok, held_out)
    return Trained(tok, counts)


def train_counts(progress, *, request, data, file_name):
    """Train a Regex tokenizer on the bytes of a counts file (python -m bpe count): its
    chunk counts, split by the pattern the file was counted with. The same merges (and
    merge_ties) as training on the text it counts with the same tie rule; no held-out
    text, so no compression curve."""
    progress.phase("counting")
    with tempfile.TemporaryDirectory() as folder:  # bpe.counting.counts_file reads a path
        path = os.path.join(folder, "upload.counts")
        with open(path, "wb") as f:
            f.write(data)
        try:
            pattern, part = read_counts(path)
        except ValueError as e:  # damaged, another version, not a counts file at all
            raise ValueError(str(e).replace(path, file_name)) from None
    tok = train_from_part(RegexTokenizer(pattern), part, request.vocab_size,
                          min_frequency=request.min_frequency, progress=progress,
                          tie_break=request.tie_break, record_ties=request.record_ties)
    _add_specials(tok, request.special_tokens)
    return Trained(tok)


def _add_specials(tok, special_tokens):
    if special_tokens:
        first = tok.n_vocab
        tok.register_special_tokens({s: first + i for i, s in enumerate(special_tokens)})


def train_sentencepiece(progress, *, request, text):
    """A Llama-style SentencePiece BPE of request.vocab_size pieces. It reports no
    progress while it trains: sentencepiece says nothing until it is done."""
    progress.phase("training")
    return Trained(SentencePieceBPE().train(text, request.vocab_size))


def train_pair(progress, *, request, text):
    """A Regex and a Basic tokenizer trained on the same text: [regex_tok, basic_tok].
    Progress counts the merges of both, one after the other, so the bar fills once."""
    vocab_size = request.vocab_size
    total, last = 2 * (vocab_size - 256), []

    def first(p):
        last[:] = [p]
        progress(p._replace(total=total))
    regex_tok = RegexTokenizer(request.pattern).train(text, vocab_size, progress=first)
    done, elapsed = (last[0].done, last[0].elapsed) if last else (0, 0.0)
    basic_tok = BasicTokenizer().train(
        text, vocab_size, progress=lambda p: progress(
            p._replace(done=done + p.done, total=total, elapsed=elapsed + p.elapsed)))
    return [regex_tok, basic_tok]


# ------------------------------------------------------------ the methods (issue 28)
def train_method(progress, *, request, languages, held_out=None, arena=None):
    """Train request (a MethodRequest) on languages (label -> text: one corpus is one
    label; parity balances several, joined by arena's when given one, see
    lab.jobs.requests.method_texts). held_out: text measured once at the end."""
    tok = methods.train(request.method, method_texts(request.method, languages, arena),
                        request.vocab_size, progress=progress, **dict(request.options))
    measured = None
    if held_out:
        progress.phase("measuring")
        measured = bytes_per_token(len(held_out.encode("utf-8")),
                                   len(tok.encode_ordinary(held_out)))
    return Trained(tok, held_out_bytes_per_token=measured)


@dataclass
class SideBySide:
    """The Methods page's value: method -> tokenizer, in the order asked; each one's
    training time (CPU seconds of the worker); the report card (viz.methods.report_card)."""
    toks: dict
    seconds: dict = field(default_factory=dict)
    card: list = field(default_factory=list)


def train_methods(progress, *, request, languages, held_out=None, arena=None):
    """Train each method of request (a MethodsRequest) on languages in turn, then measure
    them all (viz.methods.report_card on held_out, or on the training text when there is
    none; the Gini across arena's languages, which parity also trains on when languages
    is one corpus). Progress is one bar over every method:
    each fills an equal share, its label names the method training now."""
    asked = request.requests()
    share = request.vocab_size - 256 or 1  # units per method: its merges asked for
    total, began = share * len(asked), time.monotonic()
    toks, seconds = {}, {}
    for i, one in enumerate(asked):
        label = f"steps · now {one.method} ({i + 1} of {len(asked)})"

        def report(p, i=i, label=label):
            done = i * share + min(round(share * p.done / p.total), share) if p.total else i * share
            progress(Step(done, total, time.monotonic() - began, label))
        report(Step(0, 0, 0.0))  # show the method's name before its first merge
        cpu = time.process_time()
        toks[one.method] = methods.train(one.method,
                                         method_texts(one.method, languages, arena),
                                         request.vocab_size, progress=report,
                                         **dict(one.options))
        seconds[one.method] = time.process_time() - cpu
    progress.phase("measuring")
    measured_on = held_out or "".join(languages.values())
    return SideBySide(toks, seconds, report_card(toks, measured_on, arena or {}))


# ------------------------------------------------------------ Tie rules
def train_rules(text, vocab_size, pattern="gpt4", rules=None, progress=None):
    """{rule: bpe.train.TrainResult with merge_ties} for text under each rule (every
    bpe.tie_break.TIE_BREAKS rule by default). The chunks are counted once. pattern: a
    preset or regex, or "" for no split. progress(rule, MergeProgress)."""
    tok = _tokenizer(pattern)
    words = [(chunk.encode("utf-8"), freq) for chunk, freq in tok.count_chunks(text).items()]
    results = {}
    for rule in rules or TIE_BREAKS:
        report = None if progress is None else (lambda p, rule=rule: progress(rule, p))
        results[rule] = train_merges(words, vocab_size, 1, report, tie_break=rule,
                                     record_ties=True)
    return results


def train_tie_rules(progress, *, request, text):
    """train_rules for a TieRulesRequest, each training's MergeProgress sent on."""
    return train_rules(text, request.vocab_size, request.pattern,
                       progress=lambda rule, p: progress(p))


# ------------------------------------------------------------ How much data
def data_sufficiency(text, held_out, vocab_size, pattern="gpt4", fractions=FRACTIONS,
                     progress=None):
    """One row per fraction of text (a prefix): characters trained on, the share of the
    full text's learned tokens this training also learned, and bytes/token on held_out."""
    runs = {}
    for fraction in sorted(set(fractions) | {1.0}):
        part = text[:max(1, round(len(text) * fraction))]
        runs[fraction] = _tokenizer(pattern).train(part, vocab_size, progress=progress)
    full = {tok_bytes for idx, tok_bytes in runs[1.0].vocab.items() if idx >= 256}
    n_bytes = len(held_out.encode("utf-8"))
    rows = []
    for fraction, tok in runs.items():
        learned = {tok.vocab[idx] for idx in tok.merges.values()}
        rows.append({"fraction": fraction,
                     "characters": len(text[:max(1, round(len(text) * fraction))]),
                     "merges": len(tok.merges),
                     "share of the full vocabulary": len(learned & full) / len(full)
                     if full else 1.0,
                     "bytes/token": bytes_per_token(n_bytes,
                                                    len(tok.encode_ordinary(held_out)))})
    return rows


def sweep(text, held_out, vocab_sizes, patterns, progress=None):
    """One row per (pattern, vocab size): bytes/token on held_out. patterns: label ->
    pattern (a preset, a regex, or "" for none). One training per pattern, at the
    largest size: BPE with fewer merges is a prefix of BPE with more, so bpe.replay
    counts the tokens of every smaller size from one encoding of held_out."""
    top = max(vocab_sizes)
    n_bytes = len(held_out.encode("utf-8"))
    rows = []
    for label, pattern in dict(patterns).items():
        tok = _tokenizer(pattern).train(text, top, progress=progress)
        counts = token_counts_by_merge(tok, held_out)
        for size in sorted(vocab_sizes):
            k = min(size - 256, len(counts) - 1)  # training may have run out of pairs
            rows.append({"pattern": label, "vocab size": size, "merges": k,
                         "bytes/token": bytes_per_token(n_bytes, counts[k])})
    return rows


def data_sufficiency_job(progress, *, request, text):
    """data_sufficiency for a SufficiencyRequest, on text minus its held-out end."""
    train, held = _held_out(text)
    return data_sufficiency(train, held, request.vocab_size, request.pattern,
                            progress=progress)


def sweep_job(progress, *, request, text):
    """sweep for a SweepRequest, on text minus its held-out end."""
    train, held = _held_out(text)
    return sweep(train, held, request.vocab_sizes, request.patterns, progress=progress)


# ------------------------------------------------------------ Extend
def extension_counts(ext, text):
    """counts[k] = tokens text takes with the base plus the first k new merges."""
    parents = {idx: pair for pair, idx in ext.new_merges.items()}
    need = Counter(idx for idx in ext.encode_ordinary(text) if idx in parents)
    # subtle: as in bpe.replay.merge_applications, a new token's parts have smaller ids,
    # so walking the new ids downwards hands each its parts' counts first; base ids stop it
    for idx in sorted(parents, reverse=True):
        times = need.get(idx)
        if times:
            for part in parents[idx]:
                if part in parents:
                    need[part] += times
    done = [need.get(idx, 0) for idx in parents]
    n_base = len(ext.base.encode_ordinary(text))
    return [n_base - d for d in accumulate(done, initial=0)]


def extension_curve(ext, texts, points=CURVE_POINTS):
    """Rows (K, text label, bytes/token) for K = 0..len(ext.new_merges), thinned to about
    `points` values of K. texts: label -> text (e.g. domain and general held-out text)."""
    rows = []
    for label, text in texts.items():
        counts = extension_counts(ext, text)
        n_bytes = len(text.encode("utf-8"))
        step = max(1, len(counts) // points)
        ks = sorted(set(range(0, len(counts), step)) | {len(counts) - 1})
        rows += [{"new merges": k, "text": label,
                  "bytes/token": bytes_per_token(n_bytes, counts[k])} for k in ks]
    return rows


def extension_run(base, domain, general, num_merges, min_frequency=2, progress=None):
    """Extend base on the domain text minus its held-out end, then measure bytes/token on
    that held-out end and on general text as K grows. -> (extended tokenizer, curve rows).
    progress gets the MergeProgress of the new merges."""
    train, held = split_held_out(domain)
    ext = extend_vocabulary(base, train, num_merges, min_frequency=min_frequency,
                            progress=progress)
    _phase(progress, "measuring")
    texts = {"domain (held out)": held or train, "general": general}
    return ext, extension_curve(ext, {label: text for label, text in texts.items() if text})


def extension_downloads(ext):
    """format -> (file name, file text, None) or (file name, None, why it cannot hold it)."""
    makers = {".tiktoken": ("extended.tiktoken", tiktoken_text),
              "tokenizer.json": ("tokenizer.json",
                                 lambda tok: json.dumps(hf_json(tok), ensure_ascii=False)),
              ".model": ("extended.model", lambda tok: tok.model_text())}
    out = {}
    for fmt, (file_name, make) in makers.items():
        try:
            out[fmt] = (file_name, make(ext), None)
        except ValueError as e:
            out[fmt] = (file_name, None, str(e))
    return out


def extension_job(progress, *, request, base, domain, general):
    """Extend base by an ExtendRequest. base: a tokenizer, or the name of a reference one
    (bpe.reference), loaded here so GPT-4's ranks need not travel to the worker. -> the
    new merges and their counts, the curve rows and the downloads; the page rebuilds the
    tokenizer on its own base."""
    if isinstance(base, str):
        base = load_reference(base)
    ext, rows = extension_run(base, domain, general, request.num_merges,
                              request.min_frequency, progress)
    _phase(progress, "measuring")
    return {"new_merges": ext.new_merges, "merge_counts": ext.merge_counts,
            "stop_reason": ext.stop_reason, "rows": rows,
            "downloads": extension_downloads(ext)}


def recover_gpt4(progress, *, request):
    """GPT-4's merges recovered from its hash-checked ranks and checked (lab.jobs.rebuild)."""
    return recover_job(progress, check_every=request.check_every)

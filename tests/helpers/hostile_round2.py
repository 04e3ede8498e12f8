"""The second round of hostile attempts on the core and the CLI (issue 24), in the same
shape as helpers.hostile_cases (issue 16's): each a Case run by `run_case` in a fresh
process with a wall-clock bound and a 1 GB address-space cap. tests/bpe/
test_hostile_attempts.py asserts every one; bench/hostile.py counts them into the table.

Families: one grapheme cluster in the view's rows, gzip bombs, normalizer bombs and a
slow Replace at load, slow Split sequences and a slow .model on special-token text (one
budget per action), ranks whose tokens double, a deep .model in the merge tree, forged
counts files, and `train --scheduler` at addresses that are no working Dask scheduler (a
port that accepts and never answers, an HTTP server, a scheduler with no workers; each
served on 127.0.0.1 during its attempt only: one `bpe: error:` line within 10 s).
"""
import base64
import contextlib
import gzip
import json
import socket
import threading

from helpers.hostile_cases import SLOW_PATTERN, SLOW_TEXT, RANKS_OK, SLOW_BOUND, TIME, Case, hf_doc, load_code, model_text

BIG = r"(?i)too (large|big|long)|budget|limit|exceed|more than|refused|at most"
UNPACK = r"(?i)unpacks to more than|at most|refused|MB of ranks"


def _view(text_code):
    """viz.rows.view_row over the text text_code makes, each character its own token
    (the worst case: every byte a token end), then a check that the rows cover it."""
    return "\n".join((
        "from viz.rows import view_row",
        f"text = {text_code}",
        "data = text.encode('utf-8')",
        "token_bytes = [data[i:i + 1] for i in range(len(data))]",
        "row = view_row(token_bytes, list(range(len(token_bytes))))",
        "assert sum(row['n']) == len(token_bytes), 'every token drawn'",
    ))


def doubling_ranks(k):
    """A ranks file whose tokens double: a, aa, aaaa, ... up to 2^k bytes (4 KB at k=16)."""
    return RANKS_OK + b"".join(base64.b64encode(b"a" * 2 ** j) + b" %d\n" % (255 + j)
                               for j in range(1, k + 1))


def _doubling(k):
    ranks = doubling_ranks(k)
    return "\n".join(("from bpe import load_bytes",
                      f"tok = load_bytes({ranks!r}, 'double.tiktoken', pattern='gpt4')",
                      f"assert len(tok.merges) == {k}"))


def _hf(**changes):
    return hf_doc(**changes)


GZIP_ZEROS = gzip.compress(b"\0" * (512 << 20), 9)  # 512 MB of zeros, 0.5 MB packed


REPLACE_BOMB = {"type": "Sequence", "normalizers": [
    {"type": "Replace", "pattern": {"String": ""}, "content": "a" * 1000},
    {"type": "Replace", "pattern": {"String": "a"}, "content": "a" * 1000},
    {"type": "Replace", "pattern": {"String": "a"}, "content": "a" * 1000}]}
_SPLITS = {"type": "Sequence", "pretokenizers": [
    {"type": "Split", "pattern": {"Regex": r"\s+"}, "behavior": "Isolated", "invert": False},
    {"type": "Split", "pattern": {"Regex": "(a|aa)+$|."}, "behavior": "Isolated",
     "invert": False}]}
_SLOW_ADDED = {"id": 1000, "content": SLOW_TEXT, "single_word": False, "lstrip": False,
               "rstrip": False, "normalized": True, "special": False}

CASES2 = [
    # -- the view's rows on one long grapheme cluster (quadratic: past 300 s at 1M)
    Case("view-combining-cluster", "view_row on 'e' + U+0301 x 1M (past 300 s before)",
         "core", expect="ok", seconds=60, mb=900,
         code=_view("'e' + '\\u0301' * 1_000_000")),
    Case("view-zwj-chain", "view_row on a man + ZWJ x 400k", "core", expect="ok",
         seconds=60, mb=900, code=_view("'\\U0001F468' + '\\u200d' * 400_000")),
    # -- gzip bombs: unpacked under the file budget, ranks bounded before parsing
    Case("gzip-zeros", ".tiktoken.gz of 512 MB of zeros (2.6 GB, MemoryError before)",
         "core", UNPACK, mb=600,
         code=load_code(GZIP_ZEROS, "x.tiktoken.gz")),
    Case("gzip-one-line", ".tiktoken.gz of one ranks line repeated to 64 MB", "core", UNPACK,
         mb=600, code=load_code(gzip.compress(b"YQ== 1\n" * ((64 << 20) // 7), 9),
                            "x.tiktoken.gz")),
    # -- tokenizer.json normalizers and pre-tokenizers
    Case("normalizer-replace-bomb", "Replace('', a*1000) then Replace('a', a*1000) twice "
         "(1.9 GB, MemoryError before)", "core", BIG, mb=600,
         code=load_code(_hf(normalizer=REPLACE_BOMB), "tokenizer.json",
                    "tok.encode_ordinary('hello world')")),
    Case("normalizer-slow-replace-at-load", "Replace (a|a)+$ on a normalized added token, "
         "run at load (hung past 60 s before)", "core", TIME, seconds=SLOW_BOUND,
         code=load_code(_hf(normalizer={"type": "Replace", "pattern": {"Regex": "(a|a)+$"},
                                    "content": ""}, added_tokens=[_SLOW_ADDED]),
                    "tokenizer.json", "tok.encode_ordinary('aaa')")),
    Case("split-sequence-slow", "Split \\s+ then (a|aa)+$|. on 3,100 characters (40 s "
         "before)", "core", TIME, seconds=SLOW_BOUND,
         code=load_code(_hf(pre_tokenizer=_SPLITS), "tokenizer.json",
                    "from bpe.patterns import safety",
                    "with safety.action(2.0):",
                    "    tok.encode_ordinary(('a' * 30 + 'b ') * 100)")),
    Case("model-slow-on-specials", ".model slow on the text between special tokens, one "
         "action (49 s on 3,300 characters before)", "core", TIME, seconds=SLOW_BOUND,
         code=load_code(model_text(SLOW_PATTERN, "1", "<|s|> 300", "97 97"), "x.model",
                    "from bpe.patterns import safety",
                    "with safety.action(2.0):",
                    f"    tok.encode('<|s|>'.join([{SLOW_TEXT!r}] * 80), "
                    "allowed_special='all')")),
    # -- ranks whose tokens double: merge recovery was O(L^2) per token
    Case("ranks-doubling", "ranks a, aa, aaaa ... 2^16 bytes (past 120 s before)", "core",
         expect="ok", seconds=30, mb=600, code=_doubling(16)),
    # -- the merge tree on a deep vocabulary: iterative, bounded
    Case("tree-chained-model", "merge tree of a .model chained 3,000 deep (RecursionError "
         "before)", "core", expect="ok", seconds=30, code="\n".join((
             "from bpe import load_bytes",
             "from bpe.replay import merge_parents",
             "from viz.tree import tree_dot",
             f"tok = load_bytes({model_text('', '0', '97 97', *(f'{255 + i} 97' for i in range(1, 3000)))!r}, 'x.model')",
             "dot = tree_dot(tok, max(tok.vocab), merge_parents(tok))",
             "assert dot.count('->') <= 2 * 4095, 'at most the shown nodes'")))
]


def _forged_counts():
    """A counts file with a negative count and a matching sha256, as bytes."""
    import hashlib
    import tempfile
    from array import array
    from pathlib import Path

    from bpe import RegexTokenizer
    from bpe.counting.counts_file import MAGIC, write_counts
    from bpe.counting.stream import count_texts
    tok = RegexTokenizer("gpt4")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "a.counts"
        write_counts(path, tok.pattern, count_texts(tok, ["x " * 10_000 + "hello world " * 50]))
        data = path.read_bytes()
    first = data.index(b"\n") + 1
    second = data.index(b"\n", first) + 1
    header = json.loads(data[first:second])
    body = bytearray(data[second:])
    count = array("q")
    count.append(-5)
    body[:8] = count.tobytes()
    header["sha256"] = hashlib.sha256(body).hexdigest()
    return MAGIC + json.dumps(header).encode() + b"\n" + bytes(body)


CASES2 += [
    Case("counts-forged", "bpe train --from-counts on a forged counts file (a count of -5, "
         "sha256 matching; trained on before)", "cli", r"(?i)count below 1",
         argv=("train", "--from-counts", "forged.counts", "--vocab-size", "300", "-o", "m"),
         files={"forged.counts": _forged_counts()}),
]


# -- `--scheduler` at addresses that are not a working Dask scheduler (90-240 s before)
@contextlib.contextmanager
def silent_port(accepted=None):
    """tcp://127.0.0.1:PORT that accepts connections and never sends a byte; each
    connection it accepts is appended to the list accepted, if given."""
    accepted = [] if accepted is None else accepted
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.settimeout(0.2)
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue
    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for conn in accepted:
            conn.close()
        server.close()


@contextlib.contextmanager
def http_server():
    """tcp://127.0.0.1:PORT of a plain HTTP server."""
    import http.server

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # Dask's bytes would be logged to the bench's stderr
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def _no_workers():
    """The address of a Dask scheduler with no workers (Dask is optional: without it the
    attempt runs against a silent port instead, and says so in its message)."""
    try:
        import distributed
    except ImportError:
        with silent_port() as addr:
            yield addr
        return
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp://",
                                  host="127.0.0.1", scheduler_port=0,
                                  dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def _scheduler(name, what, serve, match):
    return Case(name, what, "cli", match, seconds=10.0, mb=400, serve=serve,
                argv=("train", "a.txt", "--vocab-size", "300", "--scheduler", "{addr}",
                      "-o", "m"),
                files={"a.txt": ("hello world, the lab's text " * 800).encode()})


CASES2 += [
    _scheduler("scheduler-silent-port", "--scheduler at a port that accepts and never "
               "answers (still hanging at 300 s before)", silent_port,
               r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:\d+ within 5 s"),
    _scheduler("scheduler-http-server", "--scheduler at an HTTP server (hung 90-240 s "
               "before)", http_server, r"it may not be a Dask scheduler"),
    _scheduler("scheduler-no-workers", "--scheduler at a Dask scheduler with no workers "
               "(still hanging at 60 s before)", _no_workers,
               r"has no workers|cannot reach the Dask scheduler"),
]

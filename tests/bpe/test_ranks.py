"""bpe.formats.ranks: the one home of tiktoken ranks files (locate, hash-check, parse, write)."""
import gzip
import hashlib
import subprocess
import sys

import pytest

from bpe import RegexTokenizer
from bpe.formats import ranks
from bpe.formats.ranks_merges import recover_merges
from bpe.ranks_tokenizer import CL100K_FILE, CL100K_SHA256


def test_find_data_file_does_not_import_the_package():
    code = ("import sys; from bpe.formats.ranks import find_data_file; "
            "p = find_data_file('tiktoken_ext', 'cl100k_base.tiktoken'); "
            "print(p.endswith('cl100k_base.tiktoken'), "
            "any(m.startswith('tiktoken') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False"]


def test_missing_file_says_what_to_install():
    with pytest.raises(FileNotFoundError, match="pip install x"):
        ranks.find_data_file("tiktoken_ext", "nope.tiktoken", missing="pip install x")
    with pytest.raises(ValueError, match="top-level"):
        ranks.find_data_file("tiktoken_ext.openai_public", CL100K_FILE)


def test_cl100k_parses_strictly_and_hash_is_checked(tmp_path):
    path = ranks.find_data_file("tiktoken_ext", CL100K_FILE)
    cl100k = ranks.read_ranks_file(path, CL100K_SHA256)
    assert len(cl100k) == 100256 and cl100k[b"!"] == 0
    with pytest.raises(ValueError, match="sha256 .* reinstall it"):
        ranks.read_ranks_file(path, "0" * 64, fix="reinstall it")


def test_gzip_file_hash_is_of_the_uncompressed_bytes(tmp_path):
    table = {bytes([b]): b for b in range(256)} | {b"ab": 256}
    text = ranks.ranks_text(table).encode()
    path = tmp_path / "t.tiktoken.gz"
    path.write_bytes(gzip.compress(text))
    assert ranks.read_ranks_file(path, hashlib.sha256(text).hexdigest()) == table
    (tmp_path / "bad.tiktoken.gz").write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="not a valid gzip file"):
        ranks.read_ranks_file(tmp_path / "bad.tiktoken.gz")


def test_save_and_read_round_trip_through_tiktoken(tmp_path):
    tiktoken = pytest.importorskip("tiktoken")
    import tiktoken.load
    tok = RegexTokenizer().train("hello world, hello there " * 20, 300)
    path = tmp_path / "mine.tiktoken"
    ranks.save_tiktoken(tok, path)
    table = ranks.read_ranks_file(path)
    assert table == tiktoken.load.load_tiktoken_bpe(str(path))
    assert recover_merges(table) == tok.merges
    enc = tiktoken.Encoding(**ranks.tiktoken_kwargs(tok))
    assert enc.encode_ordinary("hello there world") == tok.encode_ordinary("hello there world")


# ------------------------------------------------------------------ parsing fast and slow
BYTES_TEXT = "".join(ranks.ranks_text({bytes([b]): b for b in range(256)}))


def test_the_empty_token_line_is_read_as_tiktoken_reads_it(tmp_path):
    from tiktoken.load import load_tiktoken_bpe
    data = (BYTES_TEXT + "= 256\nYWI= 257\n").encode()
    got = ranks.parse_ranks(data)
    assert got[b""] == 256 and got[b"ab"] == 257
    path = tmp_path / "e.tiktoken"
    path.write_bytes(data)
    assert load_tiktoken_bpe(str(path)) == got
    assert ranks.parse_ranks(ranks.ranks_text(got).encode()) == got  # written back as "="
    assert recover_merges(got) == {(97, 98): 257}  # the empty token is no merge
    with pytest.raises(ValueError, match="line 258: token b'' appears twice"):
        ranks.parse_ranks((BYTES_TEXT + "= 256\n== 257\n").encode())


def test_the_fast_parser_gives_the_line_parsers_ranks(gpt4):
    data = ranks.ranks_text(gpt4.ranks).encode()
    fast = ranks._parse_well_formed(data)
    assert fast == ranks._parse_lines(data, "x") == gpt4.ranks
    assert list(fast) == list(gpt4.ranks)  # in file order too


@pytest.mark.parametrize("damage, message", [
    ("YWI= 257\nYWI= 258\n", "line 258: token b'ab' appears twice"),
    ("YWI= 255\n", "line 257: rank 255 is given to"),
    ("YWI= +257\n", r"the rank '\+257' is not"),
    ("YWI=  257 x\n", "expected '<base64 token> <rank>'"),
    ("YW!= 257\n", "'YW!=' is not valid base64"),
    ("YWI= 123456789\n", "line 257"),
    ("YWI=\t257\n\n\nYWM= 258\n", None),  # tabs and blank lines: read by the line parser
    (" 257\n", "expected '<base64 token> <rank>'"),
])
def test_anything_odd_goes_to_the_line_parser(damage, message):
    data = (BYTES_TEXT + damage).encode()
    assert ranks._parse_well_formed(data) is None
    if message is None:
        assert ranks.parse_ranks(data)[b"ac"] == 258
        return
    with pytest.raises(ValueError, match=message):
        ranks.parse_ranks(data)

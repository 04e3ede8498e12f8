"""The teaching pages' measurements (lab.jobs.workers: data sufficiency, the vocab/pattern
sweep, the extension curve) and viz.sweep's charts and tables of them."""
from bpe import GPT4Tokenizer, RegexTokenizer
from bpe.extend import ExtendedTokenizer, extend_vocabulary
from lab.jobs.workers import data_sufficiency, extension_counts, extension_curve, sweep
from viz.sweep import extension_charts, new_tokens_rows, sufficiency_charts, sweep_chart


def test_data_sufficiency(shakespeare):
    train, held = shakespeare[:100000], shakespeare[-20000:]
    seen = []
    rows = data_sufficiency(train, held, 400, progress=seen.append)
    assert [r["fraction"] for r in rows] == [0.01, 0.05, 0.25, 1.0]
    assert rows[-1]["share of the full vocabulary"] == 1.0
    assert rows[0]["share of the full vocabulary"] < rows[-1]["share of the full vocabulary"]
    assert rows[0]["bytes/token"] < rows[-1]["bytes/token"]
    assert seen and seen[-1].total == 400 - 256
    assert len([c.to_dict() for c in sufficiency_charts(rows)]) == 2


def test_sweep_sizes_are_exact_prefixes(shakespeare):
    train, held = shakespeare[:60000], shakespeare[-10000:]
    rows = sweep(train, held, [300, 400], {"GPT-4": "gpt4", "none": ""})
    assert len(rows) == 4
    small = RegexTokenizer("gpt4").train(train, 300)
    n_bytes = len(held.encode())
    expect = n_bytes / len(small.encode_ordinary(held))
    assert rows[0]["vocab size"] == 300 and abs(rows[0]["bytes/token"] - expect) < 1e-12
    sweep_chart(rows).to_dict()


def test_extension_counts_match_truncated_extensions(shakespeare):
    gpt4 = GPT4Tokenizer()
    ext = extend_vocabulary(gpt4, shakespeare[:100000], 80)
    held = shakespeare[-20000:]
    counts = extension_counts(ext, held)
    for k in (0, 7, 80):
        part = ExtendedTokenizer(gpt4, dict(list(ext.new_merges.items())[:k]))
        assert counts[k] == len(part.encode_ordinary(held))
    rows = extension_curve(ext, {"domain": held, "general": "Hello there, general text."})
    assert {r["text"] for r in rows} == {"domain", "general"}
    assert max(r["new merges"] for r in rows) == 80
    assert len([c.to_dict() for c in extension_charts(rows)]) == 2


def test_new_tokens_show_as_every_table_shows_them(gpt4):
    """Extend's table writes tokens with the lab's one display text (· ↵, hex for part
    of a character), not bpe's render_token (\\u000a, �)."""
    ext = ExtendedTokenizer(gpt4, {(220, 198): gpt4.n_vocab})  # " " + "\n"
    row = new_tokens_rows(ext)[0]
    assert row["token"] == "·↵" and row["parts"] == "'·' + '↵'"

"""The five learning views in AppTest: Vocabulary, Merge tree, Merge replay, Regex chunks
and Special tokens, each with GPT-4 and with a tokenizer trained here and put in the
session, as the Train page would."""
import ast
import re

import pytest

from bpe import BasicTokenizer, RegexTokenizer
from bpe.replay import encode_with_first_merges, merge_applications, merge_parents
from helpers.component_data import marked_ids, token_rows
from viz.samples import DEFAULT_SAMPLE, SAMPLES

GPT4_NAME = "GPT-4 (cl100k_base)"
N_MERGES = 100


@pytest.fixture(scope="module")
def mine(taylorswift, small_tok):
    return small_tok(taylorswift[:30000], 256 + N_MERGES)


def with_mine(at, key, tok, name="mine"):
    """Put tok in the session's tokenizers and pick it in the page's picker."""
    at.session_state["lab_tokenizers"] = {name: tok}
    at.run()
    at.selectbox(key=key).select(name).run()
    assert not at.exception
    return at


def metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def texts(elements):
    return [e.value for e in elements]




# ------------------------------------------------------------------------ vocabulary
def test_vocabulary_with_gpt4(open_page, gpt4):
    at = open_page("pages/vocabulary.py")
    assert not at.exception
    assert metric(at, "Tokens") == f"{len(gpt4.vocab):,}"
    assert metric(at, "Merges") == "100,000"
    assert metric(at, "Special tokens") == "5"
    assert any("no merge counts recorded" in i for i in texts(at.info))
    # the detail panel starts on token 256 and names its pair
    assert at.number_input(key="vocab_id").value == 256
    assert any("Made by merge **1**" in m for m in texts(at.markdown))
    at.text_input(key="vocab_query").input(" token").run()
    assert not at.exception
    table = at.dataframe[0].value
    assert len(table) > 0 and all(" token" in t.replace("·", " ") for t in table["token"])
    # the sample text's usage: tokens used and the rest never touched
    used = len(set(gpt4.encode(SAMPLES[DEFAULT_SAMPLE])))
    assert metric(at, "Distinct tokens used") == f"{used:,}"
    assert metric(at, "Vocabulary never touched") == f"{len(gpt4.vocab) - 5 - used:,}"


def test_vocabulary_search_errors_are_messages(open_page):
    at = open_page("pages/vocabulary.py")
    at.radio(key="vocab_mode").set_value("regex").run()
    at.text_input(key="vocab_query").input("(unclosed").run()
    assert not at.exception
    assert any("invalid regex" in e for e in texts(at.error))
    at.number_input(key="vocab_id").set_value(100257).run()
    assert any("special token" in m for m in texts(at.markdown))


def test_vocabulary_with_a_trained_tokenizer(open_page, mine):
    at = with_mine(open_page("pages/vocabulary.py"), "vocab_tokenizer", mine)
    assert metric(at, "Tokens") == f"{256 + N_MERGES:,}"
    assert not any("no merge counts" in i for i in texts(at.info))
    at.selectbox(key="vocab_sort").select("merge count").run()
    at.toggle(key="vocab_desc").set_value(True).run()
    top = at.dataframe[0].value
    assert top["count"].iloc[0] == max(mine.merge_counts.values())
    at.number_input(key="vocab_id").set_value(256).run()
    assert any(f"occurred **{mine.merge_counts[256]:,}** times" in m for m in texts(at.markdown))


# ------------------------------------------------------------------------ merge tree
def dot_of(at):
    charts = at.get("graphviz_chart")
    assert len(charts) == 1
    return charts[0].proto.spec


def test_merge_tree_with_gpt4(open_page, gpt4):
    at = open_page("pages/merge_tree.py")
    assert not at.exception
    dot = dot_of(at)
    assert dot.startswith("digraph") and "count not recorded" in dot
    at.radio(key="tree_how").set_value("By its text").run()
    at.text_input(key="tree_text").input(" tokenizer").run()
    idx = gpt4.encode(" tokenizer")[0]
    assert f"id {idx} · merge {idx - 255:,}" in dot_of(at)
    assert at.query_params["token"] == str(idx)
    at.text_input(key="tree_text").input("no such token at all").run()
    assert any("no single token" in e for e in texts(at.error))
    at.radio(key="tree_how").set_value("By id").run()
    at.number_input(key="tree_id").set_value(100257).run()
    assert not at.exception and any("special token" in e for e in texts(at.error))


def test_merge_tree_opens_a_linked_token(open_page, gpt4):
    at = open_page()
    at.query_params["token"] = "1820"
    at.switch_page("pages/merge_tree.py").run()
    assert not at.exception
    assert at.number_input(key="tree_id").value == 1820
    assert "id 1820 · merge" in dot_of(at)


def test_merge_tree_with_a_trained_tokenizer(open_page, mine):
    at = with_mine(open_page("pages/merge_tree.py"), "tree_tokenizer", mine)
    dot = dot_of(at)
    last = max(mine.merges.values())
    at.radio(key="tree_how").set_value("By id").run()
    at.number_input(key="tree_id").set_value(last).run()
    dot = dot_of(at)
    assert f"merge {N_MERGES}\\ncount {mine.merge_counts[last]:,}" in dot
    n_bytes = len(mine.vocab[last])  # a tree with n leaves has n - 1 merges, 2 edges each
    assert len(re.findall(r" -> ", dot)) == 2 * (n_bytes - 1)
    steps = at.dataframe[0].value
    assert steps["id"].iloc[-1] == last and steps["merge"].iloc[-1] == N_MERGES


# ------------------------------------------------------------------------ merge replay
def test_replay_with_gpt4(open_page, gpt4):
    at = open_page("pages/replay.py")
    assert not at.exception
    text = SAMPLES[DEFAULT_SAMPLE]
    parents = merge_parents(gpt4)
    # the slider spans the first 1,000 merges (they do most of the work), or all of them
    assert at.slider(key="replay_k").max == 1000
    assert at.selectbox(key="replay_zoom").options == [
        "slider: the first 100 merges", "slider: the first 1,000 merges",
        "slider: the first 10,000 merges", "slider: all 100,000 merges"]
    at.selectbox(key="replay_zoom").set_value(100_000).run()
    assert at.slider(key="replay_k").max == 100_000
    for k in (0, 5000, 100_000):
        at.slider(key="replay_k").set_value(k).run()
        assert not at.exception
        expected = encode_with_first_merges(gpt4, text, k, parents)
        assert metric(at, "Tokens at this k") == f"{len(expected):,}"
        assert at.number_input(key="replay_k_num").value == k
        (row,) = token_rows(at, "replay_view")
        assert row["ids"] == expected and row["text"] == text
    # the exact number moves the slider, and the step names its merge
    the = gpt4.encode("the")[0]
    at.number_input(key="replay_k_num").set_value(the - 255).run()
    assert at.slider(key="replay_k").value == the - 255
    assert any("-> [the]" in c for c in texts(at.code))
    (row,) = token_rows(at, "replay_view")
    outlined = marked_ids(row, "outline")
    assert outlined and all(the in ids for ids in outlined)
    assert len(outlined) == row["ids"].count(the)  # every token it made, and only those


def test_replay_jumps_between_the_merges_the_text_uses(open_page, gpt4):
    at = open_page("pages/replay.py")
    text = SAMPLES[DEFAULT_SAMPLE]
    parents = merge_parents(gpt4)
    used = sorted(idx - 255 for idx in merge_applications(gpt4.encode(text), parents))
    after = next(k for k in used if k > 100)
    at.button(key="replay_next").click().run()
    assert at.slider(key="replay_k").value == after
    assert any("It stands **" in m for m in texts(at.markdown))  # the merge occurs here
    at.button(key="replay_prev").click().run()
    assert at.slider(key="replay_k").value == max(k for k in used if k < after)
    at.number_input(key="replay_k_num").set_value(used[-1]).run()
    assert at.button(key="replay_next").disabled


def test_replay_play_steps_and_stops(open_page, gpt4):
    at = open_page("pages/replay.py")
    parents = merge_parents(gpt4)
    used = sorted(idx - 255 for idx in
                  merge_applications(gpt4.encode(SAMPLES[DEFAULT_SAMPLE]), parents))
    # a play run advances k to the next merge the text uses (the timer repeats that run)
    at.button(key="replay_play").click().run()
    assert not at.exception and at.session_state["replay_playing"]
    assert at.button(key="replay_play").label == "Stop"
    assert at.slider(key="replay_k").value == next(k for k in used if k > 100)
    at.button(key="replay_play").click().run()
    assert not at.session_state["replay_playing"]
    # at the last step, playing stops by itself
    at.number_input(key="replay_k_num").set_value(100_000).run()
    assert at.slider(key="replay_k").max == 100_000  # the slider widened to hold k
    at.button(key="replay_play").click().run()
    assert not at.exception and not at.session_state["replay_playing"]
    assert at.button(key="replay_play").label == "Play"


def test_replay_slider_zooms_on_the_first_merges_and_widens_for_k(open_page):
    at = open_page("pages/replay.py")
    at.selectbox(key="replay_zoom").set_value(100).run()
    assert at.slider(key="replay_k").max == 100 and at.slider(key="replay_k").value == 100
    at.slider(key="replay_k").set_value(37).run()
    assert at.number_input(key="replay_k_num").value == 37
    at.number_input(key="replay_k_num").set_value(5000).run()  # past the first 100
    assert at.slider(key="replay_k").max == 10_000 and at.slider(key="replay_k").value == 5000
    assert at.selectbox(key="replay_zoom").value == 10_000


def test_replay_with_a_trained_tokenizer(open_page, mine):
    at = open_page("pages/replay.py")
    at.number_input(key="replay_k_num").set_value(50_000).run()
    at = with_mine(at, "replay_tokenizer", mine)
    assert at.slider(key="replay_k").max == N_MERGES
    assert at.slider(key="replay_k").value == N_MERGES  # clamped to the smaller tokenizer
    text = SAMPLES[DEFAULT_SAMPLE]
    assert metric(at, "Tokens at this k") == f"{len(mine.encode(text)):,}"
    at.slider(key="replay_k").set_value(1).run()
    assert metric(at, "Tokens at this k") == f"{len(encode_with_first_merges(mine, text, 1)):,}"
    assert any("pair occurred" in m for m in texts(at.markdown))


def test_replay_of_a_tokenizer_without_merges(open_page):
    at = with_mine(open_page("pages/replay.py"), "replay_tokenizer", BasicTokenizer(), "bytes")
    assert any("nothing to replay" in i for i in texts(at.info))


# ------------------------------------------------------------------------ regex chunks
def test_chunks_with_gpt4(open_page, gpt4):
    at = open_page("pages/regex_chunks.py")
    assert not at.exception
    assert at.selectbox(key="chunks_preset").value == "The tokenizer's own"
    assert metric(at, "Tokens crossing a chunk") == "0"
    (row,) = token_rows(at, "chunks_view")
    assert row["ids"] == gpt4.encode_ordinary(at.text_area(key="chunks_text").value)
    assert len(row["chunk"]) == len(row["n"]) and row["chunk"][-1] > 10  # chunk per span
    assert row["marks"] == {"outline": []}  # its own pattern: nothing crosses
    at.selectbox(key="chunks_preset").select("GPT-2 (r50k_base)").run()
    assert at.text_area(key="chunks_pattern").value.startswith("'(?:[sdmt]")


def test_chunks_bad_and_catastrophic_patterns_are_messages(open_page):
    at = open_page("pages/regex_chunks.py")
    at.text_area(key="chunks_pattern").input("(unclosed").run()
    assert not at.exception
    assert at.selectbox(key="chunks_preset").value == "Custom"
    assert any("invalid split pattern" in e for e in texts(at.error))
    at.text_area(key="chunks_pattern").input("(a|a)+$").run()
    at.text_area(key="chunks_text").input("a" * 40 + "!").run()
    assert not at.exception
    assert any("stopped" in e for e in texts(at.error))


def test_chunks_flag_tokens_crossing_another_pattern(open_page, mine):
    basic = BasicTokenizer().train(SAMPLES[DEFAULT_SAMPLE] * 3, 256 + 60)
    at = with_mine(open_page("pages/regex_chunks.py"), "chunks_tokenizer", basic, "basic")
    assert at.selectbox(key="chunks_preset").value == "GPT-2 (r50k_base)"  # no pattern of its own
    assert int(metric(at, "Tokens crossing a chunk")) > 0
    assert any("cross a boundary" in w for w in texts(at.warning))
    (row,) = token_rows(at, "chunks_view")
    assert len(row["marks"]["outline"]) == int(metric(at, "Tokens crossing a chunk"))
    at = with_mine(at, "chunks_tokenizer", mine)
    at.selectbox(key="chunks_preset").select("The tokenizer's own").run()
    assert at.text_area(key="chunks_pattern").value == mine.pattern
    assert metric(at, "Tokens crossing a chunk") == "0"


# ------------------------------------------------------------------------ special tokens
def test_specials_with_gpt4(open_page):
    from lab.state import gpt4 as shared_gpt4
    at = open_page("pages/specials.py")
    assert not at.exception
    codes = texts(at.code)
    assert [c for c in codes if c.startswith("allowed_special=")] == [
        "allowed_special='all'", "allowed_special='none'", "allowed_special='none_raise'",
        "allowed_special={'<|endoftext|>'}, disallowed_special=()"]
    assert any("raised ValueError" in w for w in texts(at.warning))
    # the id lists, one per policy that did not raise
    lists = [ast.literal_eval(c) for c in codes if c.startswith("[")]
    assert len(lists) == 3  # none_raise raised
    im_start = 100277  # the first free id after GPT-4's vocabulary and special tokens
    assert lists[0][0] == im_start and 100257 in lists[0]
    assert im_start not in lists[1] and 100257 not in lists[1]
    assert 100257 in lists[2] and im_start not in lists[2]
    # the sandbox registered on a copy: the server's GPT-4 never learns <|im_start|>
    assert "<|im_start|>" not in shared_gpt4().special_tokens


def test_specials_errors_are_messages(open_page):
    at = open_page("pages/specials.py")
    at.text_area(key="specials_defs").input("<|x|> 500").run()
    assert not at.exception
    assert any("already an ordinary token" in e for e in texts(at.error))


def test_specials_with_a_trained_tokenizer(open_page, mine):
    at = with_mine(open_page("pages/specials.py"), "specials_tokenizer", mine)
    at.text_area(key="specials_text").input("a<|endoftext|>b").run()
    assert not at.exception
    first = 256 + N_MERGES  # automatic ids start after the vocabulary
    lists = [c for c in texts(at.code) if c.startswith("[")]
    assert f"{first}" in lists[0] and str(first) not in lists[1]



"""The Arena page in AppTest, its data in viz.arena, and the app without one vocabulary
package."""
import dataclasses

import pytest
from streamlit.testing.v1 import AppTest

from bpe import reference
from helpers.app import ROOT
from lab import state
from lab.token_view import unpack
from viz import arena

PAGE = str(ROOT / "pages" / "arena.py")


def run_page(timeout=120):
    at = AppTest.from_file(PAGE, default_timeout=timeout)
    at.run()
    assert not at.exception
    return at


def views(at):
    """key -> the data each token view on the page was handed."""
    return {element.proto.id.rsplit("-", 1)[-1]: unpack(element.proto.bytes)
            for element in at.get("bidi_component")}


def lane_lines(at):
    return [m.value for m in at.markdown if "bytes/token" in m.value]


def test_samples_are_all_listed_and_cover_the_brief():
    files = {p.name for p in arena.ARENA_DIR.glob("*.txt")}
    assert files == set(arena.ARENA_SAMPLES.values())
    samples = arena.arena_samples()
    assert len(samples) >= 12 and all(text.strip() for text in samples.values())
    for label in ["English", "Python code", "JSON", "Numbers", "German", "Russian", "Arabic",
                  "Hindi", "Chinese", "Japanese", "Korean", "Emoji"]:
        assert label in samples
    readme = (arena.ARENA_DIR / "README.md").read_text()
    assert all(name in readme for name in arena.ARENA_SAMPLES.values())


def test_frame_marks_the_best_per_row():
    toks = {n: reference.load_reference(n) for n in ["r50k_base", "o200k_base"]}
    samples = arena.arena_samples()
    frame = arena.bytes_per_token_frame(toks, samples)
    assert list(frame.index) == list(samples) and list(frame.columns) == list(toks)
    marked = arena.best_marked(frame)
    # GPT-4o packs Hindi far better than GPT-2's English-centred vocabulary
    assert marked.at["Hindi", "o200k_base"].startswith("★")
    assert not marked.at["Hindi", "r50k_base"].startswith("★")
    assert frame.at["Hindi", "o200k_base"] > 2 * frame.at["Hindi", "r50k_base"]
    assert arena.bytes_per_token_chart(frame).to_dict()["mark"]["type"] == "bar"


def test_default_arena_shows_four_tokenizers_with_badges():
    at = run_page()
    assert at.multiselect(key="arena_picks").value == [
        "GPT-4 (cl100k_base)", "GPT-4o (o200k_base)", "Llama 3", "Mistral Tekken"]
    lines = lane_lines(at)
    assert len(lines) == 4
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    assert badges == [":green-badge[:material/check: ids == tiktoken]"] * 2 + [
        ":green-badge[:material/check: ids == llama_models]",
        ":green-badge[:material/check: ids == mistral_common]"]
    shown = views(at)
    text = at.session_state["arena_text"]
    for i, name in enumerate(["cl100k_base", "o200k_base", "llama3", "tekken"]):
        row = shown[f"arena_lane_{i}"]["rows"][0]
        assert row["ids"] == reference.load_reference(name).encode_ordinary(text)
        assert row["text"] == text
    assert sorted(k for k in shown if k.startswith("arena_chat_")) == [
        "arena_chat_cl100k_base", "arena_chat_llama3", "arena_chat_o200k_base",
        "arena_chat_tekken"]
    table = at.dataframe[0].value
    assert list(table.columns) == at.multiselect(key="arena_picks").value
    assert len(table) == len(arena.ARENA_SAMPLES)


def test_all_eight_and_visitor_text_escaped():
    at = run_page()
    every = [n for n in state.tokenizer_names() if n in
             {r.label for r in reference.REFERENCES.values()}]
    assert len(every) == 8
    at.multiselect(key="arena_picks").set_value(every).run()
    at.session_state["arena_text"] = "<b>**x**</b> <|endoftext|> [INST] 日本"  # the live box
    at.run()
    assert not at.exception
    assert len(lane_lines(at)) == 8
    assert all("ids ==" in m.value for m in at.markdown if "-badge[" in m.value)
    assert not any("<b>" in h.value for h in at.html)  # no raw HTML anywhere
    assert len([k for k in views(at) if k.startswith("arena_lane_")]) == 8
    # chat cost: seven of the eight have a chat format (GPT-2 has none)
    summary = at.dataframe[-1].value
    assert len(summary) == 7 and (summary["overhead"] > 0).all()


def test_own_sample_joins_the_table():
    at = run_page()
    at.text_input(key="arena_own_name").input("**Mine**")
    at.text_area(key="arena_own_text").input("tokens tokens tokens")
    next(b for b in at.button if b.label == "Add to the samples").click().run()
    assert not at.exception
    table = at.dataframe[0].value
    assert "**Mine**" in table.index
    assert any("\\*\\*Mine\\*\\*" in s.value for s in at.success)
    assert "**Mine**" in at.selectbox(key="arena_sample").options


def test_a_missing_vocabulary_package_is_named_and_the_page_still_works(monkeypatch):
    gone = dataclasses.replace(reference.REFERENCES["llama3"], module="no_such_package_here")
    monkeypatch.setitem(reference.REFERENCES, "llama3", gone)
    state._reference_status.cache_clear()
    try:
        at = run_page()
        assert "Llama 3" not in at.multiselect(key="arena_picks").options
        assert len(lane_lines(at)) == 3
        shown = " ".join(c.value for c in at.caption).replace("\\", "")
        assert "'llama-models'" in shown
        assert "pip install --no-deps -r requirements-vocab.txt" in shown
    finally:
        state._reference_status.cache_clear()

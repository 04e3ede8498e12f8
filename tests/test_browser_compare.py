"""Compare's one aligned view in real Chromium: A's and B's cut marks for the same byte
offset stand at the same x, lines wrap only between segments, and hovering a token of A
lights up exactly the tokens of B that overlap it. Screenshot: screenshots/compare_aligned.png."""
from conftest import screenshot, wait_rendered

CUTS = """els => els.map(e => [Number(e.dataset.byte), e.getBoundingClientRect().x,
                            e.getBoundingClientRect().y])"""


def open_compare_with_the_quick_pair(tab):
    tab.get_by_role("link", name="Compare").click()
    tab.get_by_role("button", name="Train Regex and Basic").click()
    tab.locator(".cmp .seg").first.wait_for(timeout=120_000)
    wait_rendered(tab)


def test_cut_marks_of_a_and_b_line_up_and_hover_links_the_sides(page):
    open_compare_with_the_quick_pair(page)
    for width in (1400, 800):
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_timeout(500)
        cuts_a = {b: (x, y) for b, x, y in page.locator(".cmp .cut-a").evaluate_all(CUTS)}
        cuts_b = {b: (x, y) for b, x, y in page.locator(".cmp .cut-b").evaluate_all(CUTS)}
        shared = cuts_a.keys() & cuts_b.keys()
        assert len(shared) > 20 and cuts_a.keys() - shared and cuts_b.keys() - shared
        for offset in shared:
            assert abs(cuts_a[offset][0] - cuts_b[offset][0]) <= 1, offset
            assert 0 < cuts_b[offset][1] - cuts_a[offset][1] < 40  # B's mark below A's
        # a cut only A makes stands where B's band passes under that byte
        seg_x = dict(page.locator(".cmp .seg").evaluate_all(
            """els => els.map(e => [Number(e.dataset.bytes.split('-')[0]),
                                    e.querySelector('.bb').getBoundingClientRect().x])"""))
        for offset in cuts_a.keys() - shared:
            assert abs(cuts_a[offset][0] + 1 - seg_x[offset]) <= 1.5, offset
        # every segment is one box: a line never breaks inside one
        assert page.locator(".cmp .seg").evaluate_all(
            "els => els.every(e => e.getClientRects().length === 1)")
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.wait_for_timeout(300)

    # hover the text of a segment: its A token and the overlapping B tokens light up
    seg = page.locator(".cmp .seg").nth(5)
    seg.locator(".ch").hover()
    a = int(seg.get_attribute("data-a"))
    lit_a = page.locator(".cmp .seg.hl-a").evaluate_all(
        "els => els.map(e => [Number(e.dataset.a), e.dataset.bytes])")
    assert lit_a and {i for i, _ in lit_a} == {a}
    start = min(int(b.split("-")[0]) for _, b in lit_a)
    end = max(int(b.split("-")[1]) for _, b in lit_a)
    lit_b = page.locator(".cmp .seg.hl-b").evaluate_all(
        "els => els.map(e => [Number(e.dataset.b), e.dataset.bytes])")
    spans_b = {}
    for b, bytes_ in lit_b:
        s, e = map(int, bytes_.split("-"))
        lo, hi = spans_b.get(b, (s, e))
        spans_b[b] = (min(lo, s), max(hi, e))
    assert spans_b and all(s < end and e > start for s, e in spans_b.values())  # overlap A's
    card = page.locator(".cmp .cmp-card")
    assert card.is_visible() and f"A #{a}" in card.inner_text()
    screenshot(page, "compare_aligned")


def test_visitor_text_stays_text(page):
    page.get_by_role("link", name="Compare").click()
    wait_rendered(page)
    box = page.locator('[data-testid="stTextArea"] textarea').first
    box.fill('<img src=x onerror="document.title=\'pwned\'"> <script>alert(1)</script>')
    box.press("Control+Enter")
    page.locator(".cmp .seg").first.wait_for(timeout=60_000)
    wait_rendered(page)
    assert page.title() != "pwned"
    assert page.locator(".cmp img, .cmp script").count() == 0
    assert "<img" in page.locator(".cmp .cmp-text").inner_text().replace("·", " ")

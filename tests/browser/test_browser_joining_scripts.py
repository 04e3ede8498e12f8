"""Right-to-left, joining scripts in the token view, in Chromium: an Arabic word that is
one GPT-4o token is drawn as one shaped run (one text node, as wide as the same text in a
plain span, and drawn unlike its letters set apart, which take their isolated forms), the
tokens stay in logical order, and screenshots in light and dark are saved for people to
look at."""
import urllib.parse

import pytest
from helpers.app import until

from lab.share import pack_text

pytestmark = pytest.mark.browser

WORDS = " العربية السلام المدرسة"  # three GPT-4o tokens, one word each
TEXT = "Arabic:" + WORDS

# per token box: its text, its child nodes' types, its width, the width of the same text
# in a plain span of the same font
MEASURE_JS = """() => {
    for (const host of document.querySelectorAll('*')) {
        const root = host.shadowRoot;
        if (!root || !root.querySelector('.tokens .tok')) continue;
        const plain = (text, font) => {
            const s = document.createElement('span');
            s.style.font = font;
            s.style.whiteSpace = 'pre';
            s.textContent = text;
            document.body.appendChild(s);
            const w = s.getBoundingClientRect().width;
            s.remove();
            return w;
        };
        return [...root.querySelectorAll('.tokens .tok')].map((t) => {
            const style = getComputedStyle(t);
            const inner = t.getBoundingClientRect().width - parseFloat(style.paddingLeft)
                - parseFloat(style.paddingRight) - parseFloat(style.borderLeftWidth)
                - parseFloat(style.borderRightWidth);
            return {text: t.textContent, nodes: [...t.childNodes].map((n) => n.nodeType),
                    width: inner, plain: plain(t.textContent, style.font),
                    left: t.getBoundingClientRect().left};
        });
    }
    return null;
}"""



@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_an_arabic_word_of_one_token_is_one_shaped_run(browser, app_url, scheme):
    from helpers.app import screenshot, wait_rendered
    context = browser.new_context(viewport={"width": 900, "height": 900}, color_scheme=scheme)
    tab = context.new_page()
    try:
        query = urllib.parse.urlencode({"tokenizer": "GPT-4o (o200k_base)",
                                        "ztext": pack_text(TEXT)})
        tab.goto(f"{app_url}/?{query}")
        wait_rendered(tab)
        assert until(lambda: (tab.evaluate(MEASURE_JS) or [{}])[-1].get("text") == " المدرسة")
        boxes = tab.evaluate(MEASURE_JS)
        words = [b for b in boxes if any("\u0600" <= ch <= "\u06ff" for ch in b["text"])]
        assert [b["text"] for b in words] == WORDS.replace(" ", "\n ").split("\n")[1:]
        for box in words:
            assert box["nodes"] == [3], f"{box['text']!r}: not one text node"
            assert abs(box["width"] - box["plain"]) <= 1, box  # shaped as a plain span is
        # logical order: the first word's token left of the second's, and so on
        lefts = [b["left"] for b in words]
        assert lefts == sorted(lefts)
        tab.locator(".tv .tokens").first.screenshot(
            path=str(_shots() / f"arabic_{scheme}.png"))
        screenshot(tab, f"tokenize_arabic_{scheme}")
        # the same box with its letters each in an inline-block of its own (isolated
        # forms, as when each letter was drawn apart) looks different
        token = tab.locator(".tv .tokens .tok", has_text="المدرسة").first
        shaped = token.screenshot()
        token.evaluate("""(t) => {
            const text = t.textContent;
            t.textContent = '';
            for (const ch of text) {
                const s = document.createElement('span');
                s.style.display = 'inline-block';
                s.textContent = ch;
                t.append(s);
            }
        }""")
        assert token.screenshot() != shaped, "the token's letters were drawn isolated"
    finally:
        context.close()


def _shots():
    from helpers.app import SCREENSHOTS
    SCREENSHOTS.mkdir(exist_ok=True)
    return SCREENSHOTS


# --- a word cut into letters (tests/helpers/token_view_app.py ?view=letters) -------------
LETTERS = "مرحبا بالعالم، شكراً"

@pytest.fixture(scope="module")
def letters_url():
    from helpers.app import ROOT, streamlit_server
    with streamlit_server(ROOT / "tests" / "helpers" / "token_view_app.py") as (url, _):
        yield url + "/?" + urllib.parse.urlencode({"view": "letters", "text": LETTERS})


def _joins(before, after):
    """Unicode's rule, from `regex`'s Joining_Type: the letter before the cut (marks
    skipped) joins forward (D, C) and the one after joins backward (D, C, R)."""
    import regex
    a = regex.sub(r"\p{Joining_Type=T}+$", "", before)[-1:]
    b = regex.sub(r"^\p{Joining_Type=T}+", "", after)[:1]
    return bool(a and b and regex.match(r"[\p{jt=D}\p{jt=C}]", a)
                and regex.match(r"[\p{jt=D}\p{jt=C}\p{jt=R}]", b))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_letters_cut_apart_keep_their_joined_forms(browser, letters_url, scheme):
    context = browser.new_context(viewport={"width": 700, "height": 500}, color_scheme=scheme)
    tab = context.new_page()
    try:
        tab.goto(letters_url)
        boxes = tab.locator(".tv .tokens .tok")
        boxes.first.wait_for(timeout=60_000)
        drawn = boxes.evaluate_all("els => els.map((e) => e.textContent)")
        import regex
        spans = regex.findall(r"\X", LETTERS)  # a letter and its marks: one box
        want = []
        for k, span in enumerate(spans):
            lead = "\u200d" if k and _joins(spans[k - 1], span) else ""
            trail = "\u200d" if k + 1 < len(spans) and _joins(span, spans[k + 1]) else ""
            want.append(lead + span + trail)
        assert drawn == want
        # ر joins only the letter before it: ح after it starts a new joined run
        assert drawn[:4] == ["م\u200d", "\u200dر", "ح\u200d", "\u200dب\u200d"]
        # the medial ب drawn with its joiners looks unlike the isolated one
        medial = boxes.nth(3)
        joined = medial.screenshot()
        medial.evaluate("(e) => { e.textContent = e.textContent.replaceAll('\\u200d', ''); }")
        assert medial.screenshot() != joined
        medial.evaluate("(e) => { e.textContent = '\\u200dب\\u200d'; }")
        tab.locator(".tv .tokens").first.screenshot(
            path=str(_shots() / f"arabic_letters_{scheme}.png"))
    finally:
        context.close()

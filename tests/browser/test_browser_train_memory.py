"""The Train form remembers its settings across pages, in real Chromium: a Kind chosen
as the very last change before leaving (a form widget, whose value the browser holds
until Train is pressed) is still chosen on return, and so is a vocab size.

Each change reruns the page, which keeps its value (lab.memory). A link clicked before
that rerun has begun wins over it: Streamlit (1.67) merges the two requests and keeps
only the link's widget values, which hold none of the page left behind. So these tests
leave at a person's pace, once the change's run has finished."""
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from helpers.app import until, wait_rendered


def go(tab, link):
    tab.get_by_role("link", name=link, exact=True).click()
    tab.locator('[data-testid="stMainBlockContainer"] h1').first.wait_for(timeout=60_000)
    wait_rendered(tab)


def kind(tab, label):
    return tab.locator(".st-key-train_kind").get_by_role("radio", name=label)


def choose_kind(tab, label):
    """Check a Kind radio (its input is hidden under its label, hence force). On a busy
    machine a rerun can redraw the radio under the click, which then changes nothing:
    try again until it is checked."""
    radio = kind(tab, label)

    def checked():
        try:
            radio.check(force=True, timeout=5_000)
        except PlaywrightError:
            pass  # redrawn under the click: the next try finds the new radio
        return radio.is_checked()
    assert until(checked), f"the {label} radio never took the click"


def test_kind_chosen_last_is_kept_after_another_page(start_on):
    page = start_on("train")
    choose_kind(page, "Basic")
    wait_rendered(page)
    go(page, "Vocabulary")
    go(page, "Train")
    expect(kind(page, "Basic")).to_be_checked(timeout=20_000)
    expect(kind(page, "Regex")).not_to_be_checked()


def test_vocab_size_then_kind_are_both_kept(start_on):
    page = start_on("train")
    size = page.locator(".st-key-train_vocab_size input")
    size.fill("777")
    size.press("Tab")
    wait_rendered(page)
    choose_kind(page, "Basic")
    wait_rendered(page)
    go(page, "Vocabulary")
    go(page, "Train")
    expect(kind(page, "Basic")).to_be_checked(timeout=20_000)
    expect(page.locator(".st-key-train_vocab_size input")).to_have_value("777")

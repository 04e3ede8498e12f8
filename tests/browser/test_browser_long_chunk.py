"""The browser's encoder (lab/token_view/encoder.js) on one huge chunk: one letter and
100,000 combining marks is a single 200 KB chunk under GPT-4's pattern. Its merge scanned
every pair for the lowest rank at each merge (quadratic: the Tokenize tab froze on 200,000
marks); now its work, counted by the encoder, grows as n log n, and its ids are Python's."""
from helpers.app import wait_rendered
from helpers.hostile_app import go

from lab.token_view.browser_vocab import browser_spec

ENCODE_IN_PAGE = """async ([spec, sizes]) => {
    const names = performance.getEntriesByType('resource').map((e) => e.name);
    const m = await import(names.find((n) => n.includes('encoder.js')));
    const ranks = names.find((n) => n.includes('.ranks.gz'));
    const enc = await m.loadEncoder(ranks.slice(0, ranks.lastIndexOf('/') + 1), spec);
    return sizes.map((n) => {
        enc.work = 0;
        enc.cache.clear();
        const ids = enc.encode('a' + '\\u0301'.repeat(n), false).ids;
        return [enc.work, ids];
    });
}"""


def test_one_huge_chunk_is_encoded_in_n_log_n_work(page, gpt4):
    go(page, "Tokenize")
    page.locator(".tv .tokens .tok").first.wait_for(timeout=60_000)
    wait_rendered(page)
    spec = browser_spec(gpt4)
    (work_1, ids_1), (work_2, ids_2) = page.evaluate(ENCODE_IN_PAGE, [spec, [50_000, 100_000]])
    assert ids_2 == gpt4.encode("a" + "\u0301" * 100_000)
    assert ids_1 == gpt4.encode("a" + "\u0301" * 50_000)
    # pairs looked up and heap pops: a few per byte of the chunk (200,001 bytes at 100,000
    # marks), and twice the bytes cost about twice the work (quadratic would be 4x)
    assert 0 < work_2 <= 8 * 200_001 and work_2 <= 2.3 * work_1, (work_1, work_2)

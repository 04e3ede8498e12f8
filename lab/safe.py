r"""User text in Streamlit's Markdown: the one place it is made inert.

Every caption, toast, error, success box and label that shows something a visitor
controls (a tokenizer name, a token, a pattern, a file name, an error message that
echoes one of those) passes it through `md()` first. Streamlit renders those strings as
Markdown, so `**b** ![i](http://host/x)` as a name would be bold and would make the
browser fetch an image. `md()` backslash-escapes every ASCII punctuation character,
which CommonMark then shows literally: no emphasis, no link, no image, no HTML, no
`:material/icon:` or `:red[color]` directive, no `$math$`. Escapes alone do not stop
GFM's bare-URL autolinks (they are found in the text after escapes are resolved), so
md() also puts an invisible U+200B inside every `://`, `www.` and before every `@`:
the text reads the same but links to nowhere. Inline code (code()) is never linked.

>>> print(md("**b** ![i](http://x/y) a@b.c").replace("\u200b", "|"))
\*\*b\*\* \!\[i\]\(http\:|\/\/x\/y\) a|\@b\.c
"""
import re
import string

_ESCAPE = {ord(ch): "\\" + ch for ch in string.punctuation}
_ESCAPE[ord("\n")] = "  \n"  # keep a line break a line break, not a new paragraph
# where GFM's autolink literal would start: http(s)://, www. and e-mail addresses
_AUTOLINK = re.compile(r"(?<=:)(?=//)|(?<=www)(?=\.)|(?=@)", re.IGNORECASE)


def md(text) -> str:
    """text with every Markdown-significant character escaped; safe inside any
    Streamlit Markdown string (st.markdown, st.caption, st.error, labels, toasts)."""
    return _AUTOLINK.sub("\u200b", str(text)).translate(_ESCAPE)


def code(text) -> str:
    """text as inline code that nothing in it can break out of (backticks included):
    a fence one backtick longer than the longest run inside, padded with spaces."""
    text = str(text).replace("\n", "↵")
    run = longest = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    return f"{fence} {text} {fence}"

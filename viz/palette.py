"""The token view's colors: backgrounds per theme (light pastels under near-black ink, deep
tones under near-white ink) and the WCAG contrast check that keeps every pair readable.
Colors only; lab/token_view/__init__.py sends VIEW_PALETTE to the browser, which picks by index.
"""

# Pastel backgrounds that stay readable under dark text; neighbours differ by hue.
PALETTE = ("#fde2a7", "#b9e4c9", "#c7d7fb", "#f8c8dc", "#d5f0a8", "#e3d0fb",
           "#ffd3b6", "#b5ead7", "#f3f0a1", "#cfe8f7", "#f7c5a8", "#d7d7d7")

# Token backgrounds per theme; the text on them is INK. Light: pastels under near-black
# text; dark: deep tones under near-white text. tests/viz/test_viz_tokens.py checks that every
# pair keeps a contrast of at least 4.5:1 (WCAG AA for normal text).
VIEW_PALETTE = {
    "light": list(PALETTE),
    "dark": ["#5c4514", "#1f5135", "#2a3f73", "#6b2846", "#3f5417", "#4a2f70",
             "#6e3a1c", "#155447", "#545014", "#1d4a66", "#6a3222", "#474747"],
    "ink_light": "#1b1b1b",
    "ink_dark": "#f2f2f2",
}


def contrast(fg, bg):
    """WCAG contrast ratio of two #rrggbb colors (1 to 21).

    >>> round(contrast("#000000", "#ffffff"), 1)
    21.0
    """
    def luminance(color):
        channels = [int(color[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)

"""Vocabulary health findings (bpe.health) as what the page draws: a summary table and one
table per finding, capped so a browser stays quick with GPT-4o's 200k tokens; and
`token_text`, what the page gives bpe.health_report to write tokens with, so its tables
show tokens as every other page does (viz.display.display_text, on one line). Pure."""
import pandas as pd

from viz.vocab import visible

ROWS_SHOWN = 2000  # table rows per finding; the rest are counted, not drawn
ICONS = {"invalid_utf8": ":material/broken_image:", "unreachable": ":material/block:",
         "unused": ":material/visibility_off:",
         "residue": ":material/layers:", "near_duplicates": ":material/content_copy:",
         "longest": ":material/straighten:", "low_count": ":material/trending_down:"}


def summary_rows(findings):
    """One row per finding: what, how many (None: not checked, the title says why), and
    whether there is a retrain hint.

    >>> from bpe.health import Finding
    >>> summary_rows([Finding("longest", "the 2 longest tokens", "", [{}, {}])])
    [{'finding': 'the 2 longest tokens', 'tokens': 2, 'retrain hint': ''}]
    """
    return [{"finding": f.title, "tokens": len(f.rows) if f.checked else None,
             "retrain hint": "yes" if f.hint else ""} for f in findings]


def finding_frame(finding, limit=ROWS_SHOWN):
    """(DataFrame of the first `limit` rows, how many rows were left out)."""
    return pd.DataFrame(finding.rows[:limit]), max(0, len(finding.rows) - limit)


def finding_csv(finding):
    """Every row of a finding as CSV text, for a download."""
    return pd.DataFrame(finding.rows).to_csv(index=False)


def token_text(token):
    """A token's bytes as the health tables show them: one line, markers for whitespace
    and invisible characters, hex for part of a character.

    >>> token_text(b" a\\n"), token_text("é".encode()[:1])
    ('·a↵', '⟨c3⟩')
    """
    return visible(token)

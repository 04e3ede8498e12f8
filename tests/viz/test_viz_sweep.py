"""viz.sweep's charts: each asks for the height its title and axes need (Streamlit fits
the whole chart into the height it is given), titles wrap, the extension's axes are
formatted, and the sweep tells apart series drawn one over the other."""
import altair as alt

from viz import sweep


def extension_rows(flat=3.638726):
    return [{"text": text, "new merges": k, "bytes/token": value}
            for k in (0, 100, 200)
            for text, value in (("domain (held out)", 4.5 + k / 10_000), ("general", flat))]


def test_extension_charts_have_room_and_formatted_axes():
    charts = sweep.extension_charts(extension_rows())
    assert len(charts) == 2
    for chart in charts:
        spec = chart.to_dict()
        assert spec["encoding"]["y"]["axis"]["format"] == ".3f"  # not 3.638726
        assert spec["title"]["text"][0].startswith("bytes per token, ")
        # the plot's own height, plus the title's line and the x axis
        assert sweep.element_height(chart) == chart.height + sweep.AXES_PX + sweep.TITLE_LINE_PX
        assert chart.height >= 180


def test_a_long_title_wraps_and_gets_the_room_of_every_line():
    text = "bytes per token, " + "a very long corpus name " * 5
    title = sweep.wrapped_title(text)
    assert len(title.text) > 1 and all(len(line) <= sweep.TITLE_CHARS for line in title.text)
    assert " ".join(title.text) == text.strip()
    chart = alt.Chart().mark_line().properties(height=100, title=title)
    assert sweep.element_height(chart) == 100 + sweep.AXES_PX + sweep.TITLE_LINE_PX * len(title.text)


def test_a_chart_without_title_needs_only_the_axes():
    chart = sweep.sweep_chart([{"pattern": "a", "vocab size": 300, "merges": 44,
                                "bytes/token": 2.0}])
    assert sweep.element_height(chart) == 320 + sweep.AXES_PX


def sweep_rows():
    # GPT-4 and GPT-4o as on taylorswift.txt: apart by 0.002, one line over the other
    values = {"GPT-4": (2.0398, 2.4289), "GPT-4o": (2.0376, 2.4279), "GPT-2": (2.0, 2.5),
              "custom": (2.0, 2.4)}
    return [{"pattern": p, "vocab size": size, "merges": size - 256, "bytes/token": v}
            for p, pair in values.items() for size, v in zip((300, 512), pair)]


def test_identical_series_are_named_and_drawn_with_their_own_dash():
    rows = sweep_rows()
    assert sweep.identical_series(rows) == [["GPT-4", "GPT-4o"]]  # GPT-2 and custom part at 512
    spec = sweep.sweep_chart(rows).to_dict()
    assert spec["encoding"]["strokeDash"]["field"] == "pattern"
    assert spec["encoding"]["color"]["field"] == "pattern"


def test_no_identical_series_no_note():
    rows = [r for r in sweep_rows() if r["pattern"] != "GPT-4o"]
    assert sweep.identical_series(rows) == []


def test_train_charts_subtitles_read_in_the_dark_and_get_their_room():
    from viz import train_result as vt
    chart = vt.compression_chart(vt.compression_frame([1000, 900, 800, 760]))
    title = chart.to_dict()["title"]
    assert title["subtitleColor"] == sweep.SUBTITLE_GREY  # the dark theme drew it black
    assert len(title["subtitle"]) > 1 and all(len(line) <= sweep.SUBTITLE_CHARS
                                              for line in title["subtitle"])
    assert sweep.element_height(chart) == chart.height + sweep.AXES_PX + \
        sweep.TITLE_LINE_PX * (1 + len(title["subtitle"]))

"""Every page script runs inside app.py's frame (see lab/pages_guard.py)."""
import ast

from helpers.app import ROOT


def test_every_page_calls_run_inside_frame_before_its_work():
    for path in sorted((ROOT / "pages").glob("*.py")):
        body = ast.parse(path.read_text(encoding="utf-8")).body
        calls = [i for i, node in enumerate(body)
                 if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                 and getattr(node.value.func, "id", None) == "run_inside_frame"]
        assert calls, f"{path.name} does not call run_inside_frame()"
        before = body[:calls[0]]
        assert all(isinstance(n, (ast.Import, ast.ImportFrom)) or
                   (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))
                   for n in before), f"{path.name} does work before run_inside_frame()"


def test_app_lists_every_page():
    app = (ROOT / "app.py").read_text(encoding="utf-8")
    for path in (ROOT / "pages").glob("*.py"):
        assert f'"pages/{path.name}"' in app, f"{path.name} is not in app.py's navigation"


def test_the_sidebar_lists_the_sessions_tokenizers_on_a_page_that_stops_early(open_page):
    """Tie rules stops (st.stop) until a training is done; the frame's sidebar still lists
    the session's tokenizers, drawn after the page whichever way it ended."""
    at = open_page("pages/ties.py")
    assert not at.exception
    assert "Tokenizers in this session" in [c.value for c in at.sidebar.caption]
    assert any("GPT-4 (cl100k_base)" in t.value for t in at.sidebar.text)

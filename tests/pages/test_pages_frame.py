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

"""What a page hands a Components v2 component, read back in AppTest: the token view's
rows (lab.token_view) and the aligned Compare view's data (lab.compare_view)."""
import json


def component_data(at, name, key):
    """The data the component registered as name was mounted with under key."""
    found = [e for e in at.get("bidi_component")
             if e.proto.component_name == name and e.proto.id.endswith("-" + key)]
    assert len(found) == 1, f"{len(found)} {name} components with key {key!r}"
    return json.loads(found[0].proto.json)


def token_rows(at, key):
    """The rows of the token view mounted under key."""
    return component_data(at, "lab_token_view", key)["rows"]


def marked_ids(row, mark):
    """The ids of the spans of row that carry mark (e.g. "outline")."""
    starts = [0]
    for n in row["n"]:
        starts.append(starts[-1] + n)
    return [row["ids"][starts[s]:starts[s + 1]] for s in row.get("marks", {}).get(mark, [])]

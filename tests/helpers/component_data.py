"""What a page hands the token view (lab.token_view), read back in AppTest."""
from lab.token_view import NAME, unpack


def token_view_data(at, key):
    """The data the token view mounted under key was given."""
    found = [e for e in at.get("bidi_component")
             if e.proto.component_name == NAME and e.proto.id.endswith("-" + key)]
    assert len(found) == 1, f"{len(found)} token views with key {key!r}"
    return unpack(found[0].proto.bytes)


def token_rows(at, key):
    """The rows of the token view mounted under key."""
    return token_view_data(at, key)["rows"]


def marked_ids(row, mark):
    """The ids of the spans of row that carry mark (e.g. "outline")."""
    starts = [0]
    for n in row["n"]:
        starts.append(starts[-1] + n)
    return [row["ids"][starts[s]:starts[s + 1]] for s in row.get("marks", {}).get(mark, [])]

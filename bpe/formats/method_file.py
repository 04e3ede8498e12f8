"""The lab's own file for the methods no other format can hold: SuperBPE (its stage-2
merges cross GPT-4's chunks), BoundlessBPE (merges of whole pretokens) and Picky BPE
that removed tokens (its encode replays merges and removals in order).

A minbpe `.model` applies every merge inside one chunk, and a tokenizer.json's BPE
applies merges by rank inside one pre-token, so neither can say "these merges first,
inside chunks, then those across them"; this JSON says exactly what the method's
encode replays. It is parsed and written here as data; bpe.methods.saved builds the
tokenizer from it, and bpe.load knows it by its first key.

    {"bpe_lab_method": 1, "method": "superbpe", "pattern": "...",
     "merges": [[a, b, idx], ...], "special_tokens": {"<|endoftext|>": 1000},
     "transition": 800}                       # superbpe
     "events": [["merge", a, b, idx], ["remove", idx, [piece, ...]], ...]  # picky

>>> data = method_file_text("boundless", "gpt4", [(97, 98, 256)], {})
>>> parse_method_file(data.encode())["merges"]
[(97, 98, 256)]
"""
import json

from .. import budgets

KEY = "bpe_lab_method"
VERSION = 1
KINDS = ("superbpe", "boundless", "picky")


def looks_like_method_file(head):
    """True if the file's first bytes open this format's JSON object."""
    return head.lstrip()[:40].startswith(b"{\"" + KEY.encode() + b"\"")


def method_file_text(method, pattern, merges, special_tokens, *, transition=None,
                     events=None):
    """The file's text. merges: (a, b, idx) triples in merge order; events (picky): the
    ("merge", (a, b), idx) / ("remove", idx, pieces) events in training order."""
    document = {KEY: VERSION, "method": method, "pattern": pattern,
                "merges": [[a, b, idx] for a, b, idx in merges],
                "special_tokens": dict(special_tokens)}
    if transition is not None:
        document["transition"] = transition
    if events is not None:
        document["events"] = [["merge", *event[1], event[2]] if event[0] == "merge"
                               else ["remove", event[1], list(event[2])] for event in events]
    return json.dumps(document, ensure_ascii=False)


def parse_method_file(data, source="method file"):
    """The file's data: method, pattern, merges [(a, b, idx)], special_tokens,
    transition (or None), events [("merge", (a, b), idx) | ("remove", idx, pieces)] (or
    None).
    ValueError with a sentence for anything else."""
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{source}: not a readable lab method file ({e})") from None
    if not isinstance(document, dict) or document.get(KEY) != VERSION:
        raise ValueError(f"{source}: not a lab method file of version {VERSION}")
    method = document.get("method")
    if method not in KINDS:
        raise ValueError(f"{source}: method {method!r} is not one this file holds "
                         f"({', '.join(KINDS)})")
    pattern = document.get("pattern")
    if not isinstance(pattern, str):
        raise ValueError(f"{source}: its pattern must be a string")
    merges = [_triple(m, source) for m in _list(document.get("merges", []), "merges", source)]
    events = document.get("events")
    if events is not None:
        events = [_event(e, source) for e in _list(events, "events", source)]
    specials = document.get("special_tokens", {})
    if not isinstance(specials, dict) or len(specials) > budgets.MAX_SPECIAL_TOKENS or not all(
            isinstance(k, str) and _is_id(v) for k, v in specials.items()):
        raise ValueError(f"{source}: special_tokens must map at most "
                         f"{budgets.MAX_SPECIAL_TOKENS:,} strings to ids")
    transition = document.get("transition")
    if method == "superbpe" and not _is_id(transition):
        raise ValueError(f"{source}: a superbpe file needs its transition size (an int)")
    return {"method": method, "pattern": pattern, "merges": merges, "events": events,
            "special_tokens": specials, "transition": transition}


def _list(value, what, source):
    if not isinstance(value, list) or len(value) > budgets.MAX_ID:
        raise ValueError(f"{source}: {what} must be a list of at most "
                         f"{budgets.MAX_ID:,} entries")
    return value


def _is_id(value):
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < budgets.MAX_ID


def _triple(value, source):
    if not (isinstance(value, list) and len(value) == 3 and all(map(_is_id, value))):
        raise ValueError(f"{source}: each merge must be [a, b, idx] of ids, not {value!r:.60}")
    return tuple(value)


def _event(value, source):
    if isinstance(value, list) and len(value) == 4 and value[0] == "merge" \
            and all(map(_is_id, value[1:])):
        return ("merge", (value[1], value[2]), value[3])
    if isinstance(value, list) and len(value) == 3 and value[0] == "remove" \
            and _is_id(value[1]) and isinstance(value[2], list) and value[2] \
            and len(value[2]) <= budgets.MAX_ID and all(map(_is_id, value[2])):
        return ("remove", value[1], tuple(value[2]))
    raise ValueError(f"{source}: each event must be [\"merge\", a, b, idx] or "
                     f"[\"remove\", idx, [pieces]], not {value!r:.60}")

"""Chat formats: our rendered ids equal what each owner's code builds for the same messages."""
from pathlib import Path

import pytest
import tiktoken

from bpe import reference
from viz import chat

CONVERSATION = [
    {"role": "system", "content": "You are terse. <|im_end|> [INST] stays text."},
    {"role": "user", "content": "What is BPE?"},
    {"role": "assistant", "content": "Byte-pair encoding: merge the most frequent pair.  "},
    {"role": "user", "content": "And in 日本語? 😉\n\nThanks"},
]


@pytest.fixture(scope="module")
def toks():
    return {name: reference.load_reference(name) for name in chat.FORMAT_OF}


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_chatml_is_tiktokenizers(name, toks):
    tok = toks[name]
    start = chat.CHATML_IDS[name]
    enc = tiktoken.Encoding(name, pat_str=tok.pattern, mergeable_ranks=tok.ranks,
                            special_tokens={"<|im_start|>": start, "<|im_end|>": start + 1,
                                            "<|im_sep|>": start + 2})
    messages = [m for m in CONVERSATION if "<|im" not in m["content"]]  # tiktokenizer would
    rendered = "".join(f"<|im_start|>{m['role']}<|im_sep|>{m['content']}<|im_end|>"  # parse it
                       for m in messages) + "<|im_start|>assistant<|im_sep|>"
    parts = chat.chat_parts(name, tok, messages)
    assert chat.chat_ids(parts) == enc.encode(rendered, allowed_special="all")


def test_llama3_is_chat_format_py(toks):
    from llama_models.datatypes import RawMessage
    from llama_models.llama3.chat_format import ChatFormat
    from llama_models.llama3.tokenizer import Tokenizer
    theirs = ChatFormat(Tokenizer(Path(reference.locate(reference.REFERENCES["llama3"]))))
    raw = [RawMessage(role=m["role"], content=m["content"]) for m in CONVERSATION]
    expected = theirs.encode_dialog_prompt(raw).tokens
    assert chat.chat_ids(chat.chat_parts("llama3", toks["llama3"], CONVERSATION)) == expected


def test_llama4_is_chat_format_py(toks):
    """llama_models/llama4/chat_format.py imports torch, so its text-only
    encode_dialog_prompt is replayed here with its own Tokenizer and header template."""
    from llama_models.llama4.tokenizer import Tokenizer
    theirs = Tokenizer(Path(reference.locate(reference.REFERENCES["llama4"])))

    def encode(text, special=False):
        return theirs.encode(text, bos=False, eos=False,
                             allowed_special="all" if special else set())

    def header(role):
        return encode(f"<|header_start|>{role}<|header_end|>\n\n", special=True)
    expected = [theirs.bos_id]
    for m in CONVERSATION:
        expected += header(m["role"]) + encode(m["content"]) + [theirs.eot_id]
    expected += header("assistant")
    assert chat.chat_ids(chat.chat_parts("llama4", toks["llama4"], CONVERSATION)) == expected


@pytest.mark.parametrize("name, version", [("mistral_v1", "v1"), ("mistral_v3", "v3"),
                                           ("tekken", "v3")])
def test_mistral_is_mistral_commons(name, version, toks):
    from mistral_common.protocol.instruct.messages import (AssistantMessage, SystemMessage,
                                                           UserMessage)
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer
    theirs = MistralTokenizer.from_file(reference.locate(reference.REFERENCES[name]))
    kinds = {"system": SystemMessage, "user": UserMessage, "assistant": AssistantMessage}
    request = ChatCompletionRequest(messages=[kinds[m["role"]](content=m["content"])
                                              for m in CONVERSATION])
    expected = theirs.encode_chat_completion(request).tokens
    assert chat.chat_ids(chat.chat_parts(name, toks[name], CONVERSATION)) == expected


def test_cost_adds_up_and_names_the_overhead(toks):
    tok = toks["llama3"]
    parts = chat.chat_parts("llama3", tok, CONVERSATION)
    rows = chat.chat_cost(tok, parts, CONVERSATION)
    assert sum(r["tokens in format"] for r in rows) == len(chat.chat_ids(parts))
    # a Llama 3 message costs its content plus header (3 + role) and <|eot_id|>
    assert rows[1]["overhead"] == 5 and rows[-1]["role"] == "(format)"
    shown = chat.PartsVocab(tok, parts).decode_tokens_bytes(chat.chat_ids(parts)[:3])
    assert shown == [b"<|begin_of_text|>", b"<|start_header_id|>", b"system"]


def test_bad_messages_and_formats():
    with pytest.raises(ValueError, match="message 1 must have a role"):
        chat.check_messages([{"role": "wizard", "content": "x"}])
    with pytest.raises(ValueError, match="no chat format"):
        chat.chat_parts("r50k_base", None, [])


def test_chat_row_greys_the_format_and_frames_specials(toks):
    tok = toks["o200k_base"]
    parts = chat.chat_parts("o200k_base", tok, CONVERSATION[1:2])
    row = chat.chat_row(tok, parts)
    assert row["ids"] == chat.chat_ids(parts)
    # <|im_start|> user <|im_sep|> What is BPE? <|im_end|> <|im_start|> assistant <|im_sep|>
    assert row["show"][0] == "<|im_start|>" and row["colors"][0] == chat.OVERHEAD_COLOR
    assert row["marks"]["special"] == [0, 2, len(row["n"]) - 4, len(row["n"]) - 3,
                                       len(row["n"]) - 1]
    assert row["marks"]["dim"] == [1, len(row["n"]) - 2]  # the role names
    content = [c for c in row["colors"] if c != chat.OVERHEAD_COLOR]
    assert content and set(content) == {0}  # the first message's color

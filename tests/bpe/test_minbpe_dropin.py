"""minbpe's own test cases (karpathy/minbpe tests/test_tokenizer.py), in our words: code
written for `from minbpe import ...` runs on `from bpe import ...`, its positional
`encode(text, "all")` included. bench/dropin.py runs minbpe's file itself (21/21)."""
import pytest

from bpe import BasicTokenizer, GPT4Tokenizer, RegexTokenizer

DOCUMENTS = ("<|endoftext|>Hi there, first document\n<|endoftext|>Another one, with "
             "<|fim_prefix|>a hole<|fim_suffix|> in it.<|fim_middle|> FIM\n"
             "<|endoftext|>The last!!! 👋<|endofprompt|>")
GPT4_SPECIALS = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                 "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}


@pytest.mark.parametrize("make", [BasicTokenizer, RegexTokenizer, GPT4Tokenizer])
@pytest.mark.parametrize("text", ["", "?", "hi there!!!? (반가워요!) lol456 🙃"])
def test_untrained_and_gpt4_round_trip(make, text):
    tok = make()
    assert tok.decode(tok.encode(text)) == text


def test_gpt4_with_specials_positionally_equals_tiktoken(gpt4, cl100k):
    assert gpt4.encode(DOCUMENTS, "all") == cl100k.encode(DOCUMENTS, allowed_special="all")
    assert gpt4.encode(DOCUMENTS, "none") == cl100k.encode(DOCUMENTS, disallowed_special=())
    with pytest.raises(ValueError):
        gpt4.encode(DOCUMENTS, "none_raise")  # minbpe asserts; we raise tiktoken's error


@pytest.mark.parametrize("specials", [{}, GPT4_SPECIALS])
def test_train_register_save_load_with_the_positional_policy(specials, tmp_path):
    text = DOCUMENTS * 3
    tok = RegexTokenizer()
    tok.train(text, 256 + 40)
    tok.register_special_tokens(specials)
    ids = tok.encode(text, "all")
    assert tok.decode(ids) == text
    tok.save(str(tmp_path / "m"))
    again = RegexTokenizer()
    again.load(str(tmp_path / "m.model"))
    assert again.encode(text, "all") == ids and again.decode(ids) == text
    if specials:
        assert 100257 in ids  # "all" made them special tokens, as minbpe's does


def test_a_positional_set_names_the_special_tokens_and_leaves_the_rest_as_text(gpt4):
    ids = gpt4.encode(DOCUMENTS, {"<|endoftext|>"})
    assert ids.count(100257) == 3 and 100258 not in ids
    assert gpt4.decode(ids) == DOCUMENTS


def test_minbpe_s_positional_policy_on_a_tokenizer_json_cuts_added_tokens_as_tokenizers_does():
    """encode(text, "all") on a tokenizer.json means minbpe's "all" and still cuts the
    added tokens out the way `tokenizers` does (its ids are tokenizers' own)."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import decoders, models, pre_tokenizers, trainers
    import bpe
    hf = tokenizers.Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    hf.train_from_iterator(["hello world <|x|> hello"] * 50, trainers.BpeTrainer(
        vocab_size=300, special_tokens=["<|x|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok = bpe.load_bytes(hf.to_str().encode(), "tokenizer.json")
    text = "hello <|x|> world"
    assert tok.encode(text, "all") == hf.encode(text).ids
    assert tok.encode(text, "none") == tok.encode(text, disallowed_special=())
    with pytest.raises(ValueError, match="disallowed special token"):
        tok.encode(text, "none_raise")

"""What a tokenizer that comes made cannot do, said once: tiktoken ranks
(RanksTokenizer), a vocab and merges (VocabMergesTokenizer) and a tokenizer.json
(HFTokenizer) are not trained here, not written as a minbpe .model, and not read from
one. Each refusal is a ValueError that says what to do instead.

A class puts `Pretrained` first among its bases and sets three phrases:

    class RanksTokenizer(Pretrained, RegexTokenizer):
        made_from = "tiktoken ranks"
        cannot_save = "its byte ids are not 0-255, which that format cannot express"
        save_instead = "export it as tiktoken ranks instead (...)"
"""


class Pretrained:
    """train, save and load_text refuse, naming what the tokenizer was made from."""

    made_from = "a pretrained vocabulary"  # "... is built from <made_from>"
    cannot_save = "its ids are not minbpe's layout"  # why a .model cannot hold it
    save_instead = "export it as tokenizer.json instead"

    def train(self, text, vocab_size, verbose=False, **kwargs):
        raise ValueError(f"{self.name} is pretrained and cannot be trained; train a "
                         "RegexTokenizer() instead (same split patterns, your own merges)")

    def save(self, file_prefix):
        raise ValueError(f"{self.name} cannot be saved as a minbpe .model file: "
                         f"{self.cannot_save}; {self.save_instead}")

    def load_text(self, text, source="model"):
        raise ValueError(f"{self.name} is built from {self.made_from}; load a .model file "
                         "into RegexTokenizer() or use bpe.load()")

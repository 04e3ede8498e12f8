"""Placeholder: this method's module is being written (issue 28)."""


def train(texts, vocab_size, **options):
    raise NotImplementedError("bpe.methods.classic is not written yet")

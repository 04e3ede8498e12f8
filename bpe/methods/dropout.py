"""Placeholder: BPE-dropout is being written (issue 28)."""


def dropout_encode(tok, text, p, *, seed=None):
    raise NotImplementedError("bpe.methods.dropout_encode is not written yet")

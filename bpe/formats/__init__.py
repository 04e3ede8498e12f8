"""Tokenizer files, one module per format, each able to read and write its own. They return
data (ranks, merges, vocab, pieces, a pipeline description), never a tokenizer object:
bpe.loading, one floor up, builds tokenizers from them.

- `model`: minbpe's .model (and the .vocab written beside it for people);
- `ranks`: tiktoken's ranks files (base64 token, rank per line);
- `ranks_merges`: minbpe's merges recovered from ranks (the inversion, not a file format);
- `sentencepiece`: SentencePiece .model protobufs (run by the `sentencepiece` library);
- `gpt2`: GPT-2's release pair, encoder.json + vocab.bpe (or vocab.json + merges.txt);
- `hf`: Hugging Face tokenizer.json, a package laid out by pipeline stage (its __init__ says);
- `gguf`: llama.cpp's model file, its tokenizer's metadata only;
- `method_file`: the lab's method file (SuperBPE, BoundlessBPE, Picky BPE);
- `kinds`: what kind of file some bytes are, by content, and the bounded reads all share;
- `reading`: regular files only, read within a bound;
- `atomic`: the one way every format is saved (both files or neither, never half a file).

This package's __init__ imports nothing, so a tokenizer class can use `atomic` or a format's
parser without importing every other format first.
"""

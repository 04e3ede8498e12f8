"""Tokenizer files, one module per format, each able to read and write its own:

- `model`: minbpe's .model (and the .vocab written beside it for people);
- `ranks`: tiktoken's ranks files (base64 token, rank per line);
- `sentencepiece`: SentencePiece .model protobufs (run by the `sentencepiece` library);
- `gpt2`: GPT-2's release pair, encoder.json + vocab.bpe (or vocab.json + merges.txt);
- `hf*`: Hugging Face tokenizer.json, one module per part: `hf` (reading, export),
  `hf_tokenizer` (HFTokenizer), `hf_models` (BPE, WordPiece, Unigram, WordLevel),
  `hf_normalizers` (+ `hf_precompiled`, SentencePiece's charsmap), `hf_pipeline` and
  `hf_pre_tokenizers`, `hf_bytelevel`, `hf_decoders`, `hf_added` (added tokens),
  `hf_unicode` / `hf_scripts` (tokenizers' older Unicode tables);
- `loader`: `load(path)` / `load_bytes(data, filename)`, which pick the format and build the
  tokenizer;
- `atomic`: the one way every format is saved (both files or neither, never half a file).

This package's __init__ imports nothing, so a tokenizer class can use `atomic` or a format's
parser without importing every other tokenizer class first.
"""

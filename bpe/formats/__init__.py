"""Tokenizer files, one module per format, each able to read and write its own:

- `model`: minbpe's .model (and the .vocab written beside it for people);
- `ranks`: tiktoken's ranks files (base64 token, rank per line);
- `hf`, `hf_pipeline`, `hf_added`: Hugging Face tokenizer.json (model, pipeline, added tokens);
- `loader`: `load(path)` / `load_bytes(data, filename)`, which pick the format and build the
  tokenizer;
- `atomic`: the one way every format is saved (both files or neither, never half a file).

This package's __init__ imports nothing, so a tokenizer class can use `atomic` or a format's
parser without importing every other tokenizer class first.
"""

"""Hugging Face tokenizer.json, one module per stage of its pipeline, as `tokenizers` lays
out its own bindings:

- `tokenizer_json`: the file itself, read into a pipeline description and written from ours;
- `normalizers` (+ `precompiled`, SentencePiece's charsmap), `pre_tokenizers`, `models`
  (BPE, WordPiece, Unigram, WordLevel) and `bytelevel` (byte-level BPE), `decoders` (+ the
  post-processor's templates), `added_tokens`;
- `pipeline`: normalizer, added tokens and pre-tokenizer run in order on text;
- `parts`: what the stages share (flatten, the Oniguruma pattern rewrites, Memo);
- `unicode` / `scripts`: tokenizers' older Unicode tables, which its normalizers and
  pre-tokenizers follow.

Nothing here builds a tokenizer object: bpe.hf_tokenizer builds and runs one from a
Document (tokenizer_json.read_document), and bpe.loading opens the file.
This __init__ imports nothing, so importing one stage does not import them all.
"""

"""llama.cpp's test vocabularies (ggml-vocab-*.gguf with .inp/.out, from the pinned
llama-cpp-python sdist) through bpe.load_bytes: the file table of bench/results/gguf.md
(file, family, pre, texts compared, differences, CPU seconds to load and encode; ids
without the BOS/EOS, as llama.cpp's test-tokenizer-0 compares them). A t5 (Unigram) file,
which llama.cpp ships without test ids, is compared with `sentencepiece` on a model written
from the same GGUF data, over every .inp text of every file (pip install sentencepiece).

    python bench/gguf_files.py [--sdist .venv/sdists/llama_cpp_python-0.3.36.tar.gz]
"""
import argparse
import sys
import tarfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import bpe  # noqa: E402
from bpe.formats import gguf, gguf_families  # noqa: E402

MODELS = "llama_cpp_python-0.3.36/vendor/llama.cpp/models/"
SEPARATOR = "\n__ggml_vocab_test__\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sdist", default=".venv/sdists/llama_cpp_python-0.3.36.tar.gz")
    args = parser.parse_args()
    files = {}
    with tarfile.open(args.sdist, "r|gz") as tar:
        for member in tar:
            if member.name.startswith(MODELS + "ggml-vocab-") and member.isfile():
                files[member.name.removeprefix(MODELS)] = tar.extractfile(member).read()
    print("| file | family | pre | texts compared | differences | CPU s |")
    print("|---|---|---|---|---|---|")
    for name in sorted(n for n in files if n.endswith(".gguf")):
        info = gguf.read_tokenizer_bytes(files[name], name)
        start = time.process_time()
        try:
            tok = bpe.load_bytes(files[name], name)
        except ValueError as e:
            why = str(e).split(": ", 1)[-1].split(". Opened:")[0]  # the why, not the lists
            print(f"| {name} | {info.model} | {info.pre} | refused | {why[:500]} | |")
            continue
        if info.model == "t5":
            import sentencepiece  # optional: only this row needs it
            sp = sentencepiece.SentencePieceProcessor(
                model_proto=gguf_families.t5_sentencepiece_model(info, name))
            texts = [text for n in sorted(files) if n.endswith(".inp")
                     for text in files[n].decode().split(SEPARATOR)]
            wrong = sum(tok.encode(text, add_special_tokens=False) != sp.encode(text)
                        for text in texts)
            cpu = time.process_time() - start
            print(f"| {name} | {info.model} | {info.pre} | {len(texts)} (all files' .inp "
                  f"texts, against sentencepiece) | {wrong} | {cpu:.1f} |")
            continue
        if name + ".inp" not in files:
            print(f"| {name} | {info.model} | {info.pre} | 0 (no tests shipped) | opens | |")
            continue
        texts = files[name + ".inp"].decode().split(SEPARATOR)
        texts = texts[:-1] if texts[-1] == "" else texts
        lines = files[name + ".out"].decode().split("\n")
        user = {info.tokens[i] for i, t in enumerate(info.token_type or []) if t == 4}
        wrong = sum(tok.encode(text, allowed_special=user, disallowed_special=(),
                               add_special_tokens=False)
                    != [int(x) for x in line.split()] for text, line in zip(texts, lines))
        cpu = time.process_time() - start
        print(f"| {name} | {info.model} | {info.pre} | {len(texts)} | {wrong} | {cpu:.1f} |")


if __name__ == "__main__":
    main()

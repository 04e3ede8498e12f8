"""A corpus to ids: files cut at sure boundaries, encoded by any number of workers, in order
(corpus.py; the tasks and their cuts in tasks.py). It reads through bpe.corpus, as
counting does, and never trains."""

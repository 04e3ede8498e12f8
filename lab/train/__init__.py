"""The Train and Methods pages' glue: the corpus to train on (sample corpora, uploads, the
text and its held-out slice), the form that makes a request, and the panels that show a
training and what it made. The training itself runs through lab/jobs/."""

"""The pages' side of a training (Streamlit): the form that makes a request (form.py), the
session's trainings and what they made (training.py), the progress and result panels
(panels.py, job_view.py for the teaching pages), the Train page's uploads (uploads.py) and
the sample corpora (corpora.py). The work itself runs in lab/jobs/, which knows nothing of
Streamlit."""

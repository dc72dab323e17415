"""How similar questions nobody would ask a library of papers come to its papers: the
library's noise floor, against which a question's best dense score is read.

Dense cosines run higher in some libraries than in others (in a library of 1,000 clinical
abstracts a question on the French Revolution still finds a paper at 0.3; in one of 32
ML-systems abstracts a question it answers may score 0.2), so a single cosine cannot tell
answerable from off-topic in every library. PROBES are everyday questions of other walks of
life; the NOISE_QUANTILE of their best scores in a library is its noise floor, and the
refusal model (:mod:`rag.answer.gather`) weighs how far a question's best score rises above
it. It is measured once per version of the library (:meth:`rag.engine.Engine.noise_floor`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["NOISE_QUANTILE", "PROBES", "noise_floor"]

NOISE_QUANTILE = 90
PROBES = (
    "How do I bake sourdough bread at home?",
    "Who won the football world cup in 1998?",
    "What is the capital city of Canada?",
    "How do I change a flat tyre on a bicycle?",
    "What are good exercises for lower back pain at the gym?",
    "How does compound interest work on a savings account?",
    "When did the Roman Empire fall?",
    "What is the best way to learn to play the guitar?",
    "How do volcanoes form?",
    "What is the plot of Pride and Prejudice?",
    "How do I grow tomatoes on a balcony?",
    "What causes the seasons on Earth?",
    "How do I write a cover letter for a job application?",
    "Which planets in the solar system have rings?",
    "How do I remove a red wine stain from a carpet?",
    "What is the difference between a crocodile and an alligator?",
    "How are taxes on capital gains calculated?",
    "What is the tallest mountain in Africa?",
    "How do I train a puppy to walk on a leash?",
    "What instruments are in a string quartet?",
    "How does a refrigerator keep food cold?",
    "What are the rules of chess castling?",
    "How do I make a good espresso?",
    "Who painted the ceiling of the Sistine Chapel?",
    "What is the speed of sound in air?",
    "How do I set up a home aquarium?",
    "What are the main causes of the French Revolution?",
    "How do solar panels generate electricity?",
    "What is a haiku and how is it structured?",
    "How long does it take to walk a marathon?",
    "How do airplanes stay in the air?",
    "What is the history of the Olympic Games?",
    "How should I store fresh herbs?",
    "What does a real estate agent do?",
    "How do I knit a scarf for beginners?",
    "What is the population of Tokyo?",
    "How do I negotiate a higher salary?",
    "Which wines go well with fish?",
    "How do tides work?",
    "What are the symptoms of a car battery dying?",
)


def noise_floor(best_dense: Callable[[str], float | None]) -> float:
    """The NOISE_QUANTILE of the probes' best dense scores (``best_dense``: a question's
    best dense cosine in the library, None when nothing is found); 0.0 for an empty one."""
    scores = [s for s in (best_dense(p) for p in PROBES) if s is not None]
    return float(np.percentile(scores, NOISE_QUANTILE)) if scores else 0.0

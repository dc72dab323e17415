"""Build the materials-science benchmark corpus.

The same source and steps as the chemistry corpus (``../chemistry/build.py``, which this
script runs with other settings): arXiv metadata collected by the GitHub repository
exopoiesis/daily-arxiv-ai4chem (commit 7abedaca3642f7f2567f0f8306d2c4f3f910cce3), files
data/papers-YYYY-MM.json (2024-04 .. 2026-04).

Selection: primary_category == cond-mat.mtrl-sci; no cross-list to cond-mat.supr-con,
cond-mat.str-el or cond-mat.mes-hall and no mention of superconductivity, magnetism/spin,
Mott/Kondo/correlated electrons or topological/Weyl/Dirac physics (left to the
condensed-matter set); otherwise as chemistry's: no cs.*/stat.* cross-list, no
astro/earth/climate categories or words, no language models, English abstracts of 80-400
words, duplicates dropped, sorted by id, N=350 sampled with random.Random(41).sample.

Usage: python build.py data/papers-*.json --out corpus.jsonl
Standard library only.
"""

import importlib.util
from pathlib import Path

_CHEMISTRY = Path(__file__).resolve().parent.parent / "chemistry" / "build.py"


def main():
    spec = importlib.util.spec_from_file_location("chemistry_build", _CHEMISTRY)
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    build.__doc__ = __doc__
    build.PRIMARY = "cond-mat.mtrl-sci"
    build.EXCLUDE_CATS = ("cond-mat.supr-con", "cond-mat.str-el", "cond-mat.mes-hall")
    build.EXCLUDE_WORDS_FIELD = (
        r"superconduct|magnet|\bspin|\bMott\b|Kondo|correlated electron|"
        r"topolog|quantum Hall|Weyl|Dirac|Majorana|Luttinger|"
        r"Fermi liquid|heavy fermion"
    )
    build.main()


if __name__ == "__main__":
    main()

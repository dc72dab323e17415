"""What marks a line as an affiliation or an address, not a name: a university, an
institute, a department, an e-mail, a street, a postcode, a country or a place an address
closes with, an institution known by its capitals ("ETH Zürich")."""

from __future__ import annotations

import re

__all__ = ["AFFILIATION"]

# Countries and places an address closes with ("Abu Dhabi, United Arab Emirates").
_PLACES = """usa u.s.a uk china japan germany france italy spain canada mexico brazil russia india
    pakistan korea netherlands denmark sweden switzerland australia new_zealand ireland scotland
    england wales belgium austria norway finland poland portugal greece israel turkey iran egypt
    singapore taiwan hong_kong chile argentina colombia south_africa nigeria kenya saudi_arabia
    malaysia thailand vietnam indonesia czech_republic hungary romania ukraine united_states
    united_kingdom united_arab_emirates abu_dhabi qatar lebanon bangladesh nepal sri_lanka
    philippines peru ecuador uruguay venezuela ethiopia ghana uganda tanzania morocco tunisia
    algeria iceland luxembourg estonia latvia lithuania slovenia slovakia croatia serbia bulgaria
    cyprus campus""".split()  # noqa: SIM905 (a name's words spaced by "_")
AFFILIATION = re.compile(
    r"@|universit|universidad|institut|department|dept\.|laborator|school|college|academy|"
    r"\binc\b|facultad|faculdade|escuela|centro\b|"
    r"corporation|research|centre|center|hospital|faculty|\bgmbh\b|\bltd\b|\bllc\b|"
    r"\bemail\b|e-mail|https?://|www\.|\d{4,}|\bstreet\b|\bavenue\b|\broad\b|\bcedex\b|"
    r"\b(?-i:ETH|EPFL|CNRS|INRIA|INSERM|CSIC|RIKEN|KAIST|KTH|CERN|MIT|UCL|UCLA|CNR)\b|"
    rf"\b(?:{'|'.join(re.escape(p).replace('_', ' ') for p in _PLACES)})\b",
    re.I,
)

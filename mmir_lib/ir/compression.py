"""Compressing postings lists: d-gaps, variable-byte, Elias γ and δ.

A postings list is an increasing list of document numbers. Stored as they are,
each costs a fixed ⌈log2 N⌉ bits (or a 32-bit integer); stored as **d-gaps**, the
differences between neighbours, most numbers become small (a frequent term's
documents are close together), and a code that spends few bits on small numbers
wins. Three classic codes:

==========  =================================================  ====================
code        codeword for n                                     length in bits
==========  =================================================  ====================
vbyte       7 bits of n per byte, most significant group        8 · max(1, ⌈L/7⌉)
            first; the high bit is set on the *last* byte
gamma (γ)   L − 1 zeros, then n in binary (L bits)              2L − 1
delta (δ)   γ(L), then n in binary without its leading 1        L − 1 + 2⌊log2 L⌋ + 1
==========  =================================================  ====================

with L = ⌊log2 n⌋ + 1 the number of binary digits of n. Variable-byte codes any
n >= 0; γ and δ code n >= 1 (they cannot say 0).

Conventions of this module
--------------------------
* **Gaps are counted from a virtual document −1**: the first gap of a list is
  d_1 + 1 and the others d_i − d_{i−1}. Document numbers start at 0 in this book,
  so every gap is >= 1 and every code, γ and δ included, applies unchanged.
* **Bit codes are strings of '0' and '1'.** That spends a byte per bit, but a reader
  can see every codeword (γ(5) = '00101'); lengths, and so bits per posting, are
  exactly those of a packed bit stream. Variable-byte output is real ``bytes``.
* Input is checked at the door: a negative number, a non-integer, a number beyond
  int64 (2^63 − 1), or (for a postings list) a list that is not strictly increasing
  raises ValueError or TypeError. Decoding never returns a number beyond int64 either.

References: Elias (1975) for γ and δ; Williams and Zobel (1999) and Scholer et al.
(2002) for variable-byte; Manning et al. (2008), ch. 5, for the byte layout used here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..validation import MAX_INT, check_array, check_choice, check_instance, describe
from .index import InvertedIndex

__all__ = [
    "CODES",
    "dgaps",
    "from_dgaps",
    "vbyte_encode",
    "vbyte_decode",
    "gamma_encode",
    "gamma_decode",
    "delta_encode",
    "delta_decode",
    "bit_length",
    "code_lengths",
    "encode_postings",
    "decode_postings",
    "index_dgaps",
    "bits_per_posting",
]

#: The codes of this module, by name.
CODES = ("vbyte", "gamma", "delta")


def _check_integers(name: str, values, minimum: int) -> np.ndarray:
    """``values`` as a 1-D int64 array, every element in [``minimum``, 2^63 − 1]."""
    return check_array(name, values, kind="int", ndim=1, low=minimum)


def _checked_number(n: int) -> int:
    """A decoded number, refused if it does not fit an int64 (corrupt or foreign data)."""
    if n > MAX_INT:
        raise ValueError(f"the data encode a number above 2^63 - 1 (int64): {n}")
    return n


# ---- d-gaps ------------------------------------------------------------------------


def dgaps(doc_ids: Sequence[int]) -> np.ndarray:
    """The d-gaps of a postings list: d_1 + 1, d_2 − d_1, ..., d_n − d_{n−1}.

    Counting from a virtual document −1 makes every gap >= 1 (see the module notes).

    Parameters
    ----------
    doc_ids : (n,) non-negative ints, strictly increasing

    Returns
    -------
    (n,) int64, every element >= 1

    Examples
    --------
    >>> dgaps([0, 3, 4, 10]).tolist()
    [1, 3, 1, 6]
    """
    ids = _check_integers("doc_ids", doc_ids, 0)
    if np.any(np.diff(ids) <= 0):
        raise ValueError("doc_ids must be strictly increasing (a sorted postings list without repeats)")
    return np.diff(ids, prepend=-1)


def from_dgaps(gaps: Sequence[int]) -> np.ndarray:
    """Invert :func:`dgaps`: the document numbers are the running sums minus 1.

    >>> from_dgaps([1, 3, 1, 6]).tolist()
    [0, 3, 4, 10]
    """
    gaps = _check_integers("gaps", gaps, 1)
    if gaps.sum(dtype=np.float64) >= 2.0**62 and sum(gaps.tolist()) - 1 > MAX_INT:  # exact test near the limit
        raise ValueError("gaps add up to a document number above 2^63 - 1 (int64)")
    return np.cumsum(gaps) - 1


# ---- variable-byte -----------------------------------------------------------------


def vbyte_encode(numbers: Sequence[int]) -> bytes:
    """Variable-byte code of non-negative integers.

    Each number is cut into 7-bit groups, most significant first; each group fills
    the low 7 bits of a byte, and the high bit (128) marks the number's last byte.

    Examples
    --------
    >>> vbyte_encode([5, 130]).hex(" ")  # 130 = 1·128 + 2
    '85 01 82'
    """
    out = bytearray()
    for n in _check_integers("numbers", numbers, 0).tolist():
        groups = [n & 0x7F]
        n >>= 7
        while n:
            groups.append(n & 0x7F)
            n >>= 7
        groups.reverse()
        groups[-1] |= 0x80
        out.extend(groups)
    return bytes(out)


def vbyte_decode(data: bytes) -> np.ndarray:
    """Decode :func:`vbyte_encode`: (n,) int64.

    >>> vbyte_decode(bytes([0x85, 0x01, 0x82])).tolist()
    [5, 130]
    """
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"data must be bytes, got {describe(data)}")
    if data and not data[-1] & 0x80:
        raise ValueError("data ends in the middle of a number (its last byte lacks the stop bit)")
    numbers, n = [], 0
    for byte in data:
        n = (n << 7) | (byte & 0x7F)
        if byte & 0x80:
            numbers.append(_checked_number(n))
            n = 0
        elif n > MAX_INT:
            _checked_number(n)
    return np.array(numbers, dtype=np.int64)


# ---- Elias gamma and delta ---------------------------------------------------------


def _gamma(n: int) -> str:
    binary = format(n, "b")
    return "0" * (len(binary) - 1) + binary


def gamma_encode(numbers: Sequence[int]) -> str:
    """Elias γ code of integers n >= 1: L − 1 zeros, then the L binary digits of n.

    Examples
    --------
    >>> gamma_encode([1, 2, 5, 9])
    '1010001010001001'
    """
    return "".join(_gamma(n) for n in _check_integers("numbers", numbers, 1).tolist())


def _check_bits(name: str, bits: object) -> str:
    """A str of the characters '0' and '1' only."""
    if not isinstance(bits, str):
        raise TypeError(f"{name} must be a str of '0' and '1', got {describe(bits)}")
    if bits.strip("01"):
        raise ValueError(f"{name} must contain only the characters '0' and '1'")
    return bits


def _read_gamma(bits: str, pos: int) -> tuple[int, int]:
    """One γ codeword starting at ``pos``: (value, position after it)."""
    first_one = bits.find("1", pos)
    if first_one < 0:
        raise ValueError(f"truncated code: only zeros from bit {pos} on")
    end = 2 * first_one - pos + 1  # as many binary digits after the zeros as zeros + 1
    if end > len(bits):
        raise ValueError(f"truncated code: the bits end inside a codeword starting at bit {pos}, which needs {end - pos} bits")
    if end - first_one > 64:
        raise ValueError(f"the bits encode a number above 2^63 - 1 (int64) at bit {pos}")
    return _checked_number(int(bits[first_one:end], 2)), end


def _read_delta(bits: str, pos: int) -> tuple[int, int]:
    """Read one δ codeword starting at ``pos``: (the number, the position after it)."""
    length, pos = _read_gamma(bits, pos)
    end = pos + length - 1
    if end > len(bits):
        raise ValueError(f"truncated code: the bits end inside a δ codeword that needs {length - 1} more bits "
                         f"at bit {pos}")
    if length > 64:
        raise ValueError(f"the bits encode a number above 2^63 - 1 (int64) at bit {pos}")
    return _checked_number(int("1" + bits[pos:end], 2)), end


def _decode(bits: str, read) -> np.ndarray:
    """Read codewords with ``read(bits, pos) -> (n, next pos)`` until the bits run out."""
    numbers, pos = [], 0
    while pos < len(bits):
        n, pos = read(bits, pos)
        numbers.append(n)
    return np.array(numbers, dtype=np.int64)


def gamma_decode(bits: str) -> np.ndarray:
    """Decode :func:`gamma_encode`: (n,) int64.

    >>> gamma_decode('1010001010001001').tolist()
    [1, 2, 5, 9]
    """
    bits = _check_bits("bits", bits)
    return _decode(bits, _read_gamma)


def delta_encode(numbers: Sequence[int]) -> str:
    """Elias δ code of integers n >= 1: γ(L), then n's binary digits after the leading 1.

    Examples
    --------
    >>> delta_encode([1, 2, 5, 9])  # 1 | 010 0 | 011 01 | 00100 001
    '101000110100100001'
    """
    out = []
    for n in _check_integers("numbers", numbers, 1).tolist():
        binary = format(n, "b")
        out.append(_gamma(len(binary)) + binary[1:])
    return "".join(out)


def delta_decode(bits: str) -> np.ndarray:
    """Decode :func:`delta_encode`: (n,) int64.

    >>> delta_decode('101000110100100001').tolist()
    [1, 2, 5, 9]
    """
    bits = _check_bits("bits", bits)
    return _decode(bits, _read_delta)


# ---- code lengths in closed form ---------------------------------------------------


def bit_length(numbers) -> np.ndarray:
    """L = ⌊log2 n⌋ + 1, the number of binary digits of each n >= 1 (exact, no floats).

    >>> bit_length([1, 2, 3, 4, 255, 256]).tolist()
    [1, 2, 2, 3, 8, 9]
    """
    rest = _check_integers("numbers", numbers, 1)
    length = np.zeros(len(rest), dtype=np.int64)
    while np.any(rest):
        length += rest > 0
        rest = rest >> 1
    return length


def code_lengths(numbers, code: str) -> np.ndarray:
    """The length in bits of each number's codeword, from the closed forms.

    vbyte: 8·max(1, ⌈L/7⌉) (n >= 0); gamma: 2L − 1; delta: L − 1 + 2⌊log2 L⌋ + 1
    (n >= 1), with L = :func:`bit_length` (n).

    >>> code_lengths([1, 5, 1000], "gamma").tolist(), code_lengths([1, 5, 1000], "delta").tolist()
    ([1, 5, 19], [1, 5, 16])
    >>> code_lengths([0, 127, 128], "vbyte").tolist()
    [8, 8, 16]
    """
    check_choice("code", code, CODES)
    n = _check_integers("numbers", numbers, 0 if code == "vbyte" else 1)
    if code == "vbyte":
        return 8 * np.maximum(1, -(-bit_length(np.maximum(n, 1)) // 7))
    length = bit_length(n)
    if code == "gamma":
        return 2 * length - 1
    return length - 1 + 2 * bit_length(length) - 1


# ---- whole postings lists and whole indexes ----------------------------------------

_ENCODERS = {"vbyte": vbyte_encode, "gamma": gamma_encode, "delta": delta_encode}
_DECODERS = {"vbyte": vbyte_decode, "gamma": gamma_decode, "delta": delta_decode}


def encode_postings(doc_ids: Sequence[int], code: str) -> bytes | str:
    """A postings list as the ``code`` of its d-gaps (bytes for vbyte, bits otherwise).

    >>> encode_postings([0, 3, 4, 10], "gamma")
    '1011100110'
    """
    check_choice("code", code, CODES)
    return _ENCODERS[code](dgaps(doc_ids))


def decode_postings(encoded: bytes | str, code: str) -> np.ndarray:
    """Invert :func:`encode_postings`: the document numbers, (n,) int64.

    >>> decode_postings('1011100110', "gamma").tolist()
    [0, 3, 4, 10]
    """
    check_choice("code", code, CODES)
    if code == "vbyte" and not isinstance(encoded, (bytes, bytearray)):
        raise TypeError(f"encoded must be bytes for the vbyte code, got {describe(encoded)}")
    if code != "vbyte":
        _check_bits("encoded", encoded)
    gaps = _DECODERS[code](encoded)
    if np.any(gaps == 0):
        raise ValueError("encoded holds a gap of 0: not the d-gaps of a postings list")
    return from_dgaps(gaps)


def index_dgaps(index: InvertedIndex) -> np.ndarray:
    """The d-gaps of every postings list of ``index``, list after list: (nnz,) int64.

    Vectorised over the CSC arrays: the gap of each posting is its document number
    minus its predecessor's in the same list, and d + 1 for the first of a list.
    """
    check_instance("index", index, InvertedIndex)
    ids = index.postings.indices.astype(np.int64)
    gaps = np.diff(ids, prepend=-1)
    starts = index.postings.indptr[:-1][index.df > 0]
    gaps[starts] = ids[starts] + 1
    return gaps


def bits_per_posting(index: InvertedIndex, code: str) -> float:
    """Average codeword length, in bits, of the document gaps of the whole index.

    Σ over all postings of code_lengths(gap) / number of postings. (Term
    frequencies and the dictionary are not counted.)

    >>> from mmir_lib.ir import Analyzer, InvertedIndex
    >>> toy = InvertedIndex.from_texts(["a b", "b", "a b"], Analyzer())
    >>> index_dgaps(toy).tolist(), bits_per_posting(toy, "gamma")
    ([1, 2, 1, 1, 1], 1.4)
    """
    check_instance("index", index, InvertedIndex)
    check_choice("code", code, CODES)
    if index.postings.nnz == 0:
        raise ValueError("index has no postings: bits per posting are undefined")
    return float(code_lengths(index_dgaps(index), code).mean())

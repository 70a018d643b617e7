"""d-gaps, variable-byte, Elias γ and δ: hand-worked codewords, round trips, and code
lengths equal to the closed forms."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mmir_lib.ir import Analyzer, InvertedIndex
from mmir_lib.ir.compression import (
    CODES,
    bit_length,
    bits_per_posting,
    code_lengths,
    decode_postings,
    delta_decode,
    delta_encode,
    dgaps,
    encode_postings,
    from_dgaps,
    gamma_decode,
    gamma_encode,
    index_dgaps,
    vbyte_decode,
    vbyte_encode,
)

# Codewords worked out by hand from the definitions (Elias, 1975).
GAMMA = {1: "1", 2: "010", 3: "011", 4: "00100", 5: "00101", 8: "0001000", 9: "0001001", 16: "000010000"}
DELTA = {1: "1", 2: "0100", 3: "0101", 4: "01100", 5: "01101", 8: "00100000", 9: "00100001", 16: "001010000"}


@pytest.mark.parametrize("n, code", GAMMA.items())
def test_gamma_codewords(n, code):
    assert gamma_encode([n]) == code and gamma_decode(code).tolist() == [n]


@pytest.mark.parametrize("n, code", DELTA.items())
def test_delta_codewords(n, code):
    assert delta_encode([n]) == code and delta_decode(code).tolist() == [n]


def test_vbyte_codewords():
    # Manning et al. (2008), table 5.4: 824 = 6·128 + 56 -> 00000110 10111000
    assert vbyte_encode([824]) == bytes([0b00000110, 0b10111000])
    assert vbyte_encode([5]) == bytes([0b10000101])
    assert vbyte_encode([214577]) == bytes([0b00001101, 0b00001100, 0b10110001])
    assert vbyte_encode([0, 127, 128]) == bytes([0x80, 0xFF, 0x01, 0x80])
    assert vbyte_decode(bytes([0x06, 0xB8, 0x85])).tolist() == [824, 5]


def test_dgaps_count_from_minus_one():
    assert dgaps([0, 1, 5, 6]).tolist() == [1, 1, 4, 1]
    assert dgaps([7]).tolist() == [8]
    assert from_dgaps([1, 1, 4, 1]).tolist() == [0, 1, 5, 6]
    assert dgaps([]).tolist() == [] and from_dgaps([]).tolist() == []


def test_postings_of_a_list_starting_at_zero():
    # gaps 1, 1, 4: γ 1 | 1 | 00100
    assert encode_postings([0, 1, 5], "gamma") == "1100100"
    assert encode_postings([0, 1, 5], "vbyte") == bytes([0x81, 0x81, 0x84])
    for code in CODES:
        assert decode_postings(encode_postings([0, 1, 5], code), code).tolist() == [0, 1, 5]


def test_closed_form_lengths_hand_computed():
    n = [1, 2, 3, 4, 7, 8, 15, 16, 1000, 2**20]
    assert bit_length(n).tolist() == [1, 2, 2, 3, 3, 4, 4, 5, 10, 21]
    assert code_lengths(n, "gamma").tolist() == [1, 3, 3, 5, 5, 7, 7, 9, 19, 41]
    assert code_lengths(n, "delta").tolist() == [1, 4, 4, 5, 5, 8, 8, 9, 16, 29]
    assert code_lengths([0, 127, 128, 16383, 16384], "vbyte").tolist() == [8, 8, 16, 16, 24]


def test_bits_per_posting_of_a_toy_index():
    toy = InvertedIndex.from_texts(["a b", "b", "a b c", "c", "c"], Analyzer())
    # a: docs 0, 2 -> gaps 1, 2;  b: 0, 1, 2 -> 1, 1, 1;  c: 2, 3, 4 -> 3, 1, 1
    assert index_dgaps(toy).tolist() == [1, 2, 1, 1, 1, 3, 1, 1]
    assert bits_per_posting(toy, "gamma") == (1 + 3 + 1 + 1 + 1 + 3 + 1 + 1) / 8
    assert bits_per_posting(toy, "vbyte") == 8.0


# ---- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "function, value, message",
    [
        (dgaps, [3, 1], "strictly increasing"),
        (dgaps, [1, 1], "strictly increasing"),
        (dgaps, [-1, 2], ">= 0"),
        (dgaps, [[1, 2]], "doc_ids must be 1-dimensional"),
        (from_dgaps, [1, 0], ">= 1"),
        (vbyte_encode, [-5], ">= 0"),
        (gamma_encode, [0], ">= 1"),
        (delta_encode, [0], ">= 1"),
        (vbyte_encode, [2**63], "<= 9223372036854775807"),  # once an endless loop
        (bit_length, np.array([2**63], dtype=np.uint64), "<= 9223372036854775807"),
        (from_dgaps, [2**62] * 3, "above 2\\^63 - 1"),  # once wrapped round to negative numbers
    ],
)
def test_bad_numbers(function, value, message):
    with pytest.raises(ValueError, match=message):
        function(value)


@pytest.mark.parametrize(
    "function, value",
    [(dgaps, [0.0, 1.5]), (vbyte_encode, [1.0]), (vbyte_encode, [True]), (gamma_encode, [2.5]),
     (code_lengths, ["a"])],
)
def test_numbers_that_are_not_integers(function, value):
    with pytest.raises(TypeError, match="must hold int values"):
        function(value, "gamma") if function is code_lengths else function(value)


def test_numbers_up_to_int64_round_trip():
    largest = 2**63 - 1
    assert vbyte_decode(vbyte_encode([largest])).tolist() == [largest]
    assert gamma_decode(gamma_encode([largest])).tolist() == [largest]
    assert delta_decode(delta_encode([largest])).tolist() == [largest]
    assert bit_length([largest]).tolist() == [63]
    assert from_dgaps([2**62, 2**62]).tolist() == [2**62 - 1, largest]
    with pytest.raises(ValueError, match="int64"):
        from_dgaps([2**62, 2**62, 1])
    # a postings list with a document number beyond int64 is refused, never wrapped to a negative one
    with pytest.raises(ValueError, match="doc_ids must hold values <="):
        encode_postings(np.array([5, 2**63], dtype=np.uint64), "gamma")


@pytest.mark.parametrize(
    "function, data",
    [(vbyte_decode, bytes([0x7F] * 9 + [0xFF])), (gamma_decode, "0" * 64 + "1" + "0" * 64),
     (delta_decode, "0" * 6 + "1000001" + "0" * 64)],
)
def test_decoded_numbers_beyond_int64_are_refused(function, data):
    with pytest.raises(ValueError, match="above 2\\^63 - 1"):
        function(data)


@pytest.mark.parametrize(
    "function, data, error, message",
    [
        (vbyte_decode, bytes([0x05]), ValueError, "stop bit"),
        (vbyte_decode, "0101", TypeError, "bytes"),
        (gamma_decode, "0001", ValueError, "truncated"),
        (gamma_decode, "000", ValueError, "truncated"),
        (gamma_decode, "01a", ValueError, "only the characters"),
        (delta_decode, "0110", ValueError, "truncated"),
        (gamma_decode, b"01", TypeError, "str"),
    ],
)
def test_bad_codes(function, data, error, message):
    with pytest.raises(error, match=message):
        function(data)


def test_unknown_code():
    with pytest.raises(ValueError, match="code must be one of 'vbyte', 'gamma', 'delta'"):
        encode_postings([1, 2], "golomb")
    with pytest.raises(ValueError, match="code must be one of"):
        code_lengths([1], "unary")


# ---- properties --------------------------------------------------------------------------

naturals = st.lists(st.integers(0, 2**62), max_size=40)
positives = st.lists(st.integers(1, 2**62), max_size=40)
postings = st.sets(st.integers(0, 10**9), max_size=40).map(sorted)


@settings(max_examples=80)
@given(numbers=naturals)
def test_vbyte_round_trip_and_length(numbers):
    data = vbyte_encode(numbers)
    assert vbyte_decode(data).tolist() == numbers
    assert 8 * len(data) == int(code_lengths(numbers, "vbyte").sum())


@settings(max_examples=80)
@given(numbers=positives)
def test_gamma_and_delta_round_trip(numbers):
    assert gamma_decode(gamma_encode(numbers)).tolist() == numbers
    assert delta_decode(delta_encode(numbers)).tolist() == numbers


@settings(max_examples=80)
@given(n=st.integers(1, 2**62))
def test_lengths_equal_the_closed_forms(n):
    floor_log2 = n.bit_length() - 1  # ⌊log2 n⌋, exact for Python ints
    assert len(gamma_encode([n])) == 2 * floor_log2 + 1 == code_lengths([n], "gamma")[0]
    L = floor_log2 + 1
    assert len(delta_encode([n])) == floor_log2 + 2 * (L.bit_length() - 1) + 1 == code_lengths([n], "delta")[0]
    assert len(vbyte_encode([n])) == -(-L // 7)


@settings(max_examples=80)
@given(doc_ids=postings, code=st.sampled_from(CODES))
def test_postings_round_trip(doc_ids, code):
    encoded = encode_postings(doc_ids, code)
    assert decode_postings(encoded, code).tolist() == doc_ids
    assert from_dgaps(dgaps(doc_ids)).tolist() == doc_ids


@settings(max_examples=40, deadline=None)
@given(docs=st.lists(st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=6), min_size=1, max_size=60),
       code=st.sampled_from(CODES))
def test_bits_per_posting_equals_encoding_every_list(docs, code):
    index = InvertedIndex.from_tokens(docs)
    lists = [index.postings_list(t)[0] for t in index.terms]
    assert index_dgaps(index).tolist() == [g for ids in lists for g in dgaps(ids).tolist()]
    unit = 8 if code == "vbyte" else 1  # bytes vs bits
    total = sum(unit * len(encode_postings(ids, code)) for ids in lists)
    assert bits_per_posting(index, code) == pytest.approx(total / index.postings.nnz, rel=1e-12)


@given(n=st.integers(1, 2**64), code=st.sampled_from(CODES))
def test_every_int64_round_trips_and_nothing_beyond_is_coded(n, code):
    encode = {"vbyte": vbyte_encode, "gamma": gamma_encode, "delta": delta_encode}[code]
    decode = {"vbyte": vbyte_decode, "gamma": gamma_decode, "delta": delta_decode}[code]
    if n <= 2**63 - 1:
        assert decode(encode([n])).tolist() == [n]
        assert len(encode([n])) * (8 if code == "vbyte" else 1) == code_lengths([n], code)[0]
    else:  # refused with a clear error, never wrapped round to a negative number or looped on
        with pytest.raises((TypeError, ValueError), match="numbers must"):
            encode(np.array([n], dtype=np.uint64) if n < 2**64 else [n])

"""Tests of mmir_lib.lm.attention: equal to torch's scaled_dot_product_attention in float64
(with and without masks, causal, batched and multi-head shapes), weights that are
distributions, permutation equivariance over the keys, the masks and the head reshapes."""

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.lm.attention import (MAX_LENGTH, causal_mask, merge_heads, padding_mask, scaled_dot_product_attention,
                                   split_heads)

TOL = 1e-12


def tensors(seed, *shapes, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(*shape, generator=g, dtype=dtype) for shape in shapes]


def gap(a, b):
    return float((a - b).abs().max())


shapes = st.tuples(st.lists(st.integers(1, 3), max_size=2), st.integers(1, 7), st.integers(1, 7),
                   st.integers(1, 9), st.integers(1, 5), st.integers(0, 2**31))


@given(shapes)
@settings(max_examples=60, deadline=None)
def test_equals_torch_sdpa_without_mask(shape):
    batch, n_q, n_k, d_k, d_v, seed = shape
    q, k, v = tensors(seed, (*batch, n_q, d_k), (*batch, n_k, d_k), (*batch, n_k, d_v))
    out, w = scaled_dot_product_attention(q, k, v)
    assert out.shape == (*batch, n_q, d_v) and w.shape == (*batch, n_q, n_k)
    assert gap(out, F.scaled_dot_product_attention(q, k, v)) < TOL
    assert gap(w.sum(-1), torch.ones(())) < TOL
    assert gap(out, w @ v) < TOL


@given(shapes)
@settings(max_examples=60, deadline=None)
def test_equals_torch_sdpa_with_a_boolean_mask_and_scale(shape):
    batch, n_q, n_k, d_k, d_v, seed = shape
    q, k, v = tensors(seed, (*batch, n_q, d_k), (*batch, n_k, d_k), (*batch, n_k, d_v))
    g = torch.Generator().manual_seed(seed)
    mask = torch.rand(*batch, n_q, n_k, generator=g) < 0.6
    mask[..., 0] = True                        # every row keeps a key
    out, w = scaled_dot_product_attention(q, k, v, mask, scale=0.3)
    assert gap(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.3)) < TOL
    assert bool((w[~mask.expand_as(w)] == 0).all())           # blocked keys get weight 0 exactly
    assert gap(w.sum(-1), torch.ones(())) < TOL


@given(st.integers(1, 8), st.integers(1, 8), st.integers(0, 2**31))
@settings(max_examples=40, deadline=None)
def test_is_causal_equals_torch_and_the_causal_mask(n_q, n_k, seed):
    q, k, v = tensors(seed, (2, 3, n_q, 4), (2, 3, n_k, 4), (2, 3, n_k, 5))
    out, w = scaled_dot_product_attention(q, k, v, is_causal=True)
    assert gap(out, F.scaled_dot_product_attention(q, k, v, is_causal=True)) < TOL
    assert gap(out, scaled_dot_product_attention(q, k, v, causal_mask(n_q, n_k))[0]) < TOL
    assert bool((w.triu(1) == 0).all())


def test_multi_head_shapes_with_padding_and_causal_masks():
    batch, heads, n, d = 3, 4, 6, 8
    q, k, v = tensors(1, (batch, heads, n, d), (batch, heads, n, d), (batch, heads, n, d))
    keys = padding_mask([6, 4, 1])[:, None]                   # (B, 1, 1, n): broadcast over heads, queries
    combined = keys & causal_mask(n)
    out, _ = scaled_dot_product_attention(q, k, v, keys, is_causal=True)
    assert gap(out, F.scaled_dot_product_attention(q, k, v, attn_mask=combined)) < TOL
    # nn.MultiheadAttention's key_padding_mask is the complement (True = blocked)
    assert bool((~keys[:, 0, 0] == torch.tensor([[False] * 6, [False] * 4 + [True] * 2, [False] + [True] * 5])).all())


@given(st.integers(2, 9), st.integers(0, 2**31))
@settings(max_examples=30, deadline=None)
def test_permuting_the_keys_and_values_changes_nothing(n_k, seed):
    q, k, v = tensors(seed, (2, 5, 4), (2, n_k, 4), (2, n_k, 3))
    perm = torch.randperm(n_k, generator=torch.Generator().manual_seed(seed))
    out, w = scaled_dot_product_attention(q, k, v)
    out_p, w_p = scaled_dot_product_attention(q, k[:, perm], v[:, perm])
    assert gap(out, out_p) < TOL
    assert gap(w[..., perm], w_p) < TOL


def test_permuting_the_queries_permutes_the_output():
    q, k, v = tensors(3, (7, 4), (5, 4), (5, 2))
    perm = torch.randperm(7, generator=torch.Generator().manual_seed(0))
    assert gap(scaled_dot_product_attention(q, k, v)[0][perm], scaled_dot_product_attention(q[perm], k, v)[0]) < TOL


def test_hard_lookup_is_the_limit_of_a_large_scale():
    keys = torch.eye(4, dtype=torch.float64)
    values = torch.arange(4.0, dtype=torch.float64)[:, None] * 10
    out, w = scaled_dot_product_attention(keys[2:3], keys, values, scale=100.0)
    assert gap(out, values[2:3]) < 1e-9 and w.argmax() == 2


def test_float32_close_to_torch_and_gradients_flow():
    q, k, v = tensors(4, (1, 2, 16, 8), (1, 2, 16, 8), (1, 2, 16, 8), dtype=torch.float32)
    assert gap(scaled_dot_product_attention(q, k, v)[0], F.scaled_dot_product_attention(q, k, v)) < 1e-5
    q64, k64, v64 = (t.double().requires_grad_() for t in (q, k, v))
    scaled_dot_product_attention(q64, k64, v64, is_causal=True)[0].square().sum().backward()
    qt, kt, vt = (t.double().requires_grad_() for t in (q, k, v))
    F.scaled_dot_product_attention(qt, kt, vt, is_causal=True).square().sum().backward()
    for ours, theirs in ((q64, qt), (k64, kt), (v64, vt)):
        assert gap(ours.grad, theirs.grad) < 1e-10


def test_fully_masked_row_is_an_error_or_torchs_zeros():
    q, k, v = tensors(5, (3, 4), (5, 4), (5, 2))
    mask = torch.ones(3, 5, dtype=torch.bool)
    mask[1] = False
    with pytest.raises(ValueError, match=r"mask blocks every key for the query row at index \(1,\)"):
        scaled_dot_product_attention(q, k, v, mask)
    out, w = scaled_dot_product_attention(q, k, v, mask, fully_masked="zero")
    assert gap(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask)) < TOL
    assert bool((w[1] == 0).all() and (out[1] == 0).all()) and gap(w[[0, 2]].sum(-1), torch.ones(())) < TOL
    qg = q.clone().requires_grad_()
    scaled_dot_product_attention(qg, k, v, mask, fully_masked="zero")[0].sum().backward()
    assert bool(torch.isfinite(qg.grad).all())


def test_bad_shapes_and_limits_give_clear_errors():
    q, k, v = tensors(6, (3, 4), (5, 4), (5, 2))
    with pytest.raises(ValueError, match="mask of shape \\(3, 4\\) does not broadcast"):
        scaled_dot_product_attention(q, k, v, torch.ones(3, 4, dtype=torch.bool))
    with pytest.raises(ValueError, match="mask of shape \\(2, 3, 5\\)"):       # would enlarge the output
        scaled_dot_product_attention(q, k, v, torch.ones(2, 3, 5, dtype=torch.bool))
    with pytest.raises(TypeError, match="mask must be a boolean"):
        scaled_dot_product_attention(q, k, v, torch.zeros(3, 5))
    with pytest.raises(ValueError, match="key must have query's d_k = 4"):
        scaled_dot_product_attention(q, k[:, :3], v)
    with pytest.raises(ValueError, match="value must have one row per key"):
        scaled_dot_product_attention(q, k, v[:4])
    with pytest.raises(ValueError, match="query must not be empty"):
        scaled_dot_product_attention(q[:0], k, v)
    with pytest.raises(ValueError, match="key must not be empty"):
        scaled_dot_product_attention(q, k[:0], v[:0])
    with pytest.raises(TypeError, match="value must have query's dtype"):
        scaled_dot_product_attention(q, k, v.float())
    with pytest.raises(ValueError, match="do not broadcast together"):
        scaled_dot_product_attention(torch.zeros(2, 3, 4), torch.zeros(3, 5, 4), torch.zeros(3, 5, 2))
    long = torch.zeros(MAX_LENGTH + 1, 1)
    with pytest.raises(ValueError, match=f"key has a sequence of length {MAX_LENGTH + 1}, over the limit"):
        scaled_dot_product_attention(torch.zeros(1, 1), long, long)
    with pytest.raises(ValueError, match="key asks for an array"):
        big = torch.zeros(1, 1, 1).expand(2**15, 1, 1)
        scaled_dot_product_attention(torch.zeros(1, 8000, 1), big.expand(2**15, 8000, 1), big.expand(2**15, 8000, 1))
    nan = q.clone()
    nan[0, 0] = math.nan
    with pytest.raises(ValueError, match="query must hold finite numbers"):
        scaled_dot_product_attention(nan, k, v)
    huge = torch.full((3, 4), 1e38, dtype=torch.float32)     # a finite input whose sum overflows
    scaled_dot_product_attention(huge * 0, huge[:1], huge[:1])


def test_causal_and_padding_masks():
    assert bool((causal_mask(4) == torch.ones(4, 4).tril().bool()).all())
    assert causal_mask(2, 5).tolist() == [[True, False, False, False, False], [True, True, False, False, False]]
    mask = padding_mask([3, 1], max_length=4)
    assert mask.shape == (2, 1, 4) and mask[:, 0].tolist() == [[True] * 3 + [False], [True, False, False, False]]
    with pytest.raises(ValueError, match="max_length must be >= 3"):
        padding_mask([3, 1], max_length=2)
    with pytest.raises(ValueError, match="lengths must hold values >= 1"):
        padding_mask([3, 0])


@given(st.lists(st.integers(1, 3), max_size=2), st.integers(1, 5), st.integers(1, 4), st.integers(1, 6))
@settings(max_examples=40, deadline=None)
def test_split_and_merge_heads_are_inverse(batch, n, heads, d):
    (x,) = tensors(0, (*batch, n, heads * d))
    parts = split_heads(x, heads)
    assert parts.shape == (*batch, heads, n, d)
    assert bool((parts[..., 1 % heads, :, :] == x[..., (1 % heads) * d:(1 % heads + 1) * d]).all())
    assert bool((merge_heads(parts) == x).all())
    with pytest.raises(ValueError, match="num_heads"):
        split_heads(torch.zeros(2, heads * d + 1), heads * d + 2) if heads * d + 1 > 1 else split_heads(x, 0)


def test_heads_split_the_dot_product():
    # q · k = sum over heads of q_h · k_h: the heads' scores add up to the whole vectors' scores
    q, k = tensors(7, (5, 12), (6, 12))
    per_head = split_heads(q, 3) @ split_heads(k, 3).transpose(-2, -1)
    assert gap(per_head.sum(0), q @ k.T) < TOL

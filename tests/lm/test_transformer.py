"""Tests of mmir_lib.lm.transformer: the book's multi-head attention equal to
nn.MultiheadAttention with copied weights (causal and key-padding masks, float64), layer
norm equal to torch's, the defining properties of sinusoidal positions, the character
transformer (causal, its parameter count, the same logits through the book's attention
and torch's fused kernel, its attention weights and next-character distribution), the KV
cache (every step's logits those of the full forward pass, the same generated text),
held_out_losses against a brute-force evaluation, the committed checkpoint's held-out
bits per character (the figure chapter V.7 quotes), and the learning-rate schedule,
batches and resumption of tools/train_char_transformer.py."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.chapter import load_tool
from mmir_lib.lm.attention import causal_mask, padding_mask
from mmir_lib.lm.corpus import BOUNDARY, corpus_ids, vocabulary
from mmir_lib.lm.heldout import held_out_result
from mmir_lib.lm.sampling import generate
from mmir_lib.lm.transformer import (HELD_OUT_STRIDE, CharTransformer, KVCache, MultiHeadAttention,
                                     TransformerConfig, attention_from_torch, held_out_losses, layer_norm,
                                     load_checkpoint, scored_windows, sinusoidal_positions, training_record)

TOL = 1e-12


def gap(a, b):
    return float((a - b).detach().abs().max())


def torch_attention(width, heads, seed):
    torch.manual_seed(seed)
    layer = torch.nn.MultiheadAttention(width, heads, batch_first=True, dtype=torch.float64).eval()
    with torch.no_grad():  # nonzero biases, so that copying them is tested too
        layer.in_proj_bias.normal_()
        layer.out_proj.bias.normal_()
    return layer


def tiny_model(seed=0, vocab=7, context=8, width=8, layers=2, heads=2, scale=0.5):
    """A float64 CharTransformer in eval mode with large random weights (GPT-2's
    initialisation is too close to zero to tell paths apart)."""
    torch.manual_seed(seed)
    model = CharTransformer(TransformerConfig(vocab, context, width, layers, heads, dropout=0.1)).double().eval()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(scale * torch.randn_like(p))
    return model.requires_grad_(False)


# ---- multi-head attention ---------------------------------------------------------------

layouts = st.tuples(st.integers(1, 3), st.integers(1, 6), st.integers(1, 6), st.integers(1, 3), st.integers(1, 4),
                    st.integers(0, 2**31))


@given(layouts, st.sampled_from(["book", "fused"]))
@settings(max_examples=40, deadline=None)
def test_multi_head_attention_equals_torch(layout, implementation):
    batch, n_q, n_k, heads, head_width, seed = layout
    width = heads * head_width
    reference = torch_attention(width, heads, seed)
    layer = attention_from_torch(reference)
    g = torch.Generator().manual_seed(seed)
    x, key, value = (torch.randn(batch, n, width, generator=g, dtype=torch.float64) for n in (n_q, n_k, n_k))

    # self-attention, no mask; the book's weights are torch's averaged over the heads
    expected, expected_weights = reference(x, x, x)
    got, weights = layer(x, return_weights=True)
    assert got.shape == (batch, n_q, width) and weights.shape == (batch, heads, n_q, n_q)
    assert gap(got, expected) < TOL and gap(weights.mean(1), expected_weights) < TOL
    assert gap(layer(x, implementation=implementation), expected) < TOL

    # causal self-attention: torch's attn_mask is True where blocked, the book's mask True where it takes part
    expected = reference(x, x, x, attn_mask=~causal_mask(n_q), need_weights=False)[0]
    assert gap(layer(x, is_causal=True, implementation=implementation), expected) < TOL
    assert gap(layer(x, mask=causal_mask(n_q), implementation=implementation), expected) < TOL

    # cross-attention with padded keys
    lengths = torch.randint(1, n_k + 1, (batch,), generator=g).numpy()
    keep = padding_mask(lengths, max_length=n_k)                                   # (B, 1, n_k)
    expected = reference(x, key, value, key_padding_mask=~keep[:, 0], need_weights=False)[0]
    assert gap(layer(x, key, value, mask=keep, implementation=implementation), expected) < TOL


def test_multi_head_attention_padding_and_causal_together():
    reference, (b, n, width) = torch_attention(6, 3, 1), (2, 5, 6)
    layer = attention_from_torch(reference)
    x = torch.randn(b, n, width, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    keep = padding_mask([5, 3])
    both = ~causal_mask(n) | ~keep                                          # (B, n, n): blocked if either blocks
    expected = reference(x, x, x, attn_mask=both.repeat_interleave(3, dim=0), need_weights=False)[0]
    for implementation in ("book", "fused"):
        assert gap(layer(x, mask=keep, is_causal=True, implementation=implementation), expected) < TOL


def test_dropout_acts_in_training_mode_only():
    layer = attention_from_torch(torch_attention(4, 2, 3))
    x = torch.randn(2, 5, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    layer.dropout = 0.5
    evaluated = layer(x, is_causal=True)
    layer.train()
    for implementation in ("book", "fused"):
        torch.manual_seed(0)
        dropped = layer(x, is_causal=True, implementation=implementation)
        assert dropped.shape == evaluated.shape and gap(dropped, evaluated) > 1e-3
    layer.dropout = 0.0                                       # p = 0 in training mode: the same as evaluation
    assert gap(layer(x, is_causal=True), evaluated) < TOL


def test_attention_from_torch_copies_and_refuses():
    reference = torch_attention(4, 2, 0)
    layer = attention_from_torch(reference)
    assert torch.equal(layer.qkv.weight, reference.in_proj_weight) and torch.equal(layer.out.bias,
                                                                                  reference.out_proj.bias)
    assert layer.qkv.weight.dtype == torch.float64 and not layer.training and layer.heads == 2
    with pytest.raises(TypeError, match="source must be"):
        attention_from_torch(torch.nn.Linear(4, 4))
    for kwargs in (dict(kdim=3), dict(add_bias_kv=True), dict(add_zero_attn=True)):
        with pytest.raises(ValueError, match="source must project"):
            attention_from_torch(torch.nn.MultiheadAttention(4, 2, **kwargs))
    unbiased = attention_from_torch(torch.nn.MultiheadAttention(4, 2, bias=False))
    assert unbiased.qkv.bias is None and unbiased.out.bias is None


def test_multi_head_attention_refuses_bad_calls():
    layer = MultiHeadAttention(4, 2).double()
    x = torch.zeros(2, 3, 4, dtype=torch.float64)
    with pytest.raises(ValueError, match="query must be a \\(B, n, 4\\)"):
        layer(torch.zeros(2, 3, 5, dtype=torch.float64))
    with pytest.raises(ValueError, match="query must be"):
        layer(x.float())
    with pytest.raises(ValueError, match="must share the batch axis"):
        layer(x, torch.zeros(1, 3, 4, dtype=torch.float64))
    with pytest.raises(TypeError, match="mask must be a boolean"):
        layer(x, mask=torch.ones(3, 3))
    with pytest.raises(ValueError, match="mask of shape"):
        layer(x, mask=torch.ones(2, 4, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match="return_weights=True needs"):
        layer(x, implementation="fused", return_weights=True)
    with pytest.raises(ValueError, match="width must be a multiple of heads"):
        MultiHeadAttention(6, 4)


# ---- layer norm ---------------------------------------------------------------------------

@given(st.lists(st.integers(1, 4), min_size=0, max_size=2), st.integers(1, 9), st.booleans(),
       st.floats(1e-8, 1e-2), st.integers(0, 2**31))
@settings(max_examples=60, deadline=None)
def test_layer_norm_equals_torch(batch, d, affine, eps, seed):
    g = torch.Generator().manual_seed(seed)
    x = 3 * torch.randn(*batch, d, generator=g, dtype=torch.float64) + 2
    weight, bias = (torch.randn(d, generator=g, dtype=torch.float64) for _ in range(2)) if affine else (None, None)
    got = layer_norm(x, weight, bias, eps)
    assert got.shape == x.shape
    assert gap(got, F.layer_norm(x, (d,), weight, bias, eps)) < TOL
    module = torch.nn.LayerNorm(d, eps=eps, dtype=torch.float64)
    assert gap(layer_norm(x, module.weight, module.bias, eps), module(x)) < TOL
    if d > 1 and not affine:  # each row has mean 0 and variance σ²/(σ² + ε) ≤ 1
        assert gap(got.mean(-1), torch.zeros(())) < 1e-12
        assert float(got.var(-1, unbiased=False).max()) <= 1 + 1e-12


def test_layer_norm_refuses_bad_parameters():
    x = torch.ones(2, 3, dtype=torch.float64)
    with pytest.raises(ValueError, match="weight must be a \\(3,\\) tensor"):
        layer_norm(x, torch.ones(4, dtype=torch.float64))
    with pytest.raises(ValueError, match="bias must be"):
        layer_norm(x, None, torch.ones(3))
    with pytest.raises(ValueError, match="eps must be > 0"):
        layer_norm(x, eps=0.0)


# ---- sinusoidal positions ---------------------------------------------------------------------

def test_sinusoidal_positions_are_sin_cos_pairs_with_geometric_wavelengths():
    length, width, base = 50, 16, 10000.0
    pe = sinusoidal_positions(length, width, base)
    assert pe.shape == (length, width) and pe.dtype == torch.float64
    sin, cos = pe[:, 0::2], pe[:, 1::2]
    assert gap(sin**2 + cos**2, torch.ones(())) < TOL                    # each pair lies on the unit circle
    assert torch.equal(pe[0], torch.tensor([0.0, 1.0] * (width // 2), dtype=torch.float64))
    omega = torch.atan2(sin[1], cos[1])                                  # the angle one step turns pair i by
    i = torch.arange(width // 2, dtype=torch.float64)
    assert gap(omega, base ** (-2 * i / width)) < TOL
    wavelength = 2 * math.pi / omega
    assert abs(float(wavelength[0]) - 2 * math.pi) < TOL                 # from 2π …
    ratio = torch.tensor(base ** (2 / width), dtype=torch.float64)
    assert gap(wavelength[1:] / wavelength[:-1], ratio) < 1e-9           # … geometric …
    assert float(wavelength[-1]) < 2 * math.pi * base                    # … to below 2π·base
    t = torch.arange(length, dtype=torch.float64)[:, None]               # and the columns are the formula
    assert gap(sin, torch.sin(t * omega)) < 1e-10 and gap(cos, torch.cos(t * omega)) < 1e-10


@given(st.integers(1, 40), st.sampled_from([2, 4, 8, 12]), st.sampled_from([100.0, 10000.0]))
@settings(max_examples=40, deadline=None)
def test_an_offset_is_one_linear_map_for_every_position(k, width, base):
    length = 60
    pe = sinusoidal_positions(length + k, width, base)
    omega = base ** (-torch.arange(0, width, 2, dtype=torch.float64) / width)
    rotation = torch.zeros(width, width, dtype=torch.float64)            # block-diagonal, one 2×2 per pair
    for i, w in enumerate(omega):
        c, s = math.cos(k * w), math.sin(k * w)
        rotation[2 * i:2 * i + 2, 2 * i:2 * i + 2] = torch.tensor([[c, s], [-s, c]], dtype=torch.float64)
    # sin(ω(t+k)) = sin ωt cos ωk + cos ωt sin ωk,  cos(ω(t+k)) = cos ωt cos ωk − sin ωt sin ωk
    assert gap(pe[k:], pe[:length] @ rotation.T) < 1e-9
    # so the dot product of two codes depends only on their offset
    dots = (pe[:length] * pe[k:]).sum(1)
    assert gap(dots, dots[0]) < 1e-9


def test_sinusoidal_positions_refuse_odd_width():
    with pytest.raises(ValueError, match="width must be even"):
        sinusoidal_positions(4, 5)
    with pytest.raises(TypeError, match="dtype must be"):
        sinusoidal_positions(4, 4, dtype=torch.int64)


# ---- the character transformer ----------------------------------------------------------------------

def test_book_attention_and_fused_kernel_give_the_same_logits():
    model = tiny_model()
    ids = torch.randint(0, 7, (3, 8), generator=torch.Generator().manual_seed(0))
    fused, book = model(ids), model(ids, implementation="book")
    assert fused.shape == (3, 8, 7) and fused.dtype == torch.float64
    assert float(fused.std()) > 0.1                      # logits far from zero: the check has teeth
    assert gap(fused, book) < 1e-10
    assert gap(model(ids[:, :5], implementation="book"), fused[:, :5]) < 1e-10  # shorter windows too


@given(st.integers(0, 2**31), st.integers(1, 8), st.data())
@settings(max_examples=25, deadline=None)
def test_a_future_token_never_changes_earlier_logits(seed, t, data):
    model = tiny_model(seed % 3)
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, 7, (1, t), generator=g)
    j = data.draw(st.integers(0, t - 1))
    changed = ids.clone()
    changed[0, j] = (ids[0, j] + data.draw(st.integers(1, 6))) % 7
    for implementation in ("fused", "book"):
        before, after = model(ids, implementation=implementation), model(changed, implementation=implementation)
        assert gap(before[:, :j], after[:, :j]) < TOL if j else True
        assert gap(before[:, j], after[:, j]) > 1e-6     # position j reads its own token


@given(st.integers(2, 20), st.integers(1, 12), st.integers(1, 3), st.integers(1, 3), st.integers(1, 4))
@settings(max_examples=30, deadline=None)
def test_parameter_count_is_the_formula_of_the_module_notes(vocab, context, layers, heads, head_width):
    d = heads * head_width
    config = TransformerConfig(vocab, context, d, layers, heads)
    model = CharTransformer(config)
    formula = vocab * d + context * d + layers * (12 * d * d + 13 * d) + 2 * d
    assert model.num_parameters() == config.num_parameters() == formula


def test_the_parameter_names_and_shapes_the_checkpoint_relies_on():
    model = CharTransformer(TransformerConfig(vocab_size=5, context=4, width=6, layers=1, heads=2))
    shapes = {name: tuple(value.shape) for name, value in model.state_dict().items()}
    assert shapes == {
        "embedding.weight": (5, 6), "position.weight": (4, 6),
        "blocks.0.norm1.weight": (6,), "blocks.0.norm1.bias": (6,),
        "blocks.0.attention.qkv.weight": (18, 6), "blocks.0.attention.qkv.bias": (18,),
        "blocks.0.attention.out.weight": (6, 6), "blocks.0.attention.out.bias": (6,),
        "blocks.0.norm2.weight": (6,), "blocks.0.norm2.bias": (6,),
        "blocks.0.feed_forward.0.weight": (24, 6), "blocks.0.feed_forward.0.bias": (24,),
        "blocks.0.feed_forward.2.weight": (6, 24), "blocks.0.feed_forward.2.bias": (6,),
        "norm.weight": (6,), "norm.bias": (6,)}


def test_initialisation_is_gpt2s():
    torch.manual_seed(0)
    model = CharTransformer(TransformerConfig(vocab_size=50, context=64, width=64, layers=8, heads=4))
    state = model.state_dict()
    assert torch.equal(state["blocks.3.norm1.weight"], torch.ones(64))
    assert not state["blocks.3.attention.qkv.bias"].any()
    assert abs(float(state["blocks.3.attention.qkv.weight"].std()) - 0.02) < 0.002
    assert abs(float(state["blocks.3.attention.out.weight"].std()) - 0.02 / 4) < 0.0005   # 0.02/√(2L), L = 8
    assert abs(float(state["blocks.3.feed_forward.2.weight"].std()) - 0.02 / 4) < 0.0005


def test_forward_and_config_refuse_bad_input():
    model = tiny_model()
    with pytest.raises(TypeError, match="ids must be an int64"):
        model(torch.zeros(1, 3))
    with pytest.raises(ValueError, match="ids must be at most context=8"):
        model(torch.zeros(1, 9, dtype=torch.int64))
    with pytest.raises(ValueError, match="ids must lie in"):
        model(torch.tensor([[0, 7]]))
    with pytest.raises(ValueError, match="ids must be a nonempty"):
        model(torch.zeros(3, dtype=torch.int64))
    with pytest.raises(ValueError, match="implementation"):
        model(torch.zeros(1, 3, dtype=torch.int64), implementation="flash")
    with pytest.raises(ValueError, match="width must be a multiple of heads"):
        TransformerConfig(vocab_size=5, width=10, heads=4)
    with pytest.raises(ValueError, match="asks for an array"):
        TransformerConfig(vocab_size=1_000_000, context=8192, width=65_536)


def test_attention_weights_are_the_blocks_causal_weights():
    model = tiny_model(3)
    ids = torch.randint(0, 7, (2, 6), generator=torch.Generator().manual_seed(1))
    weights = model.attention_weights(ids)
    assert weights.shape == (2, 2, 2, 6, 6)                                   # (L, B, H, T, T)
    assert gap(weights.sum(-1), torch.ones(())) < TOL
    assert not weights.triu(1).any()                                          # no position sees the future
    first = model.blocks[0]                                                   # block 0 by hand
    z = F.layer_norm(model.embedding(ids) + model.position.weight[:6], (8,), first.norm1.weight, first.norm1.bias)
    _, expected = first.attention(z, is_causal=True, return_weights=True)
    assert gap(weights[0], expected) < TOL
    assert gap(weights[1], weights[0]) > 1e-3                                 # block 1 reads block 0's output


def test_next_distribution_reads_a_short_context_after_the_newline():
    model = tiny_model(4)
    context = np.array([3, 5, 2])
    p = model.next_distribution(context, pad=1)
    expected = torch.softmax(model(torch.tensor([[1, 3, 5, 2]]))[0, -1], dim=0).numpy()
    assert p.shape == (7,) and p.dtype == np.float64 and np.allclose(p, expected, rtol=0, atol=TOL)
    assert math.isclose(p.sum(), 1.0, abs_tol=1e-12)
    full = np.arange(8) % 7                                                   # T = 8 ids: read as they are
    assert np.allclose(model.next_distribution(full),
                       torch.softmax(model(torch.from_numpy(full)[None])[0, -1], dim=0).numpy(), rtol=0, atol=TOL)
    assert np.allclose(model.next_distribution([]), torch.softmax(model(torch.tensor([[1]]))[0, -1], 0).numpy())
    assert model.order == 9 and model.vocab_size == 7
    with pytest.raises(ValueError, match="more than the model's context of 8"):
        model.next_distribution(np.zeros(9, dtype=np.int64))
    with pytest.raises(ValueError, match="context must hold values <= 6"):
        model.next_distribution([7])


def test_generate_samples_from_the_transformer_reproducibly():
    model = tiny_model(5)
    first = generate(model, [1, 2], 20, np.random.default_rng(0), temperature=0.7, exclude=0)
    again = generate(model, [1, 2], 20, np.random.default_rng(0), temperature=0.7, exclude=0)
    assert np.array_equal(first, again) and len(first) == 20 and not (first == 0).any()
    assert model.training is False
    with pytest.raises(ValueError, match="temperature must be > 0"):
        generate(model, [1, 2], 5, np.random.default_rng(0), temperature=0)


# ---- the KV cache -------------------------------------------------------------------------------------------

@given(st.integers(0, 2**31), st.integers(1, 3), st.integers(1, 3), st.integers(1, 4), st.integers(1, 10),
       st.booleans(), st.data())
@settings(max_examples=30, deadline=None)
def test_cached_logits_are_the_full_forward_pass_at_every_step(seed, layers, heads, head_width, context, double,
                                                               data):
    torch.manual_seed(seed)
    model = CharTransformer(TransformerConfig(9, context, heads * head_width, layers, heads, dropout=0.2))
    with torch.no_grad():
        for p in model.parameters():                   # far from GPT-2's near-zero start: the check has teeth
            p.add_(0.3 * torch.randn_like(p))
    model = model.double() if double else model
    ids = torch.randint(0, 9, (1, context), generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        full = model.eval()(ids)[0]                    # row i: the logits after ids[: i + 1]
    first = data.draw(st.integers(1, context))         # a prompt read at once, then one id at a time
    cache = KVCache(model.train())                     # reads in evaluation mode whatever the model's mode
    steps = [cache.append(ids[0, :first].numpy())] + [cache.append(ids[0, i:i + 1].numpy())
                                                      for i in range(first, context)]
    assert model.training
    assert gap(torch.cat(steps), full) < (1e-10 if double else 1e-5)
    assert cache.floats == 2 * layers * context * heads * head_width and cache.ids == ids[0].tolist()


def test_the_checkpoints_cached_logits():
    model = load_checkpoint()
    ids = corpus_ids("test", "character")[1000:1000 + model.config.context]
    for dtype, tolerance in ((torch.float64, 1e-10), (torch.float32, 2e-4)):
        m = model.to(dtype)
        with torch.no_grad():
            full = m(torch.from_numpy(ids.astype(np.int64))[None])[0]
        cache = KVCache(m)
        cached = torch.cat([cache.append(ids[i:i + 1]) for i in range(len(ids))])
        # float32: logits reach 22 in magnitude; the full pass itself moves by ~3e-5 between window lengths
        assert gap(cached, full) < tolerance, (dtype, gap(cached, full))
    assert cache.floats == 2 * model.config.layers * model.config.context * model.config.width


def test_generation_with_and_without_the_cache_is_the_same_text():
    model = tiny_model(6)                              # context 8: the window slides after 8 characters
    for length in (5, 30):
        for seed in range(3):
            plain = generate(model, [1, 2, 3], length, np.random.default_rng(seed), temperature=0.8, top_p=0.9)
            cached = generate(KVCache(model), [1, 2, 3], length, np.random.default_rng(seed), temperature=0.8,
                              top_p=0.9)
            assert plain.tolist() == cached.tolist()
    checkpoint = load_checkpoint()
    prompt = corpus_ids("test", "character")[5000:5040]
    assert (generate(checkpoint, prompt, 30, np.random.default_rng(0)).tolist()
            == generate(KVCache(checkpoint), prompt, 30, np.random.default_rng(0)).tolist())


def test_the_cache_reads_only_what_extends_it_and_starts_again_otherwise():
    model = tiny_model(7)
    cache = KVCache(model, pad=1)
    for context in ([], [3], [3, 4], [3, 4], [3, 4, 5, 6], [2, 2], list(range(7)) + [0], [5] * 8):
        assert np.allclose(cache.next_distribution(context), model.next_distribution(context), rtol=0, atol=TOL)
        window = context if len(context) == 8 else [1] + context
        assert cache.ids == window and cache.floats == 2 * 2 * len(window) * 8
    assert cache.order == model.order and cache.vocab_size == model.vocab_size
    cache.reset()
    assert cache.ids == [] and cache.floats == 0
    cache.append([1, 2, 3, 4, 5])
    with pytest.raises(ValueError, match="more than the model's context of 8"):
        cache.append([1, 2, 3, 4])
    with pytest.raises(ValueError, match="ids must hold values <= 6"):
        cache.append([7])
    with pytest.raises(ValueError, match="more than the model's context of 8"):
        cache.next_distribution(np.zeros(9, dtype=np.int64))
    with pytest.raises(TypeError, match="model must be"):
        KVCache("a transformer")


#: The test bits per character chapter V.7 quotes for the committed checkpoint (2 decimals).
CHECKPOINT_TEST_BPC = 1.93


def test_the_checkpoints_held_out_bits_per_character():
    model, record = load_checkpoint(), training_record()
    assert not model.training and model.embedding.weight.dtype == torch.float32
    assert record["tokens"] == record["steps"] * training_script().BATCH * model.config.context
    assert record["log"][-1]["step"] == record["steps"]
    ids = corpus_ids("test", "character")
    losses = held_out_losses(model, ids, start=vocabulary("character").index[BOUNDARY], stride=HELD_OUT_STRIDE)
    assert round(held_out_result("transformer", "character", losses).bits_per_char, 2) == CHECKPOINT_TEST_BPC


# ---- held-out losses ----------------------------------------------------------------------------------

def brute_force(model, ids, start, stride):
    """Each symbol x_j from the first window (in the documented order) that predicts it, one
    forward pass per symbol; stride=None: from its full left context min(j, T)."""
    stream, n, context = [start, *ids], len(ids), model.config.context
    width = min(context, n)
    starts = list(range(0, n - width + 1, stride or 1))
    starts += [n - width] if starts[-1] != n - width else []
    losses, contexts = [], []
    for j in range(1, n + 1):
        s = max(0, j - context) if stride is None else next(s for s in starts if s < j <= s + width)
        window = torch.tensor([stream[s:j]])
        log_p = torch.log_softmax(model(window)[0, -1], dim=0)
        losses.append(-float(log_p[stream[j]]))
        contexts.append(j - s)
    return np.array(losses), np.array(contexts)


@pytest.mark.parametrize("n", [3, 8, 17])
def test_held_out_losses_equal_a_brute_force_evaluation(n):
    model = tiny_model(1)
    ids = np.random.default_rng(n).integers(0, 7, n)
    full, full_context = brute_force(model, ids, 1, None)
    assert np.array_equal(full_context, np.minimum(np.arange(1, n + 1), 8))
    assert np.allclose(held_out_losses(model, ids, start=1, stride=1), full, rtol=0, atol=TOL)
    for stride in (1, 2, 3, 5, 7):
        expected, contexts = brute_force(model, ids, 1, stride)
        assert np.all(contexts >= np.minimum(np.arange(1, n + 1), 8 - stride + 1))  # the documented guarantee
        for batch_size in (1, 3, 64):
            got = held_out_losses(model, ids, start=1, stride=stride, batch_size=batch_size)
            assert got.shape == (n,) and got.dtype == np.float64
            assert np.allclose(got, expected, rtol=0, atol=TOL), (stride, batch_size)
        if n <= 8:  # one window: every stride gives the full context
            assert np.allclose(expected, full, rtol=0, atol=TOL)
    assert np.allclose(held_out_losses(model, ids, start=1), brute_force(model, ids, 1, 4)[0], atol=TOL)


def test_held_out_losses_restore_the_mode_and_ignore_dropout():
    model = tiny_model(2).train()
    ids = np.random.default_rng(0).integers(0, 7, 12)
    first = held_out_losses(model, ids, start=0, stride=3)
    assert model.training and np.array_equal(first, held_out_losses(model, ids, start=0, stride=3))


@pytest.mark.parametrize("n, stride, batch_size", [(3, 2, 1), (17, 3, 2), (17, 7, 64), (30, None, 4)])
def test_scored_windows_score_every_symbol_once_as_held_out_losses_does(n, stride, batch_size):
    model = tiny_model(3)
    ids = np.random.default_rng(n).integers(0, 7, n)
    covered, assembled = np.zeros(n, dtype=int), np.empty(n)
    for windows, logits, nats in scored_windows(model, ids, start=1, stride=stride, batch_size=batch_size):
        assert len(windows) <= batch_size and logits.shape[:2] == nats.shape == (len(windows), min(8, n))
        for row, (s, end, first) in enumerate(windows):
            assert s <= first < end == s + min(8, n)
            covered[first:end] += 1
            assembled[first:end] = nats[row, first - s:]
    assert (covered == 1).all()
    assert np.array_equal(assembled, held_out_losses(model, ids, start=1, stride=stride, batch_size=batch_size))


def test_scored_windows_check_their_arguments_before_running_a_window():
    with pytest.raises(ValueError, match="stride must be <= 7"):
        scored_windows(tiny_model(), np.array([1, 2, 3]), start=0, stride=8)   # no iteration needed


def test_held_out_losses_refuse_bad_input():
    model = tiny_model()
    ids = np.array([1, 2, 3])
    with pytest.raises(ValueError, match="stride must be <= 7"):
        held_out_losses(model, ids, start=0, stride=8)
    with pytest.raises(ValueError, match="stride must be >= 1"):
        held_out_losses(model, ids, start=0, stride=0)
    with pytest.raises(ValueError, match="ids must hold values <= 6"):
        held_out_losses(model, [1, 7], start=0)
    with pytest.raises(ValueError, match="ids must hold values >= 0"):
        held_out_losses(model, [-1, 2], start=0)
    with pytest.raises(ValueError, match="ids must not be empty"):
        held_out_losses(model, np.array([], dtype=np.int64), start=0)
    with pytest.raises(ValueError, match="start must be <= 6"):
        held_out_losses(model, ids, start=7)
    with pytest.raises(TypeError, match="model must be a CharTransformer"):
        held_out_losses(torch.nn.Linear(2, 2), ids, start=0)


# ---- the training script ------------------------------------------------------------------------------

def training_script():
    return load_tool("train_char_transformer")


def test_learning_rate_warms_up_linearly_then_decays_by_a_cosine():
    script = training_script()
    lr, peak, final, warmup, steps = script.learning_rate, script.PEAK_LR, script.FINAL_LR, script.WARMUP, 6000
    assert math.isclose(lr(0, steps), peak / warmup)
    assert math.isclose(lr(warmup // 2 - 1, steps), peak / 2)
    assert math.isclose(lr(warmup - 1, steps), peak) and math.isclose(lr(warmup, steps), peak)
    assert math.isclose(lr((warmup + steps) // 2, steps), (peak + final) / 2)      # half-way down the cosine
    assert math.isclose(lr(steps, steps), final) and abs(lr(steps - 1, steps) - final) < 1e-9  # the last step taken
    rates = [lr(s, steps) for s in range(steps)]
    assert all(a < b for a, b in zip(rates[:warmup], rates[1:warmup]))
    assert all(a >= b for a, b in zip(rates[warmup:], rates[warmup + 1:]))


def test_training_batches_depend_only_on_the_step():
    script = training_script()
    train = torch.arange(1000)
    inputs, targets = script.batch(train, 7, 16)
    again, _ = script.batch(train, 7, 16)
    assert inputs.shape == targets.shape == (script.BATCH, 16) and torch.equal(inputs, again)
    assert torch.equal(targets, inputs + 1)                         # targets are the next characters
    assert not torch.equal(inputs, script.batch(train, 8, 16)[0])


def test_a_stopped_and_resumed_run_ends_where_an_uninterrupted_one_does(tmp_path, monkeypatch):
    script = training_script()
    stream = np.random.default_rng(0).integers(0, 77, 2000)
    monkeypatch.setattr(script, "corpus_ids", lambda split, level: stream)
    monkeypatch.setattr(script, "CONFIG", dict(context=8, width=8, layers=1, heads=2, dropout=0.1))
    monkeypatch.setattr(script, "LOG_VALIDATION_CHARS", 50)
    monkeypatch.setattr(script, "BATCH", 4)
    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()

    def run(name, *extra):
        monkeypatch.setattr("sys.argv", ["train", "--steps", "5", "--every", "2", "--threads", "1",
                                         "--state", str(tmp_path / f"{name}_state.pt"),
                                         "--out", str(tmp_path / f"{name}.pt"), *extra])
        script.main()
        return torch.load(tmp_path / f"{name}.pt")

    try:
        whole = run("whole")
        stopped = run("parts", "--stop-after", "0")                 # stops after step 1
        assert stopped["steps"] == 1 and stopped["log"] == []
        parts = run("parts", "--resume")
        with pytest.raises(SystemExit):
            run("parts", "--resume", "--steps", "9")                  # another schedule: refused
    finally:
        torch.set_num_threads(threads)
        torch.use_deterministic_algorithms(deterministic)
    assert whole["steps"] == parts["steps"] == 5 and whole["config"]["width"] == 8
    assert all(torch.equal(whole["weights"][k], parts["weights"][k]) for k in whole["weights"])
    drop = lambda log: [{k: v for k, v in entry.items() if k != "minutes"} for entry in log]  # noqa: E731
    assert [e["step"] for e in whole["log"]] == [2, 4, 5] and drop(whole["log"]) == drop(parts["log"])

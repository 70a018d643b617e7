import itertools

import numpy as np
import pytest
import torch

from mmir_lib import data, setup_chapter
from mmir_lib.lm.crf import LinearChainCRF, build_feature_index, crf_loss, token_features, train_crf
from mmir_lib.lm.tagging import brute_force, most_frequent_tagger, tag_accuracy, viterbi

TOY = [(("the", "dog", "barks"), ("DET", "NOUN", "VERB")),
       (("the", "cat", "sleeps"), ("DET", "NOUN", "VERB")),
       (("a", "dog", "sleeps"), ("DET", "NOUN", "VERB")),
       (("dogs", "bark"), ("NOUN", "VERB"))]


def random_crf(seed=0):
    model = LinearChainCRF(build_feature_index(TOY)).double()
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=generator, dtype=torch.float64))
    return model


def lattice(model, words):
    emissions = model.emissions(*model.index.encode(words)).detach().numpy()
    return (model.start.detach().numpy(), model.transition.detach().numpy(), emissions, model.end.detach().numpy())


@pytest.mark.parametrize("words", [["the"], ["the", "dog"], ["a", "cat", "barks"], ["dogs", "bark", "the", "cat"]])
def test_partition_function_and_best_path_equal_brute_force(words):
    model = random_crf()
    emissions = model.emissions(*model.index.encode(words))
    best, best_score, log_z = brute_force(*lattice(model, words))
    assert model.log_partition(emissions).item() == pytest.approx(log_z, rel=1e-12)
    assert viterbi(*lattice(model, words))[0] == best
    tags = torch.tensor(best)
    assert model.score(emissions, tags).item() == pytest.approx(best_score, rel=1e-12)


def test_batched_loss_equals_the_sum_of_sentence_losses():
    model = random_crf(1)
    index = {t: j for j, t in enumerate(model.index.tags)}
    batch = [(*model.index.encode(w), torch.tensor([index[t] for t in ts])) for w, ts in TOY]
    by_sentence = [model.log_partition(model.emissions(i, o)) - model.score(model.emissions(i, o), t)
                   for i, o, t in batch]
    assert crf_loss(model, batch).item() == pytest.approx(torch.stack(by_sentence).mean().item(), rel=1e-12)


def test_probabilities_of_all_taggings_sum_to_one():
    model = random_crf(2)
    words = ["a", "dog", "sleeps"]
    emissions = model.emissions(*model.index.encode(words))
    log_z = model.log_partition(emissions)
    n_tags = len(model.index.tags)
    total = sum(torch.exp(model.score(emissions, torch.tensor(p)) - log_z).item()
                for p in itertools.product(range(n_tags), repeat=len(words)))
    assert total == pytest.approx(1.0, rel=1e-12)


def test_gradient_is_observed_minus_expected_feature_counts():
    # d(-log P(y|x)) / d transition[a, b] = E[count of a->b] - count of a->b in y.
    model = random_crf(3)
    words, gold = ["the", "dog", "barks"], torch.tensor([0, 1, 2])
    emissions = model.emissions(*model.index.encode(words))
    (model.log_partition(emissions) - model.score(emissions, gold)).backward()
    log_z = model.log_partition(model.emissions(*model.index.encode(words))).item()
    n_tags = len(model.index.tags)
    expected = np.zeros((n_tags, n_tags))
    with torch.no_grad():
        for p in itertools.product(range(n_tags), repeat=len(words)):
            weight = np.exp(model.score(emissions, torch.tensor(p)).item() - log_z)
            for a, b in zip(p, p[1:]):
                expected[a, b] += weight
    observed = np.zeros((n_tags, n_tags))
    observed[0, 1] = observed[1, 2] = 1
    np.testing.assert_allclose(model.transition.grad.numpy(), expected - observed, atol=1e-12)


def test_crf_beats_the_most_frequent_tag_baseline_on_ewt():
    setup_chapter()
    train = [(s.words, s.upos) for s in data.ud_english_ewt("train")[:2000]]
    test = [(s.words, s.upos) for s in data.ud_english_ewt("test")[:500]]
    model = LinearChainCRF(build_feature_index(train))
    history = train_crf(model, train, epochs=2)
    assert history.epoch_losses[-1] < history.epoch_losses[0]
    gold = [t for _, t in test]
    crf = tag_accuracy(gold, [model.tag(w) for w, _ in test])
    most_frequent = most_frequent_tagger(train)
    baseline = tag_accuracy(gold, [most_frequent(w) for w, _ in test])
    assert crf > baseline + 0.05 and crf > 0.9


def test_features_and_bad_input():
    assert token_features(["Janet", "will"], 0)[-2:] == ["first", "w+1=will"]
    assert "capital-first" in token_features(["Janet"], 0) and "digit" in token_features(["a", "b2"], 1)
    with pytest.raises(ValueError, match="i must be"):
        token_features(["a"], 1)
    with pytest.raises(TypeError, match="index"):
        LinearChainCRF("features")
    with pytest.raises(ValueError, match="tags the model does not know"):
        train_crf(LinearChainCRF(build_feature_index(TOY)), [(("a",), ("ADJ",))])

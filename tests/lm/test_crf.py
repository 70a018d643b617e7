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


# ---- the committed checkpoints of tools/train_crf_taggers.py ---------------------------

#: The figures chapter III.6 quotes for the committed checkpoints (1 decimal, in %): the
#: part-of-speech CRF's and CRFsuite's test accuracy, and the name CRF's span F1 per seed.
CHECKPOINT_UPOS_TEST_PCT = 94.5
CHECKPOINT_CRFSUITE_TEST_PCT = 94.1
CHECKPOINT_NAMES_TEST_F1 = (78.0, 76.2, 77.3)


def test_the_checkpoints_test_figures():
    from mmir_lib.lm.crf import NAME_SEEDS, SETTINGS, crfsuite_features, load_crfsuite, load_trained, training_record
    from mmir_lib.lm.spans import ewt_names, span_scores
    from mmir_lib.lm.tagging import fit_hmm

    setup_chapter()
    train = [(s.words, s.upos) for s in data.ud_english_ewt("train")]
    test = [(s.words, s.upos) for s in data.ud_english_ewt("test")]
    gold = [t for _, t in test]
    index = build_feature_index(train)
    record = training_record()
    assert record["settings"] == SETTINGS and record["upos"]["features"] == len(index.features)
    assert record["upos"]["epoch_losses"][-1] < record["upos"]["epoch_losses"][0]
    model = load_trained("upos")
    assert model.index == index  # the saved properties are the training sentences', in the same order
    assert round(100 * tag_accuracy(gold, [model.tag(w) for w, _ in test]), 1) == CHECKPOINT_UPOS_TEST_PCT
    reference = load_crfsuite()
    predicted = [reference.tag(crfsuite_features(w)) for w, _ in test]
    assert round(100 * tag_accuracy(gold, predicted), 1) == CHECKPOINT_CRFSUITE_TEST_PCT
    assert len(record["crfsuite"]["dev_accuracy"]) == record["crfsuite"]["epochs"]

    names_train, names_test = ewt_names("train"), ewt_names("test")
    names_gold = [t for _, t in names_test]
    hmm = fit_hmm(names_train, order=1)
    hmm_f1 = span_scores(names_gold, [hmm.tag(w) for w, _ in names_test]).f1
    f1 = [span_scores(names_gold, load_trained("names", seed).tag_many([w for w, _ in names_test])).f1
          for seed in NAME_SEEDS]
    assert tuple(round(100 * x, 1) for x in f1) == CHECKPOINT_NAMES_TEST_F1
    assert all(x > hmm_f1 for x in f1)  # the chapter's lesson


def test_load_trained_refuses_an_index_of_another_size():
    from mmir_lib.lm.crf import load_trained

    with pytest.raises(ValueError, match="index has"):
        load_trained("upos", index=build_feature_index(TOY))
    with pytest.raises(ValueError, match="seed"):
        load_trained("names", seed=7)


def test_tag_many_equals_tag_one_by_one():
    model = random_crf(3)
    sentences = [["the", "dog"], [], ["a", "cat", "barks"], ["dogs"], ["the", "cat"], ["unseen", "words", "here"]]
    assert model.tag_many(sentences) == [model.tag(s) for s in sentences]
    with pytest.raises(TypeError, match=r"sentences\[1\]"):
        model.tag_many([["the"], [3]])

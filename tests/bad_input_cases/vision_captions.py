"""Bad-input cases for Part VI.3: captioned canvases (mmir_lib.vision.captions), the dual
encoder (.dual_encoder) and the experiment's figures and checkpoints (.clip_digits)."""

import numpy as np

from mmir_lib.vision import captions, clip_digits, dual_encoder
from tests.api_fuzz import Case

RNG = np.random.default_rng(0)
DIGITS = RNG.random((10, 28, 28))
LABELS = np.arange(10)
MODEL = dual_encoder.make_dual_encoder("bag", seed=0)
SETS = {"seen": captions.captioned_canvases("test", [(0, 1), (2, -1)], 1, seed=0),
        "held_out": captions.captioned_canvases("test", [(0, 3)], 1, seed=0)}

CASES = [
    Case(captions.digit_word, dict(digit=7, form="french", plural=False),
         accepts={"digit": {"zero"}, "plural": {"bool"}}),
    Case(captions.caption, dict(composition=(7, 2), form="english")),
    Case(captions.tokenize, dict(text="un sept à gauche d'un deux"), accepts={"text": {"str"}}),
    Case(captions.CaptionVocabulary, dict()),
    Case(captions.CaptionVocabulary().encode, dict(texts=["a seven", "7 left of 2"])),
    Case(captions.CaptionedCanvases, dict(images=np.zeros((1, 28, 56)), compositions=np.array([[1, 2]])),
         skip={"images": "a plain record, filled by captioned_canvases", "compositions": "a plain record"}),
    Case(captions.compositions, dict(which="held_out")),
    Case(captions.paint, dict(digits=DIGITS, labels=LABELS, chosen=[(0, 1)], rng=np.random.default_rng(0),
                              centre=False),
         skip={"rng": "any numpy Generator"}, accepts={"centre": {"bool"}}),
    Case(captions.captioned_canvases, dict(split="test", chosen=[(0, 1)], per_composition=1, seed=0, centre=False),
         accepts={"seed": {"zero"}, "centre": {"bool"}}),
    Case(captions.draw_batch, dict(digits=DIGITS, labels=LABELS, batch_size=2, seed=[0, 1], single_share=0.0),
         accepts={"single_share": {"zero"}}),
    Case(dual_encoder.ImageEncoder, dict(dim=8)),
    Case(dual_encoder.BagTextEncoder, dict(vocabulary_size=10, dim=8, width=4)),
    Case(dual_encoder.GRUTextEncoder, dict(vocabulary_size=10, dim=8, width=4, hidden=4)),
    Case(dual_encoder.make_dual_encoder, dict(text_encoder="gru", seed=1), accepts={"seed": {"zero"}}),
    Case(dual_encoder.train_dual_encoder, dict(model=MODEL, digits=DIGITS, labels=LABELS, steps=1, lr=1e-3,
                                               batch_size=2, seed=0), accepts={"seed": {"zero"}}),
    Case(dual_encoder.embed_images, dict(model=MODEL, images=np.zeros((2, 28, 56)), batch_size=1)),
    Case(dual_encoder.embed_texts, dict(model=MODEL, texts=["a seven"])),
    Case(dual_encoder.retrieval_scores, dict(scores=np.eye(3), relevant=np.eye(3, dtype=bool), tie=1e-6),
         accepts={"tie": {"zero"}}),
    Case(clip_digits.centred_digits, dict(digits=DIGITS)),
    Case(clip_digits.held_out_figures, dict(model=MODEL, sets=SETS, zero_shot=(DIGITS, LABELS)),
         skip={"sets": "a dict of CaptionedCanvases, checked by use", "zero_shot": "a pair, checked by use"}),
    Case(clip_digits.checkpoint_record, dict(text_encoder="bag", directory=None), accepts={"directory": {"none"}},
         skip={"directory": "a path; a bad one is a missing file"}),
    Case(clip_digits.load_dual_encoder, dict(text_encoder="gru", seed=1, directory=None), accepts={"seed": {"zero"}},
         skip={"directory": "a path; a bad one is a missing file"}),
    Case(clip_digits.load_lenet, dict(directory=None), skip={"directory": "a path; a bad one is a missing file"}),
]

EXEMPT = {"mmir_lib.vision.clip_digits.evaluation_sets": "no arguments",
          "mmir_lib.vision.dual_encoder.DualEncoder": "built by make_dual_encoder, which has a case",
          "mmir_lib.vision.dual_encoder.TrainingLog": "a plain record of train_dual_encoder"}

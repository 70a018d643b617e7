"""V.7's transformer: multi-head attention against torch's, and the transformer against the LSTM
at the same training time (`make bench`).

1. One forward pass of causal multi-head attention (B = 32, n = 256, d = 192, 4 heads,
   float32, one thread): the book's :class:`~mmir_lib.lm.transformer.MultiHeadAttention`
   (V.6's attention, weights stored) against ``torch.nn.MultiheadAttention`` with the same
   weights (outputs equal to 1e-4 asserted). The best of ``repeat`` runs.
2. Training speed on one thread, in characters per second: a step of the chapter's
   transformer (its checkpoint's shape, 32 windows of 256 characters, AdamW) and a step of
   V.4's checkpoint LSTM (its settings: h = 256, 32 windows of 100 characters, Adam), each
   the best of ``repeat`` steps after one warm-up step.
3. The two checkpoints at the same training time. The LSTM checkpoint read
   ``epochs × training characters``; at the measured speed that took t seconds on one
   thread, in which the transformer reads ``t × its speed`` characters. Its validation loss
   at that point is read off its training log (the first 40,000 validation characters,
   interpolated between log entries; a point of the long run, before its learning rate has
   decayed; before the first entry only a bound: higher than there) and set beside the LSTM
   checkpoint's on the same characters; then both checkpoints' held-out bits per character
   on the test plays, beside the best n-gram's (Kneser–Ney, order and discount tuned on validation).
Run with ``python benchmarks/transformer_speed.py``; ``main()`` returns the table rows.
"""

import math
import time

from threadpoolctl import threadpool_limits

import numpy as np
import torch
from torch.nn import functional as F

from mmir_lib.lm import char_lm
from mmir_lib.lm.corpus import BOUNDARY, corpus_ids, vocabulary
from mmir_lib.lm.heldout import KN_BEST_ORDER, held_out_result, ngram_results
from mmir_lib.lm.neural import parameter_count
from mmir_lib.lm.transformer import (HELD_OUT_STRIDE, LOG_VALIDATION_CHARS, attention_from_torch, held_out_losses,
                                     load_checkpoint, training_record)
from report import best_time


def _attention_row(repeat: int) -> dict[str, str]:
    torch.manual_seed(0)
    reference = torch.nn.MultiheadAttention(192, 4, batch_first=True).eval()
    ours = attention_from_torch(reference)
    x = torch.randn(32, 256, 192)
    blocked = torch.ones(256, 256, dtype=torch.bool).triu(1)
    with torch.no_grad():
        expected = reference(x, x, x, attn_mask=blocked, need_weights=False)[0]
        gap = float((ours(x, is_causal=True) - expected).abs().max())
        assert gap < 1e-4, gap
        mine = best_time(lambda: ours(x, is_causal=True), repeat)
        theirs = best_time(lambda: reference(x, x, x, attn_mask=blocked, need_weights=False), repeat)
    return {"measure": "causal multi-head attention forward, B = 32, n = 256, d = 192, 4 heads, float32",
            "mmir_lib": f"{1e3 * mine:.0f} ms", "torch": f"{1e3 * theirs:.0f} ms", "ratio": f"{mine / theirs:.2f}×",
            "largest difference": f"{gap:.0e}"}


def _characters_per_second(model: torch.nn.Module, optimizer, inputs, targets, repeat: int, carried=False) -> float:
    def step():
        output = model(inputs)[0] if carried else model(inputs)
        loss = F.cross_entropy(output.transpose(1, 2), targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    return inputs.numel() / best_time(step, repeat)


def main(repeat: int = 3) -> list[dict[str, str]]:
    torch.set_num_threads(1)
    threadpool_limits(limits=1)
    rows = [_attention_row(repeat)]

    train_ids = torch.from_numpy(corpus_ids("train", "character").astype(np.int64))
    transformer, record = load_checkpoint().train(), training_record()
    context = transformer.config.context
    windows = torch.stack([train_ids[s:s + context + 1] for s in range(0, 32 * 1000, 1000)])
    transformer_speed = _characters_per_second(
        transformer, torch.optim.AdamW(transformer.parameters(), lr=1e-9), windows[:, :-1], windows[:, 1:], repeat)
    lstm, settings = char_lm.load_checkpoint().train(), char_lm.CHECKPOINT_SETTINGS
    windows = torch.stack([train_ids[s:s + settings["context"] + 1] for s in range(0, 32 * 1000, 1000)])
    lstm_speed = _characters_per_second(lstm, torch.optim.Adam(lstm.parameters(), lr=1e-9), windows[:, :-1],
                                        windows[:, 1:], repeat, carried=True)
    for name, speed in [(f"transformer ({transformer.num_parameters():,} parameters, 32 × {context})",
                         transformer_speed),
                        (f"LSTM h = {settings['hidden']} ({parameter_count(lstm):,} parameters, "
                         f"32 × {settings['context']})", lstm_speed)]:
        rows.append({"measure": f"training speed, {name}", "mmir_lib": f"{speed:,.0f} chars/s"})

    chars = vocabulary("character")
    newline = chars.index[BOUNDARY]
    validation = corpus_ids("validation", "character")[:LOG_VALIDATION_CHARS]
    lstm_chars = settings["epochs"] * len(train_ids)
    seconds = lstm_chars / lstm_speed
    log = record["log"]
    read = np.array([entry["step"] for entry in log]) * record["tokens"] / record["steps"]
    validation_bits = [entry["validation_bits"] for entry in log]
    transformer_chars = min(seconds * transformer_speed, read[-1])
    if transformer_chars < read[0]:   # before the first log entry: the loss is higher than there, by how much unlogged
        transformer_bits = f"> {validation_bits[0]:.3f} (first logged at {read[0] / 1e6:.1f}M chars)"
    else:
        transformer_bits = f"{float(np.interp(transformer_chars, read, validation_bits)):.3f}"
    lstm.eval()
    lstm_bits = float(lstm.log_loss(validation, pad=newline).mean() / math.log(2))
    rows.append({"measure": f"same training time, {seconds / 60:.1f} min on one thread: validation bits/char "
                            f"(LSTM: {lstm_chars / 1e6:.1f}M chars, transformer: {transformer_chars / 1e6:.1f}M chars)",
                 "LSTM": f"{lstm_bits:.3f}", "transformer": transformer_bits})
    test = corpus_ids("test", "character")
    order = KN_BEST_ORDER["character"]   # the best n-gram, chosen on the validation plays (III.2)
    kn = next(r for r in ngram_results() if r.model == f"{order}-gram, Kneser-Ney" and r.level == "character")
    transformer.eval()
    lstm_test = held_out_result("LSTM", "character", lstm.log_loss(test, pad=newline))
    transformer_test = held_out_result("transformer", "character",
                                       held_out_losses(transformer, test, start=newline, stride=HELD_OUT_STRIDE))
    rows.append({"measure": f"checkpoints, held-out bits/char on the test plays ({order}-gram Kneser-Ney: "
                            f"{kn.bits_per_char:.3f})",
                 "LSTM": f"{lstm_test.bits_per_char:.3f}", "transformer": f"{transformer_test.bits_per_char:.3f}"})
    columns = ["measure", "mmir_lib", "torch", "ratio", "largest difference", "LSTM", "transformer"]
    return [{column: row.get(column, "") for column in columns} for row in rows]


if __name__ == "__main__":
    from report import markdown_table

    print(markdown_table(main()))

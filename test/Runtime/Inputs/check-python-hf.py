"""attnc.hf without a GPU, torch or transformers: the mask each layer gets,
and the calls the backend refuses before anything runs.

Usage: check-python-hf.py PYTHON_DIR"""
import sys

sys.path.insert(0, sys.argv[1])
import attnc  # noqa: E402
import attnc.hf  # noqa: E402

print("causal:", attnc.hf.mask_for(True, None, 100))
print("not causal:", attnc.hf.mask_for(False, None, 100))
print("window 32:", attnc.hf.mask_for(True, 32, 100))
print("window 1:", attnc.hf.mask_for(True, 1, 1))
for args in ((False, 32, 5), (True, 0, 5)):
    try:
        attnc.hf.mask_for(*args)
    except attnc.AttncError as e:
        print("error:", e)


class Module:
    is_causal = True


for kwargs in (dict(dropout=0.1), dict(output_attentions=True),
               dict(attention_mask="padding"), dict(cu_seq_lens_q="cu")):
    mask = kwargs.pop("attention_mask", None)
    try:
        attnc.hf.attention_forward(Module(), None, None, None, mask, **kwargs)
    except attnc.AttncError as e:
        print("error:", e)

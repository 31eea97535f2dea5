"""attnc as a Hugging Face transformers attention backend.

    import attnc.hf
    attnc.hf.register()                       # once, before building the model
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation="attnc")
    model.set_attn_implementation("attnc")    # or switch an existing model

The backend takes what transformers' attention layers pass (query [B, Hq, Sq,
D] and key/value [B, Hkv, Sk, D], usually views of [B, S, H, D] memory,
`scaling`, `sliding_window`, `softcap`) and runs attnc.attention on those
views in place: causal attention, or a sliding window of W keys including
the query's own (W - 1 before it), bottom-right aligned so that a decode
step sees the whole cache; the soft-cap after scaling, as Gemma-2 does;
GQA natively. Decode-shaped calls get attnc's decode kernel.

What it cannot run is an error (AttncError), never a silent fallback:
dropout (training), returned attention weights, a padded batch (a padding
mask: attnc has no ragged batches yet), packed sequences (cu_seq_lens),
and non-causal sliding windows.
The mask function registered with it gives no mask unless the batch is
padded (transformers' flash-attention mask function), so no dense mask is
built.
"""
from . import AttncError

NAME = "attnc"


def mask_for(causal, sliding_window, seq_q):
    """The attnc mask (spec syntax) of a layer: `causal` and a sliding window
    of `sliding_window` keys including the query's own, or none."""
    if sliding_window is not None:
        w = int(sliding_window)
        if w < 1:
            raise AttncError(f"attnc: expected a sliding window of at least 1 key, got {w}")
        if not causal:
            raise AttncError("attnc: a non-causal sliding window is not supported")
        return f"window:{w - 1},0"
    return "causal" if causal else "none"


def attention_forward(module, query, key, value, attention_mask, dropout=0.0, scaling=None,
                      sliding_window=None, softcap=None, is_causal=None, **kwargs):
    """The AttentionInterface function: returns (out [B, Sq, Hq, D], None)."""
    from .api import attention
    if dropout:
        raise AttncError(f"attnc: dropout {dropout} is not supported (inference only)")
    if kwargs.get("output_attentions"):
        raise AttncError("attnc: output_attentions is not supported: the kernel never "
                         "materialises the attention weights")
    if kwargs.get("cu_seq_lens_q") is not None or kwargs.get("cu_seq_lens_k") is not None:
        raise AttncError("attnc: packed sequences (cu_seq_lens_q/k) are not supported yet")
    if attention_mask is not None:
        raise AttncError("attnc: a padded batch (an attention mask with padding) is not "
                         "supported yet: attnc has no ragged batches; run unpadded batches "
                         "or another attn_implementation")
    causal = getattr(module, "is_causal", True) if is_causal is None else bool(is_causal)
    mask = mask_for(causal, sliding_window, query.shape[2])
    out = attention(query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2),
                    mask=mask, scale=scaling, softcap=softcap, layout="bshd")
    return out, None


def register():
    """Registers "attnc" with transformers' AttentionInterface and, as its mask
    function, the flash-attention one (no mask unless the batch is padded)."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface
    try:
        from transformers.masking_utils import flash_attention_mask as mask_function
    except ImportError as e:  # an older transformers
        raise AttncError(f"attnc.hf needs transformers with flash_attention_mask: {e}")
    AttentionInterface.register(NAME, attention_forward)
    AttentionMaskInterface.register(NAME, mask_function)

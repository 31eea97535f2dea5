"""GPU check of the transformers backend (attn_implementation="attnc").

    python3 bench/hf_check.py --prepare CACHE   # here: compile the kernels
    ATTNC_CACHE=CACHE python3 bench/hf_check.py # on the GPU machine

Small models built from configs with random weights (no download): a
Gemma-2-style one (sliding-window layers of 32 keys alternating with full
ones, attention soft-cap 50, query_pre_attn_scalar 96), the same with a
soft-cap of 0.2 that changes the scores, a Llama one (GQA 4) and a Mistral one (every layer a 32-key window). Each runs in float32 with
the eager attention (the reference), then in bf16 with "eager", "sdpa" and
"attnc" on the same weights: the logits of a prefill (B=2, S=100) and of one
decode step with a cache are compared with the float32 reference. PASS when
attnc's relative Frobenius error is at most 1.25 x that of bf16 eager (sdpa
is shown, but ignores the soft-cap: transformers' SDPA path cannot apply
it). Then greedy generation of 8 tokens with attnc and with bf16 eager
(tokens compared), and a padded batch, which attnc must refuse.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnc  # noqa: E402
import attnc.hf  # noqa: E402

TARGET = "sm_90a"
B, S = 2, 100
# name: (config class, kwargs, layer windows (None = full), softcap, scaling)
MODELS = {
    "gemma2": ("Gemma2Config", dict(vocab_size=1024, hidden_size=512, intermediate_size=1024,
                                    num_hidden_layers=4, num_attention_heads=8,
                                    num_key_value_heads=4, head_dim=128, sliding_window=32,
                                    attn_logit_softcapping=50.0, query_pre_attn_scalar=96,
                                    max_position_embeddings=1024),
               (32, None), 50.0, 96 ** -0.5, 8, 4, 128),
    # The same with a soft-cap that bites (random weights give scores well
    # below 50): transformers' SDPA path, which drops the cap, must then be
    # far off while attnc stays as close as eager.
    "gemma2_cap0.2": ("Gemma2Config", dict(vocab_size=1024, hidden_size=512,
                                           intermediate_size=1024, num_hidden_layers=4,
                                           num_attention_heads=8, num_key_value_heads=4,
                                           head_dim=128, sliding_window=32,
                                           attn_logit_softcapping=0.2,
                                           query_pre_attn_scalar=96,
                                           max_position_embeddings=1024),
                      (32, None), 0.2, 96 ** -0.5, 8, 4, 128),
    "llama": ("LlamaConfig", dict(vocab_size=1024, hidden_size=512, intermediate_size=1024,
                                  num_hidden_layers=2, num_attention_heads=8,
                                  num_key_value_heads=2, max_position_embeddings=1024),
              (None,), None, 64 ** -0.5, 8, 2, 64),
    "mistral": ("MistralConfig", dict(vocab_size=1024, hidden_size=512, intermediate_size=1024,
                                      num_hidden_layers=2, num_attention_heads=8,
                                      num_key_value_heads=2, sliding_window=32,
                                      max_position_embeddings=1024),
                (32,), None, 64 ** -0.5, 8, 2, 64),
}


class _Stand:
    def __init__(self, shape):
        self.shape, self.dtype = shape, "torch.bfloat16"


def prepare(cache):
    """The kernels the models' attention calls need (their specs as
    attnc.attention builds them, from stand-in shapes)."""
    for name, (_, _, windows, softcap, scaling, hq, hkv, d) in MODELS.items():
        for window in windows:
            for sq in (S, 1):
                q, kv = _Stand((B, sq, hq, d)), _Stand((B, S, hkv, d))
                spec = attnc.kernel_spec(q, kv, kv, mask=attnc.hf.mask_for(True, window, sq),
                                         scale=scaling, softcap=softcap, layout="bshd")
                path = attnc.compile_kernel(spec, TARGET, cache)
                print("compiled", name, os.path.basename(path), spec)


def main():
    import copy
    import torch
    import transformers
    from transformers import AutoModelForCausalLM, DynamicCache
    attnc.hf.register()
    print("transformers", transformers.__version__, "torch", torch.__version__, flush=True)
    passed = failed = 0

    def rel(x, ref):
        return ((x.double() - ref.double()).norm() / ref.double().norm()).item()

    def use(model, impl):
        model.set_attn_implementation(impl)

    for name, (cls, kwargs, _, softcap, _, _, _, _) in MODELS.items():
        cfg = getattr(transformers, cls)(**kwargs)
        torch.manual_seed(0)
        ref_model = AutoModelForCausalLM.from_config(cfg, attn_implementation="eager",
                                                     dtype=torch.float32).cuda().eval()
        model = copy.deepcopy(ref_model).to(torch.bfloat16)
        ids = torch.randint(0, cfg.vocab_size, (B, S), device="cuda")
        with torch.no_grad():
            ref = ref_model(ids).logits
            errs, step_errs = {}, {}
            for impl in ("eager", "sdpa", "attnc"):
                use(model, impl)
                errs[impl] = rel(model(ids).logits, ref)
                # One decode step: S - 1 tokens into a cache, then the last.
                try:
                    cache = DynamicCache(config=cfg)
                except TypeError:
                    cache = DynamicCache()
                model(ids[:, :-1], past_key_values=cache, use_cache=True)
                step = model(ids[:, -1:], past_key_values=cache, use_cache=True).logits
                step_errs[impl] = rel(step[:, -1], ref[:, -1])
        for what, e in (("prefill", errs), ("decode step", step_errs)):
            ok = e["attnc"] <= 1.25 * e["eager"] + 1e-6
            print(f"{'PASS' if ok else 'FAIL'} {name} {what} logits vs float32 eager: "
                  f"attnc {e['attnc']:.2e}, bf16 eager {e['eager']:.2e}, bf16 sdpa "
                  f"{e['sdpa']:.2e}", flush=True)
            passed += ok
            failed += not ok
        if softcap is not None and softcap < 1:
            ok = errs["sdpa"] > 2 * errs["eager"]
            print(f"{'PASS' if ok else 'FAIL'} {name} the soft-cap matters: bf16 sdpa (no cap) "
                  f"{errs['sdpa']:.2e} vs bf16 eager {errs['eager']:.2e}", flush=True)
            passed += ok
            failed += not ok
        with torch.no_grad():
            tokens = {}
            for impl in ("eager", "attnc"):
                use(model, impl)
                tokens[impl] = model.generate(ids, max_new_tokens=8, do_sample=False,
                                              min_new_tokens=8)[:, S:]
        same = (tokens["eager"] == tokens["attnc"]).float().mean().item()
        print(f"INFO {name} greedy generation, 8 tokens: {same:.0%} equal to bf16 eager",
              flush=True)
        # A padded batch: refused with a message, not computed wrongly.
        mask = torch.ones(B, S, dtype=torch.long, device="cuda")
        mask[0, :7] = 0
        use(model, "attnc")
        try:
            with torch.no_grad():
                model(ids, attention_mask=mask)
            ok, msg = False, "ran"
        except attnc.AttncError as e:
            ok, msg = "padded batch" in str(e), str(e)[:80]
        print(f"{'PASS' if ok else 'FAIL'} {name} padded batch refused: {msg}", flush=True)
        passed += ok
        failed += not ok
        del model, ref_model
        torch.cuda.empty_cache()
    print(f"hf check: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--prepare":
        prepare(sys.argv[2])
    else:
        main()

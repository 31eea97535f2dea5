/* Prints the layout of attnrt_attention_args (name, offset, size per field,
 * then the struct size) as the C compiler lays it out, for
 * check-ctypes-abi.py to compare with the Python wrapper's ctypes struct. */
#include "attnc/Runtime/attnrt.h"

#include <stddef.h>
#include <stdio.h>

#define FIELD(name)                                                            \
  printf("%s %zu %zu\n", #name, offsetof(attnrt_attention_args, name),        \
         sizeof(((attnrt_attention_args *)0)->name))

int main(void) {
  FIELD(dtype);
  FIELD(batch);
  FIELD(num_q_heads);
  FIELD(num_kv_heads);
  FIELD(seq_q);
  FIELD(seq_k);
  FIELD(head_dim);
  FIELD(value_head_dim);
  FIELD(q);
  FIELD(k);
  FIELD(v);
  FIELD(o);
  FIELD(lse);
  FIELD(q_strides);
  FIELD(k_strides);
  FIELD(v_strides);
  FIELD(o_strides);
  FIELD(seq_ids);
  FIELD(cu_seqlens);
  FIELD(num_cu_seqlens);
  FIELD(block_mask);
  FIELD(block_mask_b);
  FIELD(block_mask_h);
  FIELD(alibi_slopes);
  FIELD(num_splits);
  FIELD(scratch);
  FIELD(scratch_bytes);
  FIELD(kv_lens);
  FIELD(page_table);
  FIELD(max_pages);
  FIELD(num_pages);
  FIELD(kv_scales);
  FIELD(cu_seqlens_q);
  FIELD(cu_seqlens_k);
  FIELD(max_seqlen_q);
  FIELD(plan);
  FIELD(plan_items);
  FIELD(plan_partials);
  printf("sizeof %zu\n", sizeof(attnrt_attention_args));
  return 0;
}

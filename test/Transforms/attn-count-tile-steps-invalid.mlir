// RUN: attnc-opt %s --attn-count-tile-steps -verify-diagnostics

// The counter's name must be free.
// expected-error @+1 {{expected no symbol @attnc_tile_steps before attn-count-tile-steps}}
module {
  memref.global @attnc_tile_steps : memref<2xi64> = dense<0>
}

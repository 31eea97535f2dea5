// Tile-skipping precision: the key tiles the generated code visits (counted
// by attn-count-tile-steps in a CPU run) equal the tiles the exact
// classification of `attnc compile --report` finds non-empty, and the
// unmasked ones equal its full tiles. A silent loss of skipping ("visit
// every tile") or of unmasked tiles fails here, while the numerics tests
// would still pass. The GPU kernel visits the same tiles: it is built from
// this tiled IR (tiles of its own sizes). Custom mask_fn regions are not
// here: the report does not classify them.

// RUN: attnc compile --spec "b=2 hq=4 hkv=2 sq=300 sk=500 d=64 mask=none" --report > %t.NONE.txt 2>/dev/null
// RUN: attnc-run --spec "b=2 hq=4 hkv=2 sq=300 sk=500 d=64 mask=none" --device=cpu --count-tiles >> %t.NONE.txt 2>/dev/null
// RUN: FileCheck %s --check-prefix=NONE < %t.NONE.txt
// RUN: attnc compile --spec "b=2 hq=4 hkv=2 sq=300 sk=500 d=64 mask=causal" --report > %t.CAUSAL.txt 2>/dev/null
// RUN: attnc-run --spec "b=2 hq=4 hkv=2 sq=300 sk=500 d=64 mask=causal" --device=cpu --count-tiles >> %t.CAUSAL.txt 2>/dev/null
// RUN: FileCheck %s --check-prefix=CAUSAL < %t.CAUSAL.txt
// RUN: attnc compile --spec "b=1 hq=2 hkv=1 sq=333 sk=200 d=32 mask=causal:top_left" --report > %t.CAUSALTL.txt 2>/dev/null
// RUN: attnc-run --spec "b=1 hq=2 hkv=1 sq=333 sk=200 d=32 mask=causal:top_left" --device=cpu --count-tiles >> %t.CAUSALTL.txt 2>/dev/null
// RUN: FileCheck %s --check-prefix=CAUSALTL < %t.CAUSALTL.txt
// RUN: attnc compile --spec "b=2 hq=4 hkv=2 sq=300 sk=500 d=64 mask=window:100,0" --report > %t.WINDOW.txt 2>/dev/null
// RUN: attnc-run --spec "b=2 hq=4 hkv=2 sq=300 sk=500 d=64 mask=window:100,0" --device=cpu --count-tiles >> %t.WINDOW.txt 2>/dev/null
// RUN: FileCheck %s --check-prefix=WINDOW < %t.WINDOW.txt
// RUN: attnc compile --spec "b=1 hq=2 hkv=2 sq=257 sk=263 d=32 mask=window:37,20:top_left" --report > %t.WINDOW2.txt 2>/dev/null
// RUN: attnc-run --spec "b=1 hq=2 hkv=2 sq=257 sk=263 d=32 mask=window:37,20:top_left" --device=cpu --count-tiles >> %t.WINDOW2.txt 2>/dev/null
// RUN: FileCheck %s --check-prefix=WINDOW2 < %t.WINDOW2.txt
// RUN: attnc compile --spec "b=1 hq=4 hkv=2 sq=300 sk=500 d=64 mask=prefix:70" --report > %t.PREFIX.txt 2>/dev/null
// RUN: attnc-run --spec "b=1 hq=4 hkv=2 sq=300 sk=500 d=64 mask=prefix:70" --device=cpu --count-tiles >> %t.PREFIX.txt 2>/dev/null
// RUN: FileCheck %s --check-prefix=PREFIX < %t.PREFIX.txt
// RUN: attnc compile --spec "b=1 hq=4 hkv=2 d=64 mask=document:100,57,143:causal" --report > %t.DOCCAUSAL.txt 2>/dev/null
// RUN: attnc-run --spec "b=1 hq=4 hkv=2 d=64 mask=document:100,57,143:causal" --device=cpu --count-tiles >> %t.DOCCAUSAL.txt 2>/dev/null
// RUN: FileCheck %s --check-prefix=DOCCAUSAL < %t.DOCCAUSAL.txt
// RUN: attnc compile --spec "b=1 hq=4 hkv=2 d=64 mask=document:100,57,143" --report > %t.DOC.txt 2>/dev/null
// RUN: attnc-run --spec "b=1 hq=4 hkv=2 d=64 mask=document:100,57,143" --device=cpu --count-tiles >> %t.DOC.txt 2>/dev/null
// RUN: FileCheck %s --check-prefix=DOC < %t.DOC.txt
// RUN: attnc compile --spec "b=2 hq=4 hkv=2 sq=300 sk=500 d=64 mask=blocksparse:64,64,0.5" --report > %t.BLOCKSPARSE.txt 2>/dev/null
// RUN: attnc-run --spec "b=2 hq=4 hkv=2 sq=300 sk=500 d=64 mask=blocksparse:64,64,0.5" --device=cpu --count-tiles >> %t.BLOCKSPARSE.txt 2>/dev/null
// RUN: FileCheck %s --check-prefix=BLOCKSPARSE < %t.BLOCKSPARSE.txt

// NONE: tiles: {{ *}}[[#TOTAL:]] total, [[#SKIPPED:]] skipped, [[#FULL:]] full, [[#PARTIAL:]] partial
// NONE: tile steps: [[#FULL+PARTIAL]] visited, [[#FULL]] unmasked
// NONE: PASS
// CAUSAL: tiles: {{ *}}[[#TOTAL:]] total, [[#SKIPPED:]] skipped, [[#FULL:]] full, [[#PARTIAL:]] partial
// CAUSAL: tile steps: [[#FULL+PARTIAL]] visited, [[#FULL]] unmasked
// CAUSAL: PASS
// CAUSALTL: tiles: {{ *}}[[#TOTAL:]] total, [[#SKIPPED:]] skipped, [[#FULL:]] full, [[#PARTIAL:]] partial
// CAUSALTL: tile steps: [[#FULL+PARTIAL]] visited, [[#FULL]] unmasked
// CAUSALTL: PASS
// WINDOW: tiles: {{ *}}[[#TOTAL:]] total, [[#SKIPPED:]] skipped, [[#FULL:]] full, [[#PARTIAL:]] partial
// WINDOW: tile steps: [[#FULL+PARTIAL]] visited, [[#FULL]] unmasked
// WINDOW: PASS
// WINDOW2: tiles: {{ *}}[[#TOTAL:]] total, [[#SKIPPED:]] skipped, [[#FULL:]] full, [[#PARTIAL:]] partial
// WINDOW2: tile steps: [[#FULL+PARTIAL]] visited, [[#FULL]] unmasked
// WINDOW2: PASS
// PREFIX: tiles: {{ *}}[[#TOTAL:]] total, [[#SKIPPED:]] skipped, [[#FULL:]] full, [[#PARTIAL:]] partial
// PREFIX: tile steps: [[#FULL+PARTIAL]] visited, [[#FULL]] unmasked
// PREFIX: PASS
// DOCCAUSAL: tiles: {{ *}}[[#TOTAL:]] total, [[#SKIPPED:]] skipped, [[#FULL:]] full, [[#PARTIAL:]] partial
// DOCCAUSAL: tile steps: [[#FULL+PARTIAL]] visited, [[#FULL]] unmasked
// DOCCAUSAL: PASS
// DOC: tiles: {{ *}}[[#TOTAL:]] total, [[#SKIPPED:]] skipped, [[#FULL:]] full, [[#PARTIAL:]] partial
// DOC: tile steps: [[#FULL+PARTIAL]] visited, [[#FULL]] unmasked
// DOC: PASS
// BLOCKSPARSE: tiles: {{ *}}[[#TOTAL:]] total, [[#SKIPPED:]] skipped, [[#FULL:]] full, [[#PARTIAL:]] partial
// BLOCKSPARSE: tile steps: [[#FULL+PARTIAL]] visited, [[#FULL]] unmasked
// BLOCKSPARSE: PASS

/* The C API from C: register the attn dialect on a context, parse attn IR,
 * walk to the attention op, and compile a spec to an artifact (or get the
 * message for a bad one). Prints one line per step for FileCheck.
 * Usage: attnc-capi-test OUTPUT_ARTIFACT */
#include "attnc-c/Attnc.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/IR.h"

#include <stdio.h>
#include <string.h>

static const char *kIR =
    "func.func @attention(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {\n"
    "  %o = attn.attention %q, %q, %q mask(#attn.causal) : tensor<1x2x8x16xf32>,"
    " tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>\n"
    "  return %o : tensor<1x2x8x16xf32>\n"
    "}\n";

int main(int argc, char **argv) {
  MlirContext ctx = mlirContextCreate();
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__attn__(), ctx);
  MlirDialect attn = mlirContextGetOrLoadDialect(ctx, mlirStringRefCreateFromCString("attn"));
  printf("attn dialect loaded: %d\n", !mlirDialectIsNull(attn));
  /* func, for the function around the op. */
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__func__(), ctx);
  MlirModule module = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kIR));
  printf("module parsed: %d\n", !mlirModuleIsNull(module));
  if (!mlirModuleIsNull(module)) {
    /* The function's first op is the attention. */
    MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
    MlirIdentifier name = mlirOperationGetName(mlirBlockGetFirstOperation(body));
    MlirStringRef text = mlirIdentifierStr(name);
    printf("first op: %.*s\n", (int)text.length, text.data);
    mlirModuleDestroy(module);
  }
  mlirContextDestroy(ctx);

  char error[512];
  int rc = attncCompileSpecToArtifact("b=1 hq=4 hkv=2 sq=64 d=64 dtype=bf16 mask=causal",
                                      "sm_90a", argv[1], error, sizeof error);
  printf("compile: %d%s%s\n", rc, rc ? " " : "", rc ? error : "");
  FILE *f = fopen(argv[1], "rb");
  char head[32] = {0};
  if (f) {
    fread(head, 1, 16, f);
    fclose(f);
  }
  printf("artifact: %.16s\n", head);
  rc = attncCompileSpecToArtifact("b=1 hq=3 hkv=2 sq=64", "sm_90a", argv[1], error,
                                  sizeof error);
  printf("bad spec: %d %s\n", rc, error);
  rc = attncCompileSpecToArtifact("b=1 sq=64", "sm_75", argv[1], error, sizeof error);
  printf("bad target: %d %s\n", rc, error);
  rc = attncCompileSpecToArtifact("b=1 hq=2 sq=64 d=72 dtype=bf16", "sm_80", argv[1], error,
                                  sizeof error);
  printf("unsupported: %d %s\n", rc, error);
  (void)argc;
  return 0;
}

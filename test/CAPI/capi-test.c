/* The C API from C: register the attn dialect on a context, parse attn IR,
 * walk to the attention op, build mask attributes and ask what they mean,
 * and compile a spec to an artifact (or get the
 * message for a bad one). Prints one line per step for FileCheck.
 * Usage: attnc-capi-test OUTPUT_ARTIFACT */
#include "attnc-c/Attnc.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/Tensor.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <stdio.h>
#include <string.h>

static const char *kIR =
    "func.func @attention(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {\n"
    "  %o = attn.attention %q, %q, %q mask(#attn.causal) : tensor<1x2x8x16xf32>,"
    " tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>\n"
    "  return %o : tensor<1x2x8x16xf32>\n"
    "}\n";

static void printPart(MlirStringRef text, void *user) {
  (void)user;
  fwrite(text.data, 1, text.length, stdout);
}

static void printMask(const char *label, MlirAttribute attr) {
  printf("%s: ", label);
  if (mlirAttributeIsNull(attr))
    printf("null");
  else
    mlirAttributePrint(attr, printPart, NULL);
  printf("\n");
}

/* Counts error diagnostics and prints their message. */
static MlirLogicalResult onDiagnostic(MlirDiagnostic diagnostic, void *user) {
  ++*(int *)user;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diagnostic, printPart, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

/* The mask builders, their checks and the structured masks' meaning. */
static void masks(MlirContext ctx) {
  int errors = 0;
  MlirDiagnosticHandlerID handler =
      mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, &errors, NULL);
  MlirAttribute causal = attncCausalMaskAttrGet(ctx, false);
  printMask("causal", causal);
  printMask("causal top_left", attncCausalMaskAttrGet(ctx, true));
  MlirAttribute window = attncSlidingWindowMaskAttrGet(ctx, 2, 0, false);
  printMask("window", window);
  printMask("prefix", attncPrefixLMMaskAttrGet(ctx, 4, true));
  MlirAttribute document = attncDocumentMaskAttrGet(ctx, true, true);
  printMask("document", document);
  printMask("block sparse", attncBlockSparseMaskAttrGet(ctx, 128, 64));
  printf("is mask: %d %d %d\n", attncAttributeIsAMask(causal), attncAttributeIsAMask(document),
         attncAttributeIsAMask(mlirUnitAttrGet(ctx)));
  /* A window of 2 keys to the left: row 5 of 8 (Sq = Sk) sees keys 3..5. */
  printf("window row 5:");
  for (int64_t k = 0; k < 8; ++k)
    printf(" %d", attncMaskIsVisible(window, 5, k, 8, 8));
  printf("\n");
  /* Bottom-right causal with Sq = 2, Sk = 4: row 0 stands at key 2. */
  printf("causal row 0 of 2x4:");
  for (int64_t k = 0; k < 4; ++k)
    printf(" %d", attncMaskIsVisible(causal, 0, k, 2, 4));
  printf("\n");
  printf("not answerable: %d %d %d\n", attncMaskIsVisible(document, 0, 0, 4, 4),
         attncMaskIsVisible(causal, 4, 0, 4, 4), attncMaskIsVisible(mlirUnitAttrGet(ctx), 0, 0, 1, 1));
  printMask("negative window", attncSlidingWindowMaskAttrGet(ctx, -1, 0, false));
  printMask("zero block", attncBlockSparseMaskAttrGet(ctx, 0, 64));
  printf("errors: %d\n", errors);
  mlirContextDetachDiagnosticHandler(ctx, handler);
}

static const char *kFunc =
    "func.func @f(%q: tensor<1x4x8x16xf32>, %k: tensor<1x2x8x16xf32>,"
    " %v: tensor<1x2x8x32xf32>, %ids: tensor<1x8xi32>) -> tensor<1x4x8x32xf32> {\n"
    "  %z = tensor.empty() : tensor<1x4x8x32xf32>\n"
    "  return %z : tensor<1x4x8x32xf32>\n"
    "}\n";

/* Builds attn.attention ops around a parsed function's arguments: one that
 * replaces the returned value, and the ones the verifier refuses. */
static void buildOps(MlirContext ctx) {
  int errors = 0;
  MlirDiagnosticHandlerID handler =
      mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, &errors, NULL);
  MlirModule module = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kFunc));
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirValue q = mlirBlockGetArgument(body, 0), k = mlirBlockGetArgument(body, 1),
            v = mlirBlockGetArgument(body, 2), ids = mlirBlockGetArgument(body, 3);
  MlirOperation ret = mlirOperationGetNextInBlock(mlirBlockGetFirstOperation(body));
  MlirLocation loc = mlirLocationUnknownGet(ctx);
  MlirValue none = {NULL};

  MlirOperation op = attncAttentionOpCreate(loc, q, k, v, attncDocumentMaskAttrGet(ctx, false, true),
                                            ids, true, 0.5f, true);
  printf("op built: %d\n", !mlirOperationIsNull(op));
  mlirBlockInsertOwnedOperationBefore(body, ret, op);
  mlirOperationSetOperand(ret, 0, mlirOperationGetResult(op, 0));
  printf("results: %d\n", (int)mlirOperationGetNumResults(op));
  printf("module verifies: %d\n", mlirOperationVerify(mlirModuleGetOperation(module)));
  mlirOperationPrint(op, printPart, NULL);
  printf("\n");

  /* The document mask without its seq_ids operand. */
  printf("no operand: %d\n", mlirOperationIsNull(attncAttentionOpCreate(
                                  loc, q, k, v, attncDocumentMaskAttrGet(ctx, false, false), none,
                                  false, 0.0f, false)));
  /* An operand for a mask that reads none. */
  printf("extra operand: %d\n", mlirOperationIsNull(attncAttentionOpCreate(
                                     loc, q, k, v, attncCausalMaskAttrGet(ctx, false), ids, false,
                                     0.0f, false)));
  /* k's head dim (32, from v) differs from q's (16). */
  printf("bad k: %d\n", mlirOperationIsNull(attncAttentionOpCreate(loc, q, v, v, mlirAttributeGetNull(),
                                                                  none, false, 0.0f, false)));
  printf("errors: %d\n", errors);
  mlirModuleDestroy(module);
  mlirContextDetachDiagnosticHandler(ctx, handler);
}

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
  masks(ctx);
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__tensor__(), ctx);
  buildOps(ctx);
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

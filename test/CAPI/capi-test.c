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

static const char *kCacheFunc =
    "func.func @g(%q: tensor<2x8x1x64xbf16>, %k: tensor<?x16x2x64xf8E4M3FN>,"
    " %v: tensor<?x16x2x64xf8E4M3FN>, %lens: tensor<2xi32>, %table: tensor<2x?xi32>,"
    " %scales: tensor<2x2xf32>) {\n"
    "  return\n"
    "}\n";

/* The optional parts: a decode step over a paged fp8 cache with per-sequence
 * lengths, soft-capped, with ALiBi slopes; then the refused combinations. The
 * module of the first is compiled to an artifact at `path`. */
static void buildWithOptions(MlirContext ctx, const char *path) {
  int errors = 0;
  MlirDiagnosticHandlerID handler =
      mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, &errors, NULL);
  MlirModule module = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kCacheFunc));
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirValue arg[6];
  for (int i = 0; i < 6; ++i)
    arg[i] = mlirBlockGetArgument(body, i);
  MlirOperation ret = mlirBlockGetFirstOperation(body);
  MlirLocation loc = mlirLocationUnknownGet(ctx);
  MlirValue none = {NULL};
  float slopes[8] = {0.5f, 0.25f, 0.125f, 0.0625f, 0.5f, 0.25f, 0.125f, 0.0625f};

  AttncAttentionOptions o = {0};
  o.has_softcap = true;
  o.softcap = 30.0f;
  o.alibi_slopes = slopes;
  o.num_alibi_slopes = 8;
  o.kv_lens = arg[3];
  o.page_table = arg[4];
  o.kv_scales = arg[5];
  o.decode = true;
  o.return_lse = true;
  MlirOperation op = attncAttentionOpCreateWithOptions(
      loc, arg[0], arg[1], arg[2], attncCausalMaskAttrGet(ctx, false), none, &o);
  printf("options op built: %d\n", !mlirOperationIsNull(op));
  mlirBlockInsertOwnedOperationBefore(body, ret, op);
  printf("options module verifies: %d\n", mlirOperationVerify(mlirModuleGetOperation(module)));
  mlirOperationPrint(op, printPart, NULL);
  printf("\n");

  /* Slopes as an attribute and as an operand. */
  AttncAttentionOptions both = o;
  both.alibi_slopes_operand = arg[3];
  printf("both slopes: %d\n", mlirOperationIsNull(attncAttentionOpCreateWithOptions(
                                    loc, arg[0], arg[1], arg[2], mlirAttributeGetNull(), none, &both)));
  /* A slope count without the slopes. */
  AttncAttentionOptions nullSlopes = o;
  nullSlopes.alibi_slopes = NULL;
  printf("null slopes: %d\n", mlirOperationIsNull(attncAttentionOpCreateWithOptions(
                                    loc, arg[0], arg[1], arg[2], mlirAttributeGetNull(), none,
                                    &nullSlopes)));
  /* fp8 keys without their scales. */
  AttncAttentionOptions noScales = o;
  noScales.kv_scales = none;
  printf("no scales: %d\n", mlirOperationIsNull(attncAttentionOpCreateWithOptions(
                                  loc, arg[0], arg[1], arg[2], mlirAttributeGetNull(), none,
                                  &noScales)));
  printf("errors: %d\n", errors);

  /* The module compiles like attnc compile in.mlir: here for sm_90a, whose
   * kernels read the paged fp8 cache; the manifest says what it reads. */
  char error[512];
  int rc = attncCompileModuleToArtifact(module, "sm_90a", path, error, sizeof error);
  printf("compile cache module: %d %s\n", rc, rc ? error : "");
  FILE *f = fopen(path, "rb");
  char text[4096] = {0};
  if (f) {
    fread(text, 1, sizeof text - 1, f);
    fclose(f);
  }
  const char *keys[] = {
      "reads_kv_lens = ", "page_size = ", "reads_kv_scales = "};
  for (int i = 0; i < 3; ++i) {
    const char *line = strstr(text, keys[i]);
    printf("cache module artifact: %.*s\n", line ? (int)strcspn(line, "\n") : 0,
           line ? line : "");
  }
  rc = attncCompileModuleToArtifact(module, "sm_75", path, error, sizeof error);
  printf("compile bad target: %d %s\n", rc, error);
  mlirModuleDestroy(module);
  mlirContextDetachDiagnosticHandler(ctx, handler);
}

/* A module built in C with a plain causal attention compiles to an
 * artifact; the caller's module is unchanged. */
static void compileBuiltModule(MlirContext ctx, const char *path) {
  MlirModule module = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(
               "func.func @h(%q: tensor<1x8x?x64xbf16>, %k: tensor<1x2x?x64xbf16>,"
               " %v: tensor<1x2x?x64xbf16>) -> tensor<1x8x?x64xbf16> {\n"
               "  return %q : tensor<1x8x?x64xbf16>\n"
               "}\n"));
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirOperation ret = mlirBlockGetFirstOperation(body);
  MlirValue none = {NULL};
  MlirOperation op = attncAttentionOpCreateWithOptions(
      mlirLocationUnknownGet(ctx), mlirBlockGetArgument(body, 0), mlirBlockGetArgument(body, 1),
      mlirBlockGetArgument(body, 2), attncCausalMaskAttrGet(ctx, false), none, NULL);
  mlirBlockInsertOwnedOperationBefore(body, ret, op);
  mlirOperationSetOperand(ret, 0, mlirOperationGetResult(op, 0));
  char error[512];
  int rc = attncCompileModuleToArtifact(module, "sm_90a", path, error, sizeof error);
  printf("compile built module: %d%s%s\n", rc, rc ? " " : "", rc ? error : "");
  FILE *f = fopen(path, "rb");
  char text[4096] = {0};
  if (f) {
    fread(text, 1, sizeof text - 1, f);
    fclose(f);
  }
  const char *spec = strstr(text, "spec = ");
  printf("built module artifact: %.*s\n", spec ? (int)strcspn(spec, "\n") : 0, spec ? spec : "");
  /* The caller's op carries no configuration afterwards. */
  MlirAttribute config = mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString("attn.gpu_kernel"));
  printf("caller's op unchanged: %d\n", mlirAttributeIsNull(config));
  mlirModuleDestroy(module);
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
  buildWithOptions(ctx, argv[1]);
  compileBuiltModule(ctx, argv[1]);
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

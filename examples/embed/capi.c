/* The compiler's C API from an out-of-tree C program: load the attn dialect
 * and build a mask attribute. */
#include "attnc-c/Attnc.h"
#include "mlir-c/IR.h"

#include <stdio.h>

static void print(MlirStringRef text, void *user) {
  (void)user;
  fwrite(text.data, 1, text.length, stdout);
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__attn__(), ctx);
  MlirAttribute window = attncSlidingWindowMaskAttrGet(ctx, 256, 0, false);
  printf("C API mask: ");
  mlirAttributePrint(window, print, NULL);
  printf("\n");
  mlirContextDestroy(ctx);
  return mlirAttributeIsNull(window);
}

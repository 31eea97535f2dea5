//===- Errors.h - the runtime's per-thread error message --------*- C++ -*-===//
//
// Internal to attnrt: every failing C API call records its message here for
// attnrt_last_error.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_LIB_RUNTIME_ERRORS_H
#define ATTNC_LIB_RUNTIME_ERRORS_H

#include "attnc/Runtime/attnrt.h"

#include <string>

namespace attnc::rt {
/// Records `message` for attnrt_last_error and returns `status`.
attnrt_status fail(attnrt_status status, std::string message);
} // namespace attnc::rt

#endif // ATTNC_LIB_RUNTIME_ERRORS_H

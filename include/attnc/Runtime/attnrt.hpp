//===- attnrt.hpp - C++ wrapper of the attnc runtime ------------*- C++ -*-===//
//
// A header-only C++ face of attnrt.h: an owning artifact handle and a Status
// that carries the code and the message of a failing call. No exceptions.
//
//   attnc::runtime::Artifact artifact;
//   attnc::runtime::Status s = artifact.loadFile("causal.attnc");
//   if (!s) { fprintf(stderr, "%s\n", s.message().c_str()); ... }
//   s = artifact.launch(args, stream);
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_RUNTIME_ATTNRT_HPP
#define ATTNC_RUNTIME_ATTNRT_HPP

#include "attnc/Runtime/attnrt.h"

#include <cstddef>
#include <string>
#include <utility>

namespace attnc {
namespace runtime {

/// The outcome of a runtime call: a code and, on failure, its message.
class Status {
public:
  Status() = default;
  Status(attnrt_status code, std::string message)
      : code_(code), message_(std::move(message)) {}

  /// The status of a C call that just returned `code` on this thread.
  static Status fromCall(attnrt_status code) {
    return code == ATTNRT_OK ? Status() : Status(code, attnrt_last_error());
  }

  bool ok() const { return code_ == ATTNRT_OK; }
  explicit operator bool() const { return ok(); }
  attnrt_status code() const { return code_; }
  const std::string &message() const { return message_; }

private:
  attnrt_status code_ = ATTNRT_OK;
  std::string message_;
};

/// An owned attnrt_artifact; move-only.
class Artifact {
public:
  Artifact() = default;
  ~Artifact() { reset(); }
  Artifact(Artifact &&other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)) {}
  Artifact &operator=(Artifact &&other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  Artifact(const Artifact &) = delete;
  Artifact &operator=(const Artifact &) = delete;

  /// Loads from a file or memory, replacing what this handle held.
  Status loadFile(const std::string &path) {
    attnrt_artifact *loaded = nullptr;
    Status s =
        Status::fromCall(attnrt_artifact_load_file(path.c_str(), &loaded));
    if (s)
      adopt(loaded);
    return s;
  }
  Status loadMemory(const void *data, size_t size) {
    attnrt_artifact *loaded = nullptr;
    Status s =
        Status::fromCall(attnrt_artifact_load_memory(data, size, &loaded));
    if (s)
      adopt(loaded);
    return s;
  }

  /// Whether an artifact is loaded.
  explicit operator bool() const { return handle_ != nullptr; }
  attnrt_artifact *get() const { return handle_; }

  /// A manifest value, or "" when the key is absent.
  std::string get(const char *key) const {
    const char *v = attnrt_artifact_get(handle_, key);
    return v ? v : "";
  }
  /// Whether the manifest has `key`.
  bool has(const char *key) const {
    return attnrt_artifact_get(handle_, key) != nullptr;
  }

  Status validate(const attnrt_attention_args &args) const {
    return Status::fromCall(attnrt_validate(handle_, &args));
  }
  Status scratchSize(const attnrt_attention_args &args, size_t &bytes) const {
    return Status::fromCall(attnrt_scratch_size(handle_, &args, &bytes));
  }
  /// The key splits a launch with `args` uses (attnrt_num_splits).
  Status numSplits(const attnrt_attention_args &args, int64_t &splits) const {
    return Status::fromCall(attnrt_num_splits(handle_, &args, &splits));
  }
  /// Launches on `stream` (a CUstream; nullptr = default stream).
  Status launch(const attnrt_attention_args &args, void *stream = nullptr) {
    return Status::fromCall(attnrt_launch(handle_, &args, stream));
  }

  /// Destroys the artifact (unloading its modules).
  void reset() {
    if (handle_)
      attnrt_artifact_destroy(handle_);
    handle_ = nullptr;
  }

private:
  void adopt(attnrt_artifact *loaded) {
    reset();
    handle_ = loaded;
  }
  attnrt_artifact *handle_ = nullptr;
};

/// Dense row-major strides in elements of a [B, H, S, D] tensor.
inline void denseStrides(int64_t h, int64_t s, int64_t d, int64_t out[4]) {
  out[0] = h * s * d;
  out[1] = s * d;
  out[2] = d;
  out[3] = 1;
}

} // namespace runtime
} // namespace attnc

#endif // ATTNC_RUNTIME_ATTNRT_HPP

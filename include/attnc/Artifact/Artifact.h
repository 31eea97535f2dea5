//===- Artifact.h - attnc artifact files ------------------------*- C++ -*-===//
//
// The file format that carries a compiled attention kernel from the compiler
// to the runtime: a text manifest, then raw sections (PTX text, cubin ELF).
//
//   attnc-artifact 1
//   format = attnc-artifact-1
//   kernel = attn_kernel
//   ...                          (one `key = value` line per manifest entry)
//   end
//   section ptx 1234
//   <exactly 1234 bytes>
//   section cubin 5678
//   <exactly 5678 bytes>
//
// Every section's bytes are followed by one "\n". Plain C++ (no MLIR): the
// compiler writes artifacts with it and the runtime reads them.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_ARTIFACT_ARTIFACT_H
#define ATTNC_ARTIFACT_ARTIFACT_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace attnc {

/// An artifact as stored: the manifest in file order and the named sections.
struct Artifact {
  std::vector<std::pair<std::string, std::string>> manifest;
  std::map<std::string, std::string> sections;

  /// The manifest value of `key`, or nullptr when absent.
  const std::string *get(const std::string &key) const;
  /// Sets `key` (replacing an earlier value) keeping first-insertion order.
  void set(const std::string &key, const std::string &value);
};

/// The artifact as file bytes. Fails (false, with a message) when a key is
/// empty or holds white space or '=', a key repeats, a value holds a newline
/// or a section name is empty or holds white space.
bool serializeArtifact(const Artifact &artifact, std::string &bytes,
                       std::string &error);

/// Serialises and writes `artifact` to `path`.
bool writeArtifact(const Artifact &artifact, const std::string &path,
                   std::string &error);

/// Parses file bytes. Checks the syntax only (header line and version,
/// `key = value` lines, `end`, section headers and sizes, no trailing bytes);
/// parseKernelManifest checks the keys a kernel artifact needs.
bool readArtifact(const void *data, size_t size, Artifact &artifact,
                  std::string &error);

/// Reads and parses the file at `path`.
bool readArtifactFile(const std::string &path, Artifact &artifact,
                      std::string &error);

/// The manifest of a kernel artifact, parsed and checked.
struct KernelManifest {
  std::string kernel, target, dtype;
  /// The spec the kernel was compiled from ("" when the artifact has none).
  std::string spec;
  int64_t numQHeads = 0, numKvHeads = 0, headDim = 0, valueHeadDim = 0;
  int64_t blockQ = 0, blockK = 0, threads = 0, dynamicSharedMemory = 0;
  bool readsLse = false, readsSeqIds = false, readsCuSeqlens = false,
       readsBlockMask = false, readsAlibiSlopes = false;
  /// Block sizes of a block-sparse mask (when readsBlockMask).
  int64_t maskBlockQ = 0, maskBlockK = 0;
  /// Query heads packed into a tile's rows (1: none), and whether the key
  /// range may be split over thread blocks (a combine kernel merges them).
  int64_t gqaPack = 1;
  bool splitKv = false;
  /// split_kv: the resident blocks a multiprocessor the runtime's split
  /// count aims at (manifest key `split_blocks_per_sm`; 0, or absent in
  /// older artifacts: as many as the occupancy allows).
  int64_t splitBlocksPerSm = 0;
  /// split_kv: the combine kernel starts with griddepcontrol.wait, so the
  /// runtime may launch it with programmatic stream serialization (manifest
  /// key `combine_waits`; absent in older artifacts: false).
  bool combineWaits = false;
  /// The kernel reads Q, K and V tiles by TMA: the runtime builds the
  /// tensor maps of KernelAbi.h (q_map, k_map, v_map) for each launch.
  bool tensorMaps = false;
  /// A persistent grid (KernelAbi.h kPersistentGrid): the runtime launches
  /// at most as many blocks as are resident at once; each walks the work
  /// items from its index (manifest key `persistent`, absent in artifacts
  /// older than it: false).
  bool persistent = false;
  /// A persistent kernel that splits the items of its last wave by keys
  /// (KernelAbi.h; manifest key `tail_splits`, absent in artifacts older
  /// than it: false): num_splits and the scratch as KernelAbi.h says.
  bool tailSplits = false;
  /// The kernel reads per-sequence key counts (kv_lens), and K/V as a paged
  /// cache of pages of pageSize rows (0: contiguous).
  bool readsKvLens = false;
  int64_t pageSize = 0;
  /// K and V are float8 e4m3fn codes with per-head scales (kv_scales).
  bool readsKvScales = false;
  /// A ragged batch: the query rows of the sequences are packed and found
  /// through cu_seqlens_q, their keys through cu_seqlens_k (or a cache).
  bool readsCuSeqlensQ = false, readsCuSeqlensK = false;
  /// The artifact also holds a kernel for short sequences (section
  /// `short_kernel`, an artifact of its own; checkShortKernel), which the
  /// runtime launches when seq_q and seq_k are both at most this (manifest
  /// key `short_kernel_max_seq`; 0 or absent: one kernel).
  int64_t shortKernelMaxSeq = 0;
};

/// Checks the manifest keys of a kernel artifact: format, the required keys,
/// integers and flags, the kernel ABI (`abi_version`, `params`, `grid`,
/// KernelAbi.h), and that a `ptx` or
/// a `cubin` section is present. Fails with a message naming the key.
bool parseKernelManifest(const Artifact &artifact, KernelManifest &manifest,
                         std::string &error);

/// Checks the short-sequence kernel `nested` (parsed from the `short_kernel`
/// section) of the artifact `main`, which launches it for sequences of at
/// most `maxSeq`: a kernel manifest of its own, whose every manifest key but
/// the kernel's configuration (gpu_kernel, block_q, block_k, threads,
/// dynamic_shared_memory, persistent, tail_splits, split_blocks_per_sm,
/// short_kernel_max_seq) equals the main one's, so that every launch the
/// main kernel takes, it takes alike. It may hold a short kernel of its own
/// for sequences of fewer than `maxSeq` (checked the same way against it).
/// Fails with a message naming the first key that differs.
bool checkShortKernel(const Artifact &main, int64_t maxSeq,
                      const Artifact &nested, KernelManifest &manifest,
                      std::string &error);

/// Reads the short-sequence kernel of `main` (whose parsed manifest is
/// `mainManifest`, with short_kernel_max_seq above 0) from its
/// `short_kernel` section into `nested` and `manifest`, checked by
/// checkShortKernel: what attnrt's loader does at each level of nesting.
/// Fails with a message starting "section 'short_kernel': ".
bool readShortKernel(const Artifact &main, const KernelManifest &mainManifest,
                     Artifact &nested, KernelManifest &manifest,
                     std::string &error);

} // namespace attnc

#endif // ATTNC_ARTIFACT_ARTIFACT_H

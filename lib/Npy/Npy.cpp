//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// The .npy format (numpy/lib/format.py): the magic "\x93NUMPY", a major and
// minor version byte, the header length (uint16 LE for 1.0, uint32 LE for
// 2.0), then an ASCII Python dict literal
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and ended by '\n', then the raw data. Values are decoded
// byte by byte, so the host's endianness does not matter.
//
//===----------------------------------------------------------------------===//

#include "harness/Npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

using namespace attnc;

namespace {

/// A minimal parser for the header dict: string keys mapping to strings,
/// True/False, or tuples of non-negative integers.
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : s(text) {}

  bool parse(std::string &descr, bool &fortranOrder,
             std::vector<int64_t> &shape, std::string &error) {
    bool haveDescr = false, haveOrder = false, haveShape = false;
    skipSpace();
    if (!consume('{'))
      return fail("expected '{' at the start of the header", error);
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (!parseString(key))
        return fail("expected a quoted key in the header", error);
      skipSpace();
      if (!consume(':'))
        return fail("expected ':' after header key '" + key + "'", error);
      skipSpace();
      if (key == "descr") {
        if (!parseString(descr))
          return fail("unsupported dtype: 'descr' is not a simple type string "
                      "(structured arrays are not supported)",
                      error);
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (startsWith("True")) {
          pos += 4;
          fortranOrder = true;
        } else if (startsWith("False")) {
          pos += 5;
          fortranOrder = false;
        } else {
          return fail("expected True or False for 'fortran_order'", error);
        }
        haveOrder = true;
      } else if (key == "shape") {
        if (!parseShape(shape))
          return fail("expected a tuple of non-negative integers for 'shape'",
                      error);
        haveShape = true;
      } else {
        return fail("unexpected header key '" + key + "'", error);
      }
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume('}'))
        break;
      return fail("expected ',' or '}' in the header", error);
    }
    if (!haveDescr || !haveOrder || !haveShape)
      return fail("the header lacks 'descr', 'fortran_order' or 'shape'",
                  error);
    return true;
  }

private:
  bool fail(const std::string &message, std::string &error) {
    error = message;
    return false;
  }
  void skipSpace() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' ||
                              s[pos] == '\n' || s[pos] == '\r'))
      ++pos;
  }
  bool consume(char c) {
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool startsWith(const char *word) {
    return s.compare(pos, std::strlen(word), word) == 0;
  }
  bool parseString(std::string &out) {
    if (pos >= s.size() || (s[pos] != '\'' && s[pos] != '"'))
      return false;
    char quote = s[pos++];
    size_t end = s.find(quote, pos);
    if (end == std::string::npos)
      return false;
    out = s.substr(pos, end - pos);
    pos = end + 1;
    return true;
  }
  bool parseShape(std::vector<int64_t> &shape) {
    shape.clear();
    if (!consume('('))
      return false;
    while (true) {
      skipSpace();
      if (consume(')'))
        return true;
      if (pos >= s.size() || s[pos] < '0' || s[pos] > '9')
        return false;
      int64_t v = 0;
      while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
        if (v > (std::numeric_limits<int64_t>::max() - 9) / 10)
          return false;
        v = v * 10 + (s[pos++] - '0');
      }
      // Python 2 era files may write long integers as "3L".
      if (pos < s.size() && s[pos] == 'L')
        ++pos;
      shape.push_back(v);
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume(')'))
        return true;
      return false;
    }
  }

  const std::string &s;
  size_t pos = 0;
};

enum class Kind { Float, Signed, Unsigned, Bool };

struct DType {
  Kind kind;
  int size;
};

/// The dtypes readNpy takes: little-endian ('<') multi-byte types and
/// single-byte types with '|' (as numpy writes them) or '<'.
bool lookupDType(const std::string &descr, DType &out) {
  if (descr.size() != 3)
    return false;
  char order = descr[0];
  std::string type = descr.substr(1);
  if (type == "u1" || type == "i1" || type == "b1") {
    if (order != '|' && order != '<')
      return false;
    out = {type == "u1"   ? Kind::Unsigned
           : type == "i1" ? Kind::Signed
                          : Kind::Bool,
           1};
    return true;
  }
  if (order != '<')
    return false;
  if (type == "f4")
    out = {Kind::Float, 4};
  else if (type == "f8")
    out = {Kind::Float, 8};
  else if (type == "i4")
    out = {Kind::Signed, 4};
  else if (type == "i8")
    out = {Kind::Signed, 8};
  else
    return false;
  return true;
}

uint64_t loadLE(const unsigned char *p, int size) {
  uint64_t v = 0;
  for (int i = size - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

double decode(const unsigned char *p, const DType &t) {
  uint64_t bits = loadLE(p, t.size);
  switch (t.kind) {
  case Kind::Bool:
    return bits != 0 ? 1.0 : 0.0;
  case Kind::Unsigned:
    return static_cast<double>(bits);
  case Kind::Signed: {
    int64_t v;
    if (t.size == 1)
      v = static_cast<int8_t>(bits);
    else if (t.size == 4)
      v = static_cast<int32_t>(static_cast<uint32_t>(bits));
    else
      v = static_cast<int64_t>(bits);
    return static_cast<double>(v);
  }
  case Kind::Float: {
    if (t.size == 4) {
      uint32_t u = static_cast<uint32_t>(bits);
      float f;
      std::memcpy(&f, &u, sizeof(f));
      return f;
    }
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    return d;
  }
  }
  return 0.0;
}

bool readFile(const std::string &path, std::string &bytes, std::string &error) {
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  bytes.clear();
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
    bytes.append(buf, n);
  bool bad = std::ferror(f);
  std::fclose(f);
  if (bad) {
    error = "cannot read '" + path + "'";
    return false;
  }
  return true;
}

} // namespace

bool attnc::readNpy(const std::string &path, NpyArray &array,
                    std::string &error) {
  std::string bytes;
  if (!readFile(path, bytes, error))
    return false;
  return readNpyBytes(bytes, path, array, error);
}

bool attnc::readNpyBytes(const std::string &bytes, const std::string &name,
                         NpyArray &array, std::string &error) {
  const std::string where = "'" + name + "': ";
  static const char magic[] = "\x93NUMPY";
  if (bytes.size() < 10 || bytes.compare(0, 6, magic, 6) != 0) {
    error = where + "not a .npy file (bad magic)";
    return false;
  }
  const unsigned char *u =
      reinterpret_cast<const unsigned char *>(bytes.data());
  int major = u[6], minor = u[7];
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = static_cast<size_t>(loadLE(u + 8, 2));
    headerStart = 10;
  } else if (major == 2) {
    if (bytes.size() < 12) {
      error = where + "truncated header";
      return false;
    }
    headerLen = static_cast<size_t>(loadLE(u + 8, 4));
    headerStart = 12;
  } else {
    error = where + "unsupported .npy version " + std::to_string(major) + "." +
            std::to_string(minor) + " (only 1.0 and 2.0)";
    return false;
  }
  if (bytes.size() - headerStart < headerLen) {
    error = where + "truncated header";
    return false;
  }

  std::string header = bytes.substr(headerStart, headerLen);
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  std::string headerError;
  if (!HeaderParser(header).parse(descr, fortranOrder, shape, headerError)) {
    error = where + "bad header: " + headerError;
    return false;
  }
  DType dtype;
  if (!lookupDType(descr, dtype)) {
    error = where + "unsupported dtype '" + descr +
            "' (supported: <f4, <f8, <i4, <i8, |u1, |i1, |b1)";
    return false;
  }
  if (fortranOrder) {
    error = where + "Fortran-order arrays are not supported (save a "
                    "C-contiguous array)";
    return false;
  }

  uint64_t count = 1;
  for (int64_t dim : shape) {
    if (dim != 0 && count > std::numeric_limits<uint64_t>::max() / 8 /
                                static_cast<uint64_t>(dim)) {
      error = where + "shape too large";
      return false;
    }
    count *= static_cast<uint64_t>(dim);
  }
  size_t dataStart = headerStart + headerLen;
  uint64_t need = count * static_cast<uint64_t>(dtype.size);
  uint64_t have = bytes.size() - dataStart;
  if (have < need) {
    error = where + "truncated data: expected " + std::to_string(need) +
            " bytes for " + std::to_string(count) + " elements of " + descr +
            ", found " + std::to_string(have);
    return false;
  }
  if (have > need) {
    error = where + "unexpected " + std::to_string(have - need) +
            " bytes after the data";
    return false;
  }

  array.shape = std::move(shape);
  array.dtype = descr;
  array.data.resize(count);
  const unsigned char *data = u + dataStart;
  for (uint64_t i = 0; i < count; ++i)
    array.data[i] = decode(data + i * dtype.size, dtype);
  return true;
}

bool attnc::writeNpyF32(const std::string &path,
                        const std::vector<int64_t> &shape,
                        const std::vector<double> &data, std::string &error) {
  uint64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0) {
      error = "cannot write '" + path + "': negative dimension " +
              std::to_string(dim);
      return false;
    }
    count *= static_cast<uint64_t>(dim);
  }
  if (count != data.size()) {
    error = "cannot write '" + path + "': shape holds " +
            std::to_string(count) + " elements but " +
            std::to_string(data.size()) + " values were given";
    return false;
  }

  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      dict += ", ";
    dict += std::to_string(shape[i]);
  }
  if (shape.size() == 1)
    dict += ",";
  dict += "), }";
  // Pad with spaces so that the data starts on a 64-byte boundary, then '\n'.
  size_t prefix = 10;
  size_t total = prefix + dict.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  if (padded - prefix > 0xffff) {
    error = "cannot write '" + path + "': header too long for .npy 1.0";
    return false;
  }
  dict.append(padded - total, ' ');
  dict += '\n';

  std::string out("\x93NUMPY\x01\x00", 8);
  size_t headerLen = dict.size();
  out += static_cast<char>(headerLen & 0xff);
  out += static_cast<char>((headerLen >> 8) & 0xff);
  out += dict;
  out.reserve(out.size() + data.size() * 4);
  for (double v : data) {
    float f = static_cast<float>(v);
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    for (int b = 0; b < 4; ++b)
      out += static_cast<char>((bits >> (8 * b)) & 0xff);
  }

  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) {
    error = "cannot open '" + path + "' for writing: " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

// Helpers of the attn CLI's int8 commands (see int8_common.h).
#include "int8_common.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace attn_cli {
namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// Parses a float32 (strtof: decimal or hex literal, no surrounding text).
bool parse_f32(const std::string& text, float* out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  errno = 0;
  const float v = std::strtof(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return false;
  *out = v;
  return true;
}

}  // namespace

void add_dtype_flag(CLI::App* sub, std::string* dtype) {
  sub->add_option("--dtype", *dtype,
                  "f32 (default): float32 inputs and outputs; int8: TFLite-exact int8 attention "
                  "(int8 .npy in and out, needs the --*-quant flags)")
      ->type_name("f32|int8")
      ->check(CLI::IsMember({"f32", "int8"}).description(""));
}

void require_flags(const std::vector<NamedFlag>& flags) {
  for (const auto& [name, value] : flags) {
    if (!value->has_value()) throw CliError(std::string(name) + " is required with --dtype int8");
  }
}

void reject_flags(const std::vector<NamedFlag>& flags) {
  for (const auto& [name, value] : flags) {
    if (value->has_value()) throw CliError(std::string(name) + " needs --dtype int8");
  }
}

std::string f32_str(float v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}

float parse_positive(const std::string& flag, const std::string& text) {
  float v = 0.0f;
  if (!parse_f32(text, &v)) {
    throw CliError(flag + " " + quoted(text) + " is not a number");
  }
  if (!(v > 0.0f) || std::isinf(v)) {
    throw CliError(flag + " " + quoted(text) + " is not a positive finite float32 number (it is " +
                   f32_str(v) + " as float32)");
  }
  return v;
}

attn::QuantParams parse_quant(const std::string& flag, const std::string& text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos || text.find(':', colon + 1) != std::string::npos) {
    throw CliError(flag + " " + quoted(text) + " is not SCALE:ZERO_POINT (e.g. 0.05:-3)");
  }
  const std::string s = text.substr(0, colon);
  const std::string z = text.substr(colon + 1);
  attn::QuantParams p;
  if (!parse_f32(s, &p.scale)) {
    throw CliError(flag + " " + quoted(text) + ": scale " + quoted(s) + " is not a number");
  }
  if (!(p.scale > 0.0f) || std::isinf(p.scale)) {
    throw CliError(flag + " " + quoted(text) + ": scale " + quoted(s) +
                   " is not a positive finite float32 number (it is " + f32_str(p.scale) +
                   " as float32)");
  }
  if (z.empty() || std::isspace(static_cast<unsigned char>(z[0]))) {
    throw CliError(flag + " " + quoted(text) + ": zero point " + quoted(z) + " is not an integer");
  }
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(z.c_str(), &end, 10);
  if (end != z.c_str() + z.size()) {
    throw CliError(flag + " " + quoted(text) + ": zero point " + quoted(z) + " is not an integer");
  }
  if (errno == ERANGE || v < -128 || v > 127) {
    throw CliError(flag + " " + quoted(text) + ": zero point " + z + " is outside [-128, 127]");
  }
  p.zero_point = static_cast<int32_t>(v);
  return p;
}

std::vector<float> load_scales_file(const std::string& path, std::size_t count,
                                    const std::string& why) {
  attn_npy::Array a;
  std::string err;
  if (!attn_npy::load(path, &a, &err) || !attn_npy::expect(a, path, "<f4", 0, 1, &err)) {
    throw CliError(err);
  }
  const std::size_t n = a.count();
  if (n != 1 && n != count) {
    throw CliError(path + ": " + std::to_string(n) + " scales, expected " + std::to_string(count) +
                   " (" + why + ") or 1; shape " + attn_npy::shape_str(a.shape));
  }
  std::vector<float> out(count);
  for (std::size_t c = 0; c < count; ++c) {
    const float v = a.as<float>()[n == 1 ? 0 : c];
    if (!(v > 0.0f) || std::isinf(v)) {
      throw CliError(path + ": scale " + f32_str(v) + " at index " + std::to_string(c) +
                     " is not a positive finite float32 number");
    }
    out[c] = v;
  }
  return out;
}

std::vector<int32_t> load_bias_file(const std::string& path, int64_t count,
                                    const std::string& why) {
  attn_npy::Array a;
  std::string err;
  if (!attn_npy::load(path, &a, &err) || !attn_npy::expect(a, path, "<i4", 1, 1, &err)) {
    throw CliError(err);
  }
  if (a.shape[0] != count) {
    throw CliError(path + ": length is " + std::to_string(a.shape[0]) + ", expected " +
                   std::to_string(count) + " (" + why + ")");
  }
  return std::vector<int32_t>(a.as<int32_t>(), a.as<int32_t>() + count);
}

void write_s8_outputs(const std::vector<S8Output>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (!outputs[i].path.empty() && outputs[i].path == outputs[j].path) {
        throw CliError(outputs[i].path + ": given as two different outputs");
      }
    }
  }
  std::vector<std::string> written;
  for (const S8Output& o : outputs) {
    if (o.path.empty()) continue;
    std::string err;
    if (!attn_npy::save(o.path, "|i1", o.shape, o.data, &err)) {
      for (const std::string& w : written) std::remove(w.c_str());
      throw CliError(err);
    }
    written.push_back(o.path);
  }
}

}  // namespace attn_cli

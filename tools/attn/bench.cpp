// `attn bench <op>`: times one engine op on this machine, on synthetic
// deterministic data of the user's shape (bench_ops.cpp, bench_model.cpp).
//
// The first call's status is checked (a failing op is a one-line error, exit
// 2), then the remaining warm-up calls run, then timed calls, each checked,
// until the time budget is spent (at least kMinCalls). It prints the median,
// min and max wall time per call (steady_clock), the throughput by the op's
// stated operation count, the kernel set, the CPU, the platform cycle counter
// (where it counts) and the op's scratch bytes; --json prints the same as one
// JSON object.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "attn/platform.h"
#include "bench_ops.h"
#include "bench_system.h"
#include "commands.h"
#include "common.h"
#include "threads_flag.h"

namespace attn_cli {
namespace {

constexpr std::size_t kMinCalls = 3;
constexpr std::size_t kMaxCalls = 1000000;

struct BenchFlags {
  std::string op, dtype, model, mask = "none", cache_dtype;
  BenchShape shape;
  int32_t seq_kv = 0;  // when --seq-kv is not given: --seq-q
  double budget_s = 1.0;
  int warmup = 3;
  bool json = false;
  CLI::Option *seq_q_opt = nullptr, *heads_opt = nullptr, *mask_opt = nullptr, *dim_opt = nullptr,
              *dtype_opt = nullptr, *seq_kv_opt = nullptr, *kv_heads_opt = nullptr;
};

// The shape, dtype and op count after checking the flags against the op.
struct BenchPlan {
  const BenchOp* op = nullptr;
  BenchShape shape;
  bool int8 = false;
};

BenchPlan plan(const BenchFlags& f) {
  BenchPlan p;
  p.op = find_bench_op(f.op);
  if (!p.op) throw CliError("bench: unknown op '" + f.op + "' (ops: " + bench_op_names() + ")");
  const std::string name = f.op;
  if (f.seq_q_opt->count() > 0 && !p.op->seq_q) {
    throw CliError("--seq-q: " + name + " has one query per batch item (keys: --seq-kv)");
  }
  if (f.heads_opt->count() > 0 && !p.op->heads) throw CliError("--heads: " + name + " has none");
  if (f.mask_opt->count() > 0 && !p.op->mask && f.mask != "none") {
    throw CliError("--mask: " + name + " takes no mask");
  }
  if (!f.model.empty()) {
    for (const CLI::Option* o : {f.dim_opt, f.heads_opt, f.dtype_opt}) {
      if (o->count() > 0) throw CliError(o->get_name() + ": with --model it comes from the model");
    }
  }
  p.shape = f.shape;
  p.shape.seq_kv = f.seq_kv_opt->count() > 0 ? f.seq_kv : f.shape.seq_q;
  std::string dtype = f.dtype;
  if (name == "mha-decode") {
    // A decode step: one new token unless --seq-q says otherwise; Skv is the context.
    if (f.seq_q_opt->count() == 0) p.shape.seq_q = 1;
    if (!f.model.empty()) throw CliError("--model: mha-decode takes its shape from the flags");
    if (f.cache_dtype == "int8" && dtype == "f32") throw CliError("--cache-dtype int8 is int8");
    if (f.cache_dtype == "f16" && dtype == "int8") throw CliError("--cache-dtype f16 is float");
    if (f.cache_dtype == "int8") dtype = "int8";
    p.shape.f16_cache = f.cache_dtype == "f16";
    if (p.shape.kv_heads < 0) throw CliError("--kv-heads must be positive");
  } else if (f.kv_heads_opt->count() > 0 || !f.cache_dtype.empty()) {
    throw CliError("--kv-heads and --cache-dtype: mha-decode only");
  }
  if (!p.op->seq_q) p.shape.seq_q = 1;
  if (f.op == "general" && p.shape.seq_kv != p.shape.seq_q) {
    throw CliError("--seq-kv: general attention is self-attention (Skv = Sq)");
  }
  const BenchShape& s = p.shape;
  if (s.batch <= 0 || s.seq_q <= 0 || s.seq_kv <= 0 || s.dim <= 0 || s.heads <= 0) {
    throw CliError("--batch, --seq-q, --seq-kv, --dim and --heads must be positive");
  }
  if (!(f.budget_s > 0.0 && f.budget_s <= 3600.0)) {
    throw CliError("--time: a budget in seconds in (0, 3600]");
  }
  if (f.warmup < 1) throw CliError("--warmup: at least 1 (its first call checks the status)");
  if (dtype.empty()) dtype = p.op->f32 ? "f32" : "int8";
  p.int8 = dtype == "int8";
  if (f.model.empty() && !(p.int8 ? p.op->int8 : p.op->f32)) {
    throw CliError("--dtype " + dtype + ": " + name + " has no " + dtype + " form");
  }
  if (f.mask != "none") parse_mask_flag(f.mask, &p.shape.masks);
  return p;
}

struct Stats {
  double median = 0, min = 0, max = 0;
};

Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return {n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]), v.front(), v.back()};
}

struct Timing {
  Stats ns;
  bool have_cycles = false;
  Stats cycles;
  std::size_t calls = 0;
};

Timing time_calls(const BenchCall& c, const std::string& op, const BenchFlags& f) {
  for (int i = 0; i < f.warmup; ++i) check_status(c.call(), op);
  using Clock = std::chrono::steady_clock;
  const bool count_cycles = attn::platform::cycle_counter_available();
  std::vector<double> ns, cyc;
  const auto start = Clock::now();
  const auto budget = std::chrono::duration<double>(f.budget_s);
  while (ns.size() < kMinCalls || (Clock::now() - start < budget && ns.size() < kMaxCalls)) {
    const uint64_t c0 = attn::platform::cycles();
    const auto t0 = Clock::now();
    const attn::Status st = c.call();
    const auto t1 = Clock::now();
    const uint64_t c1 = attn::platform::cycles();
    check_status(st, op);
    ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
    cyc.push_back(static_cast<double>(c1 - c0));
  }
  Timing t;
  t.ns = stats(ns);
  t.have_cycles = count_cycles;
  if (count_cycles) t.cycles = stats(cyc);
  t.calls = ns.size();
  return t;
}

// JSON string (the values here are plain text: escape quotes, backslashes and
// control characters).
std::string js(const std::string& s) {
  std::string r = "\"";
  for (const char ch : s) {
    if (ch == '"' || ch == '\\') {
      r += '\\';
      r += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(ch));
      r += buf;
    } else {
      r += ch;
    }
  }
  return r + "\"";
}

struct Report {
  std::string op, dtype, shape, mask, model, formula, kernels;
  const BenchShape* s = nullptr;
  double ops = 0;
  std::size_t scratch = 0;
  Timing t;
};

void print_json(const Report& r, const BenchFlags& f) {
  const BenchShape& s = *r.s;
  const double gops = r.ops / r.t.ns.median;
  std::printf("{\"op\": %s, \"dtype\": %s, \"model\": %s,\n", js(r.op).c_str(), js(r.dtype).c_str(),
              r.model.empty() ? "null" : js(r.model).c_str());
  // With a model, the dimensions are the model's (see attn info).
  const std::string dim = r.model.empty() ? std::to_string(s.dim) : "null";
  const std::string heads = r.model.empty() ? std::to_string(s.heads) : "null";
  std::printf(
      " \"shape\": {\"batch\": %d, \"seq_q\": %d, \"seq_kv\": %d, \"dim\": %s, "
      "\"heads\": %s}, \"mask\": %s,\n",
      s.batch, s.seq_q, s.seq_kv, dim.c_str(), heads.c_str(), js(r.mask).c_str());
  std::printf(" \"calls\": %zu, \"warmup_calls\": %d, \"budget_s\": %.9g,\n", r.t.calls, f.warmup,
              f.budget_s);
  std::printf(" \"time_ns\": {\"median\": %.1f, \"min\": %.1f, \"max\": %.1f},\n", r.t.ns.median,
              r.t.ns.min, r.t.ns.max);
  std::printf(" \"ops_per_call\": %.17g, \"ops_formula\": %s, \"%s\": %.6g,\n", r.ops,
              js(r.formula).c_str(), r.dtype == "int8" ? "gops" : "gflops", gops);
  std::printf(
      " \"kernels\": {\"f32_backend\": %s, \"f32_target\": %s, \"int8\": %s, "
      "\"ran\": %s},\n",
      js(f32_backend()).c_str(), js(f32_target()).c_str(), js(int8_kernels()).c_str(),
      js(r.kernels).c_str());
  std::printf(" \"cpu\": {\"model\": %s, \"arch\": %s},\n", js(cpu_model()).c_str(),
              js(cpu_arch()).c_str());
  if (r.t.have_cycles) {
    std::printf(
        " \"cycle_counter\": {\"name\": %s, \"median\": %.0f, \"min\": %.0f, "
        "\"max\": %.0f},\n",
        js(attn::platform::cycle_counter_name()).c_str(), r.t.cycles.median, r.t.cycles.min,
        r.t.cycles.max);
  } else {
    std::printf(" \"cycle_counter\": null,\n");
  }
  std::printf(" \"threads\": %d, \"scratch_bytes\": %zu}\n", threads_workers(), r.scratch);
}

// Microseconds with 4 significant digits.
std::string us(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g us", ns / 1000.0);
  return buf;
}

void print_text(const Report& r, const BenchFlags& f) {
  const char* unit = r.dtype == "int8" ? "GOP/s" : "GFLOP/s";
  std::printf("attn bench %s (%s%s): %s, mask %s\n", r.op.c_str(), r.dtype.c_str(),
              r.model.empty() ? "" : (", model " + r.model).c_str(), r.shape.c_str(),
              r.mask.c_str());
  std::printf(
      "  time per call  median %s, min %s, max %s (%zu calls after %d warm-up, "
      "budget %g s)\n",
      us(r.t.ns.median).c_str(), us(r.t.ns.min).c_str(), us(r.t.ns.max).c_str(), r.t.calls,
      f.warmup, f.budget_s);
  std::printf("  throughput     %.4g %s (%.17g ops per call: %s)\n", r.ops / r.t.ns.median, unit,
              r.ops, r.formula.c_str());
  std::printf("  kernels        %s\n", r.kernels.c_str());
  std::printf("  threads        %d\n", threads_workers());
  std::printf("  cpu            %s (%s)\n", cpu_model().c_str(), cpu_arch().c_str());
  if (r.t.have_cycles) {
    std::printf("  cycle counter  %s: median %.0f per call\n", attn::platform::cycle_counter_name(),
                r.t.cycles.median);
  } else {
    std::printf("  cycle counter  %s does not count here\n", attn::platform::cycle_counter_name());
  }
  std::printf("  scratch        %zu bytes\n", r.scratch);
}

std::string shape_text(const BenchOp& op, const BenchShape& s) {
  std::string r = "B=" + std::to_string(s.batch);
  if (op.seq_q) r += " Sq=" + std::to_string(s.seq_q);
  r += (op.seq_q ? " Skv=" : " T=") + std::to_string(s.seq_kv);
  r += " D=" + std::to_string(s.dim);
  if (op.heads) r += " H=" + std::to_string(s.heads);
  if (std::string(op.name) == "mha-decode") {
    r += " G=" + std::to_string(s.kv_heads > 0 ? s.kv_heads : s.heads) +
         (s.f16_cache ? " f16 cache" : "");
  }
  return r;
}

// Model blobs: the op's count with the blob's dimensions.
const char* model_formula(const std::string& op, bool int8) {
  if (op == "mha") {
    return "2*B*(2*Sq*E*E + Skv*E*(kdim+vdim) + 2*Sq*Skv*E) (E, kdim, vdim from the model)";
  }
  if (op == "bahdanau") return "2*B*(Dq*U + T*Dk*U + T*U + T*Dk) (Dq, Dk, U from the model)";
  return int8 ? "2*B*T*(Dk*Dq + Dq + Dk) (Dq, Dk from the model)"
              : "2*B*(Dq*Dk + 2*T*Dk) (Dq, Dk from the model)";
}

void run_bench(const BenchFlags& f) {
  const BenchPlan p = plan(f);
  Report r;
  r.op = f.op;
  r.s = &p.shape;
  r.mask = f.mask;
  BenchCall c;
  if (!f.model.empty()) {
    c = prepare_model_call(f.op, f.model, p.shape);
    r.model = f.model;
    r.ops = c.ops;
    r.formula = model_formula(f.op, c.int8);
    r.shape = "B=" + std::to_string(p.shape.batch) +
              (p.op->seq_q ? " Sq=" + std::to_string(p.shape.seq_q) : std::string()) +
              (p.op->seq_q ? " Skv=" : " T=") + std::to_string(p.shape.seq_kv) +
              " (dimensions from the model)";
  } else {
    c = (p.int8 ? p.op->int8 : p.op->f32)(p.shape);
    c.int8 = p.int8;
    const bool own = p.int8 && p.op->int8_ops;
    r.ops = own ? p.op->int8_ops(p.shape) : p.op->ops(p.shape);
    r.formula = own ? p.op->int8_formula : p.op->formula;
    r.shape = shape_text(*p.op, p.shape);
  }
  r.dtype = c.int8 ? "int8" : "f32";
  const std::string target = f32_target();
  r.kernels = c.int8 ? "int8 " + int8_kernels()
                     : "f32 " + f32_backend() + (target.empty() ? "" : " " + target);
  r.scratch = c.scratch_bytes;
  r.t = time_calls(c, f.op, f);
  if (f.json) {
    print_json(r, f);
  } else {
    print_text(r, f);
  }
}

}  // namespace

void add_bench(CLI::App* app, Runner* runner) {
  auto f = std::make_shared<BenchFlags>();
  CLI::App* s = app->add_subcommand(
      "bench",
      "Time one op on this machine on synthetic data of a given shape (float32, int8 or "
      "a model blob): median/min/max time per call, GFLOP/s (GOP/s for int8), the "
      "kernel set, the CPU, the cycle counter and the scratch bytes");
  s->add_option("op", f->op, "the op: " + bench_op_names())->required()->type_name("OP");
  s->add_option("--dtype", f->dtype, "f32 or int8 (default f32; softmax-s8: int8)")
      ->type_name("f32|int8")
      ->check(CLI::IsMember({"f32", "int8"}).description(""));
  s->add_option("--model", f->model,
                "model blob from attn-convert (mha, bahdanau, luong-general): weights, "
                "dimensions and dtype from it")
      ->type_name("MODEL");
  s->add_option("--batch", f->shape.batch, "batch B (default 1)");
  f->seq_q_opt = s->add_option("--seq-q", f->shape.seq_q,
                               "queries Sq (default 128; mha-decode: new tokens per call, 1)");
  f->seq_kv_opt = s->add_option("--seq-kv", f->seq_kv,
                                "keys Skv, or T for the one-query ops (default --seq-q; "
                                "mha-decode: the context already cached)");
  f->dim_opt =
      s->add_option("--dim", f->shape.dim, "head dimension D (mha: the embed dim E; default 64)");
  f->heads_opt = s->add_option("--heads", f->shape.heads,
                               "heads H (sdpa: B*H independent heads; mha: must divide D)");
  f->kv_heads_opt = s->add_option("--kv-heads", f->shape.kv_heads,
                                  "mha-decode: kv heads G dividing H (default H)");
  s->add_option("--cache-dtype", f->cache_dtype,
                "mha-decode: KV cache f32 (default), f16 or int8 (= --dtype int8)")
      ->check(CLI::IsMember({"f32", "f16", "int8"}));
  f->mask_opt =
      s->add_option("--mask", f->mask, "causal, none (default) or a mask .npy as for attn run")
          ->type_name("causal|none|FILE");
  f->dtype_opt = s->get_option("--dtype");
  s->add_option("--time", f->budget_s, "time budget in seconds for the timed calls (default 1)")
      ->type_name("SECONDS");
  s->add_option("--warmup", f->warmup,
                "untimed calls first (default 3; the first checks the "
                "op's status)");
  s->add_flag("--json", f->json, "print one JSON object instead of text");
  add_threads_flag(s);
  s->callback([f, runner] { *runner = [f] { run_bench(*f); }; });
}

}  // namespace attn_cli

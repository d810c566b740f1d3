/* QEMU TCG plugin: exact, deterministic counts of guest instructions executed
 * between two marker functions. Works with qemu-system-arm (Cortex-M boards)
 * and qemu-user (qemu-aarch64, qemu-arm).
 *
 *   qemu-system-arm ... \
 *     -plugin libattn_insn_count.so,begin=attn_bench_begin,end=attn_bench_end,out=counts.txt
 *
 * begin / end: a marker, given as a symbol name or a hexadecimal address
 * (0x..., the Thumb bit is ignored). Every time the guest enters `begin` the
 * plugin notes the running instruction count; every time it enters `end` it
 * writes one line "insns <n> <count>", n = 0, 1, 2, ... the count executed
 * since the matching `begin` (the markers' own few instructions included: a
 * constant the harness subtracts by measuring an empty region). At exit it
 * writes "total <count>".
 *
 * out: a file for the lines; without it they go to qemu_plugin_outs (shown
 * with `-d plugin`).
 *
 * Counting: each translation block adds its instruction count to a 64-bit
 * counter inline when it starts executing; markers are at function entries,
 * which always start a block. Nothing here depends on time, so two runs of
 * the same image give identical counts. (An exception taken in the middle of
 * a block would count the rest of the block; the benchmark regions take none.) */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct marker {
  const char* symbol; /* or NULL */
  uint64_t address;
};

static struct marker g_begin, g_end;
static uint64_t g_count;    /* instructions executed so far (all vCPUs: one is used) */
static uint64_t g_at_begin; /* g_count when `begin` was last entered */
static unsigned g_regions;  /* completed regions */
static FILE* g_out;

static void emit(const char* line) {
  if (g_out != NULL) {
    fputs(line, g_out);
    fflush(g_out);
  } else {
    qemu_plugin_outs(line);
  }
}

static int matches(const struct marker* m, struct qemu_plugin_tb* tb) {
  if (m->symbol != NULL) {
    /* Markers are tiny functions: every block whose first instruction lies in
     * one is its entry block. */
    const char* sym = qemu_plugin_insn_symbol(qemu_plugin_tb_get_insn(tb, 0));
    return sym != NULL && strcmp(sym, m->symbol) == 0;
  }
  return qemu_plugin_tb_vaddr(tb) == (m->address & ~(uint64_t)1);
}

static void on_begin(unsigned int vcpu, void* udata) {
  (void)vcpu;
  (void)udata;
  g_at_begin = g_count;
}

static void on_end(unsigned int vcpu, void* udata) {
  (void)vcpu;
  (void)udata;
  char line[96];
  snprintf(line, sizeof line, "insns %u %" PRIu64 "\n", g_regions++, g_count - g_at_begin);
  emit(line);
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &g_count,
                                           qemu_plugin_tb_n_insns(tb));
  if (matches(&g_begin, tb)) {
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_begin, QEMU_PLUGIN_CB_NO_REGS, NULL);
  } else if (matches(&g_end, tb)) {
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_end, QEMU_PLUGIN_CB_NO_REGS, NULL);
  }
}

static void on_exit(qemu_plugin_id_t id, void* udata) {
  (void)id;
  (void)udata;
  char line[64];
  snprintf(line, sizeof line, "total %" PRIu64 "\n", g_count);
  emit(line);
  if (g_out != NULL) fclose(g_out);
}

static int parse_marker(const char* value, struct marker* m) {
  if (value[0] == '0' && (value[1] == 'x' || value[1] == 'X')) {
    char* end = NULL;
    m->address = strtoull(value, &end, 16);
    m->symbol = NULL;
    return end != NULL && *end == '\0' ? 0 : -1;
  }
  m->symbol = strdup(value);
  return m->symbol != NULL ? 0 : -1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                           char** argv) {
  (void)info;
  int have_begin = 0, have_end = 0;
  for (int i = 0; i < argc; ++i) {
    const char* arg = argv[i];
    if (strncmp(arg, "begin=", 6) == 0) {
      have_begin = parse_marker(arg + 6, &g_begin) == 0;
    } else if (strncmp(arg, "end=", 4) == 0) {
      have_end = parse_marker(arg + 4, &g_end) == 0;
    } else if (strncmp(arg, "out=", 4) == 0) {
      g_out = fopen(arg + 4, "w");
      if (g_out == NULL) {
        fprintf(stderr, "insn_count: cannot open %s\n", arg + 4);
        return -1;
      }
    } else {
      fprintf(stderr, "insn_count: unknown argument '%s' (begin=, end=, out=)\n", arg);
      return -1;
    }
  }
  if (!have_begin || !have_end) {
    fprintf(stderr, "insn_count: need begin=<symbol|0xaddr> and end=<symbol|0xaddr>\n");
    return -1;
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
  qemu_plugin_register_atexit_cb(id, on_exit, NULL);
  return 0;
}

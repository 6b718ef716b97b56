/* bitfold's instruction counter: a QEMU TCG plugin (plugin API of qemu 7.2 and later) that counts
 * the guest instructions executed inside named functions of a user-mode program.
 *
 *     qemu-riscv64 -plugin counter_plugin.so,sym=NAME[,sym=NAME...][,profile=on] -d plugin -D LOG PROGRAM ARGS...
 *
 * At exit it writes two lines to LOG:
 *
 *     counted N     instructions executed whose address lies inside one of the named functions
 *     executed N    instructions executed by the whole program (translation blocks entered x their
 *                   length: an exception in the middle of a block counts the rest of it too)
 *
 * and with profile=on, before them, one line per instruction of the named functions that ran:
 *
 *     at 0xADDRESS N   the instruction at that guest address executed N times
 *
 * An address is inside a function when qemu's symbol lookup names it: the program's ELF symbol
 * table, function symbols with a size (`.type NAME, @function` and `.size NAME, . - NAME`).
 * `counted` is exact and repeatable: every instruction of a named function gets an inline
 * increment when it is translated, and that increment runs each time the instruction does.
 * Built by counter_plugin.py; qemu's qemu-plugin.h comes from Debian's qemu source package. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_SYMBOLS 64
#define SYMBOL_ARGUMENT "sym="
#define PROFILE_ARGUMENT "profile=on"

/* One counter per instruction address (profile=on); translated again, an address keeps its counter. */
typedef struct {
    uint64_t address;
    uint64_t count;
} AddressCount;

static const char *symbols[MAX_SYMBOLS];
static int symbol_count;
static uint64_t counted;
static uint64_t executed;
static int profiling;
static GHashTable *address_counts; /* address -> AddressCount*, owned */

static uint64_t *address_counter(uint64_t address) {
    AddressCount *entry = g_hash_table_lookup(address_counts, &address);
    if (entry == NULL) {
        entry = g_new0(AddressCount, 1);
        entry->address = address;
        g_hash_table_insert(address_counts, &entry->address, entry);
    }
    return &entry->count;
}

static int inside_named_function(struct qemu_plugin_insn *insn) {
    const char *symbol = qemu_plugin_insn_symbol(insn);
    if (symbol == NULL) return 0;
    for (int i = 0; i < symbol_count; i++)
        if (strcmp(symbol, symbols[i]) == 0) return 1;
    return 0;
}

static void on_translation(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    size_t length = qemu_plugin_tb_n_insns(tb);
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &executed, length);
    for (size_t i = 0; i < length; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        if (!inside_named_function(insn)) continue;
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &counted, 1);
        if (profiling)
            qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
                                                       address_counter(qemu_plugin_insn_vaddr(insn)), 1);
    }
}

static void report_address(gpointer key, gpointer value, gpointer data) {
    const AddressCount *entry = value;
    char line[64];
    if (entry->count == 0) return;
    snprintf(line, sizeof line, "at 0x%" PRIx64 " %" PRIu64 "\n", entry->address, entry->count);
    qemu_plugin_outs(line);
}

static void report(qemu_plugin_id_t id, void *data) {
    char line[96];
    if (profiling) g_hash_table_foreach(address_counts, report_address, NULL);
    snprintf(line, sizeof line, "counted %" PRIu64 "\nexecuted %" PRIu64 "\n", counted, executed);
    qemu_plugin_outs(line);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], PROFILE_ARGUMENT) == 0) {
            profiling = 1;
            continue;
        }
        if (strncmp(argv[i], SYMBOL_ARGUMENT, strlen(SYMBOL_ARGUMENT)) != 0) {
            fprintf(stderr, "counter_plugin: unknown argument %s (expected sym=NAME or profile=on)\n", argv[i]);
            return -1;
        }
        if (symbol_count == MAX_SYMBOLS) {
            fprintf(stderr, "counter_plugin: more than %d symbols\n", MAX_SYMBOLS);
            return -1;
        }
        symbols[symbol_count++] = argv[i] + strlen(SYMBOL_ARGUMENT);
    }
    if (symbol_count == 0) {
        fprintf(stderr, "counter_plugin: no sym=NAME argument\n");
        return -1;
    }
    address_counts = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translation);
    qemu_plugin_register_atexit_cb(id, report, NULL);
    return 0;
}

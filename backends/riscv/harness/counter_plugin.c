/* bitfold's instruction counter: a QEMU TCG plugin (plugin API of qemu 7.2 and later) that counts
 * the guest instructions executed inside named functions of a user-mode program.
 *
 *     qemu-riscv64 -plugin counter_plugin.so,sym=NAME[,sym=NAME...] -d plugin -D LOG PROGRAM ARGS...
 *
 * At exit it writes two lines to LOG:
 *
 *     counted N     instructions executed whose address lies inside one of the named functions
 *     executed N    instructions executed by the whole program (translation blocks entered x their
 *                   length: an exception in the middle of a block counts the rest of it too)
 *
 * An address is inside a function when qemu's symbol lookup names it: the program's ELF symbol
 * table, function symbols with a size (`.type NAME, @function` and `.size NAME, . - NAME`).
 * `counted` is exact and repeatable: every instruction of a named function gets an inline
 * increment when it is translated, and that increment runs each time the instruction does.
 * Built by counter_plugin.py; qemu's qemu-plugin.h comes from Debian's qemu source package. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_SYMBOLS 64
#define SYMBOL_ARGUMENT "sym="

static const char *symbols[MAX_SYMBOLS];
static int symbol_count;
static uint64_t counted;
static uint64_t executed;

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
        if (inside_named_function(insn))
            qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &counted, 1);
    }
}

static void report(qemu_plugin_id_t id, void *data) {
    char line[96];
    snprintf(line, sizeof line, "counted %" PRIu64 "\nexecuted %" PRIu64 "\n", counted, executed);
    qemu_plugin_outs(line);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], SYMBOL_ARGUMENT, strlen(SYMBOL_ARGUMENT)) != 0) {
            fprintf(stderr, "counter_plugin: unknown argument %s (expected sym=NAME)\n", argv[i]);
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
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translation);
    qemu_plugin_register_atexit_cb(id, report, NULL);
    return 0;
}

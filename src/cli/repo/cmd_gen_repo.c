/* cmd_gen_repo.c — `seqrep gen-repo`: write examples of a RePo task (key-value
 * retrieval, needle in a haystack, table lookup; see repo/repo_tasks.h) as a
 * text corpus, one example per line, each line ending with its answer, so
 * that `seqrep train-lm` can train on them (it puts <bos> before every line,
 * which is where the examples have theirs). With --answers, a CSV says where
 * each example's evidence and answer are (indices count the <bos> as 0). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_file.h"
#include "cli/repo/repo_commands.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "repo/repo_tasks.h"
#include "runs/manifest.h"

static const char *CMD = "gen-repo";

/* The options of `seqrep gen-repo`, with the task's checked description. */
typedef struct {
    const char *task, *out, *answers;
    int length, n, seed;
    RepoTaskSpec spec;
} GenRepoOptions;

/* The corpus text (one example per line) and, with --answers, the CSV. */
typedef struct {
    char *text, *csv;
} GenRepoTexts;

/* Parse argv into o and check the task's description: 0, 1 after --help, 2
 * after the error line. */
static int parse_options(int argc, char **argv, GenRepoOptions *o)
{
    *o = (GenRepoOptions){.length = 64, .n = 1000, .seed = 1};
    /* what is not given stays as the task's defaults (the same for every kind) */
    const RepoTaskSpec task = repo_task_defaults(REPO_TASK_KV, o->length);
    int queries = task.n_queries, pairs = task.n_pairs, rows = task.n_rows, cols = task.n_cols;
    float depth = (float)task.depth;
    HelpText h = {0};
    ArgSpec specs[] = {
        {.name = "task", .type = ARG_STRING, .value = &o->task, .required = 1,
         .help = "kv, needle or table"},
        {.name = "out", .type = ARG_STRING, .value = &o->out, .required = 1,
         .help = "text file to write, one example per line"},
        {.name = "length", .type = ARG_INT, .value = &o->length, .min_int = 2,
         .help = help_text(&h, "tokens per example, <bos> included (default %d)", o->length)},
        {.name = "n", .type = ARG_INT, .value = &o->n, .min_int = 1,
         .help = help_text(&h, "number of examples (default %d)", o->n)},
        {.name = "depth", .type = ARG_FLOAT, .value = &depth,
         .help = "evidence depth in 0..1, negative = random (default random)"},
        {.name = "queries", .type = ARG_INT, .value = &queries, .min_int = 1,
         .help = help_text(&h, "queries per example (default %d)", queries)},
        {.name = "pairs", .type = ARG_INT, .value = &pairs, .min_int = 1,
         .help = help_text(&h, "kv: key-value pairs (default %d)", pairs)},
        {.name = "rows", .type = ARG_INT, .value = &rows, .min_int = 1,
         .help = help_text(&h, "table: rows (default %d)", rows)},
        {.name = "cols", .type = ARG_INT, .value = &cols, .min_int = 1,
         .help = help_text(&h, "table: columns (default %d)", cols)},
        option_seed(&o->seed, help_text(&h, "random seed (default %d)", o->seed)),
        {.name = "answers", .type = ARG_STRING, .value = &o->answers,
         .help = "CSV of answer and evidence positions"},
    };
    int rc = args_parse(CMD, "--task kv|needle|table --out FILE [options]", specs,
                        ARGS_COUNT(specs), argc, argv, NULL, 0, NULL);
    if (rc) return rc;
    RepoTaskKind kind;
    if (repo_task_parse(o->task, &kind))
        return args_error(CMD, "--task must be kv, needle or table, got '%s'", o->task);
    o->spec = repo_task_defaults(kind, o->length);
    o->spec.depth = depth;
    o->spec.n_queries = queries;
    o->spec.n_pairs = pairs;
    o->spec.n_rows = rows;
    o->spec.n_cols = cols;
    SrError err;
    if (repo_task_check(&o->spec, &err)) return args_error(CMD, "%s", err.msg);
    return 0;
}

/* Write the n examples into out->text (each line: the example's words after
 * its <bos>, then its answer) and, with --answers, their positions into
 * out->csv. 0, or -1 when out of memory. */
static int render_examples(const GenRepoOptions *o, GenRepoTexts *out)
{
    size_t text_len = 0, csv_len = 0;
    FILE *f = open_memstream(&out->text, &text_len);
    FILE *c = o->answers ? open_memstream(&out->csv, &csv_len) : NULL;
    int *ids = malloc(sizeof(int) * o->length), *targets = malloc(sizeof(int) * o->length);
    int rc = f && (!o->answers || c) && ids && targets ? 0 : -1;
    if (rc == 0 && c) fprintf(c, "index,answer_pos,answer,evidence_start,evidence_len,depth\n");
    for (long i = 0; i < o->n && rc == 0; i++) {
        RepoExample ex;
        repo_task_example(&o->spec, (uint64_t)o->seed, i, ids, targets, &ex);
        int last = targets[o->length - 1];
        repo_task_write_words(f, ids + 1, o->length - 1); /* train-lm adds the <bos> */
        fputc(' ', f);
        repo_task_write_words(f, &last, 1);
        fputc('\n', f);
        if (c) {
            char word[16];
            repo_task_word(ex.answer, word, sizeof word);
            fprintf(c, "%ld,%d,%s,%d,%d,%.4f\n", i, ex.answer_pos, word, ex.evidence_start,
                    ex.evidence_len, ex.depth);
        }
    }
    if (f) fclose(f);
    if (c) fclose(c);
    free(ids);
    free(targets);
    if (!out->text || (o->answers && !out->csv)) rc = -1;
    return rc;
}

/* Write the corpus and, with --answers, the CSV, each atomically. 0 or 2
 * after the error line. */
static int write_outputs(const GenRepoOptions *o, const GenRepoTexts *texts)
{
    SrError err;
    if (write_file_atomic(o->out, texts->text, &err) ||
        (o->answers && write_file_atomic(o->answers, texts->csv, &err)))
        return args_error(CMD, "%s", err.msg);
    fprintf(stderr, "wrote %d %s examples of %d tokens to %s\n", o->n, o->task, o->length, o->out);
    return 0;
}

/* `seqrep gen-repo`: options, the examples in memory, then the files. */
int cmd_gen_repo(int argc, char **argv)
{
    GenRepoOptions o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    GenRepoTexts texts = {0};
    rc = render_examples(&o, &texts) ? args_error(CMD, "out of memory") : write_outputs(&o, &texts);
    free(texts.text);
    free(texts.csv);
    return rc;
}

/* cmd_repo_positions.c — `seqrep repo-positions`: the RePo positions z of a
 * checkpoint on a sentence (repeated r times) or a task example, one CSV line
 * per RePo layer, head and token; with --summary also what the copies of the
 * sentence get (gaps between copies of a word, spread, shift, overlap). */
#include <stdio.h>
#include <stdlib.h>

#include "base/atomic_file.h"
#include "cli/repo/repo_commands.h"
#include "engine/model.h"
#include "engine/threads.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "repeat/repeat.h"
#include "repo/repo_eval.h"
#include "repo/repo_tasks.h"

static const char *CMD = "repo-positions";

typedef struct {
    const char *model_path, *out, *text, *task, *summary, *bos_text, *sep_text;
    int r, length, index, seed, threads;
    RepeatBos bos;
    RepeatSep sep;
} PositionsOptions;

/* What one run holds: the checkpoint sized for the input, its tokenizer, the
 * words and their repeated layout. */
typedef struct {
    Model m;
    Tokenizer tok;
    int *words, n;
    RepeatLayout lay;
} PositionsRun;

/* Parse and check options; 0, 1 (help shown) or 2 (error printed). */
static int parse_options(int argc, char **argv, PositionsOptions *o)
{
    *o = (PositionsOptions){.bos_text = "per-copy", .sep_text = "none", .length = 64, .seed = 1};
    HelpText h = {0};
    ArgSpec specs[] = {
        {.name = "model", .type = ARG_STRING, .value = &o->model_path, .required = 1,
         .help = "checkpoint with RePo weights"},
        {.name = "out", .type = ARG_STRING, .value = &o->out, .required = 1,
         .help = "CSV of z per RePo layer, head and token"},
        {.name = "text", .type = ARG_STRING, .value = &o->text, .help = "a sentence to run"},
        {.name = "task", .type = ARG_STRING, .value = &o->task,
         .help = "or a task example: kv, needle or table"},
        {.name = "length", .type = ARG_INT, .value = &o->length, .min_int = 2,
         .help = help_text(&h, "task example length (default %d)", o->length)},
        {.name = "index", .type = ARG_INT, .value = &o->index,
         .help = help_text(&h, "task example index (default %d)", o->index)},
        {.name = "r", .type = ARG_INT, .value = &o->r,
         .help = help_text(&h, "repetitions: the input is fed r+1 times (default %d)", o->r)},
        option_bos(&o->bos_text, help_text(&h, "none, once or per-copy (default %s)", o->bos_text)),
        option_sep(&o->sep_text, help_text(&h, "none or token (default %s)", o->sep_text)),
        {.name = "summary", .type = ARG_STRING, .value = &o->summary,
         .help = "CSV of what the copies get (needs --r >= 1)"},
        option_seed(&o->seed, help_text(&h, "task example seed (default %d)", o->seed)),
        option_threads(&o->threads),
    };
    int rc = args_parse(CMD, "--model CKPT --out FILE.csv (--text S | --task T) [options]", specs,
                        ARGS_COUNT(specs), argc, argv, NULL, 0, NULL);
    if (rc) return rc;
    if (!o->text == !o->task) return args_error(CMD, "give exactly one of --text and --task");
    /* this command's own messages, without the value given */
    if (repeat_parse_bos(o->bos_text, &o->bos))
        return args_error(CMD, "--bos must be none, once or per-copy");
    if (repeat_parse_sep(o->sep_text, &o->sep)) return args_error(CMD, "--sep must be none or token");
    if (o->summary && o->r < 1)
        return args_error(CMD, "--summary compares copies: give --r 1 or more");
    return 0;
}

/* The words to run: a sentence through the checkpoint's tokenizer, or a
 * task example (without its <bos>) mapped into the checkpoint's vocabulary.
 * *words (caller frees), *n. */
static int positions_words(const PositionsOptions *o, const Tokenizer *tok, int **words, int *n,
                           SrError *err)
{
    if (o->text) {
        long need = tokenizer_encode(tok, o->text, 0, NULL, 0);
        if (need < 1) return sr_fail(err, "--text has no tokens");
        *words = malloc(sizeof(int) * need);
        if (!*words) return sr_fail(err, "out of memory");
        *n = (int)tokenizer_encode(tok, o->text, 0, *words, need);
        return 0;
    }
    RepoTaskKind kind;
    if (repo_task_parse(o->task, &kind)) return sr_fail(err, "--task must be kv, needle or table");
    int length = o->length;
    RepoTaskSpec s = repo_task_defaults(kind, length);
    s.depth = 0.5;
    if (repo_task_check(&s, err)) return -1;
    int *ids = malloc(sizeof(int) * length), *targets = malloc(sizeof(int) * length);
    int map[REPO_VOCAB_SIZE];
    if (!ids || !targets) {
        free(ids);
        free(targets);
        return sr_fail(err, "out of memory");
    }
    repo_task_example(&s, (uint64_t)o->seed, o->index, ids, targets, NULL);
    repo_task_map_vocab(tok, map);
    for (int t = 1; t < length; t++) ids[t - 1] = map[ids[t]];
    free(targets);
    *words = ids;
    *n = length - 1;
    return 0;
}

/* Load the checkpoint (its tokenizer first, a small load), the words and
 * their layout, then the model sized for them; run it once on the layout's
 * positions. 0, or -1 with err filled. */
static int run_positions(const PositionsOptions *o, PositionsRun *run, SrError *err)
{
    if (repo_load_model(o->model_path, REPO_METHOD_REPO, 1, 1, &run->m, &run->tok, NULL, err) ||
        positions_words(o, &run->tok, &run->words, &run->n, err) ||
        repeat_build(run->words, run->n, o->r, o->bos, o->sep, REPO_TASK_MAX_LENGTH, &run->lay, err))
        return -1;
    Model big = {0};
    if (repo_model_resize(&run->m, 1, run->lay.T, &big, err)) return -1;
    model_free(&run->m);
    run->m = big;
    RepoRun positions;
    if (repo_run_init(&positions, REPO_METHOD_REPO, &run->m, err)) return -1;
    ModelInput in = {.B = 1, .T = run->lay.T, .ids = run->lay.ids};
    repo_run_apply(&positions, &in);
    in.positions = run->lay.positions; /* the copies' own positions, not 0..T-1 */
    int rc = model_forward(&run->m, &in, err);
    repo_run_free(&positions);
    return rc;
}

/* The summary CSV: the token index (what RoPE uses) as a reference, then
 * every RePo layer and head. */
static void write_summary(FILE *f, const PositionsRun *run)
{
    const Model *m = &run->m;
    fprintf(f, "source,layer,head,same_word_gap,first_gap,later_gap,z_spread,gap_over_spread,"
            "copy_shift,copy_extent,overlap\n");
    RepoRepeatStats st;
    for (int l = m->cfg.repo_from - 1; l < m->cfg.n_layers; l++)
        for (int h = 0; h < m->cfg.n_heads; h++) {
            if (l < m->cfg.repo_from) { /* first the token index, as RoPE uses it */
                if (h > 0) break;
                repo_repeat_stats_index(&run->lay, &st);
                fprintf(f, "index,-1,-1,");
            } else {
                repo_repeat_stats(m, l, h, &run->lay, &st);
                fprintf(f, "repo,%d,%d,", l, h);
            }
            fprintf(f, "%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", st.same_word_gap,
                    st.first_gap, st.later_gap, st.z_spread,
                    st.z_spread > 0 ? st.same_word_gap / st.z_spread : 0.0, st.copy_shift,
                    st.copy_extent, st.overlap);
        }
}

/* Write the z CSV to --out and, when asked, the summary to --summary, each
 * atomically. 0, or -1 with err filled. */
static int write_outputs(const PositionsOptions *o, const PositionsRun *run, SrError *err)
{
    AtomicFile af;
    if (atomic_file_open(&af, o->out, err)) return -1;
    repo_write_z_csv(af.f, &run->m, 0, run->lay.ids, run->lay.T, &run->tok, &run->lay, 1);
    if (atomic_file_commit(&af, err)) return -1;
    if (!o->summary) return 0;
    if (atomic_file_open(&af, o->summary, err)) return -1;
    write_summary(af.f, run);
    return atomic_file_commit(&af, err);
}

int cmd_repo_positions(int argc, char **argv)
{
    PositionsOptions o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    threads_set(o.threads);
    SrError err;
    PositionsRun run = {0};
    rc = run_positions(&o, &run, &err) || write_outputs(&o, &run, &err) ? 2 : 0;
    if (rc) fprintf(stderr, "seqrep %s: %s\n", CMD, err.msg);
    free(run.words);
    repeat_free(&run.lay);
    tokenizer_free(&run.tok);
    model_free(&run.m);
    return rc;
}

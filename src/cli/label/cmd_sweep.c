/* cmd_sweep.c — `seqrep sweep`: fine-tune every run of a grid (data x seeds
 * x methods x r x exit layers x recipes x copy positions) and gather one row
 * per run in a CSV, with a markdown summary (mean +- std over seeds). See
 * src/runs/sweep/sweep.h.
 *
 * Each run is `seqrep finetune ...` executed as a child process of this very
 * binary, writing its own RUN.csv and RUN.manifest.json into the runs
 * directory, and its test predictions into RUN.predictions.conll (for
 * `seqrep compare`; its stdout and stderr go to RUN.log). After each run the sweep
 * CSV and the summary are rewritten atomically, so an interrupted sweep loses
 * no finished run; started again with the same options it skips every run
 * whose key is in the CSV, or whose result files are in the runs directory.
 * `--plan` prints the remaining runs' commands instead, one per line, for GNU
 * parallel, `xargs -P` or a job array; `seqrep collect` merges what they
 * write. `--save-models` has every run keep its fine-tuned model
 * (RUN.model.safetensors, finetune --save); a run done before without one
 * is kept, unless `--redo-unsaved` asks to run it again. The grid's parts
 * are runs/sweep/: the models checked before a run starts (sweep_models.h),
 * the runs as child processes (sweep_jobs.h); this file parses, finds what
 * is done and reports.
 *
 * One sweep at a time writes an output: it holds a lock on OUT.lock
 * (base/job/file_lock.h; the kernel frees it when the sweep ends, however it
 * ends), and a second sweep on the same --out is refused. SIGINT, SIGTERM or
 * SIGHUP stop the sweep cleanly: no new run starts, the running ones get
 * SIGTERM (each leaves no half-written file), a run that finished meanwhile
 * is kept, and the sweep exits 2 saying how far it got. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/job/file_lock.h"
#include "base/job/interrupt.h"
#include "cli/label/label_commands.h"
#include "label/methods.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "runs/sweep/sweep.h"
#include "runs/sweep/sweep_jobs.h"
#include "runs/sweep/sweep_models.h"
#include "train/recipe.h"

static const char *CMD = "sweep";

/* mkdir -p path. */
static int make_dirs(const char *path, SrError *err)
{
    char buf[1024];
    if (strlen(path) >= sizeof buf) return sr_fail(err, "%s: path too long", path);
    strcpy(buf, path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return sr_fail(err, "%s: cannot create directory (%s)", buf, strerror(errno));
            *p = c;
            if (!c) break;
        }
    }
    return 0;
}

/* Set by the first SIGINT, SIGTERM or SIGHUP (base/job/interrupt.h): start no
 * more runs, stop the running ones, keep what is finished. */
static volatile sig_atomic_t interrupted = 0;

/* ---- the command ---------------------------------------------------------------- */

typedef struct {
    const char *data_text, *model, *encoder, *methods_text, *r_text, *exits_text, *seeds_text;
    const char *out_path, *summary_arg, *runs_arg;
    const char *recipes_text, *adapter_text, *positions_text;
    SweepFinetuneOptions ft;
    int plan_only, jobs, stop_after, redo_unsaved;
} SweepOptions;

/* The grid and what is done of it. */
typedef struct {
    Method methods[METHOD_COUNT];
    RepeatPositions positions[3]; /* copy positions of the sr runs */
    int n_positions;
    int n_methods, *r_values, n_r, *exits, n_exits, *seeds, n_seeds;
    char **dirs, *dirs_buf;
    int n_dirs;
    SweepRun *runs;
    int n_runs, *todo, n_todo;
    char recipes[8][48];       /* recipe labels of the grid */
    const char *recipe_ptrs[8];
    int n_recipes;
    SweepTable table;
    SweepLayerCache *cache;
    char summary_path[1100], runs_dir[1100], exe[4096];
} SweepState;

/* After parsing: note which fine-tuning settings were given (the others
 * stay each run's own), check them, and fill the defaults that follow from
 * other options (threads per run from --jobs, the methods from
 * --encoder-model). 0, or 2 after the error line. */
static int settle_options(const ArgSpec *specs, int n, SweepOptions *o)
{
    o->ft.lr_set = args_given(specs, n, "lr");
    o->ft.batch_set = args_given(specs, n, "batch");
    o->ft.threads_set = args_given(specs, n, "threads");
    o->ft.grad_accum_set = args_given(specs, n, "grad-accum");
    o->ft.lora_rank_set = args_given(specs, n, "lora-rank");
    o->ft.lora_alpha_set = args_given(specs, n, "lora-alpha");
    o->ft.lora_dropout_set = args_given(specs, n, "lora-dropout");
    unsigned targets;
    SrError err;
    if (o->ft.lora_targets && lora_parse_targets(o->ft.lora_targets, &targets, &err))
        return args_error(CMD, "--lora-targets: %s", err.msg);
    if (o->ft.lora_alpha_set && !(o->ft.lora_alpha > 0.0f))
        return args_error(CMD, "--lora-alpha must be positive");
    if (o->ft.lora_dropout_set && !(o->ft.lora_dropout >= 0.0f && o->ft.lora_dropout < 1.0f))
        return args_error(CMD, "--lora-dropout must be in [0, 1)");
    if (o->ft.lr_set && !(o->ft.lr > 0.0f)) return args_error(CMD, "--lr must be positive");
    if (o->redo_unsaved && !o->ft.save_models)
        return args_error(CMD, "--redo-unsaved needs --save-models");
    if (!o->ft.threads_set && o->jobs > 1) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        o->ft.threads = cores > o->jobs ? (int)(cores / o->jobs) : 1;
        o->ft.threads_set = 1;
    }
    if (!o->methods_text)
        o->methods_text = o->encoder ? "causal,sr,unmask-full,unmask-middle,encoder"
                                     : "causal,sr,unmask-full,unmask-middle";
    return 0;
}

/* Parse options; 0, 1 (help shown) or 2 (error printed). */
static int parse_options(int argc, char **argv, SweepOptions *o)
{
    *o = (SweepOptions){.r_text = "1,2,4,8", .exits_text = "0", .seeds_text = "5,29,42,81,123",
                        .positions_text = "run", .ft = {.epochs = 5}, .jobs = 1};
    HelpText h = {0};
    ArgSpec specs[] = {
        {.name = "data", .type = ARG_STRING, .value = &o->data_text, .required = 1,
         .help = "data directories (train/dev/test.conll), comma-separated"},
        {.name = "model", .type = ARG_STRING, .value = &o->model, .required = 1,
         .help = "pre-trained checkpoint; {data} stands for the dataset name"},
        {.name = "encoder-model", .type = ARG_STRING, .value = &o->encoder,
         .help = "MLM checkpoint for method encoder ({data} as above)"},
        {.name = "methods", .type = ARG_STRING, .value = &o->methods_text,
         .help = "causal,sr,unmask-full,unmask-middle[,encoder] (default: "
                 "these four, and encoder with --encoder-model)"},
        {.name = "r", .type = ARG_STRING, .value = &o->r_text,
         .help = help_text(&h, "repetitions for sr (default %s)", o->r_text)},
        {.name = "exits", .type = ARG_STRING, .value = &o->exits_text,
         .help = help_text(&h, "exit layers, 0 = full depth (default %s)", o->exits_text)},
        {.name = "copy-positions", .type = ARG_STRING, .value = &o->positions_text,
         .help = help_text(&h, "run,restart,induction: copy positions of the sr runs, each its own runs "
                           "(default %s)", o->positions_text)},
        {.name = "seeds", .type = ARG_STRING, .value = &o->seeds_text,
         .help = help_text(&h, "seeds (default %s)", o->seeds_text)},
        {.name = "epochs", .type = ARG_INT, .value = &o->ft.epochs, .min_int = 1,
         .help = help_text(&h, "fine-tuning epochs of every run (default %d)", o->ft.epochs)},
        {.name = "lr", .type = ARG_FLOAT, .value = &o->ft.lr,
         .help = "peak learning rate (default: finetune's)"},
        {.name = "batch", .type = ARG_INT, .value = &o->ft.batch, .min_int = 1,
         .help = "sentences per step (default: finetune's)"},
        {.name = "threads", .type = ARG_INT, .value = &o->ft.threads,
         .help = "threads per run (default: cores / jobs)"},
        {.name = "recompute", .type = ARG_FLAG, .value = &o->ft.recompute,
         .help = "every run recomputes its layers in the backward (finetune --recompute): "
                 "less memory, the same results"},
        option_recipe(&o->recipes_text, "recipes, comma-separated: full (default), paper; each "
                                        "its own runs (the --epochs above apply to all)"),
        option_adapter(&o->adapter_text, "none | lora for every run (default: each recipe's)"),
        option_grad_accum(&o->ft.grad_accum, "batches per update (default: the recipe's)"),
        option_lora_rank(&o->ft.lora_rank, "LoRA rank of the LoRA runs (default: finetune's)"),
        option_lora_alpha(&o->ft.lora_alpha, "LoRA alpha of the LoRA runs (default: finetune's)"),
        option_lora_dropout(&o->ft.lora_dropout, "LoRA dropout of the LoRA runs (default: finetune's)"),
        option_lora_targets(&o->ft.lora_targets, "LoRA targets of the LoRA runs (default: finetune's)"),
        {.name = "ablate-heads", .type = ARG_STRING, .value = &o->ft.ablate_heads,
         .help = "L.H[,L.H...]: every run with these heads taken away (finetune --ablate-heads); "
                 "the run files do not name it: one setting per sweep CSV (default none)"},
        {.name = "jobs", .type = ARG_INT, .value = &o->jobs, .min_int = 1,
         .help = help_text(&h, "runs at the same time (default %d)", o->jobs)},
        {.name = "out", .type = ARG_STRING, .value = &o->out_path, .required = 1,
         .help = "sweep CSV, one row per run; kept and resumed"},
        {.name = "summary", .type = ARG_STRING, .value = &o->summary_arg,
         .help = "markdown summary (default: OUT with .md)"},
        {.name = "runs-dir", .type = ARG_STRING, .value = &o->runs_arg,
         .help = "per-run files (default: OUT without .csv, plus .runs)"},
        {.name = "save-models", .type = ARG_FLAG, .value = &o->ft.save_models,
         .help = "each run keeps its fine-tuned model (finetune --save: head, and adapters of "
                 "LoRA runs) in RUNS-DIR/RUN.model.safetensors, the path in its command"},
        {.name = "redo-unsaved", .type = ARG_FLAG, .value = &o->redo_unsaved,
         .help = "with --save-models: run again the runs done before without a saved model "
                 "(default: keep them)"},
        {.name = "plan", .type = ARG_FLAG, .value = &o->plan_only,
         .help = "print the remaining runs' commands, one a line, and stop"},
        {.name = "stop-after", .type = ARG_INT, .value = &o->stop_after,
         .help = "stop after N finished runs (for tests; 0 = all)"},
    };
    int n = ARGS_COUNT(specs);
    const char *usage = help_text(&h, "--data DIR[,DIR...] --model M [--encoder-model E] "
                                      "[--methods LIST] [--r %s] [--exits %s] "
                                      "[--copy-positions %s[,restart]] [--seeds %s] [--epochs E] "
                                      "--out sweep.csv [--plan]",
                                  o->r_text, o->exits_text, o->positions_text, o->seeds_text);
    int rc = args_parse(CMD, usage, specs, n, argc, argv, NULL, 0, NULL);
    if (rc) return rc;
    return settle_options(specs, n, o);
}

/* The recipe labels of the grid from --recipe and --adapter; a --lora-*
 * option needs at least one LoRA recipe. 0, or 2 after the error line. */
static int parse_recipes(const SweepOptions *o, SweepState *st)
{
    AdapterKind adapter = ADAPTER_NONE;
    if (o->adapter_text && adapter_parse(o->adapter_text, &adapter))
        return args_error(CMD, "--adapter must be none or lora; got '%s'", o->adapter_text);
    char buf[256];
    if (snprintf(buf, sizeof buf, "%s", o->recipes_text ? o->recipes_text : "full") >= (int)sizeof buf)
        return args_error(CMD, "--recipe: list too long");
    int any_lora = 0;
    for (char *save = NULL, *name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        FinetuneConfig rc;
        if (recipe_apply(name, &rc))
            return args_error(CMD, "--recipe: '%s' is not a recipe (full, paper)", name);
        if (st->n_recipes == 8) return args_error(CMD, "--recipe: at most 8 recipes");
        AdapterKind a = o->adapter_text ? adapter : rc.adapter;
        any_lora |= a == ADAPTER_LORA;
        char *label = st->recipes[st->n_recipes];
        recipe_label(name, a, label, sizeof st->recipes[0]);
        for (int i = 0; i < st->n_recipes; i++)
            if (strcmp(st->recipes[i], label) == 0)
                return args_error(CMD, "--recipe: '%s' appears twice", name);
        st->recipe_ptrs[st->n_recipes] = label;
        st->n_recipes++;
    }
    if (st->n_recipes == 0) return args_error(CMD, "--recipe names no recipe");
    const char *lora_rows[4] = {"lora-rank", "lora-alpha", "lora-dropout", "lora-targets"};
    int given[4] = {o->ft.lora_rank_set, o->ft.lora_alpha_set, o->ft.lora_dropout_set,
                    o->ft.lora_targets != NULL};
    for (int k = 0; k < 4; k++)
        if (given[k] && !any_lora)
            return args_error(CMD, "--%s needs --adapter lora (or --recipe paper)", lora_rows[k]);
    return 0;
}

/* The lists of the grid, the data directories, the output paths and this
 * program's path; 0, or 2 after the error line. */
static int parse_grid(const SweepOptions *o, SweepState *st)
{
    SrError err;
    st->cache = calloc(1, sizeof *st->cache);
    if (!st->cache) return args_error(CMD, "out of memory");
    if (sweep_parse_methods(o->methods_text, st->methods, &st->n_methods, &err))
        return args_error(CMD, "--methods: %s", err.msg);
    if (sweep_parse_int_list(o->r_text, 1, &st->r_values, &st->n_r, &err))
        return args_error(CMD, "--r: %s (sr needs r >= 1; r = 0 is the causal method)", err.msg);
    if (sweep_parse_int_list(o->exits_text, 0, &st->exits, &st->n_exits, &err))
        return args_error(CMD, "--exits: %s", err.msg);
    if (sweep_parse_positions(o->positions_text, st->positions, &st->n_positions, &err))
        return args_error(CMD, "--copy-positions: %s", err.msg);
    if (sweep_parse_int_list(o->seeds_text, 0, &st->seeds, &st->n_seeds, &err))
        return args_error(CMD, "--seeds: %s", err.msg);
    if (parse_recipes(o, st)) return 2;
    st->dirs_buf = strdup(o->data_text);
    st->dirs = calloc(strlen(o->data_text) + 1, sizeof(char *));
    if (!st->dirs_buf || !st->dirs) return args_error(CMD, "out of memory");
    for (char *save = NULL, *d = strtok_r(st->dirs_buf, ",", &save); d; d = strtok_r(NULL, ",", &save))
        st->dirs[st->n_dirs++] = d;
    if (st->n_dirs == 0) return args_error(CMD, "--data names no directory");
    if (sweep_default_runs_dir(o->out_path, st->runs_dir, sizeof st->runs_dir, &err) ||
        sweep_named_beside(o->out_path, ".md", st->summary_path, sizeof st->summary_path, &err))
        return args_error(CMD, "--out: %s", err.msg);
    if (o->runs_arg) snprintf(st->runs_dir, sizeof st->runs_dir, "%s", o->runs_arg);
    if (o->summary_arg) snprintf(st->summary_path, sizeof st->summary_path, "%s", o->summary_arg);
    ssize_t exe_len = readlink("/proc/self/exe", st->exe, sizeof st->exe - 1);
    if (exe_len <= 0) return args_error(CMD, "cannot find this program's path (/proc/self/exe)");
    st->exe[exe_len] = 0;
    SweepGrid grid = {.data_dirs = (const char *const *)st->dirs, .n_data = st->n_dirs,
                      .model = o->model, .encoder_model = o->encoder, .methods = st->methods,
                      .n_methods = st->n_methods, .r_values = st->r_values, .n_r = st->n_r,
                      .exits = st->exits, .n_exits = st->n_exits, .seeds = st->seeds,
                      .n_seeds = st->n_seeds, .recipes = st->recipe_ptrs,
                      .n_recipes = st->n_recipes, .positions = st->positions,
                      .n_positions = st->n_positions};
    if (sweep_grid_expand(&grid, &st->runs, &st->n_runs, &err) ||
        sweep_resolve_exits(st->runs, &st->n_runs, sweep_count_layers, st->cache, &err))
        return args_error(CMD, "%s", err.msg);
    return 0;
}

/* What running the state's runs needs (runs/sweep/sweep_jobs.h). */
static SweepJobs jobs_of(const SweepOptions *o, SweepState *st)
{
    return (SweepJobs){.runs = st->runs, .table = &st->table, .ft = &o->ft, .exe = st->exe,
                       .runs_dir = st->runs_dir, .out_path = o->out_path,
                       .summary_path = st->summary_path, .epochs = o->ft.epochs, .stop = &interrupted};
}

/* The heads a done run took away, as its command line says: the word after
 * " --ablate-heads " (into out, capacity n), or "none". */
static void command_ablation(const char *command, char *out, size_t n)
{
    const char *at = strstr(command, " --ablate-heads ");
    if (!at) {
        snprintf(out, n, "none");
        return;
    }
    at += strlen(" --ablate-heads ");
    snprintf(out, n, "%.*s", (int)strcspn(at, " "), at);
}

/* The run files do not name the heads taken away: every run the sweep holds
 * (its CSV's rows, the run files it took) must have taken away the heads of
 * this sweep's --ablate-heads. 0, or 2 after the error line. */
static int check_ablation(const SweepOptions *o, const SweepState *st)
{
    const char *want = o->ft.ablate_heads ? o->ft.ablate_heads : "none";
    for (int i = 0; i < st->table.n; i++) {
        char had[256];
        command_ablation(st->table.rows[i].command, had, sizeof had);
        if (strcmp(had, want) != 0)
            return args_error(CMD, "%s holds a run with --ablate-heads %s (%s), this sweep asks for %s; "
                                   "give another --out and --runs-dir", o->out_path, had,
                              st->table.rows[i].source, want);
    }
    return 0;
}

/* --save-models: the runs of the grid done before whose saved model is not
 * beside their files. With --redo-unsaved their rows leave the table (they
 * run again, with --save); without, they are kept and counted. 0, or 2 after
 * the error line. */
static int find_unsaved_runs(const SweepOptions *o, SweepState *st)
{
    int unsaved = 0;
    for (int i = 0; i < st->n_runs; i++) {
        int k = sweep_table_find(&st->table, &st->runs[i]);
        char csv[1100], model[1200];
        SrError err;
        if (k < 0) continue;
        if (sweep_run_path(&st->runs[i], st->runs_dir, csv, sizeof csv, &err) ||
            sweep_saved_model_path(csv, model, sizeof model, &err))
            return args_error(CMD, "%s", err.msg);
        if (access(model, F_OK) == 0) continue;
        unsaved++;
        if (o->redo_unsaved) sweep_table_remove(&st->table, k);
    }
    if (unsaved)
        fprintf(stderr, "seqrep %s: %d runs done before have no saved model: %s\n", CMD, unsaved,
                o->redo_unsaved ? "they run again" : "kept (--redo-unsaved runs them again)");
    return 0;
}

/* What is done already: rows of the CSV, then result files in the runs
 * directory; the rest into st->todo, checked to fit its models; the CSV and
 * summary written and the count reported. 0, or 2 after the error line. */
static int find_done_runs(const SweepOptions *o, SweepState *st)
{
    SrError err;
    if (access(o->out_path, F_OK) == 0 && sweep_table_read(o->out_path, &st->table, NULL, &err))
        return args_error(CMD, "%s", err.msg);
    for (int i = 0; i < st->n_runs; i++) {
        int k = sweep_table_find(&st->table, &st->runs[i]);
        if (k >= 0 && st->table.rows[k].epochs != o->ft.epochs)
            return args_error(CMD, "%s already holds runs of %d epochs (%s), this sweep asks for %d; "
                                   "give another --out", o->out_path, st->table.rows[k].epochs,
                              st->table.rows[k].source, o->ft.epochs);
    }
    st->todo = malloc(sizeof(int) * (size_t)st->n_runs);
    if (!st->todo) return args_error(CMD, "out of memory");
    int n_before = st->table.n;
    st->n_todo = sweep_remaining(st->runs, st->n_runs, &st->table, st->todo);
    const SweepJobs sw = jobs_of(o, st);
    for (int i = 0; i < st->n_todo; i++) {
        char csv[1100];
        SrError e;
        if (sweep_run_path(&st->runs[st->todo[i]], st->runs_dir, csv, sizeof csv, &err))
            return args_error(CMD, "%s", err.msg);
        if (access(csv, F_OK) == 0 && sweep_jobs_take(&sw, st->todo[i], csv, &e) != 0)
            fprintf(stderr, "seqrep %s: %s: not taken, the run is done again (%s)\n", CMD, csv, e.msg);
    }
    int n_found = st->table.n - n_before;
    if (check_ablation(o, st)) return 2;
    if (o->ft.save_models && find_unsaved_runs(o, st)) return 2;
    st->n_todo = sweep_remaining(st->runs, st->n_runs, &st->table, st->todo);
    if (sweep_check_fits(st->runs, st->todo, st->n_todo, &err) || make_dirs(st->runs_dir, &err) ||
        sweep_jobs_save(&sw, &err))
        return args_error(CMD, "%s", err.msg);
    fprintf(stderr, "seqrep %s: %d runs in the grid; %d done before (%d of them found in %s), %d to do\n",
            CMD, st->n_runs, st->n_runs - st->n_todo, n_found, st->runs_dir, st->n_todo);
    return 0;
}

/* --plan: the remaining runs' commands on stdout, one a line. 0, or 2 after
 * the error line. */
static int print_plan(const SweepOptions *o, const SweepState *st)
{
    for (int i = 0; i < st->n_todo; i++) {
        char csv[1100], **cargv = NULL, *line = NULL;
        int cargc = 0;
        SrError err;
        const SweepRun *run = &st->runs[st->todo[i]];
        if (sweep_run_path(run, st->runs_dir, csv, sizeof csv, &err) ||
            sweep_run_argv(run, &o->ft, st->exe, csv, &cargv, &cargc, &err))
            return args_error(CMD, "%s", err.msg);
        line = sweep_command_line(cargv, cargc);
        sweep_argv_free(cargv, cargc);
        if (!line) return args_error(CMD, "out of memory");
        printf("%s\n", line);
        free(line);
    }
    return 0;
}

/* Run the remaining runs and report: 0 when none failed, 1 when some did
 * (their logs named), 2 after the error line of an error that stopped it. */
static int run_remaining(const SweepOptions *o, SweepState *st)
{
    SrError err;
    const SweepJobs sw = jobs_of(o, st);
    int n_finished = 0;
    int failed = sweep_jobs_run(&sw, st->todo, st->n_todo, o->jobs, o->stop_after, &n_finished, &err);
    if (failed < 0) return args_error(CMD, "%s", err.msg);
    int left = sweep_remaining(st->runs, st->n_runs, &st->table, st->todo);
    printf("sweep: %d of %d runs in %s (summary %s); %d run now, %d failed%s\n", st->n_runs - left,
           st->n_runs, o->out_path, st->summary_path, n_finished, failed,
           left && !failed ? "; run the same command again to go on" : "");
    if (interrupted)
        return args_error(CMD, "interrupted by %s: %d of %d runs are in %s; run the same command "
                          "again to go on", interrupt_signal_name(interrupt_last_signal()),
                          st->n_runs - left, st->n_runs, o->out_path);
    if (failed) {
        fprintf(stderr, "seqrep %s: %d runs failed; their logs are in %s\n", CMD, failed,
                st->runs_dir);
        return 1;
    }
    return 0;
}

/* Free what the state holds. */
static void sweep_state_free(SweepState *st)
{
    free(st->todo);
    sweep_table_free(&st->table);
    free(st->runs);
    free(st->dirs);
    free(st->dirs_buf);
    free(st->r_values);
    free(st->exits);
    free(st->seeds);
    free(st->cache);
}

/* Lock OUT.lock (creating OUT's folder) so that one sweep at a time writes
 * this output. 0, or 2 after the error line naming the lock. */
static int lock_output(const SweepOptions *o, int *lock_fd)
{
    char dir[1024], lock[1100];
    SrError err;
    snprintf(dir, sizeof dir, "%s", o->out_path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = 0;
        if (make_dirs(dir, &err)) return args_error(CMD, "--out: %s", err.msg);
    }
    if (snprintf(lock, sizeof lock, "%s.lock", o->out_path) >= (int)sizeof lock)
        return args_error(CMD, "--out: path too long");
    if (file_lock_take(lock, "another sweep on this output", lock_fd, &err))
        return args_error(CMD, "%s", err.msg);
    return 0;
}

int cmd_sweep(int argc, char **argv)
{
    SweepOptions o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    SweepState st = {0};
    int lock_fd = -1;
    interrupt_notify(&interrupted, 0); /* a signal stops the sweep cleanly from here on */
    rc = parse_grid(&o, &st);
    if (rc == 0) rc = lock_output(&o, &lock_fd);
    if (rc == 0) rc = find_done_runs(&o, &st);
    if (rc == 0) rc = o.plan_only ? print_plan(&o, &st) : run_remaining(&o, &st);
    file_lock_release(lock_fd);
    sweep_state_free(&st);
    return rc;
}

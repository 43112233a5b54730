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
 * is kept, unless `--redo-unsaved` asks to run it again.
 *
 * One sweep at a time writes an output: it holds a lock on OUT.lock
 * (base/job/file_lock.h; the kernel frees it when the sweep ends, however it
 * ends), and a second sweep on the same --out is refused. SIGINT, SIGTERM or
 * SIGHUP stop the sweep cleanly: no new run starts, the running ones get
 * SIGTERM (each leaves no half-written file), a run that finished meanwhile
 * is kept, and the sweep exits 2 saying how far it got. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/job/file_lock.h"
#include "base/job/interrupt.h"
#include "cli/label/label_commands.h"
#include "formats/checkpoint.h"
#include "label/methods.h"
#include "label/readout.h"
#include "label/task.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "runs/manifest.h"
#include "runs/sweep/sweep.h"
#include "train/recipe.h"

static const char *CMD = "sweep";

/* ---- checking the grid before it runs ------------------------------------------ */

/* Layer counts of the checkpoints seen so far (SweepLayerCount's context). */
typedef struct {
    int n;
    char model[64][1024];
    int n_layers[64];
} LayerCache;

/* SweepLayerCount: read the checkpoint's configuration once per path. */
static int count_layers(const char *model, void *ctx, int *n_layers, SrError *err)
{
    LayerCache *cache = ctx;
    for (int i = 0; i < cache->n; i++)
        if (strcmp(cache->model[i], model) == 0) {
            *n_layers = cache->n_layers[i];
            return 0;
        }
    CheckpointInfo info = {0};
    if (checkpoint_read_info(model, &info, err)) return -1;
    *n_layers = info.cfg.n_layers;
    checkpoint_info_free(&info);
    if (cache->n < 64 && strlen(model) < sizeof cache->model[0]) {
        strcpy(cache->model[cache->n], model);
        cache->n_layers[cache->n++] = *n_layers;
    }
    return 0;
}

/* For every (data, model) pair among runs[todo[0..n_todo)): load the task and
 * check that every sentence of the three splits, repeated as each of the
 * pair's runs asks, fits in the model's max_seq_len. */
static int check_runs_fit(const SweepRun *runs, const int *todo, int n_todo, SrError *err)
{
    char *checked = calloc((size_t)n_todo + 1, 1);
    if (!checked) return sr_fail(err, "out of memory");
    int rc = 0;
    for (int i = 0; i < n_todo && rc == 0; i++) {
        if (checked[i]) continue;
        const SweepRun *a = &runs[todo[i]];
        LabelTask task = {0};
        char paths[3][1100];
        const char *names[3] = {"train", "dev", "test"};
        for (int s = 0; s < 3; s++) snprintf(paths[s], sizeof paths[s], "%s/%s.conll", a->data_dir, names[s]);
        if (label_task_load(&task, a->model, paths[0], paths[1], paths[2], err)) {
            rc = -1;
            break;
        }
        const PiecedData *pieces[3] = {&task.train_p, &task.dev_p, &task.test_p};
        for (int j = i; j < n_todo && rc == 0; j++) {
            const SweepRun *b = &runs[todo[j]];
            if (strcmp(a->data_dir, b->data_dir) != 0 || strcmp(a->model, b->model) != 0) continue;
            checked[j] = 1;
            for (int s = 0; s < 3 && rc == 0; s++)
                rc = readout_check_fits(pieces[s], readout_layout_paper(b->r),
                                        task.info.cfg.max_seq_len, err);
            if (rc) {
                SrError e = *err;
                sr_fail(err, "%s (r = %d, model %s)", e.msg, b->r, b->model);
            }
        }
        label_task_free(&task);
    }
    free(checked);
    return rc;
}

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

/* ---- running ------------------------------------------------------------------ */

/* Monotonic wall clock in seconds. */
static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Start argv as a child with stdout and stderr into log_path; the child is
 * killed if the sweep dies. Returns its pid, or -1. */
static pid_t start_child(char *const *argv, const char *log_path)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) return pid;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
    }
    execv(argv[0], argv);
    fprintf(stderr, "seqrep sweep: cannot run %s (%s)\n", argv[0], strerror(errno));
    _exit(127);
}

/* The last non-empty line of a file into out (capacity n); "" if none. */
static void last_line(const char *path, char *out, size_t n)
{
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (line[0]) snprintf(out, n, "%s", line);
    }
    fclose(f);
}

/* Format seconds as "1h02m", "3m05s" or "42s". */
static void format_duration(double s, char *out, size_t n)
{
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(out, n, "%ldh%02ldm", t / 3600, t % 3600 / 60);
    else if (t >= 60) snprintf(out, n, "%ldm%02lds", t / 60, t % 60);
    else snprintf(out, n, "%lds", t);
}

/* Rough relative cost of a run, for the ETA: tokens x layers. */
static double run_weight(const SweepRun *run)
{
    return (double)(run->r + 1) * (double)run->exit_layer;
}

/* A child in flight. */
typedef struct {
    pid_t pid;
    int run;            /* index into runs */
    double started;
    char csv[1100], log[1100];
} Slot;

/* Everything the run loop needs. */
typedef struct {
    SweepRun *runs;
    SweepTable *table;
    const SweepFinetuneOptions *ft;
    const char *exe, *runs_dir, *out_path, *summary_path;
    int epochs;
} Sweep;

/* Write the CSV and the summary. */
static int save(const Sweep *s, SrError *err)
{
    return sweep_table_write(s->out_path, s->table, err) ||
           sweep_summary_write(s->summary_path, s->table, err) ? -1 : 0;
}

/* Read the result files of a finished run into the table; 0 or -1. */
static int take_result(const Sweep *s, int run, const char *csv, SrError *err)
{
    SweepRow *row = malloc(sizeof *row);
    if (!row) return sr_fail(err, "out of memory");
    int added = 0, rc = sweep_row_from_run(csv, row, err);
    if (rc == 0 && !sweep_same_key(&row->key, &s->runs[run])) {
        rc = sr_fail(err, "%s: the result is of another run (dataset %s, model %s, method %s, "
                          "r %d, exit %d, seed %d, recipe %s, positions %s)", csv, row->key.dataset,
                     row->key.model, method_name(row->key.method), row->key.r, row->key.exit_layer,
                     row->key.seed, sweep_recipe(&row->key),
                     repeat_positions_name(row->key.positions));
    }
    if (rc == 0 && row->epochs != s->epochs)
        rc = sr_fail(err, "%s: trained for %d epochs, this sweep asks for %d", csv, row->epochs,
                     s->epochs);
    if (rc == 0) rc = sweep_table_add(s->table, row, &added, err);
    free(row);
    return rc;
}

/* Start run `run` in a free one of slots[0..jobs) (one is free). 0, or -1
 * with err filled. */
static int start_run(const Sweep *s, Slot *slots, int jobs, int run, SrError *err)
{
    Slot *slot = NULL;
    for (int j = 0; j < jobs && !slot; j++)
        if (slots[j].pid == 0) slot = &slots[j];
    char **argv = NULL;
    int argc = 0;
    if (sweep_run_path(&s->runs[run], s->runs_dir, slot->csv, sizeof slot->csv, err) ||
        sweep_named_beside(slot->csv, ".log", slot->log, sizeof slot->log, err) ||
        sweep_run_argv(&s->runs[run], s->ft, s->exe, slot->csv, &argv, &argc, err))
        return -1;
    slot->pid = start_child(argv, slot->log);
    sweep_argv_free(argv, argc);
    if (slot->pid < 0) {
        sr_fail(err, "cannot start a run (%s)", strerror(errno));
        slot->pid = 0;
        return -1;
    }
    slot->run = run;
    slot->started = now_seconds();
    return 0;
}

/* The child of slot ended with status, the finished-th of n_todo, after
 * `spent` (eta: what is left, or ""): take its result into the table and
 * save the CSV and summary, or name its failure. 0 taken, 1 the run failed,
 * -1 an error that stops the sweep (err filled). */
static int finish_run(const Sweep *s, const Slot *slot, int status, int finished, int n_todo,
                      const char *spent, const char *eta, SrError *err)
{
    const SweepRun *run = &s->runs[slot->run];
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        SrError e;
        if (take_result(s, slot->run, slot->csv, &e) || save(s, &e)) {
            *err = e;
            return -1;
        }
        const SweepRow *row = &s->table->rows[sweep_table_find(s->table, run)];
        fprintf(stderr, "[%d/%d] %s %s r=%d exit=%d seed=%d%s%s%s: test F1 %.2f (dev %.2f), %s%s%s\n",
                finished, n_todo, run->dataset, method_name(run->method), run->r,
                run->exit_layer, run->seed, strcmp(sweep_recipe(run), "full") ? " recipe=" : "",
                strcmp(sweep_recipe(run), "full") ? run->recipe : "",
                run->positions == REPEAT_POSITIONS_RESTART ? " positions=restart" : "",
                row->test_f1, row->dev_f1, spent,
                eta[0] ? ", ETA " : "", eta);
        return 0;
    }
    char why[1024];
    last_line(slot->log, why, sizeof why);
    fprintf(stderr, "[%d/%d] %s %s r=%d exit=%d seed=%d%s: FAILED (%s %d): %s (log %s)\n",
            finished, n_todo, run->dataset, method_name(run->method), run->r, run->exit_layer,
            run->seed, run->positions == REPEAT_POSITIONS_RESTART ? " positions=restart" : "",
            WIFEXITED(status) ? "exit" : "signal",
            WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), why, slot->log);
    return 1;
}

/* Set by the first SIGINT, SIGTERM or SIGHUP (base/job/interrupt.h): start no
 * more runs, stop the running ones, keep what is finished. */
static volatile sig_atomic_t interrupted = 0;

/* What the run loop counts. */
typedef struct {
    Slot *slots;
    int jobs, n_todo, active, finished, failed;
    double total_w, done_w, t0;
} RunLoop;

/* Wait for a child of the sweep: its pid and *status; 0 once interrupted,
 * -1 on an error (errno). Polls, so that a signal is seen within 50 ms. */
static pid_t wait_child(int *status)
{
    const struct timespec pause = {0, 50000000};
    for (;;) {
        pid_t pid = waitpid(-1, status, WNOHANG);
        if (pid > 0 || (pid < 0 && errno != EINTR)) return pid;
        if (interrupted) return 0;
        nanosleep(&pause, NULL);
    }
}

/* The child pid ended with status: free its slot and, unless it was stopped
 * by the interruption, take its result or name its failure (finish_run).
 * 0, or -1 on an error that stops the sweep (err filled). */
static int child_ended(const Sweep *s, RunLoop *L, pid_t pid, int status, SrError *err)
{
    Slot *slot = NULL;
    for (int j = 0; j < L->jobs && !slot; j++)
        if (L->slots[j].pid == pid) slot = &L->slots[j];
    if (!slot) return 0;
    slot->pid = 0;
    L->active--;
    if (interrupted && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) return 0;
    L->finished++;
    L->done_w += run_weight(&s->runs[slot->run]);
    char eta[32] = "", spent[32];
    format_duration(now_seconds() - slot->started, spent, sizeof spent);
    if (L->done_w > 0 && L->total_w > L->done_w)
        format_duration((now_seconds() - L->t0) * (L->total_w - L->done_w) / L->done_w, eta,
                        sizeof eta);
    int outcome = finish_run(s, slot, status, L->finished, L->n_todo, spent, eta, err);
    if (outcome < 0) return -1;
    L->failed += outcome;
    return 0;
}

/* Stop the runs still going (SIGTERM: each leaves no half-written file) and
 * wait for them; when interrupted, one that finished meanwhile is taken. */
static int stop_children(const Sweep *s, RunLoop *L, SrError *err)
{
    int rc = 0;
    for (int j = 0; j < L->jobs; j++) {
        pid_t pid = L->slots[j].pid;
        if (pid <= 0) continue;
        kill(pid, SIGTERM);
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        if (rc == 0 && interrupted) rc = child_ended(s, L, pid, status, err);
        L->slots[j].pid = 0;
    }
    return rc;
}

/* Run runs[todo[0..n_todo)] with up to `jobs` children at a time; stop
 * starting new ones after stop_after finished runs (0 = never) or once
 * interrupted. Returns the number of failed runs, or -1 on an error that
 * stops the sweep. */
static int run_all(const Sweep *s, const int *todo, int n_todo, int jobs, int stop_after,
                   int *n_finished, SrError *err)
{
    RunLoop L = {.slots = calloc((size_t)jobs, sizeof(Slot)), .jobs = jobs, .n_todo = n_todo,
                 .t0 = now_seconds()};
    if (!L.slots) return sr_fail(err, "out of memory");
    for (int i = 0; i < n_todo; i++) L.total_w += run_weight(&s->runs[todo[i]]);
    int next = 0, fatal = 0;
    while (!fatal && !interrupted &&
           (L.active > 0 || (next < n_todo && !(stop_after && L.finished >= stop_after)))) {
        while (!interrupted && L.active < jobs && next < n_todo &&
               !(stop_after && L.finished + L.active >= stop_after)) {
            if (start_run(s, L.slots, jobs, todo[next], err)) {
                fatal = 1;
                break;
            }
            next++;
            L.active++;
        }
        if (L.active == 0) break; /* after a failed start: wait for one child, then stop */
        int status;
        pid_t pid = wait_child(&status);
        if (pid < 0) {
            sr_fail(err, "waiting for a run: %s", strerror(errno));
            fatal = 1;
        } else if (pid > 0 && child_ended(s, &L, pid, status, err)) {
            fatal = 1;
        }
    }
    SrError later; /* after a fatal error, err keeps its first message */
    if ((fatal || interrupted) && stop_children(s, &L, fatal ? &later : err)) fatal = 1;
    free(L.slots);
    *n_finished = L.finished;
    return fatal ? -1 : L.failed;
}

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
    RepeatPositions positions[2]; /* copy positions of the sr runs */
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
    LayerCache *cache;
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
         .help = help_text(&h, "run,restart: copy positions of the sr runs, each its own runs "
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
        option_recipe(&o->recipes_text, "recipes, comma-separated: full (default), paper; each "
                                        "its own runs (the --epochs above apply to all)"),
        option_adapter(&o->adapter_text, "none | lora for every run (default: each recipe's)"),
        option_grad_accum(&o->ft.grad_accum, "batches per update (default: the recipe's)"),
        option_lora_rank(&o->ft.lora_rank, "LoRA rank of the LoRA runs (default: finetune's)"),
        option_lora_alpha(&o->ft.lora_alpha, "LoRA alpha of the LoRA runs (default: finetune's)"),
        option_lora_dropout(&o->ft.lora_dropout, "LoRA dropout of the LoRA runs (default: finetune's)"),
        option_lora_targets(&o->ft.lora_targets, "LoRA targets of the LoRA runs (default: finetune's)"),
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
        sweep_resolve_exits(st->runs, &st->n_runs, count_layers, st->cache, &err))
        return args_error(CMD, "%s", err.msg);
    return 0;
}

/* The run loop's context for the state. */
static Sweep sweep_of(const SweepOptions *o, SweepState *st)
{
    return (Sweep){.runs = st->runs, .table = &st->table, .ft = &o->ft, .exe = st->exe,
                   .runs_dir = st->runs_dir, .out_path = o->out_path,
                   .summary_path = st->summary_path, .epochs = o->ft.epochs};
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
    const Sweep sw = sweep_of(o, st);
    for (int i = 0; i < st->n_todo; i++) {
        char csv[1100];
        SrError e;
        if (sweep_run_path(&st->runs[st->todo[i]], st->runs_dir, csv, sizeof csv, &err))
            return args_error(CMD, "%s", err.msg);
        if (access(csv, F_OK) == 0 && take_result(&sw, st->todo[i], csv, &e) != 0)
            fprintf(stderr, "seqrep %s: %s: not taken, the run is done again (%s)\n", CMD, csv, e.msg);
    }
    int n_found = st->table.n - n_before;
    if (o->ft.save_models && find_unsaved_runs(o, st)) return 2;
    st->n_todo = sweep_remaining(st->runs, st->n_runs, &st->table, st->todo);
    if (check_runs_fit(st->runs, st->todo, st->n_todo, &err) || make_dirs(st->runs_dir, &err) ||
        save(&sw, &err))
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
    const Sweep sw = sweep_of(o, st);
    int n_finished = 0;
    int failed = run_all(&sw, st->todo, st->n_todo, o->jobs, o->stop_after, &n_finished, &err);
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

/* cmd_sweep.c — `seqrep sweep`: fine-tune every run of a grid (data x seeds
 * x methods x r x exit layers) and gather one row per run in a CSV, with a
 * markdown summary (mean +- std over seeds). See src/sweep.h.
 *
 * Each run is `seqrep finetune ...` executed as a child process of this very
 * binary, writing its own RUN.csv and RUN.manifest.json into the runs
 * directory (its stdout and stderr go to RUN.log). After each run the sweep
 * CSV and the summary are rewritten atomically, so an interrupted sweep loses
 * no finished run; started again with the same options it skips every run
 * whose key is in the CSV, or whose result files are in the runs directory.
 * `--plan` prints the remaining runs' commands instead, one per line, for GNU
 * parallel, `xargs -P` or a job array; `seqrep collect` merges what they
 * write. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "formats/checkpoint.h"
#include "label/methods.h"
#include "label/task.h"
#include "label/readout.h"
#include "options/args.h"
#include "runs/manifest.h"
#include "runs/sweep.h"

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

/* path with its extension (after the last '.' of the file name) replaced by
 * ext, e.g. ("sweep.csv", ".md") -> "sweep.md"; into out (capacity n). */
static int replace_extension(const char *path, const char *ext, char *out, size_t n)
{
    char *named = path_with_suffix(path, ext);
    int fits = named && strlen(named) < n;
    if (fits) strcpy(out, named);
    free(named);
    return fits ? 0 : -1;
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
                          "r %d, exit %d, seed %d)", csv, row->key.dataset, row->key.model,
                     method_name(row->key.method), row->key.r, row->key.exit_layer, row->key.seed);
    }
    if (rc == 0 && row->epochs != s->epochs)
        rc = sr_fail(err, "%s: trained for %d epochs, this sweep asks for %d", csv, row->epochs,
                     s->epochs);
    if (rc == 0) rc = sweep_table_add(s->table, row, &added, err);
    free(row);
    return rc;
}

/* Run runs[todo[0..n_todo)] with up to `jobs` children at a time; stop
 * starting new ones after stop_after finished runs (0 = never). Returns the
 * number of failed runs, or -1 on an error that stops the sweep. */
static int run_all(const Sweep *s, const int *todo, int n_todo, int jobs, int stop_after,
                   int *n_finished, SrError *err)
{
    Slot *slots = calloc((size_t)jobs, sizeof *slots);
    if (!slots) return sr_fail(err, "out of memory");
    double total_w = 0, done_w = 0, t0 = now_seconds();
    for (int i = 0; i < n_todo; i++) total_w += run_weight(&s->runs[todo[i]]);
    int next = 0, active = 0, failed = 0, finished = 0, fatal = 0;
    while (!fatal && (active > 0 || (next < n_todo && !(stop_after && finished >= stop_after)))) {
        while (active < jobs && next < n_todo && !(stop_after && finished + active >= stop_after)) {
            Slot *slot = NULL;
            for (int j = 0; j < jobs && !slot; j++)
                if (slots[j].pid == 0) slot = &slots[j];
            const SweepRun *run = &s->runs[todo[next]];
            char **argv = NULL;
            int argc = 0;
            if (sweep_run_path(run, s->runs_dir, slot->csv, sizeof slot->csv, err) ||
                replace_extension(slot->csv, ".log", slot->log, sizeof slot->log) ||
                sweep_run_argv(run, s->ft, s->exe, slot->csv, &argv, &argc, err)) {
                fatal = 1;
                break;
            }
            slot->pid = start_child(argv, slot->log);
            sweep_argv_free(argv, argc);
            if (slot->pid < 0) {
                sr_fail(err, "cannot start a run (%s)", strerror(errno));
                slot->pid = 0;
                fatal = 1;
                break;
            }
            slot->run = todo[next++];
            slot->started = now_seconds();
            active++;
        }
        if (active == 0) break;
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR) continue;
            sr_fail(err, "waiting for a run: %s", strerror(errno));
            fatal = 1;
            break;
        }
        Slot *slot = NULL;
        for (int j = 0; j < jobs && !slot; j++)
            if (slots[j].pid == pid) slot = &slots[j];
        if (!slot) continue;
        slot->pid = 0;
        active--;
        finished++;
        const SweepRun *run = &s->runs[slot->run];
        double took = now_seconds() - slot->started;
        done_w += run_weight(run);
        char eta[32] = "", spent[32];
        format_duration(took, spent, sizeof spent);
        if (done_w > 0 && total_w > done_w) {
            format_duration((now_seconds() - t0) * (total_w - done_w) / done_w, eta, sizeof eta);
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            SrError e;
            if (take_result(s, slot->run, slot->csv, &e) || save(s, &e)) {
                *err = e;
                fatal = 1;
                break;
            }
            const SweepRow *row = &s->table->rows[sweep_table_find(s->table, run)];
            fprintf(stderr, "[%d/%d] %s %s r=%d exit=%d seed=%d: test F1 %.2f (dev %.2f), %s%s%s\n",
                    finished, n_todo, run->dataset, method_name(run->method), run->r,
                    run->exit_layer, run->seed, row->test_f1, row->dev_f1, spent,
                    eta[0] ? ", ETA " : "", eta);
        } else {
            char why[1024];
            last_line(slot->log, why, sizeof why);
            failed++;
            fprintf(stderr, "[%d/%d] %s %s r=%d exit=%d seed=%d: FAILED (%s %d): %s (log %s)\n",
                    finished, n_todo, run->dataset, method_name(run->method), run->r,
                    run->exit_layer, run->seed, WIFEXITED(status) ? "exit" : "signal",
                    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), why, slot->log);
        }
    }
    if (fatal)
        for (int j = 0; j < jobs; j++)
            if (slots[j].pid > 0) {
                kill(slots[j].pid, SIGTERM);
                waitpid(slots[j].pid, NULL, 0);
            }
    free(slots);
    *n_finished = finished;
    return fatal ? -1 : failed;
}

int cmd_sweep(int argc, char **argv)
{
    const char *data_text = NULL, *model = NULL, *encoder = NULL, *methods_text = NULL;
    const char *r_text = "1,2,4,8", *exits_text = "0", *seeds_text = "5,29,42,81,123";
    const char *out_path = NULL, *summary_arg = NULL, *runs_arg = NULL;
    SweepFinetuneOptions ft = {.epochs = 5};
    int plan_only = 0, jobs = 1, stop_after = 0;
    ArgSpec specs[] = {
        {"data", ARG_STRING, &data_text, "data directories (train/dev/test.conll), comma-separated", 1, 0, 0},
        {"model", ARG_STRING, &model, "pre-trained checkpoint; {data} stands for the dataset name", 1, 0, 0},
        {"encoder-model", ARG_STRING, &encoder, "MLM checkpoint for method encoder ({data} as above)", 0, 0, 0},
        {"methods", ARG_STRING, &methods_text, "causal,sr,unmask-full,unmask-middle[,encoder] (default: "
                                               "these four, and encoder with --encoder-model)", 0, 0, 0},
        {"r", ARG_STRING, &r_text, "repetitions for sr (default 1,2,4,8)", 0, 0, 0},
        {"exits", ARG_STRING, &exits_text, "exit layers, 0 = full depth (default 0)", 0, 0, 0},
        {"seeds", ARG_STRING, &seeds_text, "seeds (default 5,29,42,81,123)", 0, 0, 0},
        {"epochs", ARG_INT, &ft.epochs, "fine-tuning epochs of every run (default 5)", 0, 1, 0},
        {"lr", ARG_FLOAT, &ft.lr, "peak learning rate (default: finetune's)", 0, 0, 0},
        {"batch", ARG_INT, &ft.batch, "sentences per step (default: finetune's)", 0, 1, 0},
        {"threads", ARG_INT, &ft.threads, "threads per run (default: cores / jobs)", 0, 0, 0},
        {"jobs", ARG_INT, &jobs, "runs at the same time (default 1)", 0, 1, 0},
        {"out", ARG_STRING, &out_path, "sweep CSV, one row per run; kept and resumed", 1, 0, 0},
        {"summary", ARG_STRING, &summary_arg, "markdown summary (default: OUT with .md)", 0, 0, 0},
        {"runs-dir", ARG_STRING, &runs_arg, "per-run files (default: OUT without .csv, plus .runs)", 0, 0, 0},
        {"plan", ARG_FLAG, &plan_only, "print the remaining runs' commands, one a line, and stop", 0, 0, 0},
        {"stop-after", ARG_INT, &stop_after, "stop after N finished runs (for tests; 0 = all)", 0, 0, 0},
    };
    int rc = args_parse(CMD, "--data DIR[,DIR...] --model M [--encoder-model E] [--methods LIST] "
                             "[--r 1,2,4,8] [--exits 0] [--seeds 5,29,42,81,123] [--epochs E] "
                             "--out sweep.csv [--plan]",
                        specs, (int)(sizeof specs / sizeof specs[0]), argc, argv, NULL, 0, NULL);
    if (rc) return rc == 1 ? 0 : rc;
    ft.lr_set = specs[8].set;
    ft.batch_set = specs[9].set;
    ft.threads_set = specs[10].set;
    if (ft.lr_set && !(ft.lr > 0.0f)) return args_error(CMD, "--lr must be positive");
    if (!ft.threads_set && jobs > 1) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        ft.threads = cores > jobs ? (int)(cores / jobs) : 1;
        ft.threads_set = 1;
    }
    if (!methods_text) methods_text = encoder ? "causal,sr,unmask-full,unmask-middle,encoder"
                                              : "causal,sr,unmask-full,unmask-middle";

    SrError err;
    Method methods[METHOD_COUNT];
    int n_methods = 0, *r_values = NULL, n_r = 0, *exits = NULL, n_exits = 0, *seeds = NULL, n_seeds = 0;
    char **dirs = NULL, *dirs_buf = NULL;
    int n_dirs = 0, n_runs = 0, *todo = NULL;
    SweepRun *runs = NULL;
    SweepTable table = {0};
    LayerCache *cache = calloc(1, sizeof *cache);
    char summary_path[1100], runs_dir[1100], exe[4096];
    rc = 2;
    if (!cache) {
        args_error(CMD, "out of memory");
        goto done;
    }
    if (sweep_parse_methods(methods_text, methods, &n_methods, &err)) {
        args_error(CMD, "--methods: %s", err.msg);
        goto done;
    }
    if (sweep_parse_int_list(r_text, 1, &r_values, &n_r, &err)) {
        args_error(CMD, "--r: %s (sr needs r >= 1; r = 0 is the causal method)", err.msg);
        goto done;
    }
    if (sweep_parse_int_list(exits_text, 0, &exits, &n_exits, &err)) {
        args_error(CMD, "--exits: %s", err.msg);
        goto done;
    }
    if (sweep_parse_int_list(seeds_text, 0, &seeds, &n_seeds, &err)) {
        args_error(CMD, "--seeds: %s", err.msg);
        goto done;
    }
    /* the data directories */
    dirs_buf = strdup(data_text);
    dirs = calloc(strlen(data_text) + 1, sizeof(char *));
    if (!dirs_buf || !dirs) {
        args_error(CMD, "out of memory");
        goto done;
    }
    for (char *save = NULL, *d = strtok_r(dirs_buf, ",", &save); d; d = strtok_r(NULL, ",", &save))
        dirs[n_dirs++] = d;
    if (n_dirs == 0) {
        args_error(CMD, "--data names no directory");
        goto done;
    }
    if (replace_extension(out_path, ".runs", runs_dir, sizeof runs_dir) ||
        replace_extension(out_path, ".md", summary_path, sizeof summary_path)) {
        args_error(CMD, "--out: path too long");
        goto done;
    }
    if (runs_arg) snprintf(runs_dir, sizeof runs_dir, "%s", runs_arg);
    if (summary_arg) snprintf(summary_path, sizeof summary_path, "%s", summary_arg);
    ssize_t exe_len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (exe_len <= 0) {
        args_error(CMD, "cannot find this program's path (/proc/self/exe)");
        goto done;
    }
    exe[exe_len] = 0;

    SweepGrid grid = {.data_dirs = (const char *const *)dirs, .n_data = n_dirs, .model = model,
                      .encoder_model = encoder, .methods = methods, .n_methods = n_methods,
                      .r_values = r_values, .n_r = n_r, .exits = exits, .n_exits = n_exits,
                      .seeds = seeds, .n_seeds = n_seeds};
    if (sweep_grid_expand(&grid, &runs, &n_runs, &err) ||
        sweep_resolve_exits(runs, &n_runs, count_layers, cache, &err)) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }

    /* what is done already: rows of the CSV, then result files in the runs dir */
    if (access(out_path, F_OK) == 0 && sweep_table_read(out_path, &table, NULL, &err)) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }
    for (int i = 0; i < n_runs; i++) {
        int k = sweep_table_find(&table, &runs[i]);
        if (k >= 0 && table.rows[k].epochs != ft.epochs) {
            args_error(CMD, "%s already holds runs of %d epochs (%s), this sweep asks for %d; "
                            "give another --out", out_path, table.rows[k].epochs,
                       table.rows[k].source, ft.epochs);
            goto done;
        }
    }
    todo = malloc(sizeof(int) * (size_t)n_runs);
    if (!todo) {
        args_error(CMD, "out of memory");
        goto done;
    }
    int n_before = table.n, n_todo = sweep_remaining(runs, n_runs, &table, todo);
    const Sweep sw = {runs, &table, &ft, exe, runs_dir, out_path, summary_path, ft.epochs};
    for (int i = 0; i < n_todo; i++) {
        char csv[1100];
        SrError e;
        if (sweep_run_path(&runs[todo[i]], runs_dir, csv, sizeof csv, &err)) {
            args_error(CMD, "%s", err.msg);
            goto done;
        }
        if (access(csv, F_OK) == 0 && take_result(&sw, todo[i], csv, &e) != 0)
            fprintf(stderr, "seqrep %s: %s: not taken, the run is done again (%s)\n", CMD, csv, e.msg);
    }
    int n_found = table.n - n_before;
    n_todo = sweep_remaining(runs, n_runs, &table, todo);
    if (check_runs_fit(runs, todo, n_todo, &err)) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }
    if (make_dirs(runs_dir, &err) || save(&sw, &err)) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }
    fprintf(stderr, "seqrep %s: %d runs in the grid; %d done before (%d of them found in %s), %d to do\n",
            CMD, n_runs, n_runs - n_todo, n_found, runs_dir, n_todo);

    if (plan_only) {
        for (int i = 0; i < n_todo; i++) {
            char csv[1100], **cargv = NULL, *line = NULL;
            int cargc = 0;
            if (sweep_run_path(&runs[todo[i]], runs_dir, csv, sizeof csv, &err) ||
                sweep_run_argv(&runs[todo[i]], &ft, exe, csv, &cargv, &cargc, &err)) {
                args_error(CMD, "%s", err.msg);
                goto done;
            }
            line = sweep_command_line(cargv, cargc);
            sweep_argv_free(cargv, cargc);
            if (!line) {
                args_error(CMD, "out of memory");
                goto done;
            }
            printf("%s\n", line);
            free(line);
        }
        rc = 0;
        goto done;
    }

    int n_finished = 0;
    int failed = run_all(&sw, todo, n_todo, jobs, stop_after, &n_finished, &err);
    if (failed < 0) {
        args_error(CMD, "%s", err.msg);
        goto done;
    }
    int left = sweep_remaining(runs, n_runs, &table, todo);
    printf("sweep: %d of %d runs in %s (summary %s); %d run now, %d failed%s\n", n_runs - left,
           n_runs, out_path, summary_path, n_finished, failed,
           left && !failed ? "; run the same command again to go on" : "");
    if (failed) {
        fprintf(stderr, "seqrep %s: %d runs failed; their logs are in %s\n", CMD, failed, runs_dir);
        rc = 1;
        goto done;
    }
    rc = 0;
done:
    free(todo);
    sweep_table_free(&table);
    free(runs);
    free(dirs);
    free(dirs_buf);
    free(r_values);
    free(exits);
    free(seeds);
    free(cache);
    return rc;
}

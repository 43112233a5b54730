/* sweep_jobs.c — the remaining runs of a sweep as child processes, their
 * results into the table (see sweep_jobs.h). */
#include "runs/sweep/sweep_jobs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "label/methods.h"
#include "runs/sweep/sweep_read.h"
#include "runs/sweep/sweep_summary.h"

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

int sweep_jobs_save(const SweepJobs *s, SrError *err)
{
    return sweep_table_write(s->out_path, s->table, err) ||
           sweep_summary_write(s->summary_path, s->table, err) ? -1 : 0;
}

int sweep_jobs_take(const SweepJobs *s, int run, const char *csv, SrError *err)
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
static int start_run(const SweepJobs *s, Slot *slots, int jobs, int run, SrError *err)
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
static int finish_run(const SweepJobs *s, const Slot *slot, int status, int finished, int n_todo,
                      const char *spent, const char *eta, SrError *err)
{
    const SweepRun *run = &s->runs[slot->run];
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        SrError e;
        if (sweep_jobs_take(s, slot->run, slot->csv, &e) || sweep_jobs_save(s, &e)) {
            *err = e;
            return -1;
        }
        const SweepRow *row = &s->table->rows[sweep_table_find(s->table, run)];
        fprintf(stderr, "[%d/%d] %s %s r=%d exit=%d seed=%d%s%s%s: test F1 %.2f (dev %.2f), %s%s%s\n",
                finished, n_todo, run->dataset, method_name(run->method), run->r,
                run->exit_layer, run->seed, strcmp(sweep_recipe(run), "full") ? " recipe=" : "",
                strcmp(sweep_recipe(run), "full") ? run->recipe : "",
                sweep_positions_words(run->positions),
                row->test_f1, row->dev_f1, spent,
                eta[0] ? ", ETA " : "", eta);
        return 0;
    }
    char why[1024];
    last_line(slot->log, why, sizeof why);
    fprintf(stderr, "[%d/%d] %s %s r=%d exit=%d seed=%d%s: FAILED (%s %d): %s (log %s)\n",
            finished, n_todo, run->dataset, method_name(run->method), run->r, run->exit_layer,
            run->seed, sweep_positions_words(run->positions),
            WIFEXITED(status) ? "exit" : "signal",
            WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), why, slot->log);
    return 1;
}

/* What the run loop counts. */
typedef struct {
    Slot *slots;
    int jobs, n_todo, active, finished, failed;
    double total_w, done_w, t0;
} RunLoop;

/* Wait for a child of the sweep: its pid and *status; 0 once *s->stop is
 * set, -1 on an error (errno). Polls, so that a signal is seen within 50 ms. */
static pid_t wait_child(const SweepJobs *s, int *status)
{
    const struct timespec pause = {0, 50000000};
    for (;;) {
        pid_t pid = waitpid(-1, status, WNOHANG);
        if (pid > 0 || (pid < 0 && errno != EINTR)) return pid;
        if (*s->stop) return 0;
        nanosleep(&pause, NULL);
    }
}

/* The child pid ended with status: free its slot and, unless it was stopped
 * by the interruption, take its result or name its failure (finish_run).
 * 0, or -1 on an error that stops the sweep (err filled). */
static int child_ended(const SweepJobs *s, RunLoop *L, pid_t pid, int status, SrError *err)
{
    Slot *slot = NULL;
    for (int j = 0; j < L->jobs && !slot; j++)
        if (L->slots[j].pid == pid) slot = &L->slots[j];
    if (!slot) return 0;
    slot->pid = 0;
    L->active--;
    if (*s->stop && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) return 0;
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
 * wait for them; when stopped by a signal, one that finished meanwhile is
 * taken. */
static int stop_children(const SweepJobs *s, RunLoop *L, SrError *err)
{
    int rc = 0;
    for (int j = 0; j < L->jobs; j++) {
        pid_t pid = L->slots[j].pid;
        if (pid <= 0) continue;
        kill(pid, SIGTERM);
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        if (rc == 0 && *s->stop) rc = child_ended(s, L, pid, status, err);
        L->slots[j].pid = 0;
    }
    return rc;
}

int sweep_jobs_run(const SweepJobs *s, const int *todo, int n_todo, int jobs, int stop_after,
                   int *n_finished, SrError *err)
{
    RunLoop L = {.slots = calloc((size_t)jobs, sizeof(Slot)), .jobs = jobs, .n_todo = n_todo,
                 .t0 = now_seconds()};
    if (!L.slots) return sr_fail(err, "out of memory");
    for (int i = 0; i < n_todo; i++) L.total_w += run_weight(&s->runs[todo[i]]);
    int next = 0, fatal = 0;
    while (!fatal && !*s->stop &&
           (L.active > 0 || (next < n_todo && !(stop_after && L.finished >= stop_after)))) {
        while (!*s->stop && L.active < jobs && next < n_todo &&
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
        pid_t pid = wait_child(s, &status);
        if (pid < 0) {
            sr_fail(err, "waiting for a run: %s", strerror(errno));
            fatal = 1;
        } else if (pid > 0 && child_ended(s, &L, pid, status, err)) {
            fatal = 1;
        }
    }
    SrError later; /* after a fatal error, err keeps its first message */
    if ((fatal || *s->stop) && stop_children(s, &L, fatal ? &later : err)) fatal = 1;
    free(L.slots);
    *n_finished = L.finished;
    return fatal ? -1 : L.failed;
}

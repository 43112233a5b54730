/* bench_util.c — clocks, medians, the machine and child processes for the
 * benchmark (see bench.h). */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "label/cost.h"

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *values, int n)
{
    qsort(values, (size_t)n, sizeof(double), compare_doubles);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

void bench_cpu_model(char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                snprintf(out, size, "%s", colon + 2);
                out[strcspn(out, "\n")] = '\0';
            }
            break;
        }
    }
    fclose(f);
}

double bench_load_average(void)
{
    double load = -1.0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &load) != 1) load = -1.0;
        fclose(f);
    }
    return load;
}

int bench_in_child(int (*fn)(const void *arg, void *result), const void *arg, void *result,
                   size_t result_size, double *peak_rss)
{
    int fds[2];
    if (pipe(fds) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]), close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        int rc = fn(arg, result);
        size_t done = 0;
        while (rc == 0 && done < result_size) {
            ssize_t w = write(fds[1], (const char *)result + done, result_size - done);
            if (w <= 0) rc = -1;
            else done += (size_t)w;
        }
        _exit(rc == 0 ? 0 : 1);
    }
    close(fds[1]);
    size_t got = 0;
    while (got < result_size) {
        ssize_t r = read(fds[0], (char *)result + got, result_size - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fds[0]);
    int status = 0;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) != pid) return -1;
    *peak_rss = 1024.0 * (double)usage.ru_maxrss;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 && got == result_size ? 0 : -1;
}

double bench_forward_flops(const ModelConfig *c, int B, int T, int n_run, int with_lm_head)
{
    int L = n_run > 0 && n_run < c->n_layers ? n_run : c->n_layers;
    double lm_head = with_lm_head ? 2.0 * c->d_model * c->vocab_size * T : 0.0;
    return (double)B * (cost_forward_flops(c, T, L, NULL) + lm_head);
}

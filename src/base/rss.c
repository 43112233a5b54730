/* rss.c — resident memory of this process (see rss.h). */
#include "base/rss.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* The KiB value of the line starting with key ("VmRSS:") of
 * /proc/self/status; -1 if there is none. */
static long proc_status_kib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kib = -1;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && sscanf(line + n, "%ld", &kib) == 1) break;
    fclose(f);
    return kib;
}

long rss_now_kib(void) { return proc_status_kib("VmRSS:"); }

double rss_peak_bytes(void)
{
    long kib = proc_status_kib("VmHWM:");
    if (kib >= 0) return 1024.0 * (double)kib;
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) == 0) return 1024.0 * (double)usage.ru_maxrss;
    return 0.0;
}

double memory_limit_bytes(const char **what)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double limit = pages > 0 && page > 0 ? (double)pages * (double)page : 0.0;
    *what = "the machine's memory";
    const int resources[2] = {RLIMIT_AS, RLIMIT_DATA};
    const char *names[2] = {"ulimit -v", "ulimit -d"};
    for (int i = 0; i < 2; i++) {
        struct rlimit rl;
        if (getrlimit(resources[i], &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) continue;
        if (limit == 0.0 || (double)rl.rlim_cur < limit) {
            limit = (double)rl.rlim_cur;
            *what = names[i];
        }
    }
    return limit;
}

double memory_available_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0.0;
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "MemAvailable:", 13) == 0 && sscanf(line + 13, "%ld", &kib) == 1) break;
    fclose(f);
    return kib > 0 ? 1024.0 * (double)kib : 0.0;
}
